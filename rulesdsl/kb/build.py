"""Loading a knowledge base: discovering its `.rules` files, reading them (through the parse
snapshot, see loader), resolving references and applying the games' vocabularies into a
`KnowledgeBase` (knowledge.py), and keeping loaded ones in a resident process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from ..base import cache
from ..base.cache import KB_DIRS, find_root
from ..lang.diagnostics import Diagnostic, DslError, Related, did_you_mean
from ..lang.model import (Atom, Card, Clause, Deck, Document, Game, Loc, Point, Revision, RevRef, Ruling,
                          Scenario, Section)
from ..lang.vocab import UNKNOWN, Call, CardRef, Validator, build_vocabulary, grid_cells
from .knowledge import CardInfo, DeckInfo, GameInfo, KnowledgeBase, ScenarioInfo
from .loader import display_path, rules_files
from .sources import SourceDocument
from .timeline import Timelines

# ----------------------------------------------------------------------------- loading

def discover(root: Path) -> list[Path]:
    """The .rules files of the knowledge base at `root`, by their paths under it (symlinks to
    files and folders are followed; each real folder is walked once)."""
    return [Path(p) for files in _listing(root) for _, p in files]


def _listing(root: Path) -> tuple:
    """Each of KB_DIRS's .rules files under `root`, folder by folder (`cache.walk`)."""
    return tuple(tuple(cache.walk(Path(root) / d, (".rules",))) for d in KB_DIRS)


def check_root(root: Path) -> Path:
    """`root`, resolved; DslError when it is not an existing folder holding cards/ or rulings/
    (so that a check pointed at the wrong folder fails instead of finding nothing wrong)."""
    problem = None
    try:
        if not root.exists():
            problem = f"the knowledge base folder {root} does not exist"
        elif not root.is_dir():
            problem = f"the knowledge base root {root} is not a folder"
        elif not any((root / d).is_dir() for d in KB_DIRS):
            problem = f"{root} is not a knowledge base: it holds neither cards/ nor rulings/"
        else:
            return root.resolve()
    except OSError as e:
        problem = f"cannot use {root} as the knowledge base root: {e.strerror or e}"
    raise DslError([Diagnostic(code="usage", fatal=True, message=problem,
                               hint="give --root the folder that holds cards/ and rulings/")])


# In a resident process (`rulesdsl serve`, see loader.RESIDENT) `load` keeps the knowledge bases
# it loaded, keyed by the content of their files (rulesdsl/base/cache.py judges when a file must be
# read again). Nothing that uses a loaded knowledge base changes it, except for the answers it
# memoises, which stay true while its files do.
_resident: dict[tuple, KnowledgeBase] = {}
RESIDENT_KEEP = 4   # e.g. the bundled knowledge base, and with a judge's scenario file or two


def load(root: Optional[Path] = None, extra: Iterable[Path] = (), use_cache: bool = True,
         include_root: bool = True, scenarios: Optional[Callable[[Scenario], bool]] = None) -> KnowledgeBase:
    """Load and validate the knowledge base under `root` plus any extra files or folders.
    Problems with the files are collected in `kb.diagnostics`, never raised; a root that is not
    a folder raises DslError. Files are named as the user named them (see loader.display_path);
    a file given in `extra` that is one of the knowledge base's own is loaded once.

    `scenarios`, for a command that answers a few questions (`ask`): only the scenarios it
    accepts are validated (every id is still registered, so a duplicate is still found); a
    resident process loads everything, since it keeps the knowledge base for every command,
    except for a new question's knowledge base narrowed to its games (kb/brief.py), which is
    that question's alone and built as the command line builds it."""
    from .loader import display_path
    root = check_root(Path(root) if root is not None else find_root())
    paths, names = _files_of(root) if include_root else ([], [])
    extra = list(extra)
    seen = {_identity(p) for p in paths} if extra else set()
    for e in extra:
        for p in rules_files(e):
            ident = _identity(p)
            if ident is None or ident not in seen:
                seen.add(ident)
                paths.append(p)
                names.append(display_path(p, root))
    seen.discard(None)
    from . import loader
    if not loader.RESIDENT:
        return _load(root, paths, names, use_cache, wanted=scenarios)
    from .brief import ONLY, QUESTION     # a knowledge base narrowed to a new question's games is another one
    key = (str(root), use_cache, tuple(names), _contents(root, paths), ONLY, QUESTION if ONLY is not None else None)
    kb = _resident.pop(key, None)
    if kb is None:
        same_root = [k for k in _resident.values() if k.root == root]
        kb = _load(root, paths, names, use_cache, previous=same_root[-1] if same_root else None,
                   wanted=scenarios if ONLY is not None else None)
    _resident[key] = kb                      # the most recently used last
    while len(_resident) > RESIDENT_KEEP:
        _resident.pop(next(iter(_resident)))
    return kb


_listed: dict[Path, tuple] = {}      # a resident process: root -> (its folders' listings, paths, names)


def _files_of(root: Path) -> tuple[list[Path], list[str]]:
    """discover(root) and the files' display names; a resident process keeps them while the
    folders list the same files (their contents are judged apart, by `_contents`)."""
    from . import loader
    if not loader.RESIDENT:
        paths = discover(root)
        return paths, [loader.display_path(p, root) for p in paths]
    listing = _listing(root)
    kept = _listed.get(root)
    if kept is None or kept[0] != listing:
        paths = [Path(p) for files in listing for _, p in files]
        kept = _listed[root] = (listing, paths, [loader.display_path(p, root) for p in paths])
    return list(kept[1]), list(kept[2])


_vocabularies: dict[str, tuple] = {}  # a resident process: game -> (clauses, cells, players, vocabulary, errors)


def _vocabulary(game: str, clauses: tuple, cells: tuple, players: tuple) -> tuple[Any, list[Diagnostic]]:
    """build_vocabulary; a resident process keeps each game's while its clauses are the very same
    objects (an unchanged file's document is kept whole), since nothing changes a vocabulary
    once it is built."""
    from . import loader
    if not loader.RESIDENT:
        return build_vocabulary(game, clauses, cells, players)
    kept = _vocabularies.get(game)
    if kept is None or kept[0] is not clauses or kept[1:3] != (cells, players):
        kept = _vocabularies[game] = (clauses, cells, players, *build_vocabulary(game, clauses, cells, players))
    return kept[3], list(kept[4])


def refuse_folder(path: Path) -> None:
    """A command that takes a file refuses a folder before reading anything (DslError)."""
    try:
        folder = Path(path).is_dir()
    except OSError:
        return                              # reading it will say what is wrong
    if folder:
        raise DslError([Diagnostic(code="usage", fatal=True, message=f"{path} is a folder; give a .rules file")])


def names_of(kb: KnowledgeBase, paths: Iterable[Path]) -> set[str]:
    """The names under which `kb` loaded the files at `paths` (folders: every .rules file in
    them), however the user reached them: through a symlink, a relative or an absolute path.
    A path that names no loaded file keeps its display name (its problems are reported so)."""
    by_identity: dict = {}
    for name in kb.files:
        ident = _identity(Path(name) if os.path.isabs(name) else kb.root / name)
        if ident is not None:
            by_identity.setdefault(ident, name)
    out: set[str] = set()
    for p in paths:
        for f in rules_files(p):
            out.add(by_identity.get(_identity(f)) or display_path(f, kb.root))
    return out


def _identity(p: Path) -> Optional[tuple[int, int]]:
    """The file behind a path (through symlinks), so that one file is loaded once."""
    try:
        st = cache.look(str(p))
        return (st.st_dev, st.st_ino)
    except (OSError, ValueError):
        return None


def _contents(root: Path, paths: list[Path]) -> tuple:
    """Digests of the files a knowledge base is built from: its .rules files and everything
    else under cards/ and rulings/ (the source documents)."""
    d = cache.digests(root)
    others = [p for name in KB_DIRS for _, p in cache.walk(root / name) if not p.endswith(".rules")]
    return tuple(d.digest(str(p)) for p in [*paths, *others])


def _load(root: Path, paths: list[Path], names: list[str], use_cache: bool,
          previous: Optional[KnowledgeBase] = None,
          wanted: Optional[Callable[[Scenario], bool]] = None) -> KnowledgeBase:
    from .loader import no_gc, read_documents

    kb = KnowledgeBase(root=root)
    with no_gc():
        docs, diags = read_documents(paths, root, use_cache=use_cache, shown=names, bodies=wanted)
        kb.documents = docs
        kb.files = list(names)
        kb.diagnostics.extend(diags)
        _Builder(kb, previous, wanted).build()
    return kb


def from_documents(root: Path, documents: list[Document], files: Optional[list[str]] = None,
                   scenarios: Optional[Callable[[Scenario], bool]] = None,
                   previous: Optional[KnowledgeBase] = None) -> KnowledgeBase:
    """A knowledge base built from already parsed documents (e.g. with one ruling left out, or
    an editor's unsaved text in place of a file); with `scenarios`, only the scenarios it
    accepts are validated (as in `load`); `previous`, one built before from mostly the same
    documents, lends the scenarios it validated (see _Builder)."""
    kb = KnowledgeBase(root=Path(root))
    kb.documents = list(documents)
    kb.files = list(files or [d.path for d in documents])
    _Builder(kb, previous, wanted=scenarios).build()
    return kb


class _Builder:
    """Registers declarations, resolves references and validates vocabulary clauses."""

    def __init__(self, kb: KnowledgeBase, previous: Optional[KnowledgeBase] = None,
                 wanted: Optional[Callable[[Scenario], bool]] = None) -> None:
        self.kb = kb
        self.diag = kb.diagnostics
        self.first_seen: dict[tuple[str, str], Loc] = {}
        self.previous = previous
        self.wanted = wanted
        self.card_validators: dict[str, Validator] = {}     # game -> the validator of its cards (see card)
        self.plans: dict[str, dict] = {}    # game -> the plans its validators share (Validator.plan)

    def err(self, code: str, loc: Optional[Loc], message: str, hint: Optional[str] = None,
            related: tuple = (), width: int = 1) -> None:
        self.diag.append(Diagnostic(code=code, message=message, loc=loc, hint=hint,
                                    related=related, width=width))

    def build(self) -> None:
        kb = self.kb
        games, sections, cards, rulings, scenarios, decks = [], [], [], [], [], []
        self.files: dict[int, str] = {}     # id(declaration) -> digest of the file it is in (see digest)
        by_type = {Game: games, Section: sections, Card: cards, Ruling: rulings, Scenario: scenarios, Deck: decks}
        for doc in kb.documents:
            digest = doc.digest
            for d in doc.decls:
                by_type[type(d)].append(d)
                if digest:
                    self.files[id(d)] = digest
        for g in games:
            if self.register("game", g.id, g.loc):
                self.game(g)
        for s in sections:
            if self.check_game_prefix(s.id, s.loc, "rule section") and self.register("section", s.id, s.loc):
                kb.sections[s.id] = s
        registered = []
        for c in cards:
            if c.game not in kb.games:
                self.unknown_game(c.game, c.loc)
            elif self.register("card", f"{c.game}:{c.code}", c.loc):
                registered.append(c)
                kb.cards[(c.game, c.code)] = CardInfo(card=c, game=c.game, facts={}, effects=())
                if c.name:
                    kb._cards_by_name.setdefault((c.game, c.name), []).append(c.code)
        for c in registered:  # validated once all are known, so effects may name any card
            kb.cards[(c.game, c.code)] = info = self.card(c, c.game)
            info.digest = self.digest(c)
        nested: list[tuple[Scenario, str, Optional[Revision]]] = []
        for r in rulings:
            if self.check_game_prefix(r.id, r.loc, "ruling") and self.register("ruling", r.id, r.loc):
                kb.rulings[r.id] = r
                if r.scenarios:     # (most rulings and revisions have none: no list made for them)
                    nested += [(s, r.id, None) for s in r.scenarios]
                for rev in r.revisions:
                    if rev.scenarios:
                        nested += [(s, r.id, rev) for s in rev.scenarios]
        kb.timelines = Timelines(kb.rulings.values())
        by_point, by_card = kb.settings_index, kb.settings_by_card
        for r in kb.rulings.values():
            game, rid = r.game, r.id        # (a ruling's game is read from its id: once, not per setting)
            for rev in r.revisions:
                for s in rev.settings:
                    point, row = s.point, (rid, rev, s)
                    by_point.setdefault((game, point), []).append(row)
                    by_card.setdefault((game, point, s.card), []).append(row)
        # A scenario's validation depends only on the games' vocabularies and statements, which
        # cards exist under which codes and names, which rule sections and rulings exist (the
        # "frame"), and the cards it completes (`assume card No.034 { … }`): when a previous
        # build had the same (a resident process answering a judge's new scenario file, an
        # editor changing a ruling's, a game's or a card's text), its validated scenarios are
        # reused. Unchanged declarations are the very same objects, so comparing frames compares
        # only what was parsed again.
        kb._frame = (tuple([(g.id, g.vocabulary, g.clauses) for g in games]),
                     tuple([(c.game, c.code, c.name) for c in cards]),
                     tuple([s.id for s in sections]), tuple([r.id for r in rulings]))
        same = self.previous is not None and self.previous._frame == kb._frame
        reuse = self.previous._built if same else {}
        before_cards = self.previous.cards if same else {}

        def completes_same_cards(s: Scenario) -> bool:
            keys = [(s.game, c.code) for c in s.cards]
            return all((kb.cards[k].card if k in kb.cards else None) is
                       (before_cards[k].card if k in before_cards else None) for k in keys)
        all_scenarios = [(s, None, None) for s in scenarios] + nested
        for s, owner, rev in all_scenarios:
            if self.check_game_prefix(s.id, s.loc, "scenario") and self.register("scenario", s.id, s.loc):
                if self.wanted is not None and not self.wanted(s):
                    continue
                done = reuse.get(id(s))
                if done is not None and done[0] is s and done[1] == owner and done[2] is rev \
                        and completes_same_cards(s):
                    info, found = done[3], done[4]
                    self.diag.extend(found)
                else:
                    before = len(self.diag)
                    info = self.scenario(s, owner, rev)
                    found = self.diag[before:]
                kb._built[id(s)] = (s, owner, rev, info, found)
                if info is not None:
                    kb.scenarios[s.id] = info
        for d in decks:
            if self.check_game_prefix(d.id, d.loc, "deck") and self.register("scenario", d.id, d.loc):
                kb.decks[d.id] = self.deck(d)

    def digest(self, d) -> Optional[str]:
        """The digest of the file a card, ruling or scenario is in and its id (a card's code), or
        None when the file has none: made for the cards and the scenarios' containers alone, not
        for every declaration (a card has no `id`, which pydantic's model looks for slowly)."""
        digest = self.files.get(id(d))
        if not digest:
            return None
        return f"{digest}:{d.code}" if type(d) is Card else f"{digest}:{getattr(d, 'id', None) or getattr(d, 'code', '')}"

    # -- ids ----------------------------------------------------------------------------
    def register(self, kind: str, ident: str, loc: Loc) -> bool:
        key = ("id", ident) if kind in ("section", "ruling", "scenario") else (kind, ident)
        first = self.first_seen.get(key)
        if first is not None:
            self.err("duplicate-id", loc, f"{kind} {ident} is already declared",
                     "give each its own id", (Related(loc=first, message="first declared here"),))
            return False
        self.first_seen[key] = loc
        return True

    def check_game_prefix(self, ident: str, loc: Loc, what: str) -> bool:
        game = ident.split("/", 1)[0]
        if "/" not in ident or not ident.split("/", 1)[1]:
            self.err("id", loc, f"the id of a {what} starts with its game: {game}/…",
                     f"for example {game}/battle/range")
            return False
        if game not in self.kb.games:
            self.unknown_game(game, loc)
            return False
        return True

    def unknown_game(self, game: Optional[str], loc: Loc) -> None:
        self.err("unknown-ref", loc, f"unknown game {game}",
                 did_you_mean(str(game), self.kb.games) or
                 "declare it with `game ID \"name\" { … }` under rulings/ID/")

    # -- games --------------------------------------------------------------------------
    def game(self, g: Game) -> None:
        players = (2, 2)
        cells: tuple[str, ...] = ()
        modes: dict[str, Optional[str]] = {}
        zones: dict[str, Optional[str]] = {}
        terms: list = []
        documents: dict[str, SourceDocument] = {}
        base = Path(self.kb.root) / g.loc.file if not os.path.isabs(g.loc.file) else Path(g.loc.file)
        for c in g.clauses:
            a = c.args
            if c.head == "players" and 1 <= len(a) <= 2 and all(x.kind == "number" for x in a):
                players = (int(a[0].value), int(a[-1].value))
            elif c.head == "grid" and len(a) == 2 and all(x.kind == "number" for x in a):
                cells = grid_cells(int(a[0].value), int(a[1].value))
            elif c.head in ("mode", "zone") and a and a[0].kind == "name" and (
                    len(a) == 1 or (len(a) == 2 and a[1].kind == "string")):
                (modes if c.head == "mode" else zones)[str(a[0].value)] = str(a[1].value) if len(a) > 1 else None
            elif c.head == "term" and 2 <= len(a) <= 3 and a[0].kind == "string" and a[1].kind == "name":
                terms.append((str(a[0].value), str(a[1].value), str(a[2].value) if len(a) > 2 else None))
            elif c.head == "document" and len(a) == 2 and all(x.kind == "string" for x in a):
                path = base.parent / str(a[0].value)
                try:
                    doc = SourceDocument.load(Path(str(a[0].value)).name, str(a[1].value), path)
                except (OSError, UnicodeDecodeError) as e:
                    self.err("citation", a[0].loc, f"cannot read source document {path}: {e}")
                    continue
                self.authority(doc, c.body or ())
                documents[doc.name] = doc
            else:
                self.err("game", c.loc, f'unknown or malformed game statement "{c.head}"',
                         'game statements: players MIN [MAX]; grid COLUMNS ROWS; zone NAME "label"; '
                         'mode NAME "label"; term "日本語" name ["note"]; document "path" "title"; '
                         'point …; vocabulary { … }')
        if not modes:
            modes = {"casual": None}
        player_names = tuple(f"P{i}" for i in range(1, players[1] + 1))
        vocab, errors = _vocabulary(g.id, g.vocabulary, cells, player_names)
        self.diag.extend(errors)
        points: dict[str, Point] = {}
        for p in g.points:
            if p.name in points:
                self.err("duplicate-id", p.loc, f"rule point {p.name} is declared twice",
                         related=(Related(loc=points[p.name].loc, message="first declared here"),))
                continue
            points[p.name] = p
        self.kb.games[g.id] = GameInfo(decl=g, vocab=vocab, points=points, documents=documents,
                                       players=players, modes=modes, zones=zones, terms=terms)

    def authority(self, doc: SourceDocument, body) -> None:
        """`document … { kind K; says "…"; quote "…"; dated "…" }`: what the document is."""
        from .sources import AUTHORITY_KINDS
        for c in body:
            a = c.args
            if c.head == "kind" and len(a) == 1 and a[0].kind == "name" and a[0].value in AUTHORITY_KINDS:
                doc.kind = str(a[0].value)
            elif c.head in ("says", "quote", "dated") and len(a) == 1 and a[0].kind == "string" and c.body is None:
                setattr(doc, c.head, str(a[0].value))
                if c.head == "quote":
                    doc.quote_loc = a[0].loc
            else:
                self.err("game", c.loc, f'unknown or malformed document statement "{c.head}"',
                         "document statements: kind " + " | ".join(AUTHORITY_KINDS) +
                         '; says "its standing in a few words"; quote "the document\'s own words"; '
                         'dated "2011-04-09"')

    # -- cards --------------------------------------------------------------------------
    def card(self, c: Card, game: str, scenario: Optional[Scenario] = None) -> CardInfo:
        v = self.card_validators.get(game)
        if v is None:       # one per game: a card's validation reads no other card's, and its errors are its own
            v = self.card_validators[game] = Validator(self.kb.games[game].vocab,
                                                       resolve_card=self.card_resolver(game, None),
                                                       ref_exists=self.ref_exists, plans=self.plans_of(game))
        v.errors = []
        facts, effects = self.card_clauses(v, c.clauses)
        errata = []
        for e in c.errata:
            efacts, eeffects = self.card_clauses(v, e.clauses)
            errata.append((e, efacts, eeffects))
        self.diag.extend(v.errors)
        return CardInfo(c, game, facts, effects, tuple(errata), scenario is not None)

    def plans_of(self, game: str) -> dict:
        """The plans of the game's vocabulary's arguments, shared by all its validators: a plan
        reads the vocabulary alone, which nothing changes during a build."""
        return self.plans.setdefault(game, {})

    def card_clauses(self, v: Validator, clauses) -> tuple[dict[str, Any], tuple[Call, ...]]:
        facts: dict[str, Any] = {}
        effects: list[Call] = []
        fact_names = v.vocab.entries["fact"]
        for cl in clauses:
            head = cl.head
            entry = fact_names.get(head)
            if entry is not None:
                a = cl.args
                if len(a) == 1 and a[0].kind == "name" and a[0].value == "unknown" and cl.body is None:
                    facts[head] = UNKNOWN  # `unknown` stands for the whole fact, whatever its shape
                    continue
            # v.clause(cl, ("fact", "effect"), "card"), its look-up written out
            if head == "effect":
                call = v.effect(cl)
                if call is not None:
                    effects.append(call)
                continue
            call = v.call(cl, entry) if entry is not None else v.clause(cl, ("fact", "effect"), "card")
            if call is not None:
                if call.name in facts:
                    v.err(cl.loc, f"{call.name} is given twice for this card")
                params = call.params
                facts[call.name] = next(iter(params.values())) if len(params) == 1 else params
        return facts, tuple(effects)

    def card_resolver(self, game: str, local: Optional[dict[str, CardInfo]]):
        kb = self.kb

        def resolve(atom: Atom) -> tuple[Optional[CardRef], Optional[str], Optional[str]]:
            text = str(atom.value)
            if local is not None and text in local:
                c = local[text]
                key = (game, text) if not c.hypothetical else ("", text)
                return CardRef(text, key), None, None
            if atom.kind == "name" and (game, text) in kb.cards:
                return CardRef(text, (game, text)), None, None
            codes = kb._cards_by_name.get((game, text.strip("《》")), [])
            if len(codes) == 1:
                return CardRef(text, (game, codes[0])), None, None
            if len(codes) > 1:
                return None, f'"{text}" names {len(codes)} cards ({", ".join(codes)})', \
                    f"refer to one by its code: {codes[0]}"
            names = ([k for k in local] if local else []) + [c for (g, c) in kb.cards if g == game] + \
                    [n for (g, n) in kb._cards_by_name if g == game]
            hint = did_you_mean(text, names) or \
                f'define a hypothetical card in the scenario: card {atom.display()} {{ weight 60kg }}'
            return None, f"unknown card {atom.display()}", hint
        return resolve

    def ref_exists(self, kind: str, ident: str) -> bool:
        return ident in (self.kb.sections if kind == "section" else self.kb.rulings)

    # -- decks --------------------------------------------------------------------------
    def deck(self, d: Deck) -> DeckInfo:
        game = d.game
        local = {c.code: self.card(c, game, scenario=d) for c in d.cards}  # type: ignore[arg-type]
        v = Validator(self.kb.games[game].vocab, resolve_card=self.card_resolver(game, local),
                      ref_exists=self.ref_exists, plans=self.plans_of(game))
        entries = v.clauses(d.clauses, ("deck",), "deck")
        self.diag.extend(v.errors)
        return DeckInfo(deck=d, cards=local, entries=entries)

    # -- scenarios ----------------------------------------------------------------------
    def scenario(self, s: Scenario, owner: Optional[str], rev: Optional[Revision]) -> Optional[ScenarioInfo]:
        game = s.game
        info = self.kb.games[game]
        local: dict[str, CardInfo] = {}
        assumptions: list[str] = []
        for c in s.cards:
            known = (game, c.code) in self.kb.cards
            base = self.kb.cards.get((game, c.code))
            ci = self.card(c, game, scenario=s)
            if known and base is not None:
                assumptions += self.assumed(info, base, c)
                # completing a known card: only what the sources leave unknown may be supplied
                for fact, value in ci.facts.items():
                    given = base.facts.get(fact, UNKNOWN)
                    if given is not UNKNOWN and given != value:
                        self.err("scenario-card", c.loc,
                                 f"{c.code}'s {fact} is given by the sources as {given}; a scenario may "
                                 "only supply facts the sources leave unknown",
                                 "define a hypothetical card with its own name instead")
                merged = {**base.facts, **{k: v for k, v in ci.facts.items() if v is not UNKNOWN}}
                ci = CardInfo(card=base.card, game=game, facts=merged,
                              effects=ci.effects or base.effects, errata=base.errata)
            if c.code in local:
                self.err("duplicate-id", c.loc, f"card {c.code} is defined twice in this scenario")
            local[c.code] = ci
        v = Validator(info.vocab, resolve_card=self.card_resolver(game, local), ref_exists=self.ref_exists,
                      plans=self.plans_of(game))
        calls = v.clauses(s.clauses, ("setup", "action"), "scenario")
        expects = []
        forms = info.vocab.entries.get("expect", {})
        for e in s.expects:
            # Clause(head=e.form, args=e.args, loc=e.loc), without the named tuple's Python-level
            # constructor, and v.clause(that, ("expect",), "expectation") with its look-up written out
            clause = tuple.__new__(Clause, (e.form, e.loc, e.args, None))
            entry = forms.get(e.form)
            call = v.call(clause, entry) if entry is not None else v.clause(clause, ("expect",), "expectation")
            if call is not None:
                expects.append((e, call))
        self.diag.extend(v.errors)
        if s.mode is not None and s.mode not in info.modes:
            self.err("unknown-ref", s.mode_loc, f"unknown mode {s.mode} for {game}",
                     did_you_mean(s.mode, info.modes) or "modes: " + ", ".join(info.modes))
        pins = list(s.pins)
        if owner is not None:
            pins.append(RevRef(target=owner, date=rev.date if rev else None,
                               undated=bool(rev and rev.date is None), loc=s.loc))
        container = s if owner is None else self.kb.rulings[owner]
        digest = self.digest(container)
        return ScenarioInfo(scenario=s, cards=local, calls=calls, expects=tuple(expects),
                            owner=(owner, rev) if owner else None, pins=tuple(pins),
                            digest=f"{digest}:{s.id}" if digest else None,
                            assumptions=tuple(assumptions))

    @staticmethod
    def assumed(info: GameInfo, base: CardInfo, c: Card) -> list[str]:
        """What a scenario supplies about a card of the sources: its assumption, in words."""
        facts = info.vocab.entries.get("fact", {})
        out = []
        for cl in c.clauses:
            if cl.head in facts:
                entry = facts[cl.head]
                words = []
                for a in cl.args:   # enum values and yes/no in the vocabulary's Japanese words
                    value = a.display()
                    if a.kind == "name":
                        value = {"yes": "あり", "no": "なし", "true": "あり", "false": "なし"}.get(str(a.value), value)
                        for p in entry.params:
                            for t in p.types:
                                value = info.vocab.enum_label(t, str(a.value)) or value
                    words.append(value)
                out.append(f"{c.code}《{base.name}》の{entry.label or cl.head}は{' '.join(words)}"
                           "（資料に記載なし。この場面の仮定）")
            elif cl.head == "effect" or cl.head in info.vocab.entries.get("trigger", {}):
                out.append(f"{c.code}《{base.name}》の効果（資料に記載なし。この場面の仮定）")
        return out
