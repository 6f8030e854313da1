#!/usr/bin/env python3
"""Generate a synthetic knowledge base at scale, for benchmarking `rulesdsl check`.

    python benchmarks/gen_corpus.py OUT_DIR [--cards 10000 --revisions 30000 --scenarios 10000 --seed 1]

OUT_DIR becomes a complete knowledge-base root (cards/ and rulings/). Every game of this
repository is used (one whose `rulings/<game>/game.rules` has findings is an error, not left
out): the declaration and its source documents (`rulings/<game>/sources/`) are copied as they
are, with the gap rulings its `unsettled` lines name (`rulings/<game>/copied-*.rules`); everything
else is generated and spread evenly over the games:

* one file per card under `cards/<game>/`: every fact of the game's vocabulary (a value or
  `unknown`), effects built from its triggers, modifiers and verbs, now and then an errata;
* rule sections under `rulings/<game>/rules/` (including every section a rule point's default
  names or a copied gap ruling refers to), citing real headings of the game's document with
  text that occurs under them; their notes quote the document;
* rulings under `rulings/<game>/rulings/` and gaps under `rulings/<game>/gaps/`, each with 1–4
  dated revisions (partial dates, statuses that firm up over time, retractions), citations and
  quotes that pass the citation check (a confirmed, provisional or unofficial revision quotes the
  line of the game's register, `sources/gen_register.txt`, that gives its date and status in a
  source's words: （2027年5月確認済み）, ※暫定ルール・非公式; the register also names every
  synthetic card by its code, which a card must be), settings of the game's real rule points (a gap reads
  only the points the declaration leaves unsettled), supersedes, refs between items;
* worked questions under `rulings/<game>/qa/`: variations of the repository's own (new ids and
  hypothetical card names, other days asked, now and then a known card of the corpus completed
  with `assume card CODE { … }`; the templates' pins left out, their status expectations settled), each answered against
  the corpus once it is written and kept only if it passes there (gen_scenarios.py): like the
  real corpus, every one passes `rulesdsl test`.

Settings never contradict each other: each (point[, card]) goes through "eras" of one value
(a copied gap ruling's reading opens its point's first era); a ruling that changes the value
supersedes every ruling of the previous era, and every ruling of an era is dated from the era's
start. The corpus passes `rulesdsl check` with no findings and `rulesdsl test` with no failure
(tests/test_gen_corpus.py; `assert_scenarios_pass` is what the benchmarks run first). The
vocabulary is read from the real knowledge base (`rulesdsl.kb.build.load`), so the generator follows
the games as they evolve.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import shutil
import string
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
for _path in (str(REPO), str(REPO / "benchmarks")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from gen_scenarios import Variations, templates  # noqa: E402

from rulesdsl.kb.build import load  # noqa: E402
from rulesdsl.kb.knowledge import GameInfo
from rulesdsl.kb.lint import GAP_KINDS, run_checks
from rulesdsl.kb.markers import markers_in
from rulesdsl.kb.sources import SourceDocument, normalize_line  # noqa: E402
from rulesdsl.lang.parser import GRAMMAR  # noqa: E402
from rulesdsl.lang.vocab import Entry, Param  # noqa: E402

# Every keyword of the grammar (`GAME: "game"` …): never generated as a bare word.
KEYWORDS = set(re.findall(r'^[A-Z]+:\s*"([a-z]+)"', GRAMMAR.read_text(encoding="utf-8"), re.M))
RESERVED_WORDS = KEYWORDS | {"unknown", "yes", "no"}

FIRST_DAY = dt.date(2012, 4, 1)
LAST_DAY = dt.date(2026, 10, 31)     # the latest "realistic" ruling date
HARD_LAST = dt.date(2027, 9, 30)     # later revisions of a late ruling may run to here

SLUG_WORDS = ("timing scope order target limit cost range face stack draw owner choice copy reveal "
              "swap chain trigger battle damage life turn phase zone hand deck field effect nullify "
              "replace skip bonus penalty first last tie zero double hidden public extra repeat "
              "counter priority response cancel resolve end start count area support point exit "
              "break cast soul guard royal score attack defense reroll column row spell").split()
CHOICE_WORDS = ("left right top bottom first second odd even attack defend keep swap draw pass "
                "yes_option no_option red blue this_one that_one").split()
HYPO_NAMES = ("アタッカー ブロッカー 重いカード 軽いカード テストカード 仮のキャラ 対象カード 効果持ち "
              "身代わり役 先攻のカード 後攻のカード 控えのカード 切り札 壁役 囮 主力 補助役").split()
JP_STRINGS = ("弾幕", "体当たり", "物理", "魔法", "白紙", "光の剣", "影縫い", "突撃", "結界", "回復",
              "相手のキャラ1体", "このカード", "自分の場のカード", "好きな順番", "ターン終了時まで")
STATUS_WEIGHTS_FIRST = (("confirmed", 45), ("provisional", 22), ("unofficial", 10), ("unconfirmed", 23))
STATUS_WEIGHTS_LATER = (("confirmed", 70), ("provisional", 15), ("unofficial", 5), ("unconfirmed", 10))

_LINK = re.compile(r"\[\[([^\]>]*)(?:>[^\]]*)?\]\]")
_DECOR = re.compile(r"&\w+(?:\([^)]*\))?\{|\}")
_MARKER = re.compile(r"^(?:[-+*#•・]+|\d+\.|[０-９]+．)\s*")
_NAME_PATTERNS = (re.compile(r"《([^《》\n]{1,20})》"), re.compile(r"「([^「」\n]{2,16})」"),
                  re.compile(r"[ァ-ヺー・]{3,12}"), re.compile(r"[一-龯々]{2,5}"))


def q(s: str) -> str:
    """A DSL string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def q_text(lines: list[str], indent: str) -> str:
    """`text` value: one line, or triple-quoted lines like the hand-written files."""
    if len(lines) == 1:
        return q(lines[0])
    body = "\n".join(indent + "  " + x.replace("\\", "\\\\").replace('"', '\\"') for x in lines)
    return '"""\n' + body + "\n" + indent + '"""'


def clean(line: str) -> str:
    line = _LINK.sub(r"\1", line)
    line = _DECOR.sub("", line)
    return _MARKER.sub("", line.strip()).strip()


def weighted(rng: random.Random, pairs) -> str:
    total = sum(w for _, w in pairs)
    x = rng.uniform(0, total)
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


# ----------------------------------------------------------------------------- source documents

@dataclass
class Passage:
    heading: str                    # as cited after §
    texts: list[list[str]]          # texts (lines) that occur under the heading
    names: list[str]                # short strings under it: card names
    frags: list[str]                # short sentence fragments, for the knowledge base's own words


class Source:
    """A game's source document, cut into headings with the texts that may be quoted from them."""

    def __init__(self, name: str, doc: SourceDocument) -> None:
        self.name = name
        self.doc = doc
        lines = [x for x in (raw.strip() for raw in doc.text.splitlines()) if x]
        heads = [i for i, x in enumerate(lines) if self._heading_like(x)]
        passages = [self._passage(lines, i, heads) for i in heads]
        passages = [p for p in passages if p and p.texts]
        if len(passages) < 12:  # a document without headings: cite the line that opens a passage
            passages += [p for p in (self._passage(lines, i, (), opening=True) for i in range(len(lines)))
                         if p and p.texts]
        self.passages = passages
        if not passages:
            raise ValueError(f"{name}: no citable passage found")
        self.with_names = [p for p in passages if p.names]

    @staticmethod
    def _heading_like(line: str) -> bool:
        c = clean(line)
        return (0 < len(c) <= 30 and not c.endswith(("。", "、", "：", ":")) and "§" not in line
                and '"' not in line and "\\" not in line)

    def _passage(self, lines: list[str], i: int, heads, opening: bool = False) -> Optional[Passage]:
        heading = lines[i]
        if "§" in heading or '"' in heading or "\\" in heading or not normalize_line(heading):
            return None
        if not self.doc.has_heading(heading):
            return None
        body = []
        j = i if opening else i + 1
        while j < len(lines) and len(body) < 8 and (opening or j not in heads):
            body.append(clean(lines[j]))
            j += 1
            if opening and len(body) >= 4:
                break
        body = [b for b in body if b and '"""' not in b]
        candidates: list[list[str]] = []
        for k, line in enumerate(body):
            if len(line) <= 260:
                candidates.append([line])
            sentences = [s for s in re.split(r"(?<=。)", line) if len(s.strip()) >= 8]
            if len(sentences) > 1:
                candidates += [[s.strip()] for s in sentences if len(s) <= 200]
            if k + 1 < len(body) and len(line) + len(body[k + 1]) <= 320:
                candidates.append([line, body[k + 1]])
        texts, seen = [], set()
        for c in candidates:
            key = tuple(c)
            if key in seen:
                continue
            seen.add(key)
            if self.doc.find("\n".join(c), heading):
                texts.append(c)
        if any(len("".join(t)) >= 12 for t in texts):
            texts = [t for t in texts if len("".join(t)) >= 12]
        names: set[str] = set()
        for line in body:
            for pat in _NAME_PATTERNS:
                for m in pat.finditer(line):
                    n = (m.group(1) if pat.groups else m.group(0)).strip()
                    if 2 <= len(n) <= 20 and '"' not in n and "\\" not in n and self.doc.find(n, heading):
                        names.add(n)
        frags = [t[0] for t in texts if len(t) == 1 and len(t[0]) <= 60]
        return Passage(heading=heading, texts=texts, names=sorted(names), frags=frags or [texts[0][0][:40]] if texts else [])

    def cite(self, p: Passage) -> str:
        return q(f"{self.name} §{p.heading}")


# ----------------------------------------------------------------------------- generated items

@dataclass
class Era:
    value: str
    start: Optional[dt.date]        # None: from the beginning
    rulings: list[str] = field(default_factory=list)
    max_start: Optional[dt.date] = None


@dataclass
class Rev:
    label: str                      # 2026-03, 2026-summer, undated
    start: Optional[dt.date]
    status: str


@dataclass
class RulingGen:
    id: str
    topic: str
    gap: Optional[str]
    revs: list[Rev]
    text: str = ""                  # rendered


@dataclass
class CardGen:
    code: str
    name: str
    unknown_facts: list[str]        # single-valued facts given as unknown (scenarios may complete them)


@dataclass
class CopiedRuling:
    """A ruling of the repository copied into the corpus as it is written (only its `refs` lose
    what the corpus does not have)."""
    id: str
    file: str                       # where it is written in the repository
    block: list[str]                # its lines, `ruling …` to the closing brace
    sections: list[str]             # the rule sections it refers to (the corpus generates them)
    settings: list[tuple]           # (point, card, value, start or None) of its revisions in force
    revisions: int


@dataclass
class GameCtx:
    id: str
    info: GameInfo
    src: Source
    dir: Path                       # rulings/<game> in the repo
    topics: list[str] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)       # id -> topic
    section_heading: dict[str, Passage] = field(default_factory=dict)
    cards: list[CardGen] = field(default_factory=list)
    rulings: list[RulingGen] = field(default_factory=list)
    ruling_index: dict[str, RulingGen] = field(default_factory=dict)
    eras: dict[tuple, list[Era]] = field(default_factory=dict)
    n_scenarios: int = 0
    copied: list["CopiedRuling"] = field(default_factory=list)   # the real gap rulings it names


class Gen:
    def __init__(self, games: dict[str, GameCtx], seed: int) -> None:
        self.games = games
        self.rng = random.Random(seed)
        self.used_ids: set[str] = set()
        self.files: dict[str, str] = {}     # relative path -> text
        self.counts = defaultdict(int)
        # per game, the lines of its register (REGISTER): what names the synthetic cards and
        # gives the synthetic rulings their dates and statuses, in the words `check` reads
        self.register: dict[str, dict[str, list[str]]] = defaultdict(lambda: {"cards": [], "rulings": []})

    # -- the register ---------------------------------------------------------------------
    def card_entry(self, g: "GameCtx", code: str, name: str) -> str:
        """The register's line that names a card; the citation for it."""
        self.register[g.id]["cards"].append(f"{code}《{name}》がある。")
        return q(f"{REGISTER} §{REGISTER_CARDS}")

    def ruling_entry(self, g: "GameCtx", ident: str, label: str, status: str, p: Passage) -> tuple[str, str]:
        """(citation, text) of a dated, statused revision: a line of the register that says it,
        with the source's marker for its status and date (（2027年5月確認済み）, ※暫定ルール・非公式)."""
        frags = [f for f in p.frags if "「" not in f and "」" not in f and not markers_in(f)] or [p.heading]
        frag = self.rng.choice(frags).rstrip("。")[:60]
        mark = marker_words(label, status)
        line = f"{ident}の{label}の裁定は「{frag}」による" + (f"（{mark}）。" if mark and not mark.startswith("※")
                                                          else "。" + (mark or ""))
        self.register[g.id]["rulings"].append(line)
        return q(f"{REGISTER} §{REGISTER_RULINGS}"), line

    # -- small helpers ------------------------------------------------------------------
    def uid(self, base: str) -> str:
        ident, n = base, 1
        while ident in self.used_ids:
            n += 1
            ident = f"{base}-{n}"
        self.used_ids.add(ident)
        return ident

    def slug(self) -> str:
        a, b = self.rng.sample(SLUG_WORDS, 2)
        return f"{a}-{b}"

    def own_words(self, g: GameCtx, p: Passage, about: str) -> tuple[str, str]:
        """(text, reason) in the knowledge base's own words, for an unconfirmed revision."""
        rng = self.rng
        frag = rng.choice(p.frags) if p.frags else p.heading
        frag = frag.rstrip("。")[:50]
        text = rng.choice((
            f"資料は{about}を明記していない。本知識ベースは「{frag}」を根拠に、{about}をこのように読む。",
            f"「{frag}」とだけあり、{about}は書かれていない。同じ節の他の規定との整合から、このように扱う。",
            f"{p.heading}の記述からの推定である。{about}については公式の確認がない。",
        ))
        reason = rng.choice((
            f"資料は「{frag}」と述べるだけで、{about}の場合を定めていない。",
            f"{p.heading}の節に明示的な規定がなく、他の節の記述から推定した。",
            "公式の裁定が見つからないため、本文の一般規定どおりに読む。",
        ))
        return text, reason

    def date_after(self, lower: dt.date, strict: bool, upper: dt.date) -> tuple[str, dt.date]:
        """A partial date label whose start is ≥ lower (> lower when strict) and ≤ upper."""
        rng = self.rng
        lo = lower + dt.timedelta(days=1) if strict else lower
        if lo > upper:
            upper = lo + dt.timedelta(days=30)
        day = lo + dt.timedelta(days=rng.randint(0, max(0, (upper - lo).days)))
        kind = weighted(rng, (("month", 58), ("day", 25), ("season", 11), ("year", 6)))
        label, start = _label(day, kind)
        if start < lo:
            label, start = _label(day, "day")
        return label, start

    # -- vocabulary-driven arguments ----------------------------------------------------
    def satisfiable(self, g: GameCtx, t: str, where: str) -> bool:
        v = g.info.vocab
        if t == "cell":
            return bool(v.cells)
        if t == "player":
            return bool(v.players)
        if t == "ruling":
            return where == "scenario" and bool(g.rulings)
        if t == "section":
            return bool(g.sections)
        if t == "card":
            return where == "scenario" or bool(g.cards)
        if t in v.enums:
            return any(x not in RESERVED_WORDS for x in v.enums[t].values)
        return t in ("int", "number", "string", "word", "kg", "dice", "unknown", "bool")

    def usable(self, g: GameCtx, e: Entry, where: str) -> bool:
        return all(p.optional or any(self.satisfiable(g, t, where) for t in p.types) for p in e.params)

    def value(self, g: GameCtx, t: str, cards: list[str], where: str) -> tuple[str, str]:
        """(DSL atom, words for the template) of type t."""
        rng, v = self.rng, g.info.vocab
        if t == "int":
            n = rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 10))
            return str(n), str(n)
        if t == "number":
            n = rng.choice(("1", "2", "2.5", "3", "0.5", "4"))
            return n, n
        if t == "string":
            s = rng.choice(JP_STRINGS)
            return q(s), s
        if t == "word":
            w = rng.choice(CHOICE_WORDS)
            return w, w
        if t == "kg":
            n = rng.choice((0, 5, 10, 20, 35, 40, 45, 50, 55, 60, 65, 70, 80, 90, 100, 120, 150))
            return f"{n}kg", str(n)
        if t == "dice":
            n = rng.randint(1, 6)
            return f"{n}d", f"{n}D"
        if t == "cell":
            c = rng.choice(v.cells)
            return c, c
        if t == "player":
            p = rng.choice(v.players)
            return p, p
        if t == "unknown":
            return "unknown", "不明"
        if t == "bool":
            b = rng.random() < 0.5
            return ("yes", "はい") if b else ("no", "いいえ")
        if t == "section":
            s = rng.choice(list(g.sections))
            return s, s
        if t == "ruling":
            r = rng.choice(g.rulings).id
            return r, r
        if t == "card":
            if where == "scenario" and cards and rng.random() < 0.85:
                name = rng.choice(cards)
                return q(name), name
            c = rng.choice(g.cards)
            return c.code if _is_name(c.code) else q(c.code), c.name
        e = v.enums[t]
        val = rng.choice([x for x in e.values if x not in RESERVED_WORDS])
        return val, e.values.get(val) or val

    def pick_type(self, g: GameCtx, p: Param, where: str, p_unknown: float) -> str:
        types = [t for t in p.types if self.satisfiable(g, t, where)]
        known = [t for t in types if t != "unknown"]
        if "unknown" in types and (not known or self.rng.random() < p_unknown):
            return "unknown"
        return known[0] if self.rng.random() < 0.7 else self.rng.choice(known)

    def clause(self, g: GameCtx, e: Entry, cards: list[str], where: str,
               p_unknown: float = 0.0) -> tuple[str, dict[str, str]]:
        """A well-typed clause for a vocabulary entry: its text and the words of its arguments."""
        rng = self.rng
        params = list(e.params)
        # leave out some trailing optional arguments (only trailing ones, so nothing shifts)
        cut = len(params)
        while cut > 0 and params[cut - 1].optional and rng.random() < 0.4:
            cut -= 1
        while cut > 0 and not any(self.satisfiable(g, t, where) for t in params[cut - 1].types):
            cut -= 1  # an optional argument this game cannot fill
        atoms, words = [e.name], {}
        for i, p in enumerate(params[:cut]):
            if not any(self.satisfiable(g, t, where) for t in p.types):
                continue  # optional and unfillable; only reached when not trailing, which cut prevents
            last = i == cut - 1
            if p.many:
                t0 = self.pick_type(g, p, where, p_unknown)
                if t0 == "unknown" and all(x.optional for x in params[i + 1:cut]):
                    atoms.append("unknown")
                    words[p.name] = "不明"
                    break
                n = rng.choice((1, 1, 2, 2, 3))
                items = [self.value(g, t0 if t0 != "unknown" else self.pick_type(g, p, where, 0.3),
                                    cards, where) for _ in range(n)]
                if last and rng.random() < 0.5:
                    atoms += [a for a, _ in items]
                else:
                    atoms.append("[" + ", ".join(a for a, _ in items) + "]")
                words[p.name] = "、".join(w for _, w in items)
            else:
                a, w = self.value(g, self.pick_type(g, p, where, p_unknown), cards, where)
                atoms.append(a)
                words[p.name] = w
        return " ".join(atoms), words

    def render(self, e: Entry, words: dict[str, str]) -> str:
        if not e.label:
            return e.name
        try:
            return string.Formatter().vformat(e.label, (), _Default(words))
        except (ValueError, IndexError, KeyError):
            return e.label

    def effect(self, g: GameCtx, where: str, cards: list[str]) -> tuple[str, str]:
        rng, v = self.rng, g.info.vocab
        triggers = list(v.entries["trigger"].values())
        verbs = [e for e in v.entries["verb"].values() if self.usable(g, e, where)]
        mods = list(v.entries["modifier"].values())
        trig = rng.choice(triggers)
        head = ["effect", trig.name]
        labels = [trig.label or trig.name]
        if mods and rng.random() < 0.3:
            m = rng.choice(mods)
            head.append(m.name)
            labels.append(m.label or m.name)
        body, said = [], []
        for e in rng.sample(verbs, min(len(verbs), rng.choice((1, 1, 1, 2, 2, 3)))):
            text, words = self.clause(g, e, cards, where, p_unknown=0.15)
            body.append(text)
            said.append(self.render(e, words))
        return " ".join(head) + " { " + "; ".join(body) + " }", f"【{'・'.join(labels)}】" + "。".join(said) + "。"

    def can_effect(self, g: GameCtx, where: str) -> bool:
        v = g.info.vocab
        return bool(v.entries["trigger"]) and any(self.usable(g, e, where) for e in v.entries["verb"].values())

    # -- sections -----------------------------------------------------------------------
    def plan_sections(self, g: GameCtx, n_cards: int) -> None:
        rng = self.rng
        needed: dict[str, list[str]] = defaultdict(list)
        for p in g.info.points.values():
            if p.default is not None:
                needed[p.default.section].append(p.name)
        for c in g.copied:          # the sections the copied gap rulings refer to (defining nothing)
            for sid in c.sections:
                needed.setdefault(sid, [])
        topics: list[str] = []
        for sid in needed:
            parts = sid.split("/")
            if len(parts) >= 2 and parts[1] not in topics:
                topics.append(parts[1])
        for name in g.info.points:
            t = name.split(".")[0].replace("_", "-")
            if t not in topics:
                topics.append(t)
        for t in ("flow", "cards", "deck", "effects", "victory", "terms"):
            if len(topics) >= 8:
                break
            if t not in topics:
                topics.append(t)
        g.topics = topics
        g.needed_sections = needed  # type: ignore[attr-defined]
        for sid in needed:
            self.used_ids.add(sid)
            g.sections[sid] = sid.split("/")[1] if "/" in sid else topics[0]
        for t in topics:
            parent = f"{g.id}/{t}"
            if parent not in self.used_ids:
                self.used_ids.add(parent)
                g.sections[parent] = t
        target = max(len(g.sections) + len(topics), n_cards // 25)
        while len(g.sections) < target:
            t = rng.choice(topics)
            sid = self.uid(f"{g.id}/{t}/{rng.choice(SLUG_WORDS)}")
            g.sections[sid] = t
        passages = list(g.src.passages)
        rng.shuffle(passages)
        for i, sid in enumerate(g.sections):
            g.section_heading[sid] = passages[i % len(passages)]

    def render_sections(self, g: GameCtx) -> None:
        rng = self.rng
        parents = {sid.rsplit("/", 1)[0] for sid in g.sections}
        by_topic: dict[str, list[str]] = defaultdict(list)
        for sid, t in g.sections.items():
            by_topic[t].append(sid)
        needed = g.needed_sections  # type: ignore[attr-defined]
        for t, sids in by_topic.items():
            sids.sort()
            for part, start in enumerate(range(0, len(sids), 9)):
                out = [f"# {g.info.decl.name}: rule sections on {t} (synthetic; headings and text from "
                       f"{g.src.name}).\n"]
                for sid in sids[start:start + 9]:
                    p = g.section_heading[sid]
                    lines = [f'section {sid} {q(p.heading[:40])} {{', f"  source {g.src.cite(p)}"]
                    if sid not in parents or sid in needed or rng.random() < 0.3:
                        lines.append(f"  text {q_text(rng.choice(p.texts), '  ')}")
                    if needed.get(sid):
                        lines.append("  defines " + " ".join(needed[sid]))
                    note = self.document_note(p) if rng.random() < 0.1 else None
                    if note:
                        lines.append(f"  note {q(note)}")
                    if rng.random() < 0.3:
                        lines.append("  refs " + " ".join(self.some_refs(g, rng.randint(1, 3), sid)))
                    if rng.random() < 0.04:
                        day = FIRST_DAY
                        for _ in range(rng.randint(1, 2)):
                            label, day = self.date_after(day, True, day + dt.timedelta(days=900))
                            p2 = rng.choice(g.src.passages)
                            status = rng.choice(("confirmed", "provisional"))
                            cite, said = self.ruling_entry(g, sid, label, status, p2)
                            lines += [f"  revision {label} {status} {{", f"    source {cite}",
                                      f"    text {q(said)}", "  }"]
                    lines.append("}")
                    out.append("\n".join(lines))
                    self.counts["sections"] += 1
                name = t if part == 0 else f"{t}-{part + 1}"
                self.files[f"rulings/{g.id}/rules/{name}.rules"] = "\n\n".join(out) + "\n"

    def document_note(self, p: Passage) -> Optional[str]:
        """A maintainer's note on a section: what the document says under its heading, quoted
        (the note lint passes a note by its quotes alone); None when nothing can be quoted."""
        frags = [f.rstrip("。") for f in p.frags if "「" not in f and "」" not in f and len(f.rstrip("。")) >= 4]
        forms = [lambda f: f"要点は「{f}」。", lambda f: f"この節の本文に「{f}」とある。"]
        if "「" not in p.heading and "」" not in p.heading and len(p.heading) >= 4:
            forms.append(lambda f: f"見出し「{p.heading}」の下に「{f}」とある。")
        if not frags:
            return None
        return self.rng.choice(forms)(self.rng.choice(frags))

    def some_refs(self, g: GameCtx, n: int, exclude: str = "") -> list[str]:
        rng, out = self.rng, []
        for _ in range(n):
            r = rng.random()
            if r < 0.4 and g.cards:
                c = rng.choice(g.cards).code
                if _is_name(c):
                    out.append(c)
            elif r < 0.75 and g.rulings:
                rg = rng.choice(g.rulings)
                if rng.random() < 0.3:
                    out.append(f"{rg.id}@{rng.choice(rg.revs).label}")
                else:
                    out.append(rg.id)
            else:
                out.append(rng.choice(list(g.sections)))
        return [x for x in dict.fromkeys(out) if x != exclude] or [next(s for s in g.sections if s != exclude)]

    # -- cards ----------------------------------------------------------------------------
    def plan_cards(self, g: GameCtx, n: int, index: int) -> None:
        prefix = re.sub(r"[^A-Z]", "", g.id.upper())[:2] or "X"
        promo = n // 10
        for i in range(n):
            if index == 0:  # the first game numbers its cards like GRM: No.0001 …, PROMO001 …
                code = f"No.{i + 1:04d}" if i < n - promo else f"PROMO{i - (n - promo) + 1:03d}"
            else:
                code = f"{prefix}{i // 100 + 1:02d}-{i % 100 + 1:03d}"
            g.cards.append(CardGen(code=code, name="", unknown_facts=[]))

    def render_cards(self, g: GameCtx) -> None:
        rng, v = self.rng, g.info.vocab
        facts = [e for e in v.entries["fact"].values() if e.name not in KEYWORDS]
        with_effects = self.can_effect(g, "card")
        named = g.src.with_names or g.src.passages
        for c in g.cards:
            p = rng.choice(named)
            c.name = rng.choice(p.names) if p.names else p.heading
            lines = [f"card {g.id} {c.code if _is_name(c.code) else q(c.code)} {q(c.name)} {{",
                     f"  source {self.card_entry(g, c.code, c.name)}"]
            fact_lines, effects, printed = [], [], []
            mostly_unknown = rng.random() < 0.35
            for e in facts:
                text, _ = self.clause(g, e, [], "card", p_unknown=0.85 if mostly_unknown else 0.12)
                if text.split(" ", 1)[1:] == ["unknown"] and len(e.params) == 1 and not e.params[0].many:
                    c.unknown_facts.append(e.name)
                fact_lines.append("  " + text)
            if with_effects:
                for _ in range(rng.choice((0, 1, 1, 1, 2))):
                    eff, said = self.effect(g, "card", [])
                    effects.append("  " + eff)
                    printed.append(said)
            if printed and rng.random() < 0.6:
                lines.append(f"  text {q(''.join(printed))}")
            else:
                lines.append("  text unknown")
            lines += fact_lines + effects
            if rng.random() < 0.3:
                lines.append(f"  note {q(f'名前は{g.src.name}の{p.heading}に挙がる。効果の詳細は資料にない。')}")
            if rng.random() < 0.2:
                lines.append("  refs " + " ".join(self.some_refs(g, rng.randint(1, 2), c.code)))
            if facts and rng.random() < 0.04:
                label, _ = self.date_after(dt.date(2018, 1, 1), False, LAST_DAY)
                p2 = rng.choice(g.src.passages)
                e = rng.choice(facts)
                text, _ = self.clause(g, e, [], "card", p_unknown=0.0)
                lines += [f"  errata {label} {rng.choice(('confirmed', 'provisional'))} {{",
                          f"    source {g.src.cite(p2)}", f"    text {q_text(rng.choice(p2.texts), '    ')}",
                          f"    {text}", "  }"]
            lines.append("}")
            header = f"# {c.name}: a synthetic card of {g.info.decl.name} (benchmark corpus).\n\n"
            self.files[f"cards/{g.id}/{c.code}.rules"] = header + "\n".join(lines) + "\n"
            self.counts["cards"] += 1

    # -- rulings --------------------------------------------------------------------------
    def plan_rulings(self, g: GameCtx, n_revisions: int) -> None:
        """Dates, statuses and settings of every ruling (rendered afterwards, when all ids exist)."""
        rng = self.rng
        points = list(g.info.points.values())
        per_card = [p for p in points if p.per == "card" and len(p.values) >= 1]
        wide = [p for p in points if p.values]
        # a gap ruling reads only points the declaration leaves open (unsettled, default not confirmed)
        open_points = [p for p in points if p.unsettled and p.default and p.default.status.value != "confirmed"]
        open_per_card = [p for p in open_points if p in per_card]
        self.seed_eras(g)
        left = n_revisions
        g.plans = []  # type: ignore[attr-defined]
        while left > 0:
            k = min(left, int(weighted(rng, (("1", 40), ("2", 30), ("3", 20), ("4", 10)))))
            left -= k
            gap = rng.choice(list(GAP_KINDS)) if rng.random() < 0.05 else None
            keys = []
            r = rng.random()
            some_card, any_point = (open_per_card, open_points) if gap else (per_card, wide)
            nkeys = 0 if not any_point else (1 if r < 0.5 else 2 if r < 0.54 else 0)
            for _ in range(nkeys):
                if some_card and g.cards and rng.random() < 0.8:
                    p = rng.choice(some_card)
                    key = (p.name, rng.choice(g.cards).code)
                else:
                    p = rng.choice(any_point)
                    key = (p.name, None)
                if key not in keys and (key[1] is None or _is_name(key[1])):
                    keys.append(key)
            # eras: join the current one, or (one key only) open a new one that supersedes it
            change = False
            for key in keys:
                if key not in g.eras:
                    vals = [x.name for x in g.info.points[key[0]].values]
                    g.eras[key] = [Era(value=rng.choice(vals), start=None)]
            lower: Optional[dt.date] = None
            if len(keys) == 1:
                era = g.eras[keys[0]][-1]
                vals = [x.name for x in g.info.points[keys[0][0]].values]
                room = era.max_start is None or era.max_start < LAST_DAY - dt.timedelta(days=400)
                if len(vals) > 1 and len(era.rulings) <= 3 and era.rulings and room and rng.random() < 0.35:
                    change = True
            for key in keys:
                s = g.eras[key][-1].start
                if s is not None and (lower is None or s > lower):
                    lower = s
            topic = keys[0][0].split(".")[0].replace("_", "-") if keys else rng.choice(g.topics)
            rid = self.uid(f"{g.id}/{'gap' if gap else topic}/{self.slug()}")
            revs = self.revision_dates(k, lower, change, g.eras[keys[0]][-1] if change else None, gap)
            rg = RulingGen(id=rid, topic=topic, gap=gap, revs=revs)
            supersede: list[str] = []
            values: dict[tuple, str] = {}
            if change:
                key = keys[0]
                old = g.eras[key][-1]
                vals = [x.name for x in g.info.points[key[0]].values if x.name != old.value]
                new = Era(value=rng.choice(vals), start=revs[0].start, rulings=[rid])
                supersede = list(old.rulings)
                g.eras[key].append(new)
            for key in keys:
                era = g.eras[key][-1]
                if rid not in era.rulings:
                    era.rulings.append(rid)
                last = revs[-1].start
                if last is not None and (era.max_start is None or last > era.max_start):
                    era.max_start = last
                values[key] = era.value
            g.plans.append((rg, keys, values, supersede))  # type: ignore[attr-defined]
            g.rulings.append(rg)
            g.ruling_index[rid] = rg

    def seed_eras(self, g: GameCtx) -> None:
        """The copied gap rulings' settings open the first era of their points: generated rulings
        join it or supersede them, never contradict them."""
        cards = {c.code for c in g.cards}
        for c in g.copied:
            for point, card, value, start in c.settings:
                if card is not None and card not in cards:
                    raise CorpusError(f"{c.id} ({c.file}) sets {point} for {card}, a card the corpus does not have")
                eras = g.eras.setdefault((point, card), [Era(value=value, start=start)])
                era = eras[0]
                if era.value != value:
                    raise CorpusError(f"{c.id} ({c.file}) sets {point} to {value}, another copied gap ruling "
                                      f"({', '.join(era.rulings)}) to {era.value}")
                if era.start is not None and (start is None or start < era.start):
                    era.start = start       # the era begins with its earliest reading (undated: always)
                if c.id not in era.rulings:
                    era.rulings.append(c.id)
                if start is not None and (era.max_start is None or start > era.max_start):
                    era.max_start = start

    def revision_dates(self, k: int, lower: Optional[dt.date], change: bool, era: Optional[Era],
                       gap: Optional[str]) -> list[Rev]:
        rng = self.rng
        revs: list[Rev] = []
        prev: Optional[dt.date] = None
        for i in range(k):
            if gap:
                status = "unconfirmed"
            elif i == k - 1 and k >= 2 and rng.random() < 0.07:
                status = "retracted"
            else:
                status = weighted(rng, STATUS_WEIGHTS_FIRST if i == 0 else STATUS_WEIGHTS_LATER)
            if i == 0:
                if change:
                    assert era is not None
                    base = era.max_start or FIRST_DAY
                    label, start = self.date_after(base, True, min(base + dt.timedelta(days=700), LAST_DAY))
                elif lower is None and rng.random() < (0.35 if gap else 0.1):
                    revs.append(Rev("undated", None, status))
                    continue
                else:
                    lo = max(lower or FIRST_DAY, FIRST_DAY)
                    hi = max(lo, LAST_DAY - dt.timedelta(days=120 * (k - 1)))
                    label, start = self.date_after(lo, False, hi)
            else:
                base = prev or max(lower or FIRST_DAY, FIRST_DAY) - dt.timedelta(days=1)
                span = max(40, min(540, (HARD_LAST - base).days // max(1, k - i)))
                label, start = self.date_after(base, True, base + dt.timedelta(days=rng.randint(35, span)))
            revs.append(Rev(label, start, status))
            prev = start
        return revs

    def retraction_note(self, g: GameCtx, keys: list[tuple], p: Passage) -> Optional[str]:
        """What a maintainer notes on a retraction: what the document says there, quoted (the
        note lint passes a note by its quotes alone); None when nothing can be quoted."""
        frags = [f.rstrip("。") for f in p.frags if "「" not in f and "」" not in f and len(f.rstrip("。")) >= 4]
        if not frags:
            return None
        frag = self.rng.choice(frags)
        defaults = [k[0] for k in keys if g.info.points[k[0]].default]
        if defaults:
            return f"この裁定は撤回された。以後、{defaults[0]}は既定に戻る。本文は「{frag}」。"
        return self.rng.choice((f"この裁定は撤回された。本文は「{frag}」。", f"撤回の後も本文は「{frag}」のまま。"))

    def render_copied(self, g: GameCtx) -> None:
        """The copied gap rulings, one file per file of the repository they come from; a `refs`
        line keeps what the corpus has (its sections and rulings always, its cards when generated)."""
        known = set(g.sections) | {c.id for c in g.copied} | {c.code for c in g.cards}
        by_file: dict[str, list[str]] = defaultdict(list)
        for c in g.copied:
            lines = []
            for line in c.block:
                m = re.match(r"(\s*)refs\s+(.*)$", line)
                if m:
                    kept = [x for x in m.group(2).split() if x.split("@")[0] in known]
                    if not kept:
                        continue
                    line = m.group(1) + "refs " + " ".join(kept)
                lines.append(line)
            by_file[c.file].append("\n".join(lines))
            self.counts["rulings"] += 1
            self.counts["revisions"] += c.revisions
        for file, items in by_file.items():
            head = (f"# {g.info.decl.name}: the gap rulings its declaration names (`unsettled`), copied from "
                    f"{file}; references to what this corpus does not have are left out.\n\n")
            self.files[f"rulings/{g.id}/copied-{Path(file).name}"] = head + "\n\n".join(items) + "\n"

    def render_rulings(self, g: GameCtx) -> None:
        rng = self.rng
        groups: dict[str, list[str]] = defaultdict(list)
        points = g.info.points
        cards_by_code = {c.code: c for c in g.cards}
        for rg, keys, values, supersede in g.plans:  # type: ignore[attr-defined]
            # the passage: the default section's heading for a point's ruling, else any
            if keys and rng.random() < 0.7:
                d = points[keys[0][0]].default
                p = g.section_heading.get(d.section) if d else None
                p = p or rng.choice(g.src.passages)
            else:
                p = rng.choice(g.src.passages)
            if keys:
                pt = points[keys[0][0]]
                vlabel = next((x.label or x.name for x in pt.values if x.name == values[keys[0]]), values[keys[0]])
                about = pt.label or pt.name
                if keys[0][1]:
                    card = cards_by_code[keys[0][1]]
                    title = f"{card.code}《{card.name}》の{about}：{vlabel}"
                else:
                    title = f"{about}：{vlabel}"
            else:
                about = p.heading
                title = rng.choice(p.frags or [p.heading]).rstrip("。")[:40]
                if rng.random() < 0.5:
                    title = f"{p.heading}の扱い"
            lines = [f"ruling {rg.id} {q(title)} {{"]
            if rg.gap:
                lines.append(f"  gap {rg.gap}")
            if rng.random() < 0.6 or keys:
                refs = []
                for key in keys:
                    d = points[key[0]].default
                    if d:
                        refs.append(d.section)
                    if key[1]:
                        refs.append(key[1])
                refs += self.some_refs(g, rng.randint(0, 2), rg.id)
                refs = [x for x in dict.fromkeys(refs) if x != rg.id]
                if refs:
                    lines.append("  refs " + " ".join(refs))
            if rng.random() < 0.08:
                lines.append(f"  note {q('この裁定は複数の節にまたがる。')}")
            for i, rev in enumerate(rg.revs):
                body = [f"    source {g.src.cite(p)}"]
                texts = p.texts
                if rev.status == "unconfirmed":
                    own, reason = self.own_words(g, p, about)
                    body.append(f"    quote {q_text(rng.choice(texts), '    ')}")
                    body.append(f"    text {q(own)}")
                    body.append(f"    reason {q(reason)}")
                elif rev.status == "retracted":
                    body.append(f"    text {q_text(rng.choice(texts), '    ')}")
                    note = self.retraction_note(g, keys, p)
                    if note:
                        body.append(f"    note {q(note)}")
                else:   # its status and date are the register's words on it
                    cite, said = self.ruling_entry(g, rg.id, rev.label, rev.status, p)
                    body = [f"    source {cite}", f"    text {q(said)}"]
                    mark = marker_words(rev.label, rev.status)
                    if mark and rng.random() < 0.1:
                        body.append(f"    note {q(f'日付と状態は「{mark}」による。')}")
                if rng.random() < 0.06:
                    body.append("    refs " + " ".join(self.some_refs(g, 1, rg.id)))
                sups = list(supersede) if i == 0 else []
                if rev.start is not None and rng.random() < 0.05:
                    target = rng.choice(g.rulings)
                    if target.id != rg.id and target.id not in sups and (
                            target.revs[0].start is None or target.revs[0].start < rev.start):
                        older = [r for r in target.revs if r.start is None or r.start < rev.start]
                        if older and rng.random() < 0.4:
                            sups.append(f"{target.id}@{rng.choice(older).label}")
                        else:
                            sups.append(target.id)
                if sups:
                    body.append("    supersedes " + " ".join(sups))
                if rev.status != "retracted":
                    for key in keys:
                        target = f"card({key[1]}).{key[0]}" if key[1] else key[0]
                        body.append(f"    set {target} = {values[key]}")
                lines += [f"  revision {rev.label} {rev.status} {{", *body, "  }"]
                self.counts["revisions"] += 1
            lines.append("}")
            groups["gaps" if rg.gap else rg.topic].append("\n".join(lines))
            self.counts["rulings"] += 1
        for topic, items in groups.items():
            per = rng.randint(6, 10)
            for n, start in enumerate(range(0, len(items), per)):
                folder = "gaps" if topic == "gaps" else "rulings"
                head = (f"# {g.info.decl.name}: {'gaps of the sources' if topic == 'gaps' else 'rulings on ' + topic}"
                        f" (synthetic benchmark corpus).\n\n")
                self.files[f"rulings/{g.id}/{folder}/{topic}-{n + 1:03d}.rules"] = \
                    head + "\n\n".join(items[start:start + per]) + "\n"

    # -- scenarios ------------------------------------------------------------------------
    def render_scenarios(self, g: GameCtx, blocks: list[list[str]]) -> None:
        """The worked questions gen_scenarios.py settled, 8 to a file, a file per topic in turn."""
        per = 8
        topics = g.topics or ["misc"]
        self.counts["scenarios"] += len(blocks)
        for n_file, start in enumerate(range(0, len(blocks), per)):
            topic = topics[n_file % len(topics)]
            self.files[f"rulings/{g.id}/qa/{topic}-{n_file // len(topics) + 1:03d}.rules"] = (
                f"# {g.info.decl.name}: worked questions (synthetic benchmark corpus). The cards are "
                "hypothetical unless named by code.\n\n"
                + "\n\n".join("\n".join(b) for b in blocks[start:start + per]) + "\n")


class _Default(dict):
    def __missing__(self, key):
        return ""


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*(?:[.\/][A-Za-z0-9_\-]+)*$")


def _is_name(code: str) -> bool:
    return bool(_NAME_RE.match(code)) and code not in RESERVED_WORDS


def _label(day: dt.date, kind: str) -> tuple[str, dt.date]:
    if kind == "day":
        return day.isoformat(), day
    if kind == "month":
        return f"{day.year}-{day.month:02d}", day.replace(day=1)
    if kind == "year":
        return f"{day.year}", dt.date(day.year, 1, 1)
    m = day.month
    if m in (3, 4, 5):
        return f"{day.year}-spring", dt.date(day.year, 3, 1)
    if m in (6, 7, 8):
        return f"{day.year}-summer", dt.date(day.year, 6, 1)
    if m in (9, 10, 11):
        return f"{day.year}-autumn", dt.date(day.year, 9, 1)
    if m == 12:
        return f"{day.year}-winter", dt.date(day.year, 12, 1)
    return f"{day.year - 1}-winter", dt.date(day.year - 1, 12, 1)


# ----------------------------------------------------------------------------- driver

REGISTER = "gen_register.txt"       # the synthetic source every game of the corpus is given
REGISTER_CARDS = "カード一覧"
REGISTER_RULINGS = "裁定一覧"
_SEASON_JA = {"spring": "春", "summer": "夏", "autumn": "秋", "winter": "冬"}


def marker_words(label: str, status: str) -> Optional[str]:
    """The words a source puts on a ruling of that date and status (「2027年5月確認済み」,
    「2027年夏の暫定裁定」, 「※暫定ルール・非公式」); None where a source says nothing (undated)."""
    if status == "unofficial":
        return "※暫定ルール・非公式"
    if label == "undated" or status not in ("confirmed", "provisional"):
        return None
    parts = label.split("-")
    when = f"{parts[0]}年"
    if len(parts) > 1 and parts[1] in _SEASON_JA:
        when += f"{_SEASON_JA[parts[1]]}の"
    elif len(parts) > 1:
        when += f"{int(parts[1])}月" + (f"{int(parts[2])}日" if len(parts) > 2 else "")
    return when + ("確認済み" if status == "confirmed" else "暫定裁定")


def declare_register(game_file: Path, gid: str) -> None:
    """Declare the register as one more document of the copied game."""
    text = game_file.read_text(encoding="utf-8")
    m = re.search(r"^game \S+ .*\{\n", text, re.M)
    if m is None:
        raise CorpusError(f"{game_file}: no `game {gid} … {{` line to declare the register in")
    line = f'  document "sources/{REGISTER}" "生成したカードと裁定の一覧（ベンチマーク用の合成資料）"\n'
    game_file.write_text(text[:m.end()] + line + text[m.end():], encoding="utf-8")


class CorpusError(SystemExit):
    """A game of the repository that the corpus cannot be built from: the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(f"gen_corpus: {message}")


def real_games(repo: Path):
    """The repository's knowledge base and its games, each as (GameInfo, rulings/<game>/).
    Every game is used: one whose declaration has findings, or that has no source document,
    is an error (a corpus without it would measure less than the project has)."""
    kb = load(repo, use_cache=False)
    findings = list(kb.diagnostics) + run_checks(kb)
    out, problems = {}, []
    for gid, info in sorted(kb.games.items()):
        file = info.decl.loc.file
        gdir = (repo / file).parent
        if Path(file).name != "game.rules" or not (gdir / "sources").is_dir():
            problems.append(f"{gid}: its declaration ({file}) is not rulings/{gid}/game.rules next to sources/")
            continue
        bad = [d for d in findings if d.loc and d.loc.file == file]
        if bad:
            shown = "\n".join(f"  {d.loc}: {d.code}: {d.message}" for d in bad[:10])
            more = f"\n  … and {len(bad) - 10} more" if len(bad) > 10 else ""
            problems.append(f"{gid}: {len(bad)} finding(s) in its declaration (`rulesdsl check` shows them):\n"
                            f"{shown}{more}")
            continue
        if not info.documents:
            problems.append(f"{gid}: it declares no source document to cite")
            continue
        out[gid] = (info, gdir)
    if problems:
        raise CorpusError("cannot build a corpus of every game of " + str(repo) + ":\n" + "\n".join(problems))
    if not out:
        raise CorpusError(f"no game declaration under {repo}/rulings/*/game.rules")
    return kb, out


def copied_rulings(kb, repo: Path, gid: str) -> list[CopiedRuling]:
    """The gap rulings the game's `unsettled` lines name, and the gap rulings those refer to, as
    the repository writes them. Their rule sections are generated like every other; a reference
    to anything else (a card, a non-gap ruling) is kept only if the corpus has it."""
    todo = sorted({p.unsettled for p in kb.games[gid].points.values() if p.unsettled})
    out: dict[str, CopiedRuling] = {}
    while todo:
        rid = todo.pop(0)
        if rid in out:
            continue
        r = kb.rulings[rid]
        lines = (repo / r.loc.file).read_text(encoding="utf-8").splitlines()
        first = r.loc.line - 1
        last = next(i for i in range(first, len(lines)) if lines[i] == "}")
        sections, settings = [], []
        for ref in (*r.refs, *(x for rev in r.revisions for x in rev.refs)):
            if ref.target in kb.sections:
                sections.append(ref.target)
            elif ref.target in kb.rulings and kb.rulings[ref.target].gap is not None:
                todo.append(ref.target)
        for rev in r.revisions:
            if rev.supersedes:
                raise CorpusError(f"{rid} ({r.loc}) supersedes {rev.supersedes[0]}: copying it would need "
                                  "the rulings it supersedes; teach gen_corpus.py to copy them")
            if rev.status.value != "retracted":
                start = rev.date.start() if rev.date else None
                settings += [(x.point, x.card, x.value, start) for x in rev.settings]
        out[rid] = CopiedRuling(id=rid, file=r.loc.file, block=lines[first:last + 1],
                                sections=list(dict.fromkeys(sections)), settings=settings,
                                revisions=len(r.revisions))
    return list(out.values())


def write_files(out: Path, files: dict[str, str]) -> int:
    """Write each relative path's text under `out`; the bytes written."""
    size = 0
    made: set[Path] = set()
    for rel, text in files.items():
        path = out / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        size += len(data)
    return size


def assert_scenarios_pass(root: Path, cwd: Optional[Path] = None, env: Optional[dict] = None) -> dict:
    """Run `rulesdsl test` on the corpus at `root` (no cache read or written, so what is timed
    afterwards stays cold) and stop unless every worked question passes: a benchmark that times
    failing answers times quick refusals. The report's counts."""
    import json
    import subprocess
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "--root", str(root), "--no-cache", "test", "--json"],
                         capture_output=True, text=True, cwd=cwd, env=env, check=False)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise SystemExit(f"rulesdsl test on {root} gave no report (exit {run.returncode}):\n"
                         f"{run.stderr[-2000:]}") from None
    bad = [r for r in report["results"] if r["result"] != "passed"]
    if bad or not report["passed"]:
        shown = ", ".join(f"{r['scenario']} ({r['result']})" for r in bad[:5])
        raise SystemExit(f"{root}: {len(bad)} of {len(report['results'])} worked questions do not pass "
                         f"(first: {shown}); the benchmark measures passing answers")
    return {k: report[k] for k in ("passed", "failed", "skipped")}


def split(total: int, n: int) -> list[int]:
    return [total // n + (1 if i < total % n else 0) for i in range(n)]


def generate(out: Path, cards: int, revisions: int, scenarios: int, seed: int = 1,
             repo: Path = REPO, quiet: bool = False, replace: bool = False) -> dict:
    """Write the corpus into `out` (with `replace`, its cards/ and rulings/ are removed first, once
    the corpus is planned: a game that cannot be generated leaves `out` as it was)."""
    t0 = time.perf_counter()
    kb, games_found = real_games(repo)
    ctxs: dict[str, GameCtx] = {}
    for gid, (info, gdir) in games_found.items():
        doc = next(iter(info.documents.values()))
        ctxs[gid] = GameCtx(id=gid, info=info, src=Source(doc.name, doc), dir=gdir,
                            copied=copied_rulings(kb, repo, gid))
    gen = Gen(ctxs, seed)
    for g in ctxs.values():
        gen.used_ids.update(c.id for c in g.copied)
    n = len(ctxs)
    for i, (g, nc, nr, ns) in enumerate(zip(ctxs.values(), split(cards, n), split(revisions, n),
                                            split(scenarios, n))):
        gen.plan_sections(g, nc)
        gen.plan_cards(g, nc, i)
        g.n_scenarios = ns
        g.n_revisions = max(0, nr - sum(c.revisions for c in g.copied))  # type: ignore[attr-defined]
    for g in ctxs.values():
        gen.plan_rulings(g, g.n_revisions)  # type: ignore[attr-defined]
    for g in ctxs.values():
        gen.render_cards(g)
        gen.render_sections(g)
        gen.render_rulings(g)
        gen.render_copied(g)
    # write
    if replace:
        for d in ("cards", "rulings", ".rulesdsl-cache"):
            shutil.rmtree(out / d, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    for g in ctxs.values():
        dest = out / "rulings" / g.id
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(g.dir / "game.rules", dest / "game.rules")
        shutil.copytree(g.dir / "sources", dest / "sources", dirs_exist_ok=True)
        declare_register(dest / "game.rules", g.id)
        reg = gen.register[g.id]
        (dest / "sources" / REGISTER).write_text(
            "\n".join([REGISTER_CARDS, *reg["cards"], REGISTER_RULINGS, *reg["rulings"]]) + "\n", encoding="utf-8")
    size = write_files(out, gen.files)
    # the worked questions, answered against the corpus just written (gen_scenarios.py)
    variations = Variations(gen, templates(kb, ctxs), LAST_DAY, _is_name)
    wanted = {gid: g.n_scenarios for gid, g in ctxs.items()}
    kept: dict[str, list[list[str]]] = {gid: [] for gid in ctxs}
    for _ in range(5):
        short = {gid: wanted[gid] - len(kept[gid]) for gid in ctxs if len(kept[gid]) < wanted[gid]}
        if not short:
            break
        # the variations to answer again as changed (`Variations.again`) first, then new ones
        again, variations.again = variations.again, {}
        candidates = {gid: again.get(gid, []) + variations.make(ctxs[gid], n + n // 2 + 8, HYPO_NAMES)
                      for gid, n in short.items()}
        for gid, blocks in variations.keep(out, candidates, short).items():
            kept[gid] += blocks
    before = set(gen.files)
    for gid, g in ctxs.items():
        if len(kept[gid]) < wanted[gid]:
            raise CorpusError(f"{gid}: only {len(kept[gid])} of {wanted[gid]} worked questions pass against "
                              "the corpus (gen_scenarios.py says how they are made)")
        gen.render_scenarios(g, kept[gid])
    size += write_files(out, {rel: text for rel, text in gen.files.items() if rel not in before})
    stats = {"games": list(ctxs), "files": len(gen.files) + len(ctxs), "bytes": size,
             **dict(gen.counts), "questions": dict(variations.counts), "seconds": round(time.perf_counter() - t0, 1)}
    if not quiet:
        print(f"gen_corpus: {out}: games {', '.join(ctxs)}; {stats['files']} .rules files, "
              f"{size / 1e6:.1f} MB; {gen.counts['cards']} cards, {gen.counts['sections']} sections, "
              f"{gen.counts['rulings']} rulings with {gen.counts['revisions']} revisions, "
              f"{gen.counts['scenarios']} scenarios; {stats['seconds']} s", file=sys.stderr)
        c = variations.counts
        print(f"gen_corpus: worked questions: {c['answered']} variations answered, {c['refused']} refused, "
              f"{c['as_written']} kept as written, {c['dropped']} with expectations the corpus made false "
              f"dropped, {c['rewritten']} with one rewritten to what was found; {c['status_rewritten']} "
              f"`expect status` lines rewritten to the status found; {c['settled_again']} answered again once "
              "changed, as they state a status",
              file=sys.stderr)
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the knowledge-base root to create (must be empty or absent)")
    ap.add_argument("--cards", type=int, default=10000)
    ap.add_argument("--revisions", type=int, default=30000, help="ruling revisions in all")
    ap.add_argument("--scenarios", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="replace cards/ and rulings/ of an existing OUT")
    ap.add_argument("--from", dest="repo", type=Path, default=REPO, metavar="ROOT",
                    help="the knowledge base whose games and sources it copies (default: this repository)")
    ap.add_argument("--json", action="store_true", help="print the corpus statistics as JSON")
    args = ap.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()) and not args.force:
        print(f"gen_corpus: {args.out} is not empty (use --force to replace its cards/ and rulings/)",
              file=sys.stderr)
        return 2
    stats = generate(args.out, args.cards, args.revisions, args.scenarios, args.seed, repo=args.repo.resolve(),
                     quiet=args.json, replace=args.force)
    if args.json:
        import json
        print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
