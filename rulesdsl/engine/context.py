"""One run of a scenario: the knowledge base as of the scenario's date, the trace, the
choices made, and the bounds that stop runaway effects.

Choices are replayed: a run follows a script of option indices and records every choice point
it meets; the explorer re-runs the scenario with each untried index until every combination is
covered. The engine must therefore be deterministic given the script.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, NamedTuple, Optional, Sequence, Union

from ..base.record import Record, replace
from ..kb.knowledge import KnowledgeBase, Resolved
from ..lang.model import Loc, Status
from .chance import branch as chance_branch
from .trace import Cite, Step


class EngineError(Exception):
    """Input the engine cannot answer for (a missing weight, an impossible set-up): located,
    with a hint. Becomes a diagnostic."""

    def __init__(self, message: str, loc: Optional[Loc] = None, hint: Optional[str] = None,
                 code: str = "scenario"):
        super().__init__(message)
        self.message, self.loc, self.hint, self.code = message, loc, hint, code


class IllegalAction(Exception):
    """A scenario action the rules forbid; ends the branch with `illegal` as its outcome.
    `also`: further citations the decision rests on (a rule point's reading, a second rule).
    `untouched`: set by a game that refused before the action changed anything of the state; where
    the action made no choice either, a run that goes on after the refusal goes on from the state as
    it is, instead of replaying the run to the state before the action (runner.rebuild)."""

    untouched = False

    def __init__(self, message: str, cite: Optional[Cite] = None, loc: Optional[Loc] = None,
                 also: Sequence[Cite] = ()):
        super().__init__(message)
        self.message, self.cite, self.loc = message, cite, loc
        if also:
            self.cites = tuple(c for c in (cite, *also) if c is not None)
        else:       # most refusals: one citation or none, without a generator made for it
            self.cites = () if cite is None else (cite,)


class StepLimit(Exception):
    pass


class _Nested:
    __slots__ = ("ctx",)

    def __init__(self, ctx: "Context") -> None:
        self.ctx = ctx

    def __enter__(self) -> None:
        self.ctx.depth += 1
        if self.ctx.depth > self.ctx.bounds.max_depth:
            raise StepLimit()

    def __exit__(self, *exc) -> None:
        self.ctx.depth -= 1


class ChoicePoint(Record):
    chooser: Optional[str]          # the player who chooses; None when the rules name nobody
    label: str                      # what is being chosen (Japanese)
    options: tuple[str, ...]        # option keys (shown to the reader; `choose` can name them)
    picked: int = 0
    cite: Optional[Cite] = None     # the rule that gives the choice to `chooser`

    def __init__(self, chooser: Optional[str], label: str, options: tuple[str, ...], picked: int = 0,
                 cite: Optional[Cite] = None) -> None:     # one per choice met: written out
        self.chooser, self.label, self.options, self.picked, self.cite = chooser, label, options, picked, cite


class Fixed(NamedTuple):
    """A choice the scenario fixes in advance (`choose P2 b2`), with where it is written."""

    value: str
    loc: Optional[Loc] = None


# Hard ceilings for the two bounds a user may raise: what a question may cost at most. An outcome
# of a roll costs about 0.6 kB while it is enumerated (35 open dice, 658,008 outcomes: 382 MB,
# 18 s), so a million stays under a gigabyte; a branch keeps its trace and board.
MAX_BRANCHES_CEILING = 20_000
MAX_OUTCOMES_CEILING = 1_000_000


class Bounds(Record):
    max_steps: int = 5_000          # trace steps in one run: an effect loop stops here
    max_branches: int = 512         # runs per scenario: a choice explosion stops here
    max_depth: int = 40             # effects triggered inside effects: a trigger loop stops here
    max_outcomes: int = 10_000      # outcomes of one chance point (e.g. multisets of a roll)

    def __post_init__(self) -> None:
        for name, ceiling in (("max_branches", MAX_BRANCHES_CEILING), ("max_outcomes", MAX_OUTCOMES_CEILING)):
            value = getattr(self, name)
            if not 1 <= value <= ceiling:
                raise ValueError(f"{name} must be between 1 and {ceiling:,} (got {value:,})")


def carded_points(kb: KnowledgeBase) -> frozenset[tuple[str, str]]:
    """The (game, point)s some ruling sets for one card (`set card("…").point = value`): only
    while one of them is asked do the cards an action names matter (`Context.subjects`)."""
    carded = kb.memo.get("engine.carded")
    if carded is None:
        carded = kb.memo["engine.carded"] = frozenset(
            (g, name) for g, name, code in kb.settings_by_card if code is not None)
    return carded


def carded_games(kb: KnowledgeBase) -> frozenset[str]:
    """The games some ruling sets a point for one card of (`carded_points`): in the others no
    point ever asks for the cards an action names."""
    games = kb.memo.get("engine.carded_games")
    if games is None:
        games = kb.memo["engine.carded_games"] = frozenset(g for g, _ in carded_points(kb))
    return games


def card_setting_applies(kb: KnowledgeBase, game: str, name: str, code: str, day: _dt.date) -> bool:
    """Whether a point asked while an action is about card `code` takes that card's own setting
    (`Context._card_setting`: the first subject for which this holds): a ruling sets the point
    for the card, and the card's value on the day comes from another setting than the game's."""
    if (game, name, code) not in kb.settings_by_card:
        return False
    specific = kb.value(game, name, card=code, as_of=day)
    wide = kb.value(game, name, as_of=day)
    return (specific.ruling, specific.revision) != (wide.ruling, wide.revision)


class Context:
    """The engine's view of the world during one run."""

    def __init__(self, kb: KnowledgeBase, game: str, day: _dt.date, mode: str,
                 script: Sequence[int] = (), fixed: Optional[dict[str, list[Union[str, Fixed]]]] = None,
                 bounds: Optional[Bounds] = None, point_cache: Optional[dict] = None,
                 readings: Optional[dict[str, str]] = None) -> None:
        self.kb = kb
        self.game = game
        self.day = day
        self.mode = mode
        self.script = list(script)
        self.fixed = {k: [f if isinstance(f, Fixed) else Fixed(str(f)) for f in v]
                      for k, v in fixed.items()} if fixed else {}     # most scenarios fix no choice
        # every choice met, fixed by the scenario or not: who chooses what, under which rule
        self.assigned: list[tuple[Optional[str], str, Optional[Cite]]] = []
        # a reading of unsettled rule points to answer under: "point" or "card(X).point" -> value
        self.readings = readings or {}
        self.bounds = bounds = bounds or Bounds()
        self._max_steps = bounds.max_steps      # read at every step
        self.steps: list[Step] = []
        self.choices: list[ChoicePoint] = []
        self.points: dict[tuple[str, Optional[str]], Resolved] = {}
        self.sections: set[str] = set()
        self.cards: set[str] = set()
        self.rulings: set[str] = set()
        # which rule points each citation of a point's provenance came from, and the citations
        # made directly (a ruling that sets no point): the answer's status counts the first only
        # where a point decides the answer (see engine.deciding), the second always
        self.point_cites: dict[tuple, set[str]] = {}
        self.direct: dict[tuple, Cite] = {}
        self.depth = 0
        self._cache = point_cache if point_cache is not None else {}
        # the cards the action being answered names (played, cast, declared…): a rule point set
        # for one of them (`set card("…").point = value`) applies to it while the action runs
        self.subjects: tuple[str, ...] = ()
        # the (game, point)s some ruling sets for one card: only for them do the subjects matter
        memo = kb.memo
        self._carded = carded_points(kb)
        # rule sections' citations by id, the same for every run on this knowledge base (`section`)
        sections = memo.get("engine.sections")
        if sections is None:
            sections = memo["engine.sections"] = {}
        self._section_cites: dict[str, Cite] = sections

    # -- the trace ----------------------------------------------------------------------
    def step(self, text: str, *cites: Cite, kind: str = "rule") -> None:
        steps = self.steps
        if len(steps) >= self._max_steps:
            raise StepLimit()
        steps.append(Step(text, cites, kind))

    def section(self, sid: str) -> Cite:
        """A citation of a base rule section (status: as the rules text states it)."""
        self.sections.add(sid)
        cite = self._section_cites.get(sid)
        if cite is None:    # the same for every run on this knowledge base (citations are never changed)
            sec = self.kb.sections.get(sid)
            cite = self._section_cites[sid] = Cite("section", sid, Status.confirmed,
                                                   sec.source.raw if sec and sec.source else None)
        return cite

    def ruling(self, rid: str) -> Cite:
        """A citation of the revision of a ruling in force on the run's date (for the rulings
        that record the knowledge base's own readings, which set no rule point)."""
        rev = self.kb.in_force(rid, self.day)
        if rev is None:
            raise EngineError(f"the interpreter relies on ruling {rid}, which is not in force on {self.day}")
        self.rulings.add(f"{rid}@{rev.date_label}")
        cite = Cite("ruling", f"{rid}@{rev.date_label}", rev.status, rev.source.raw if rev.source else None,
                    rev.reason)
        self.direct[cite.key()] = cite
        return cite

    def assume(self, rid: str, text: str) -> Cite:
        """A fact the question takes as given where the sources give none (a known card's effects
        or range not in the source, taken as none or the normal one), under the convention ruling
        `rid` records: listed with the answer as its 仮定, never a status of the rules."""
        rev = self.kb.in_force(rid, self.day)
        if rev is None:
            raise EngineError(f"the interpreter relies on ruling {rid}, which is not in force on {self.day}")
        self.rulings.add(f"{rid}@{rev.date_label}")
        return Cite("assumption", f"{rid}@{rev.date_label}", rev.status,
                    rev.source.raw if rev.source else None, text)

    def gap(self, rid: str) -> Cite:
        """A citation of a gap ruling that only records what the sources leave out or where
        they speak only unofficially, adding no reading of its own: shown with the answer, but
        not a reliance, so it never hides the status the source itself gives."""
        rev = self.kb.in_force(rid, self.day)
        if rev is None:
            raise EngineError(f"the interpreter relies on ruling {rid}, which is not in force on {self.day}")
        self.rulings.add(f"{rid}@{rev.date_label}")
        return Cite("gap", f"{rid}@{rev.date_label}", rev.status, rev.source.raw if rev.source else None,
                    rev.reason)

    def card_cite(self, code: str, hypothetical: bool) -> Cite:
        """A citation of a card's printed text (a scenario's own card: the question's 仮定), made once
        per code and knowledge base (citations are never changed; the answer reads each once)."""
        if not hypothetical:
            self.cards.add(code)
        made = self.kb.memo.get("engine.card_cites")
        if made is None:
            made = self.kb.memo["engine.card_cites"] = {}
        cite = made.get((code, hypothetical))
        if cite is None:
            if len(made) > 20_000:      # a long-running server's judges' own cards: start again
                made.clear()
            cite = made[code, hypothetical] = Cite("scenario", f"仮定: {code}", Status.confirmed) if hypothetical \
                else Cite("card", code, Status.confirmed)
        return cite

    def nested(self) -> "_Nested":
        """`with ctx.nested():` around an effect that another effect set off."""
        return _Nested(self)

    # -- rule points --------------------------------------------------------------------
    def point(self, name: str, card: Optional[str] = None) -> tuple[str, Cite]:
        """A rule point's value as of the run's date, and the citation of what set it. A
        game-wide point asked while an action naming a card runs takes a setting made for that
        card, when one is in force (a proposed ruling about one card)."""
        # one lookup per call in the common case: the point as asked (the card named, the action's
        # subjects where a ruling sets the point for one card, the day) mapped to its value,
        # citation, key, the citation's key and the card whose setting applies (the knowledge base
        # never changes under a cache; one cache may serve every game's scenarios, so the game is
        # part of every key)
        subjects = self.subjects if card is None and self.subjects and (self.game, name) in self._carded \
            else ()
        ask = ("point", self.game, name, card, subjects, self.day)
        found = self._cache.get(ask)
        if found is None:
            found = self._cache[ask] = self._asked(name, card, subjects)
        resolved, cite, pkey, ckey, card = found
        if self.readings:   # answering under another value of the point (a reading, or a test of what decides)
            wanted = self.readings.get(pkey)
            if wanted is not None and wanted != resolved.value:
                rkey = ("reading", self.game, name, card, self.day, wanted)
                found = self._cache.get(rkey)
                if found is None:
                    found = self._cache[rkey] = self._resolve(
                        name, card, replace(resolved, value=wanted, fuzzy=None))
                resolved, cite, pkey, ckey, card = found
        self.points[(name, card)] = resolved
        if resolved.section and not resolved.ruling:
            self.sections.add(resolved.section)
        via = self.point_cites.get(ckey)
        if via is None:
            self.point_cites[ckey] = {pkey}
        else:
            via.add(pkey)
        return resolved.value, cite

    def _asked(self, name: str, card: Optional[str], subjects: tuple[str, ...]) -> tuple:
        """What `point` answers for a point as asked: the card whose setting applies (the one
        named, or a subject's own setting), then the value as of the day, built once per point,
        card and day: a run consults the same points again and again, and so does every run."""
        if card is None and subjects:
            card = self._card_setting(name, subjects)
        key = ("value", self.game, name, card, self.day)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._resolve(
                name, card, self.kb.value(self.game, name, card=card, as_of=self.day))
        return found

    @staticmethod
    def _resolve(name: str, card: Optional[str],
                 resolved: Resolved) -> tuple[Resolved, Cite, str, tuple, Optional[str]]:
        """A point's value with the citation of what set it, its key (「card(X).point」), the
        citation's key and the card it was set for."""
        if resolved.ruling:
            cite = Cite("ruling", f"{resolved.ruling}@{resolved.revision}", resolved.status,
                        resolved.source, resolved.fuzzy)
        else:
            cite = Cite("section", resolved.section or name, resolved.status, resolved.source,
                        resolved.reason if resolved.status is Status.unconfirmed else resolved.fuzzy)
        return resolved, cite, f"card({card}).{name}" if card else name, cite.key(), card

    def _card_setting(self, name: str, subjects: tuple[str, ...]) -> Optional[str]:
        for code in subjects:
            if card_setting_applies(self.kb, self.game, name, code, self.day):
                return code
        return None

    # -- choices ------------------------------------------------------------------------
    def choose(self, chooser: Optional[str], label: str, options: Sequence[str],
               cite: Optional[Cite] = None) -> int:
        """Index of the option taken. A single option is no choice. A choice the scenario
        fixed (`choose PLAYER option`) is taken as given; any other is a branch point. `cite`
        is the rule that gives the choice to `chooser` (the answer names who chooses)."""
        options = tuple(options)
        if len(options) <= 1:
            return 0
        self.assigned.append((chooser, label, cite))
        cites = (cite,) if cite is not None else ()
        if chooser is not None and self.fixed.get(chooser):
            wanted = self.fixed[chooser][0].value
            if wanted in options:
                self.fixed[chooser].pop(0)
                self.step(f"{chooser}は「{label}」で{wanted}を選ぶ（場面の指定）", *cites, kind="choice")
                return options.index(wanted)
        n = len(self.choices)
        picked = self.script[n] if n < len(self.script) else 0
        self.choices.append(ChoicePoint(chooser, label, options, picked, cite))
        who = chooser or "（選ぶ者の規定なし）"
        self.step(f"{who}が「{label}」で{options[picked]}を選ぶ（選択肢: {'、'.join(options)}）", *cites,
                  kind="choice")
        return picked

    # -- chance -------------------------------------------------------------------------
    def chance(self, label: str, dist, key, describe, loc: Optional[Loc] = None, cites: Sequence[Cite] = (),
               memo=None, by: str = "出目"):
        """Branch on what chance decides (the dice, unless `by` says otherwise): `dist` split by
        `key` (see engine.chance.branch)."""
        return chance_branch(self, label, dist, key, describe, loc, cites, memo, by)


def explore(run: Callable[[Sequence[int]], Any], bounds: Bounds) -> list[tuple[list[ChoicePoint], Any]]:
    """Run `run(script)` for every combination of choices, depth first, in a stable order.
    `run` returns (choice points met, result). Raises BranchLimit past the bound."""
    results: list[tuple[list[ChoicePoint], Any]] = []
    pending: list[list[int]] = [[]]
    while pending:
        script = pending.pop()
        choices, result = run(script)
        results.append((choices, result))
        if len(results) > bounds.max_branches:
            raise BranchLimit(len(results), choices)
        # every choice met beyond the script's prefix opens siblings
        tails = []
        for depth in range(len(script), len(choices)):
            prefix = [c.picked for c in choices[:depth]]
            for alt in range(1, len(choices[depth].options)):
                tails.append(prefix + [alt])
        pending.extend(reversed(tails))
    return results


class BranchLimit(Exception):
    def __init__(self, count: int, choices: Sequence = ()):
        super().__init__(count)
        self.count = count
        self.choices = list(choices)    # the branch points of the last run (to name the widest)
