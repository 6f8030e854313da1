"""What the language server knows, without the protocol (rulesdsl/cli/lsp_server.py speaks
LSP): one knowledge base per root as an editor sees it — its files on disk, with the text of the
open buffers in place of theirs — its findings (the very ones `rulesdsl check` reports), and what
is under the cursor: a ruling, rule section, scenario, card, rule point or vocabulary word.

Places are kept as the rest of rulesdsl keeps them: 1-based lines and columns counted in
characters (code points, as Lark counts). The server converts them to the editor's units.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from ..base import files
from ..kb.build import from_documents, load
from ..kb.knowledge import KnowledgeBase
from ..kb.loader import MAX_FILE_BYTES, display_path, no_gc, parse_one, too_large
from ..lang.diagnostics import Diagnostic
from ..lang.model import Card, Deck, Document, Game, Loc, Ruling, Scenario, Section
from .check import findings_of

# an id, a card code, a rule point or a vocabulary word (the grammar's NAME)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*(?:[.\/][A-Za-z0-9_\-]+)*")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"?')
BRACKETED = re.compile(r"《[^》\n]*》")
DECL = re.compile(r"^[\t \u3000]*(game|section|ruling|scenario|deck|card)[\t \u3000]+"
                  r"([A-Za-z_][A-Za-z0-9_\-]*(?:[.\/][A-Za-z0-9_\-]+)*)")
DECL_KINDS = ("game", "section", "card", "ruling", "scenario", "deck")


# ----------------------------------------------------------------------------- texts

class Texts:
    """The text of any file a place may point into: an open buffer's, else the file's on disk
    (read as the loader reads it, kept while its size and time stay the same)."""

    def __init__(self) -> None:
        self.buffers: dict[str, str] = {}          # path -> text of an open buffer
        self._disk: dict[str, tuple[tuple, list[str]]] = {}
        self._lock = threading.Lock()

    def lines(self, path: str) -> list[str]:
        text = self.buffers.get(path)
        if text is not None:
            return split_lines(text)
        try:
            st = os.stat(path)
        except OSError:
            return []
        stamp = (st.st_size, st.st_mtime_ns)
        with self._lock:
            kept = self._disk.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            found = split_lines(files.read_regular(path).decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            found = []
        with self._lock:
            self._disk[path] = (stamp, found)
        return found


def split_lines(text: str) -> list[str]:
    """Lines as the parser counts them (at "\\n"; a "\\r" before it is not part of the line);
    a byte-order mark, which the loader drops, is dropped here too."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


# ----------------------------------------------------------------------------- the knowledge base

class Session:
    """The knowledge base under one root, as the editor sees it. `view()` builds it with the
    open buffers in place of their files; it is rebuilt only when a buffer or a file changed.
    A file that does not parse is left out of the build and reported, as `check` does: nothing
    in a buffer stops the session."""

    def __init__(self, root: Path, use_cache: bool = True) -> None:
        self.root = root
        self.use_cache = use_cache
        self.lock = threading.RLock()               # one build at a time
        self.disk: Optional[KnowledgeBase] = None   # the files as saved
        self.current: Optional[KnowledgeBase] = None    # the last view built
        self.good: Optional[KnowledgeBase] = None       # the last one in which every buffer parsed
        self.stale = True                           # the files on disk changed since `disk` was loaded
        self._parsed: dict[str, tuple[str, Optional[Document], list[Diagnostic]]] = {}
        self._built_from: Optional[tuple] = None

    def name(self, path: str) -> str:
        """The name a file has in this knowledge base's findings (as `check` names it)."""
        if "://" in path or path.startswith("untitled:"):
            return path
        return display_path(Path(path), self.root)

    def path(self, name: str) -> str:
        if "://" in name or os.path.isabs(name) or name.startswith("untitled:"):
            return name
        return str(self.root / name)

    def files_changed(self) -> None:
        self.stale = True
        self.good = None

    def loaded(self) -> KnowledgeBase:
        with self.lock:
            if self.disk is None or self.stale:
                self.stale = False
                self.disk = load(self.root, use_cache=self.use_cache)
                self._built_from = None
            return self.disk

    def navigable(self) -> KnowledgeBase:
        """The knowledge base hover, definitions and completion read: the last view in which
        every buffer parsed (a buffer with a syntax error is left out of its view, and its
        rulings would vanish from under the cursor), else the files as saved."""
        return self.good or self.current or self.disk or self.loaded()

    def parse(self, name: str, text: str) -> tuple[Optional[Document], list[Diagnostic]]:
        """The buffer's text parsed as the loader parses a file's bytes (kept until it changes)."""
        data = text.encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(name.encode("utf-8", "surrogateescape") + b"\0" + data,
                                 digest_size=20).hexdigest()
        kept = self._parsed.get(name)
        if kept is not None and kept[0] == digest:
            return kept[1], kept[2]
        if len(data) > MAX_FILE_BYTES:      # refused as `check` refuses the file
            doc, problems = None, [too_large(name, data)]
        else:
            doc, problems = parse_one(name, data, digest)
        self._parsed[name] = (digest, doc, problems)
        return doc, problems

    def view(self, buffers: dict[str, str]) -> KnowledgeBase:
        """The knowledge base with the text of `buffers` (path -> text) in place of their files;
        files outside the knowledge base are checked together with it, as `check FILE` does."""
        with self.lock:
            disk = self.loaded()
            own = {self.name(p): t for p, t in sorted(buffers.items())}
            key = (id(disk), tuple((n, hashlib.blake2b(t.encode("utf-8", "surrogatepass")).digest())
                                   for n, t in own.items()))
            if self._built_from == key and self.current is not None:
                return self.current
            with no_gc():        # parsing and building make many objects and no cycles
                parsed = {n: self.parse(n, t) for n, t in own.items()}
            for name in list(self._parsed):
                if name not in parsed:
                    del self._parsed[name]
            by_name = {d.path: d for d in disk.documents}
            names = list(disk.files) + [n for n in parsed if n not in set(disk.files)]
            docs = []
            for n in names:
                doc = parsed[n][0] if n in parsed else by_name.get(n)
                if doc is not None:
                    docs.append(doc)
            with no_gc():
                kb = from_documents(self.root, docs, names, previous=self.current or disk)
            # what loading said about the files not open (a syntax error, an unreadable file),
            # and what parsing said about the buffers
            kb.diagnostics[:0] = [d for d in disk.diagnostics
                                  if d.fatal and (d.loc is None or d.loc.file not in parsed)] + \
                [d for _, problems in parsed.values() for d in problems]
            self.current = kb
            self._built_from = key
            if all(doc is not None for doc, _ in parsed.values()):
                self.good = kb
            return kb

    def findings(self, buffers: dict[str, str]) -> dict[str, list[Diagnostic]]:
        """The findings of `check` for each buffer (path -> findings in its order)."""
        kb = self.view(buffers)
        everything = findings_of(kb)
        out: dict[str, list[Diagnostic]] = {p: [] for p in buffers}
        by_name = {self.name(p): p for p in buffers}
        for d in everything:
            if d.loc is None:
                for found in out.values():
                    found.append(d)
            elif d.loc.file in by_name:
                out[by_name[d.loc.file]].append(d)
        return out


# ----------------------------------------------------------------------------- the cursor

@dataclass
class Word:
    text: str            # as written (a string or 《name》 without its quotes)
    kind: str            # name, string, bracketed
    line: int            # 1-based
    start: int           # 1-based column of its first character
    end: int             # column after its last


def words_at(lines: list[str], line: int, col: int) -> list[Word]:
    """The words under a 1-based place, the most specific first: a 《name》, a NAME (an id, a
    code, a point, a vocabulary word; also inside a string: No.058 in a ruling's text), then
    the quoted string around the place. The cursor just after a word is on it."""
    if not 1 <= line <= len(lines):
        return []
    text = lines[line - 1]
    i = col - 1
    out = []
    for m in BRACKETED.finditer(text):
        if m.start() <= i <= m.end():
            out.append(Word(m.group()[1:-1], "bracketed", line, m.start() + 1, m.end() + 1))
    for m in WORD.finditer(text):
        if m.start() <= i <= m.end():
            out.append(Word(m.group(), "name", line, m.start() + 1, m.end() + 1))
            break
    for m in STRING.finditer(text):
        if m.start() <= i < m.end():
            value = m.group()
            inner = value[1:-1] if len(value) > 1 and value.endswith('"') else value[1:]
            out.append(Word(inner, "string", line, m.start() + 1, m.end() + 1))
            break
    return out


def game_at(kb: Optional[KnowledgeBase], lines: list[str], line: int, path: str = "") -> Optional[str]:
    """The game of the declaration a line is in: the nearest declaration header above it whose
    id names a game; else the folder (rulings/GAME/, cards/GAME/); else the only game."""
    games = kb.games if kb is not None else {}
    for n in range(min(line, len(lines)) - 1, -1, -1):
        m = DECL.match(lines[n])
        if not m:
            continue
        kind, ident = m.groups()
        game = ident if kind in ("game", "card") else ident.split("/", 1)[0]
        if game in games:
            return game
    parts = Path(path).parts
    for i, part in enumerate(parts[:-1]):
        if part in ("rulings", "cards") and parts[i + 1] in games:
            return parts[i + 1]
    return next(iter(games)) if len(games) == 1 else None


def decls_of(doc: Document) -> Iterator[tuple[str, str, object]]:
    """(kind, id, node) of every declaration of a document, with the scenarios inside rulings."""
    for d in doc.decls:
        if isinstance(d, Game):
            yield "game", d.id, d
        elif isinstance(d, Card):
            yield "card", f"{d.game}:{d.code}", d
        elif isinstance(d, (Section, Ruling, Scenario, Deck)):
            yield type(d).__name__.lower(), d.id, d
        if isinstance(d, Ruling):
            for s in (*d.scenarios, *(s for r in d.revisions for s in r.scenarios)):
                yield "scenario", s.id, s


def scenario_at(kb: KnowledgeBase, name: str, line: int) -> Optional[Scenario]:
    """The scenario whose text holds `line` of file `name`, if any."""
    for doc in kb.documents:
        if doc.path != name:
            continue
        found = None
        for kind, _, node in decls_of(doc):
            if kind == "scenario" and node.loc.line <= line and (found is None or node.loc.line >= found.loc.line):
                found = node
        if found is not None and _ends_after(doc, found, line):
            return found
    return None


def _ends_after(doc: Document, s: Scenario, line: int) -> bool:
    """Whether `line` is before the next declaration after scenario `s` starts."""
    after = [node.loc.line for _, _, node in decls_of(doc) if node.loc.line > s.loc.line]
    return not after or line < min(after)


# ----------------------------------------------------------------------------- what a word names

@dataclass
class Target:
    kind: str            # ruling, section, scenario, game, deck, point, card, entry, enum
    ident: str           # what find-references looks for (an id, a code, a point, a word)
    game: Optional[str]
    node: object
    loc: Optional[Loc]
    card: Optional[str] = None  # the card of a per-card rule point: card(No.142).stack_scope


def resolve(kb: KnowledgeBase, word: Word, game: Optional[str], lines: list[str],
            scenario: Optional[Scenario] = None) -> Optional[Target]:
    """What a word names in `kb`, in the context of `game` (and of the scenario it is in)."""
    text = word.text
    if word.kind == "name":
        for kind, table in (("ruling", kb.rulings), ("section", kb.sections), ("game", kb.games),
                            ("deck", kb.decks)):
            if text in table:
                node = table[text]
                node = getattr(node, "decl", node) if kind == "game" else getattr(node, "deck", node)
                return Target(kind, text, text.split("/", 1)[0], node, node.loc)
        if text in kb.scenarios:
            s = kb.scenarios[text].scenario
            return Target("scenario", text, s.game, s, s.loc)
    info = kb.games.get(game) if game else None
    if info is None:
        return None
    if word.kind == "name" and text in info.points:
        p = info.points[text]
        before = lines[word.line - 1][:word.start - 1] if 1 <= word.line <= len(lines) else ""
        m = re.search(r"card\(\s*([^)\s]+)\s*\)\.$", before)
        return Target("point", text, game, p, p.loc, card=m.group(1) if m else None)
    if scenario is not None and word.kind in ("string", "name"):
        own = next((c for c in scenario.cards if c.code == text), None)
        if own is not None and (game, text) not in kb.cards:
            return Target("card", text, game, own, own.loc)
    cards = kb.find_cards(text, game) if word.kind != "name" or (game, text) in kb.cards else []
    if cards:
        c = cards[0]
        return Target("card", c.code, game, c, c.card.loc)
    if word.kind == "name":
        for kind, entries in info.vocab.entries.items():
            if text in entries:
                e = entries[text]
                return Target("entry", text, game, e, e.loc)
        if text in info.vocab.enums:
            e = info.vocab.enums[text]
            return Target("enum", text, game, e, e.loc)
    return None


# ----------------------------------------------------------------------------- hover

def hover_text(kb: KnowledgeBase, t: Target, today: Optional[_dt.date] = None) -> str:
    """Markdown for a hover: what the target says, as of today."""
    from .show import card_data, in_force_data, point_data, section_data
    day = today or _dt.date.today()
    out: list[str] = []
    add = out.append
    if t.kind == "ruling":
        r = t.node
        add(f"**ruling** `{r.id}` — {r.title}" + (f"  ·  gap: {r.gap}" if r.gap else ""))
        state = in_force_data(kb, r, day)
        now = kb.in_force(r.id, day)
        if now is not None:
            add(f"\n**in force today ({day.isoformat()})**: revision {_rev_label(now)} — "
                f"{_status_words(kb, r.game, now)}")
            if state.get("fuzzy"):
                add(f"\n_{state['fuzzy']}_")
            add(_rev_body(now))
        elif state["state"] == "not yet ruled":
            add(f"\n**not yet ruled today ({day.isoformat()})**" +
                (f": the first revision is {state['first']} ({state['first_ja']})" if state.get("first") else ""))
        elif state["state"] == "retracted":
            add(f"\n**retracted today ({day.isoformat()})** (revision {state['revision']})")
        else:
            add(f"\n**superseded today ({day.isoformat()})** by {', '.join(state['by'])}")
        others = [rev for rev in r.revisions if rev is not now]
        if others:
            add("\n**other revisions**:")
            for rev in others:
                when = "later" if rev.date is not None and rev.date.start() > day else "earlier"
                add(f"- {when}: {_rev_label(rev)} — {_status_words(kb, r.game, rev)}" +
                    (f": {rev.text.value}" if rev.text and rev.text.value else ""))
    elif t.kind == "section":
        d = section_data(kb, t.node, day)
        add(f"**rule section** `{d['id']}` — {d['title']}")
        if d["source"]:
            add(f"\nsource: {d['source']}")
        if d["text"]:
            add("\n" + _quote(d["text"]))
        for p in d.get("points", ()):
            add(f"- `{p['point']}` = `{p['value']}` ({p['status']}, from {p['from']})")
    elif t.kind == "point":
        d = point_data(kb, t.game, t.ident, None)
        v = kb.value(t.game, t.ident, card=t.card, as_of=day)
        p = t.node
        add(f"**rule point** `{d['id']}`" + (f" — {d['label']}" if d.get("label") else ""))
        where = f" for {t.card}" if t.card else ""
        add(f"\n**value today{where} ({day.isoformat()})**: `{v.value}` — {v.status.value} "
            f"({v.status.ja}), from {v.cite or 'nothing'}" + (f" · {v.source}" if v.source else ""))
        if v.fuzzy:
            add(f"\n_{v.fuzzy}_")
        if v.conflicts:
            add(f"\n**contradicted** by {', '.join(v.conflicts)}")
        if p.unsettled:
            add(f"\n**unsettled**: the sources leave it open (gap ruling `{p.unsettled}`); readings: " +
                ", ".join(f"`{x}`" for x in p.readings))
        add("\nvalues: " + ", ".join(f"`{x}`" for x in d["values"]))
        if d.get("reason"):
            add(f"\nreason: {d['reason']}")
    elif t.kind == "card":
        if isinstance(t.node, Card):        # a scenario's own card
            c = t.node
            add(f"**card** `{c.code}` (this scenario's own card)")
            for cl in c.clauses:
                add(f"- {cl.head} " + " ".join(a.display() for a in cl.args))
        else:
            d = card_data(kb, t.node, day)
            add(f"**card** `{d['game']}:{d['code']}` 《{d['name']}》")
            if d["source"]:
                add(f"\nsource: {d['source']}")
            known = {k: v for k, v in d["facts"].items() if v != "unknown"}
            unknown = [k for k, v in d["facts"].items() if v == "unknown"]
            if known:
                add("\n**known**: " + "; ".join(f"{_fact_label(kb, t.game, k)} {_fact_value(v)}"
                                              for k, v in known.items()))
            if unknown:
                add("\n**not given by the source** (unknown): " +
                    ", ".join(_fact_label(kb, t.game, k) for k in unknown))
            add(f"\ntext: {d['text']}")
            for e in d["effects"]:
                add(f"- effect: {e}")
            for n in d["notes"]:
                add(f"\nnote: {n}")
            if d["rulings"]:
                add("\nrulings: " + ", ".join(f"`{x}`" for x in d["rulings"]))
    elif t.kind == "entry":
        e = t.node
        sig = " ".join((f"[{p.name}:{'|'.join(p.types)}]" if p.optional else
                        f"{p.name}:{'|'.join(p.types)}{'…' if p.many else ''}") for p in e.params)
        add(f"**{e.kind}** `{e.name}`" + (f" — {e.label}" if e.label else ""))
        add(f"\n`{(e.name + ' ' + sig).strip()}`")
        if e.body:
            add(f"\nits block holds {e.body} statements")
    elif t.kind == "enum":
        e = t.node
        add(f"**enum** `{e.name}`" + (f" — {e.label}" if e.label else ""))
        for k, v in e.values.items():
            add(f"- `{k}`" + (f" — {v}" if v else ""))
    elif t.kind == "scenario":
        s = t.node
        add(f"**scenario** `{s.id}` — {s.title}")
        if s.question:
            add(f"\nquestion: {s.question}")
        if s.as_of:
            add(f"\nas of {s.as_of} ({s.as_of.ja()})")
    elif t.kind == "game":
        g = t.node
        add(f"**game** `{g.id}` — {g.name}")
    elif t.kind == "deck":
        add(f"**deck** `{t.node.id}` — {t.node.title}")
    return "\n".join(out)


def _rev_label(rev) -> str:
    return f"{rev.date_label} ({rev.date_ja})"


def _status_words(kb: KnowledgeBase, game: str, rev) -> str:
    from .show import authority
    source = authority(kb, game, rev.source)
    return f"{rev.status.value} {rev.status.ja}" + (f"（出典: {source}）" if source else "")


def _rev_body(rev) -> str:
    parts = []
    if rev.source:
        parts.append(f"source: {rev.source.raw}")
    if rev.text and rev.text.value:
        parts.append(_quote(rev.text.value))
    for s in rev.settings:
        parts.append(f"- sets `{s.target()} = {s.value}`")
    if rev.reason:
        parts.append(f"reason: {rev.reason}")
    return "\n" + "\n\n".join(parts) if parts else ""


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines())


def _fact_label(kb: KnowledgeBase, game: str, fact: str) -> str:
    label = kb.games[game].vocab.label("fact", fact)
    return f"{label} ({fact})" if label else fact


def _fact_value(v) -> str:
    if isinstance(v, dict):
        return " ".join(str(x) for x in v.values())
    return {True: "yes", False: "no"}.get(v, str(v)) if isinstance(v, bool) else str(v)


# ----------------------------------------------------------------------------- definitions and references

def definition(t: Target) -> Optional[Loc]:
    return t.loc


def references(kb: KnowledgeBase, t: Target, texts: Texts, session: Session,
               include_declaration: bool = True) -> list[tuple[str, int, int, int]]:
    """Where the target is named: (path, line, start column, end column) in every file of the
    knowledge base and every open buffer — ids as whole words, a card also by its quoted name
    or 《name》; rule points, cards and vocabulary words only where their game is meant."""
    names = [t.ident]
    quoted: list[str] = []
    if t.kind == "card" and not isinstance(t.node, Card):
        if t.node.card.name:
            quoted = [f'"{t.node.card.name}"', f"《{t.node.card.name}》"]
    game_bound = t.kind in ("point", "card", "entry", "enum")
    out = []
    seen_paths = set()
    paths = [session.path(n) for n in kb.files] + [p for p in texts.buffers if session.name(p) in kb.files]
    for path in paths:
        if path in seen_paths:
            continue
        seen_paths.add(path)
        lines = texts.lines(path)
        for n, line in enumerate(lines, 1):
            if not any(x in line for x in names + quoted):
                continue
            hits = [(m.start(), m.end()) for m in WORD.finditer(line) if m.group() in names]
            for q in quoted:
                i = line.find(q)
                while i >= 0:
                    hits.append((i + 1, i + len(q) - 1))
                    i = line.find(q, i + 1)
            if hits and game_bound and game_at(kb, lines, n, path) != t.game:
                continue
            for a, b in sorted(hits):
                out.append((path, n, a + 1, b + 1))
    if not include_declaration and t.loc is not None:
        decl = (session.path(t.loc.file), t.loc.line)
        out = [r for r in out if (r[0], r[1]) != decl]
    return out


def id_span(lines: list[str], loc: Loc, ident: str) -> tuple[int, int]:
    """The columns of `ident` on the line of `loc` at or after it (the id after a keyword),
    else the place itself."""
    text = lines[loc.line - 1] if 1 <= loc.line <= len(lines) else ""
    bare = ident.split(":", 1)[-1]
    i = text.find(bare, max(loc.col - 1, 0))
    if i < 0:
        return loc.col, loc.col
    return i + 1, i + 1 + len(bare)


def target_at(kb: KnowledgeBase, lines: list[str], line: int, col: int, path: str,
              name: str) -> tuple[Optional[Target], Optional[Word]]:
    """What the words under the place name, the most specific that names something."""
    game = game_at(kb, lines, line, path)
    scenario = scenario_at(kb, name, line)
    for w in words_at(lines, line, col):
        t = resolve(kb, w, game, lines, scenario)
        if t is not None:
            return t, w
    return None, None
