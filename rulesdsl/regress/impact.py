"""What a change to the knowledge base moves: every scenario's answer before and after, the
recorded answers reused where nothing they consulted changed (the memo), the reasons an answer
moved in words, and for each ruling revision the answers it changed.
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..base.shared_work import shared_map
from ..engine.answer import Answer
from ..engine.context import EngineError, card_setting_applies
from ..engine.registry import engine_for
from ..engine.deciding import RunMemo, open_points, points_seen, settle, split_key
from ..engine.expecting import add_status_checks
from ..engine.runner import BRANCH_LIMIT, answer, collector_paused
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from .records import Memo, Record, now, record, record_of, ruling_found, still_valid, verdict_of
from .sides import rulings_moved, side_memo, settings_of_rulings, without_revision


@dataclass
class Change:
    scenario: str
    title: str
    before: str
    after: str
    ok_before: Optional[bool]
    ok_after: Optional[bool]
    status_before: str
    status_after: str
    because: list[str]
    state_before: str = ""          # the final state(s) in full, when the words do not show all of it
    state_after: str = ""
    readings_before: Optional[bool] = None   # True: every reading gives that answer; False: not; None: no reading
    readings_after: Optional[bool] = None

    def as_dict(self) -> dict:
        return {"scenario": self.scenario, "title": self.title, "before": self.before, "after": self.after,
                "ok_before": self.ok_before, "ok_after": self.ok_after, "status_before": self.status_before,
                "status_after": self.status_after, "because": self.because,
                "state_before": self.state_before, "state_after": self.state_after,
                "readings_before": self.readings_before, "readings_after": self.readings_after}


@dataclass
class Impact:
    changes: list[Change] = field(default_factory=list)
    rerun: int = 0
    total: int = 0
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"changes": [c.as_dict() for c in self.changes], "rerun": self.rerun, "total": self.total,
                "added": self.added, "removed": self.removed}


def impact(old: KnowledgeBase, new: KnowledgeBase, memo: Optional[Memo] = None, use_memo: bool = True,
           only: Optional[set[str]] = None, day: Optional[_dt.date] = None, keep: str = "old") -> Impact:
    """Which scenario verdicts differ between two states of the knowledge base, and why.
    With the memo, a scenario is re-run only where a recorded dependency moved; the memo keeps
    the records of the `keep` side (the state the next question will most likely start from).
    The collector is paused from the first answer to the last, as in `records.answer_all`."""
    with collector_paused():
        return _impact(old, new, memo, use_memo, only, day, keep)


def _impact(old: KnowledgeBase, new: KnowledgeBase, memo: Optional[Memo], use_memo: bool,
            only: Optional[set[str]], day: Optional[_dt.date], keep: str) -> Impact:
    result = Impact()
    ids = sorted(set(old.scenarios) | set(new.scenarios))
    old_cache: dict = {}
    new_cache: dict = {}
    old_found: dict = {}                    # dependencies as found in each state
    new_found: dict = {}
    for sid in ids:
        if only is not None and sid not in only:
            continue
        o, n = old.scenarios.get(sid), new.scenarios.get(sid)
        info = n or o
        if engine_for(info.game) is None:
            continue
        if o is None:
            result.added.append(sid)
            continue
        if n is None:
            result.removed.append(sid)
            continue
        result.total += 1
        rec_old = memo.get(old, o, day, old_found) if (memo and use_memo) else None
        if rec_old is not None and still_valid(new, n, rec_old, day, new_found) is None:
            continue  # same dependencies, same values: the same answer on both sides
        result.rerun += 1
        fresh_old, a_old, a_new = rec_old is None, None, None
        if fresh_old:
            rec_old, a_old = record(old, o, day, old_cache)
        rec_new = memo.get(new, n, day, new_found) if (memo and use_memo) else None
        fresh_new = rec_new is None
        if fresh_new:
            rec_new, a_new = record(new, n, day, new_cache)
        if memo is not None and day is None and (fresh_old if keep == "old" else fresh_new):
            memo.put(rec_old if keep == "old" else rec_new)   # a record read from the memo is there already
        if rec_old.same_answer(rec_new):
            continue
        result.changes.append(Change(
            scenario=sid, title=n.scenario.title, before=rec_old.summary(), after=rec_new.summary(),
            ok_before=None if rec_old.error else rec_old.ok, ok_after=None if rec_new.error else rec_new.ok,
            status_before=rec_old.status, status_after=rec_new.status,
            because=reasons(old, new, n, rec_old, rec_new, day),
            state_before=rec_old.verdict, state_after=rec_new.verdict,
            readings_before=readings_agree(old, o, day, a_old),
            readings_after=readings_agree(new, n, day, a_new)))
    if memo is not None:
        memo.save()
    return result


def readings_agree(kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date],
                   a: Optional[Answer] = None) -> Optional[bool]:
    """Whether every reading of the unsettled points the answer rests on gives the same answer
    (None: it rests on none, or the scenario cannot be answered). `a`: the answer on `day`, where
    it was just made (a record read from the memo has none)."""
    from ..engine.readings import try_readings
    try:
        if a is None:
            a = answer(kb, info, as_of=day)
        r = try_readings(kb, info, a, as_of=day)
    except EngineError:
        return None
    return None if len(r.answers) <= 1 else r.same


def reasons(old: KnowledgeBase, new: KnowledgeBase, info: ScenarioInfo, rec_old: Record, rec_new: Record,
            day: Optional[_dt.date]) -> list[str]:
    """The moved dependencies, naming the revision now responsible (or no longer)."""
    out: list[str] = []
    when = day or info.scenario.as_of.start()
    if rec_old.digest != rec_new.digest:
        out.append("the scenario itself changed")
    seen = set()
    for d in (*rec_new.deps, *rec_old.deps):
        if (d.kind, d.key) in seen:
            continue
        seen.add((d.kind, d.key))
        before, after = now(old, info, d, when), now(new, info, d, when)
        if before == after:
            continue
        if d.kind == "point":
            point = d.key[0] if d.key[1] is None else f"card({d.key[1]}).{d.key[0]}"
            out.append(f"{point}: {_pv(before)} → {_pv(after)}")
        elif d.kind == "ruling":
            out.append(f"{d.key[0]}: revision {before[0]} ({before[1] if len(before) > 1 else ''}) → "
                       f"{after[0]} ({after[1] if len(after) > 1 else ''})")
        else:
            out.append(f"card {d.key[0]} changed")
    return out


def _pv(v: tuple) -> str:
    value, status, ruling, revision, section = v
    source = f"{ruling}@{revision}" if ruling else f"default of {section}"
    return f"{value} ({status}, {source})"



def consulted_revisions(a: Answer) -> set[str]:
    """The ruling revisions (`id@date`) an answer consulted."""
    return set(a.rulings) | {v["from"] for v in a.points.values() if "@" in v["from"]}


def revision_effects(kb: KnowledgeBase, answers: dict[str, Answer],
                     stats: Optional[dict] = None, processes: int = 1,
                     meanwhile: Optional[Callable[[], None]] = None,
                     in_child: Optional[Callable[[], None]] = None) -> dict[str, list[Change]]:
    """For every ruling revision an answer consulted (`id@date`), the answers that would be
    different had the revision never been made: the same impact data as `rulesdsl impact`,
    computed by re-answering only the scenarios that consulted it, and those first without the
    test of what decides them (`same_without`). `stats`, when given, gets the counts: pairs of a
    revision and an answer that consulted it (`pairs`), those answered again without the revision
    (`answered`), those of them answered in full (`in_full`: a change, or a refusal), and the
    answers under other readings the tests of what decides took from the build's (`reused`) or
    made (`readings`), and the readings found refused as without another revision (`shared`:
    `_reusing`). `processes`: 2 shares the revisions with a forked copy of this process
    (base.shared_work: the same result, in the same order); `meanwhile`: the caller's other work,
    done first by this process while the copy starts on the revisions (it must leave what the
    history reads as it is); `in_child`: what the copy lets go of first (`shared_map`).

    The cyclic collector is paused throughout, as while a question is answered
    (`runner.collector_paused`): the history makes no reference cycles either (each side without a
    revision is dropped whole: tests/test_answer_cycles.py), and what it keeps grows for minutes
    at 10,000 cards, which the collector would walk again and again."""
    with collector_paused():
        return _revision_effects(kb, answers, stats, processes, meanwhile, in_child)


def _revision_effects(kb: KnowledgeBase, answers: dict[str, Answer], stats: Optional[dict],
                      processes: int, meanwhile: Optional[Callable[[], None]],
                      in_child: Optional[Callable[[], None]] = None) -> dict[str, list[Change]]:
    count = stats if stats is not None else {}
    for k in STATS:
        count.setdefault(k, 0)
    by_revision: dict[str, list[str]] = {}
    for sid, a in answers.items():
        for ref in consulted_revisions(a):
            by_revision.setdefault(ref, []).append(sid)
    tasks = sorted(by_revision.items())
    card_points = card_settings(kb)
    seasons, settings_of = side_memo(kb), settings_of_rulings(kb)
    afters: dict[str, tuple] = {}           # each answer's record and what it says (`_said`), made once (the same for every revision)
    elsewhere: dict[str, list] = {}         # by scenario, the readings refused without another revision (`_reusing`)

    def work(i: int) -> tuple[list[Change], dict]:
        ref, sids = tasks[i]
        counted = dict.fromkeys(STATS, 0)
        return _one_revision(kb, answers, ref, sids, card_points, afters, counted, elsewhere, seasons,
                             settings_of), counted

    # the revisions consulted by the most answers first: the two processes end close together
    order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][1]))
    done = shared_map(len(tasks), work, _encode_effects, _decode_effects, processes, order, meanwhile, in_child)
    out: dict[str, list[Change]] = {}
    for (ref, _), (changes, counted) in zip(tasks, done):
        for k, n in counted.items():
            count[k] += n
        if changes:
            out[ref] = changes
    return out


STATS = ("pairs", "answered", "in_full", "reused", "readings", "shared")


def _encode_effects(done: tuple[list[Change], dict]) -> list:
    return [[c.as_dict() for c in done[0]], done[1]]


def _decode_effects(data: list) -> tuple[list[Change], dict]:
    return [Change(**d) for d in data[0]], {k: int(data[1][k]) for k in STATS}


def _one_revision(kb: KnowledgeBase, answers: dict[str, Answer], ref: str, sids: list[str], card_points: dict,
                  afters: dict, count: dict, elsewhere: Optional[dict] = None,
                  seasons: Optional[dict] = None, settings_of: Optional[dict] = None) -> list[Change]:
    """The answers among `sids` that revision `ref` changed (revision_effects); `elsewhere`: by
    scenario, the readings refused without other revisions (`_reusing`), added to for the next."""
    rid, label = ref.rsplit("@", 1)
    ruling = kb.rulings.get(rid)
    rev = next((x for x in ruling.revisions if x.date_label == label), None) if ruling else None
    if rev is None or not rev.settings:
        return []   # a reading the interpreter cites directly cannot be taken away
    before_kb = without_revision(kb, rid, rev, seasons, settings_of)
    moved = rulings_moved(rid, rev)
    cache: dict = {}
    found: dict = {}
    changes = []
    for sid in sorted(sids):
        count["pairs"] += 1
        info = kb.scenarios[sid]
        kept = afters.get(sid)
        if kept is None:
            kept = afters[sid] = (record_of(kb, info, answers[sid]), _said(answers[sid]))
        after = kept[0]
        if still_valid(before_kb, info, after, cache=found) is None:
            continue  # nothing it consulted moves without the revision: the same answer (as the memo has it)
        count["answered"] += 1
        same, made = answered_without(before_kb, info, answers[sid], cache, kb, card_points, count, moved,
                                      None if elsewhere is None else elsewhere.setdefault(sid, []), kept[1])
        if same:
            continue
        count["in_full"] += 1
        before = record(before_kb, info, point_cache=cache)[0] if made is None else record_of(before_kb, info, made)
        if before.same_answer(after):
            continue
        changes.append(Change(
            scenario=sid, title=info.scenario.title, before=before.summary(), after=after.summary(),
            ok_before=None if before.error else before.ok, ok_after=None if after.error else after.ok,
            status_before=before.status, status_after=after.status,
            because=reasons(before_kb, kb, info, before, after, None),
            state_before=before.verdict, state_after=after.verdict))
    return changes


def same_without(kb: KnowledgeBase, info: ScenarioInfo, after: Answer, point_cache: dict,
                 with_kb: KnowledgeBase, card_points: dict, count: Optional[dict] = None,
                 moved: Optional[set[str]] = None) -> bool:
    """Whether the scenario's answer in `kb` (`with_kb` without a revision) is certainly
    `after`'s (its answer in `with_kb`), as `Record.same_answer` compares them (`answered_without`)."""
    return answered_without(kb, info, after, point_cache, with_kb, card_points, count, moved)[0]


def answered_without(kb: KnowledgeBase, info: ScenarioInfo, after: Answer, point_cache: dict,
                     with_kb: KnowledgeBase, card_points: dict, count: Optional[dict] = None,
                     moved: Optional[set[str]] = None, elsewhere: Optional[list] = None,
                     said: Optional[tuple] = None) -> tuple[bool, Optional[Answer]]:
    """Whether the scenario's answer in `kb` (`with_kb` without a revision) is certainly
    `after`'s (its answer in `with_kb`), as `Record.same_answer` compares them; where it is not,
    that answer in `kb` (None: the scenario cannot be answered there).

    The test of what decides an answer (engine.deciding.settle) changes nothing but its status
    (and so the checks of its status): its sentences, outcomes and other checks are the run's.
    So the question is answered first without the test. The test is then made, each of its
    answers under another reading taken from `after`'s own readings where that run read the same
    values (`_reusing`), else made with the runs of the first answer at hand (RunMemo), and the
    checks of its status added, as `runner.answer` adds them. When what the
    answer says without the test is `after`'s, only the status can differ; the checks of the
    status (`expect status`) depend on the status and the day alone, so equal statuses on the
    same day give equal checks. `card_points`: `card_settings`; `count` gets the answers under
    readings taken from `after` (`reused`) and made (`readings`); `moved`: the rulings whose
    times of force differ between `kb` and `with_kb` (`rulings_moved`; None: any); `elsewhere`:
    the readings of the same question refused without other revisions (`_reusing`), added to;
    `said`: `_said(after)`, where the caller keeps it (the same in every side)."""
    runs = _Watched()           # the runs of the answer and of its readings, shared as answer() shares them
    try:
        quick = answer(kb, info, point_cache=point_cache, settled=False, run_memo=runs)
    except EngineError:
        return False, None      # the record of a refusal is the caller's to make
    said_same = quick.as_of == after.as_of and _said(quick) == (_said(after) if said is None else said)
    with collector_paused():        # the test's answers live until it ends, as in runner.answer
        settle(kb, quick, _reusing(kb, info, quick, after, point_cache, with_kb, card_points,
                                   count if count is not None else {}, runs, moved, elsewhere))
    quick.readings = None           # they list `quick` itself: a cycle the collector would have to find
    if said_same and quick.status is after.status:
        return True, None
    add_status_checks(quick, info.scenario)     # as runner.answer ends an answer
    return False, quick


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
             moved: Optional[set[str]] = None, elsewhere: Optional[list] = None):
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
    setting and the game's (engine.context `_card_setting`: the first of the cards an action is
    about for which `card_setting_applies`). Whatever cards an action is about, the choice is the
    same where `card_setting_applies` gives the same for each card: compared card by card, not
    the settings chosen (the values a run reads through them are compared above). It can differ
    only for a card one of the `moved` rulings sets the point for, or for every card when one of
    them sets it game-wide: the cards asked are those (all of them, without `moved`). A card none
    of whose settings moves has the same settings of its own in force on both sides: without
    any, its value is the game's (`KnowledgeBase._value` chooses a card's own settings first) and
    neither side chooses it; with some, its value is the same on both (`sides._Unmoved`), and
    only the game's setting it is compared with can differ.

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
    runs read, so that where this side does too the choice is the same on both."""
    from ..engine.runner import SEASON_POINT
    known = [x for _, x in after.readings.answers] if after.readings is not None else []
    open0 = set(open_points(kb, base))
    game, when = info.game, base.as_of
    # by point, whether this side chooses as `with_kb` (`chosen_alike`): the same for every question
    # of the side on the day, so kept with its point cache (which serves this side alone)
    same_choice: dict[str, bool] = point_cache.setdefault(("regress.same-choice", game, when), {})

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
            by_ruling = card_points.get((game, point), {})
            wide = None
            for code in cards_to_ask(point):
                if moved is not None and not any(code in by_ruling.get(rid, ()) for rid in moved):
                    # none of its settings moves: its own settings in force are the same here
                    if not with_kb.settings_in_force(game, point, code, when):
                        continue    # none: chosen on neither side
                    # and so is its value, theirs (sides._Unmoved): chosen where it is not the game's
                    if wide is None:
                        wide = [(v.ruling, v.revision) for v in (kb.value(game, point, as_of=when),
                                                                 with_kb.value(game, point, as_of=when))]
                    own = with_kb.value(game, point, card=code, as_of=when)
                    if ((own.ruling, own.revision) != wide[0]) == ((own.ruling, own.revision) != wide[1]):
                        continue
                    got = False
                    break
                if card_setting_applies(kb, game, point, code, when) != \
                        card_setting_applies(with_kb, game, point, code, when):
                    got = False
                    break
            same_choice[point] = got
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
        if watching:
            runs.seen = []
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
        return made
    return run


class _Watched(RunMemo):
    """A RunMemo that lists, while `seen` is a list, the contexts of the runs it hands out or
    keeps: every run of an answer under a reading (`_reusing`)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        super().__init__()
        self.seen: Optional[list] = None

    def find(self, script, reading: dict[str, str]):
        made = super().find(script, reading)
        if made is not None and self.seen is not None:
            self.seen.append(made[1][1])
        return made

    def keep(self, script, reading: dict[str, str], made) -> None:
        super().keep(script, reading, made)
        if self.seen is not None:
            self.seen.append(made[1][1])


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
    from ..engine.runner import SEASON_POINT
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


def _said(a: Answer) -> tuple:
    """What an answer says apart from its status: the record's fields but the status and its checks."""
    return (verdict_of(a, status_checks=False), "".join(a.sentences),
            all(e.ok for e in a.expectations if e.applies and not e.about_status))
