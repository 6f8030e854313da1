"""The knowledge base: every game's declarations, rule sections, cards, rulings and scenarios,
with references resolved, game vocabularies applied, and questions answered as of a date.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any, Optional, Union

from ..base.record import Record, field, replace

from ..lang.dates import CALENDARS, DEFAULT_CALENDAR, PartialDate
from ..lang.diagnostics import Diagnostic
from ..lang.model import (Card, Deck, Document, Errata, Expectation, Game, Loc, Point, Revision, RevRef,
                          Ruling, Scenario, Section, Status)
from ..lang.vocab import Call, Vocabulary
from .sources import SourceDocument
from .timeline import Timelines, start

# ----------------------------------------------------------------------------- resolved nodes

_NO_SETTINGS: tuple = ((), (), ())     # `KnowledgeBase._walked` of a point no setting names


class Resolved(Record, frozen=True):
    """A rule point's value as of a date, and where it comes from. A frozen record, not a declared
    model: nothing validates or dumps one, and the engines read its fields on every question
    (a model's field read takes CPython's slow attribute path: `BaseModel` defines `__getattr__`).
    `cite`, what the value comes from (`ruling@revision`, else the section), is made with it."""

    point: str
    value: str
    status: Status
    card: Optional[str] = None
    ruling: Optional[str] = None            # the ruling whose revision decided, if any
    revision: Optional[str] = None          # its date label (2026-03, undated)
    section: Optional[str] = None           # the rule section giving the default, if no ruling
    source: Optional[str] = None            # the citation
    reason: Optional[str] = None            # why, for unconfirmed values
    loc: Optional[Loc] = None               # where the deciding setting or default is written
    fuzzy: Optional[str] = None             # the as-of day lies inside a fuzzy period
    conflicts: tuple[str, ...] = ()         # other in-force rulings setting another value
    unsettled: Optional[str] = None         # the sources leave the point open that day: the gap ruling
    readings: tuple[str, ...] = ()          # and the values it may be read as (default first)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cite", f"{self.ruling}@{self.revision}" if self.ruling else self.section or "")


class GameInfo(Record):
    decl: Game
    vocab: Vocabulary
    points: dict[str, Point]
    documents: dict[str, SourceDocument]
    players: tuple[int, int]
    modes: dict[str, Optional[str]]
    zones: dict[str, Optional[str]]
    terms: list[tuple[str, str, Optional[str]]]


class CardInfo(Record):
    """A card with its facts and effects validated; errata applied by `at(date)`."""

    card: Card
    game: str
    facts: dict[str, Any]
    effects: tuple[Call, ...]
    errata: tuple[tuple[Errata, dict[str, Any], tuple[Call, ...]], ...] = ()
    hypothetical: bool = False      # defined inside a scenario
    digest: Optional[str] = None    # of the file it is written in

    def __init__(self, card: Card, game: str, facts: dict[str, Any], effects: tuple[Call, ...],
                 errata: tuple = (), hypothetical: bool = False, digest: Optional[str] = None) -> None:
        # written out, as for each record made per card, scenario or revision: Record's own
        # constructor is about twice as slow
        self.card, self.game, self.facts, self.effects = card, game, facts, effects
        self.errata, self.hypothetical, self.digest = errata, hypothetical, digest

    @property
    def code(self) -> str:
        return self.card.code

    @property
    def name(self) -> str:
        return self.card.name or self.card.code

    def at(self, day: Optional[_dt.date]) -> "CardInfo":
        """The card as printed on `day`: errata in force replace the facts they give and,
        if they give any effect, all effects."""
        if not self.errata or day is None:
            return self
        facts, effects = dict(self.facts), self.effects
        for e, efacts, eeffects in self.errata:
            if e.status is Status.retracted or (e.date and e.date.start() > day):
                continue
            facts.update(efacts)
            if eeffects:
                effects = eeffects
        return CardInfo(card=self.card, game=self.game, facts=facts, effects=effects,
                        hypothetical=self.hypothetical)


class ScenarioInfo(Record):
    scenario: Scenario
    cards: dict[str, CardInfo]              # the scenario's own cards by code
    calls: tuple[Call, ...]                 # set-up and actions in order
    expects: tuple[tuple[Expectation, Call], ...]
    owner: Optional[tuple[str, Optional[Revision]]] = None   # ruling (and revision) it is attached to
    pins: tuple[RevRef, ...] = ()           # explicit pins and the owner
    digest: Optional[str] = None            # of the scenario's text, computed when first needed
    assumptions: tuple[str, ...] = ()       # facts of known cards the scenario supplies (仮定)

    def __init__(self, scenario: Scenario, cards: dict[str, CardInfo], calls: tuple[Call, ...],
                 expects: tuple[tuple[Expectation, Call], ...], owner: Optional[tuple] = None,
                 pins: tuple[RevRef, ...] = (), digest: Optional[str] = None, assumptions: tuple[str, ...] = ()) -> None:
        self.scenario, self.cards, self.calls, self.expects = scenario, cards, calls, expects
        self.owner, self.pins, self.digest, self.assumptions = owner, pins, digest, assumptions

    @property
    def id(self) -> str:
        return self.scenario.id

    @property
    def game(self) -> str:
        return self.scenario.game


class DeckInfo(Record):
    deck: Deck
    cards: dict[str, CardInfo]              # the deck's own hypothetical cards by code
    entries: tuple[Call, ...]

    @property
    def id(self) -> str:
        return self.deck.id

    @property
    def game(self) -> str:
        return self.deck.game


# ----------------------------------------------------------------------------- the knowledge base

class KnowledgeBase(Record):
    root: Path
    files: list[str] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    games: dict[str, GameInfo] = field(default_factory=dict)
    sections: dict[str, Section] = field(default_factory=dict)
    cards: dict[tuple[str, str], CardInfo] = field(default_factory=dict)
    rulings: dict[str, Ruling] = field(default_factory=dict)
    scenarios: dict[str, ScenarioInfo] = field(default_factory=dict)
    decks: dict[str, DeckInfo] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    timelines: Timelines = None  # type: ignore[assignment]
    # (game, point) -> [(ruling id, revision, setting)]
    settings_index: dict[tuple[str, str], list] = field(default_factory=dict)
    # (game, point, card or None) -> the same, split by the card a setting names
    settings_by_card: dict[tuple[str, str, Optional[str]], list] = field(default_factory=dict)
    _cards_by_name: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # answers computed from the loaded data, which does not change once loaded
    _values: dict[tuple, Resolved] = field(default_factory=dict, repr=False)
    # how it was built, for building the next one faster in a resident process (see _Builder)
    _frame: tuple = field(default=(), repr=False)
    _built: dict[int, tuple] = field(default_factory=dict, repr=False)
    _active_memo: dict[tuple, list] = field(default_factory=dict, repr=False)
    _fuzzy_memo: dict[tuple, Optional[str]] = field(default_factory=dict, repr=False)
    # (game, point, card or None) -> its settings as `settings_in_force` and `_fuzzy_in` walk them
    # (`_walked`): read from the settings alone (no timeline, no calendar), so shared by every view
    # made by `replace`
    _walks: dict[tuple, tuple] = field(default_factory=dict, repr=False)
    memo: dict[tuple, object] = field(default_factory=dict, repr=False)
    calendar: Optional[str] = None          # how season dates are read (dates.CALENDARS; None: the default)
    _calendars: dict[str, "KnowledgeBase"] = field(default_factory=dict, repr=False)
    # the knowledge base this one is without a revision of (`timelines.removed`): its season
    # readings are that one's without the revision too (under_calendar), not timelines made anew
    _whole: Optional["KnowledgeBase"] = field(default=None, repr=False, compare=False)

    # -- lookups ------------------------------------------------------------------------
    def game_of(self, ident: str) -> str:
        return ident.split("/", 1)[0]

    def card(self, game: str, code: str) -> Optional[CardInfo]:
        return self.cards.get((game, code))

    def find_cards(self, text: str, game: Optional[str] = None) -> list[CardInfo]:
        """Cards whose code or name is `text` (《》 around a name are ignored)."""
        text = text.strip().strip("《》")
        out = [c for (g, code), c in self.cards.items() if code == text and (game in (None, g))]
        if not out:
            for (g, name), codes in self._cards_by_name.items():
                if name == text and game in (None, g):
                    out += [self.cards[(g, c)] for c in codes]
        return out

    def kind_of(self, ident: str) -> Optional[str]:
        if ident in self.rulings:
            return "ruling"
        if ident in self.sections:
            return "section"
        if ident in self.scenarios:
            return "scenario"
        if ident in self.games:
            return "game"
        if ident in self.decks:
            return "deck"
        return None

    def forget(self, kind: str) -> None:
        """Let go of what `memo` keeps under `kind` (the first item of its keys), for a caller
        that knows nothing will read it again here, or that it is cheaper made again: every
        entry is what a later call would make anew, so nothing read from this knowledge base
        changes (as after `memo.clear()`)."""
        memo = self.memo
        for key in [k for k in memo if type(k) is tuple and k and k[0] == kind]:
            del memo[key]

    # -- time ---------------------------------------------------------------------------
    def in_force(self, ruling: str, day: _dt.date) -> Optional[Revision]:
        return self.timelines.in_force(ruling, day)

    def under_calendar(self, reading: str) -> "KnowledgeBase":
        """The same knowledge base with season dates read another way (dates.CALENDARS): its
        timelines rebuilt (without the revision its own timelines leave out, if any:
        `Timelines.without`), everything else shared, nothing memoised carried over but the
        revisions dated to a season (`season_revisions`: the rulings', however seasons are read)."""
        if reading == (self.calendar or DEFAULT_CALENDAR):
            return self
        other = self._calendars.get(reading)
        if other is None:
            if self.timelines.removed is not None and self._whole is not None:
                # the whole knowledge base's timelines under the reading (made once for all its
                # revisions), without the one removed: what rebuilding every ruling's would give
                timelines = self._whole.under_calendar(reading).timelines.without(*self.timelines.removed)
            else:
                if self.timelines.made_from(self.rulings.values()):
                    timelines = self.timelines.read(reading)    # made from these very rulings: read again
                else:
                    timelines = Timelines(self.rulings.values(), reading)
                if self.timelines.removed is not None:
                    timelines = timelines.without(*self.timelines.removed)
            seasons = [("season-revisions", g) for g in self.games]     # of the rulings alone: the same
            other = replace(
                self, timelines=timelines, calendar=reading, _values={}, _active_memo={}, _fuzzy_memo={},
                memo={k: self.memo[k] for k in seasons if k in self.memo}, _calendars={})
            self._calendars[reading] = other
        return other

    def season_revisions(self, game: str) -> list[tuple[str, Revision]]:
        """The revisions of a game's rulings dated to a season (their first day depends on how
        seasons are read)."""
        key = ("season-revisions", game)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = [(r.id, rev) for r in self.rulings.values() if r.game == game
                                      for rev in r.revisions if rev.date is not None and rev.date.season]
        return found  # type: ignore[return-value]

    def as_of(self, day: _dt.date, game: Optional[str] = None) -> list[tuple[Ruling, Revision]]:
        """Every ruling revision in force on `day` (optionally for one game)."""
        out = []
        for rid, ruling in self.rulings.items():
            if game and ruling.game != game:
                continue
            rev = self.in_force(rid, day)
            if rev is not None:
                out.append((ruling, rev))
        return out

    def value(self, game: str, point: str, card: Optional[str] = None,
              as_of: Union[_dt.date, PartialDate, None] = None) -> Resolved:
        """The value of a rule point on a day, with its provenance: the ruling revision in
        force that sets it (card-specific settings first), else the game's default."""
        day = _day(as_of)
        key = (game, point, card, day)
        found = self._values.get(key)
        if found is None:
            found = self._values[key] = self._value(game, point, card, day)
        return found

    def _value(self, game: str, point: str, card: Optional[str], day: _dt.date) -> Resolved:
        info = self.games[game]
        p = info.points.get(point)
        if p is None:
            raise KeyError(f"{game} has no rule point {point}")
        specific = self.settings_in_force(game, point, card, day) if card is not None else []
        chosen = specific or self.settings_in_force(game, point, None, day)
        if chosen:
            pool = sorted(chosen, key=lambda c: (start(c[1]), c[0]))
            rid, rev, setting = pool[-1]
            conflicts = tuple(sorted({f"{r}@{v.date_label}={s.value}" for r, v, s in pool
                                      if s.value != setting.value}))
            # a source that decides the point (confirmed, provisional or unofficial) settles it
            open_ = p.unsettled is not None and rev.status in (Status.unconfirmed, Status.retracted)
            return Resolved(      # built here from validated nodes
                point=point, card=card, value=setting.value, status=rev.status, ruling=rid,
                revision=rev.date_label, source=rev.source.raw if rev.source else None,
                reason=rev.reason, loc=setting.loc, fuzzy=self._fuzzy(game, point, card, day),
                conflicts=conflicts, unsettled=p.unsettled if open_ else None,
                readings=p.readings if open_ else ())
        d = p.default
        sec = self.sections.get(d.section) if d else None
        return Resolved(
            point=point, card=card, value=d.value if d else "",
            status=d.status if d else Status.unconfirmed, section=d.section if d else None,
            source=sec.source.raw if sec and sec.source else None, reason=p.reason,
            loc=d.loc if d else p.loc, fuzzy=self._fuzzy(game, point, card, day),
            unsettled=p.unsettled, readings=p.readings if p.unsettled else ())

    def settings_in_force(self, game: str, point: str, card: Optional[str], day: _dt.date) -> list:
        """The settings of a point naming `card` (None: the game-wide ones) whose revision is in
        force on `day`. Memoised: the game-wide list is shared by every card's lookup, and
        walking it for each card would make a wiki of N cards cost N² (a card-specific setting
        wins over the game-wide ones)."""
        key = (game, point, card, day)
        found = self._active_memo.get(key)
        if found is None:
            settings, rulings, _ = self._walked(game, point, card)
            in_force = self.timelines.in_force      # once per ruling, not per setting (a ruling's revisions set it again and again)
            now = {rid: in_force(rid, day) for rid in rulings}
            found = self._active_memo[key] = [s for s in settings if now[s[0]] is s[1]]
        return found

    def _walked(self, game: str, point: str, card: Optional[str]) -> tuple:
        """A point's settings naming `card` (None: the game-wide ones) in their order, the rulings
        they are of, and those of a revision whose exact day is unknown with every day its period
        may cover (`PartialDate.window`), in their order: what `settings_in_force` and `_fuzzy_in` read
        for every day asked, made once."""
        key = (game, point, card)
        found = self._walks.get(key)
        if found is None:
            settings = self.settings_by_card.get(key)
            if not settings:
                return _NO_SETTINGS         # (most cards set no point: nothing kept for them)
            inexact = [(*rev.date.window(), rid, rev) for rid, rev, _ in settings
                       if rev.date is not None and not rev.date.is_exact]
            found = self._walks[key] = (settings, list(dict.fromkeys(rid for rid, _, _ in settings)), inexact)
        return found

    def _fuzzy(self, game: str, point: str, card: Optional[str], day: _dt.date) -> Optional[str]:
        """A note when `day` lies inside the period of a revision setting this point whose
        exact day is unknown: the answer may differ depending on that day."""
        found = self._fuzzy_in(game, point, card, day) if card is not None else None
        return found or self._fuzzy_in(game, point, None, day)

    def _fuzzy_in(self, game: str, point: str, card: Optional[str], day: _dt.date) -> Optional[str]:
        key = (game, point, card, day)
        if key in self._fuzzy_memo:
            return self._fuzzy_memo[key]
        note = None
        for first, last, rid, rev in self._walked(game, point, card)[2]:
            if not first <= day <= last:
                continue
            begins = rev.date.start(self.calendar)
            note = (f"{day.isoformat()}は{rev.date.ja()}（{rid}）の期間にかかる。資料は裁定の正確な日を"
                    f"書いていないため、{begins.isoformat()}から有効として扱う")
            if rev.date.season:
                earliest, latest = rev.date.starts()
                note += (f"。{rev.date.ja()}がいつ始まるかも資料にない: {CALENDARS[self.calendar or DEFAULT_CALENDAR][0]}"
                         f"で読む。別の読みでは{earliest.isoformat()}〜{latest.isoformat()}に始まる（ask --readings）")
            break
        self._fuzzy_memo[key] = note
        return note


def _day(value) -> _dt.date:
    if value is None:
        return _dt.date.today()
    if isinstance(value, PartialDate):
        return value.start()
    return value
