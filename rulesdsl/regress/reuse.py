"""The history's side without a revision reusing what was made before (impact.answered_without):
the build's answers under readings where their runs read the same values (`_reusing`), the
readings a side refused past the bound of branches (`_Refused`), and the runs other sides of the
same question made (`_Lent`).
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
from dataclasses import dataclass
from typing import Callable, Optional

from ..base.record import replace as replace_fields
from ..engine.answer import Answer
from ..engine.context import EngineError
from ..engine.deciding import SEASON_POINT, RunMemo, open_points, points_seen, split_key
from ..engine.runner import BRANCH_LIMIT, answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from .records import ruling_found


def card_settings(kb: KnowledgeBase) -> dict[tuple[str, str], dict[str, set[str]]]:
    """(game, point) -> for each ruling that sets the point for cards, those cards."""
    out: dict[tuple[str, str], dict[str, set[str]]] = {}
    for (game, point, card), settings in kb.settings_by_card.items():
        if card is not None:
            by_ruling = out.setdefault((game, point), {})
            for rid, _, _ in settings:
                by_ruling.setdefault(rid, set()).add(card)
    return out


def _reusing(kb: KnowledgeBase, info: ScenarioInfo, base: Answer, after: Answer, point_cache: dict,
             with_kb: KnowledgeBase, card_points: dict, count: dict, runs: Optional[RunMemo] = None,
             moved: Optional[set[str]] = None, elsewhere: Optional[list] = None,
             lent: Optional[dict] = None):
    """The test of what decides `base`'s function that answers under a reading: an answer of
    `after`'s readings (made in `with_kb`) where its run read, point by point, the values this
    run reads here, else the scenario answered here.

    A run is a function of the values it reads (the premise of the records, records.py): the
    same values, the same run, the same outcomes and expectations, the same sentences but for the
    titles they give of a source (`runner.cite_title`: of the rule an illegal action breaks, of
    the rule that says who chooses). What the test reads of an answer is that
    (deciding.answer_key) and, of the points it consulted, their values and which are open with
    which values to try (deciding.open_points): the statuses and sources `kb` gives them, which
    the answer taken is given (`_as_made_in`). So each point needs only the same value (a point
    the reading sets: the value it gives), and one whose source gives a title the sentences show
    a source of the same title (the same ruling or section). Besides: a ruling consulted directly
    in the same revision (`_consulted_directly`; one only the source of a point that moved is not
    consulted again), and where a ruling sets a point for one card, the same choice between that
    setting and the game's (engine.context `_card_setting`). That choice can differ only for a
    card one of the `moved` rulings sets the point for, or for every card when one of them sets
    it game-wide: the cards asked are those (all of them, without `moved`).

    So does a refusal. The engine stops exploring a reading past its bound of branches
    (`BRANCH_LIMIT`) once every run it explored is made, and which runs it explores follows from
    the runs made: the same runs, the same exploration and refusal. The build keeps no more of its
    refusals than their words, so each is made once without a revision, and `elsewhere` keeps
    of it (`_Refused`) the value every run of it read and how it found the rulings they consulted
    directly; the same reading, or another, of the same question without another revision (or
    without this one) is then refused without a run where each of those points has the same
    value (the reading's, or else the one in force) and each of those rulings is found the same.
    The choice between a card's setting and the game's (above) is compared with `with_kb`'s on
    both sides: a refusal is kept only where its side chose as `with_kb` does for every point its
    runs read, so that where this side does too the choice is the same on both.

    And so does each run of a reading answered here. `lent` (a `Shelf`) keeps, by script of
    choices, the runs the sides of the same question without other revisions made (`_Lent`; given
    `runs`, a `_Watched` memo that lends), with the values they read, how they found the rulings
    they consulted directly, and the sources of the points whose titles their sentences may give;
    a reading answered here takes such a run instead of making it where those values are the same
    here (the reading's, or else the one in force), those rulings found the same, those sources
    of the same ruling or section, and the choice between a card's setting of a point it read and
    the game's is the same (`carded`: the same cards whose own setting applies). An answer with
    a run lent is given this side's statuses and sources (`_as_made_in`); a run is lent without
    its trace, whose citations (their statuses are its side's) the test does not read of an
    answer under a reading. The answer without a reading (`base`) never takes a run lent: all of
    it is read. The shelves of all questions together keep at most `lent.room` runs."""
    known = [x for _, x in after.readings.answers] if after.readings is not None else []
    open0 = set(open_points(kb, base))
    game, when = info.game, base.as_of
    same_choice: dict[str, bool] = {}

    def cards_to_ask(point: str) -> set[str]:
        by_ruling = card_points.get((game, point))
        if not by_ruling:
            return set()
        if moved is None or any(rid in moved for rid, _, _ in kb.settings_by_card.get((game, point, None), ())):
            return set().union(*by_ruling.values())
        return set().union(*(by_ruling[rid] for rid in moved if rid in by_ruling))

    def chosen_alike(point: str) -> bool:
        got = same_choice.get(point)
        if got is None:
            got = True
            for code in cards_to_ask(point):
                here = (kb.value(game, point, card=code, as_of=when), kb.value(game, point, as_of=when))
                there = (with_kb.value(game, point, card=code, as_of=when), with_kb.value(game, point, as_of=when))
                if [(v.ruling, v.revision) for v in here] != [(v.ruling, v.revision) for v in there]:
                    got = False
                    break
            same_choice[point] = got
        return got

    carded_here: dict[str, frozenset] = {}

    def carded(point: str) -> frozenset:
        """The cards whose own setting of `point` a run naming them takes here rather than the
        game's (engine.context `_card_setting`): `with_kb`'s (kept in its memo) but for the cards
        whose choice can differ here (`cards_to_ask`), asked again."""
        got = carded_here.get(point)
        if got is None:
            key = ("regress.carded", game, point, when)
            built = with_kb.memo.get(key)
            if built is None:
                by_ruling = card_points.get((game, point))
                built = with_kb.memo[key] = _carded(with_kb, game, point, when,
                                                    set().union(*by_ruling.values()) if by_ruling else ())
            ask = cards_to_ask(point)
            got = carded_here[point] = (built - ask) | _carded(kb, game, point, when, ask) if ask else built
        return got

    def reads_the_same(x: Answer, reading: dict[str, str]) -> bool:
        if x.as_of != when or x.mode != base.mode or x.cards != base.cards or \
                (SEASON_POINT in x.unsettled and SEASON_POINT not in open0):
            return False        # (how a season is read: a point the test of what decides would meet anew)
        via, moved_from = set(), set()     # the sources of its points: the same here, or not
        titled = _titled(x)
        for key, v in x.points.items():
            point, card = split_key(key)
            if not chosen_alike(point):
                return False
            here = kb.value(game, point, card=card, as_of=when)
            (via if here.cite == v["from"] else moved_from).add(v["from"])
            if v["from"] in titled and here.cite.split("@", 1)[0] != v["from"].split("@", 1)[0]:
                return False
            if key in reading:
                if reading[key] != v["value"]:
                    return False
                continue
            if here.value != v["value"]:
                return False
        direct = None
        for r in x.rulings:
            if r in via:
                continue        # a point's source, the same here
            if r in moved_from:
                if direct is None:
                    direct = _consulted_directly(x)
                if r not in direct:
                    continue    # a point's source alone: what the test reads of the point is compared above
            rid = r.split("@", 1)[0]
            if ruling_found(kb, rid, when) != ruling_found(with_kb, rid, when):
                return False
        return True

    def explores_the_same(x: _Refused, reading: dict[str, str]) -> bool:
        for key, value in x.seen.items():
            point, card = split_key(key)
            if not chosen_alike(point) or \
                    reading.get(key, value) != value or \
                    (key not in reading and kb.value(game, point, card=card, as_of=when).value != value):
                return False
        return all(ruling_found(kb, rid, when) == found for rid, found in x.found.items())

    watch = elsewhere is not None and isinstance(runs, _Watched)

    def run(reading: dict[str, str]) -> Answer:
        season = SEASON_POINT in reading
        if not season:
            for x in known:
                if reads_the_same(x, reading):
                    count["reused"] = count.get("reused", 0) + 1
                    return _as_made_in(kb, x)
            for x in elsewhere or ():
                if explores_the_same(x, reading):
                    count["shared"] = count.get("shared", 0) + 1
                    raise EngineError(x.message, x.loc, x.hint, code=BRANCH_LIMIT)
        count["readings"] = count.get("readings", 0) + 1
        watching = watch and not season
        lending = watching and lent is not None
        if watching:
            runs.seen = []
        if lending:
            publish()           # the runs of `base` and of the readings before
            runs.lend, runs.borrowed = (lambda script: borrow(script, reading)), 0
        try:
            made = answer(kb, info, point_cache=point_cache, reading=reading, run_memo=runs)
        except EngineError as e:
            if watching and e.code == BRANCH_LIMIT:
                refused = _refused(kb, when, runs.seen, e)
                if refused is not None and all(chosen_alike(split_key(key)[0]) for key in refused.seen):
                    elsewhere.append(refused)
            raise
        finally:
            if watching:
                runs.seen = None
            if lending:
                runs.lend = None
                count["borrowed"] = count.get("borrowed", 0) + runs.borrowed
                publish()
        if lending and runs.borrowed:
            made = _as_made_in(kb, made)
        return made

    here: dict[str, object] = {}        # key -> the point's value in force here
    found_here: dict[str, tuple] = {}

    def value_here(key: str):
        got = here.get(key)
        if got is None:
            point, card = split_key(key)
            got = here[key] = kb.value(game, point, card=card, as_of=when)
        return got

    def found(rid: str) -> tuple:
        got = found_here.get(rid)
        if got is None:
            got = found_here[rid] = ruling_found(kb, rid, when)
        return got

    def fits(x: _Lent, reading: dict[str, str]) -> bool:
        for key, value in x.seen.items():
            if reading.get(key, value) != value or (key not in reading and value_here(key).value != value):
                return False
        for point, cards in x.carded.items():
            if carded(point) != cards:
                return False
        for key, source in x.titled.items():
            if _source_id(value_here(key), split_key(key)[0]) != source:
                return False
        for rid, there in x.found.items():
            if found(rid) != there:
                return False
        return True

    def borrow(script, reading: dict[str, str]):
        for x in lent.get(tuple(script), ()):
            if fits(x, reading):
                runs.borrowed += 1
                return x.made
        return None

    def publish() -> None:
        for script, kept in runs.fresh:
            if lent.room[0] <= 0:
                break
            lent.room[0] -= 1
            lent.setdefault(script, []).append(_lendable(kept, carded, found))
        runs.fresh.clear()
    return run


class _Watched(RunMemo):
    """A RunMemo that lists, while `seen` is a list, the contexts of the runs it hands out or
    keeps: every run of an answer under a reading (`_reusing`). `lending`: it also lists the runs
    it keeps (`fresh`: the script and RunMemo's entry; not under a reading of the season) for the
    other sides of the question, and, while `lend` is set, asks it for a run another side made
    where it has none (`borrowed` counts those)."""

    __slots__ = ("seen", "fresh", "lend", "borrowed")

    def __init__(self, lending: bool = False) -> None:
        super().__init__()
        self.seen: Optional[list] = None
        self.fresh: Optional[list] = [] if lending else None
        self.lend = None
        self.borrowed = 0

    def find(self, script, reading: dict[str, str]):
        made = super().find(script, reading)
        if made is None and self.lend is not None:
            made = self.lend(script)
        if made is not None and self.seen is not None:
            self.seen.append(made[1][1])
        return made

    def keep(self, script, reading: dict[str, str], made) -> None:
        super().keep(script, reading, made)
        if self.fresh is not None and SEASON_POINT not in reading:
            self.fresh.append((tuple(script), self.runs[tuple(script)][-1]))
        if self.seen is not None:
            self.seen.append(made[1][1])


class Shelf(dict):
    """The runs lent by the sides of one question (`_reusing`), by script of choices; `room`: how
    many more runs the shelves of every question may take together (a list shared between them),
    so that what the history keeps stays bounded."""

    __slots__ = ("room",)

    def __init__(self, room: list) -> None:
        super().__init__()
        self.room = room


@dataclass
class _Lent:
    """A run a side without a revision made, for the other sides of the same question (`_reusing`):
    the points it read with the values they had; for each of them the cards whose own setting of
    it applied there rather than the game's (`_reusing` `carded`);
    the ruling or section that was the source of each point whose title its sentences may give;
    the rulings it consulted directly as found there (`records.ruling_found`); and the run
    (choices, (branch, what it found)) without its trace."""
    seen: dict[str, str]
    carded: dict[str, frozenset]
    titled: dict[str, str]
    found: dict[str, tuple]
    made: tuple


class _Ran:
    """What an answer reads of a run's context (runner `_answer`: the citations made directly, the
    points each citation came from, the sections, cards and rulings consulted, the points with their
    values, who chooses what), kept of a run lent without the rest (`_lendable`)."""

    __slots__ = ("direct", "point_cites", "sections", "cards", "rulings", "points", "assigned")

    def __init__(self, ctx) -> None:
        self.direct, self.point_cites, self.assigned = ctx.direct, ctx.point_cites, ctx.assigned
        self.points, self.sections = ctx.points, ctx.sections
        self.cards, self.rulings = ctx.cards, ctx.rulings


def _lendable(kept: list, carded: Callable[[str], frozenset],
              found: Callable[[str], tuple]) -> _Lent:
    """What `_reusing` lends of a run it kept (RunMemo's entry: the points seen, the reading, the
    run, its steps), without what ties it to its side (the knowledge base, the point cache, the
    states its boards would be drawn from) or its trace: of an answer under a reading the test of
    what decides reads what it says and the points it read (deciding.answer_key, open_points), never
    the citations of its steps (their statuses, which are the side's that made the run)."""
    seen, _, made, _ = kept
    branch, ctx = made[1]
    if seen is None:
        seen = kept[0] = points_seen(ctx)
    # the titles the sentences give: of the rules that say who chooses, of the rule an illegal action breaks
    titles = {cite.ref.split("@", 1)[0] for _, _, cite in ctx.assigned if cite is not None}
    illegal = getattr(branch, "illegal_cite", None)
    if illegal is not None:
        titles.add(illegal.ref.split("@", 1)[0])
    titled = {}
    for (name, card), r in ctx.points.items():
        source = _source_id(r, name)
        if source in titles:
            titled[f"card({card}).{name}" if card else name] = source
    rids = sorted({r.split("@", 1)[0] for r in ctx.rulings})
    return _Lent(seen, {point: carded(point) for point in {name for name, _ in ctx.points}}, titled,
                 {rid: found(rid) for rid in rids},
                 (made[0], (replace_fields(branch, steps=[], before=None, after=None), _Ran(ctx))))


def _carded(kb: KnowledgeBase, game: str, point: str, when: _dt.date, cards) -> frozenset:
    """Those of `cards` whose own setting of `point` applies rather than the game's."""
    wide = kb.value(game, point, as_of=when)
    out = []
    for code in cards:
        own = kb.value(game, point, card=code, as_of=when)
        if (own.ruling, own.revision) != (wide.ruling, wide.revision):
            out.append(code)
    return frozenset(out)


def _source_id(resolved, name: str) -> str:
    """The ruling or section a point's value comes from, as its citation names it (engine.context
    `_resolve`): the title a sentence gives of it is that one's."""
    return resolved.ruling or resolved.section or name


@dataclass
class _Refused:
    """An exploration under a reading the engine stopped past its bound of branches (`_reusing`):
    the points its runs read with the values they saw, the rulings they consulted directly as
    found there (`records.ruling_found`), and the refusal."""
    seen: dict[str, str]
    found: dict[str, tuple]
    message: str
    loc: object
    hint: Optional[str]


def _refused(kb: KnowledgeBase, when: _dt.date, contexts: list, e: EngineError) -> Optional[_Refused]:
    """What `_reusing` keeps of an exploration refused past the bound of branches: the values
    every run of it read (the runs, and so the exploration and its refusal, are a function of
    them and of the rulings they consulted directly); None where two runs saw one point's value
    differently (never under one reading)."""
    seen: dict[str, str] = {}
    rids: set[str] = set()
    for ctx in contexts:
        rids.update(r.split("@", 1)[0] for r in ctx.rulings)
        for key, value in points_seen(ctx).items():
            if seen.setdefault(key, value) != value:
                return None
    return _Refused(seen, {rid: ruling_found(kb, rid, when) for rid in sorted(rids)}, e.message, e.loc, e.hint)


def _as_made_in(kb: KnowledgeBase, x: Answer) -> Answer:
    """An answer made in another state of the knowledge base, whose runs read the same values as
    they would in `kb`, as `kb` would have made it: the same runs, each point it consulted with
    the status and source `kb` gives it (and so left open by the sources, or ruled, as there).
    What the test of what decides reads of it (deciding.answer_key, deciding.open_points) is then
    that of the answer made in `kb`."""
    points: dict[str, dict] = {}
    unsettled: dict[str, dict] = {}
    for key, v in x.points.items():
        point, card = split_key(key)
        here = kb.value(x.game, point, card=card, as_of=x.as_of)
        status = here.status._value_
        points[key] = {"value": v["value"], "status": status, "from": here.cite, "source": here.source}
        if here.unsettled:
            unsettled[key] = {"point": point, "card": card, "value": v["value"], "gap": here.unsettled,
                              "readings": list(here.readings), "status": status}
    if SEASON_POINT in x.unsettled:
        unsettled[SEASON_POINT] = x.unsettled[SEASON_POINT]
    twin = _copy.copy(x)
    twin.points, twin.unsettled = points, dict(sorted(unsettled.items()))
    return twin


def _titled(a: Answer) -> set[str]:
    """The sources whose titles an answer's sentences give (engine.sentences: the rule an illegal
    action breaks, the rules that say who chooses)."""
    out = {c["rule"] for c in a.choosers if c.get("rule")}
    if a.illegal and a.illegal.get("rule"):
        out.add(a.illegal["rule"])
    return out


def _consulted_directly(a: Answer) -> set[str]:
    """The ruling revisions an answer cites as the engine consulted them itself (engine.context
    `ruling`, `gap`, `assume`), not as the source of a rule point: the citations it relies on
    directly, the gaps and assumptions its trace cites, the rules its sentences give titles of."""
    out = {key[1] for key in a.direct} | {g["ref"] for g in a.gaps} | _titled(a)
    out.update(s[s.rindex("（") + 1:-1] for s in a.assumptions if s.endswith("）") and "（" in s)
    return out
