"""What a change to the knowledge base moves: every scenario's answer before and after, the
recorded answers reused where nothing they consulted changed (the memo), the reasons an answer
moved in words, and for each ruling revision the answers it changed.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..base.record import replace as replace_fields
from ..base.shared_work import shared_map
from ..engine.answer import Answer
from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.deciding import settle
from ..engine.expecting import add_status_checks
from ..engine.runner import answer, collector_paused
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from ..kb.timeline import moved_without
from .records import Memo, Record, now, record, record_of, still_valid, verdict_of
from .reuse import Shelf, _reusing, _Watched, card_settings


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



def without_revision(kb: KnowledgeBase, ruling: str, rev) -> KnowledgeBase:
    """The knowledge base as if one ruling revision had never been made (for the answers it
    changed). Everything but the timelines and the memoised values is shared; its season
    readings (`under_calendar`) are its own, each without the revision too."""
    return replace_fields(kb, timelines=kb.timelines.without(ruling, rev), _values={}, memo={},
                          _active_memo={}, _fuzzy_memo={}, _calendars={},
                          _whole=kb if kb.timelines.removed is None else None)


def rulings_moved(ruling: str, rev) -> set[str]:
    """The rulings whose times of force can differ without one revision of `ruling`
    (`timeline.moved_without`: those `Timelines.without` recomputes). Nothing else's value
    moves: a rule point's value is chosen among the settings in force."""
    return moved_without(ruling, rev)


def consulted_revisions(a: Answer) -> set[str]:
    """The ruling revisions (`id@date`) an answer consulted."""
    return set(a.rulings) | {v["from"] for v in a.points.values() if "@" in v["from"]}


def revision_effects(kb: KnowledgeBase, answers: dict[str, Answer],
                     stats: Optional[dict] = None, processes: int = 1,
                     meanwhile: Optional[Callable[[], None]] = None) -> dict[str, list[Change]]:
    """For every ruling revision an answer consulted (`id@date`), the answers that would be
    different had the revision never been made: the same impact data as `rulesdsl impact`,
    computed by re-answering only the scenarios that consulted it, and those first without the
    test of what decides them (`same_without`). `stats`, when given, gets the counts: pairs of a
    revision and an answer that consulted it (`pairs`), those answered again without the revision
    (`answered`), those of them answered in full (`in_full`: a change, or a refusal), and the
    answers under other readings the tests of what decides took from the build's (`reused`) or
    made (`readings`), the readings found refused as without another revision (`shared`:
    `_reusing`) and the runs taken from another side of the same question (`borrowed`).
    `processes`: 2 shares the revisions with a forked copy of this process (base.shared_work: the
    same result, in the same order); `meanwhile`: the caller's other work,
    done first by this process while the copy starts on the revisions (it must leave what the
    history reads as it is).

    The cyclic collector is paused throughout, as while a question is answered
    (`runner.collector_paused`): the history makes no reference cycles either (each side without a
    revision is dropped whole: tests/test_answer_cycles.py), and what it keeps grows for minutes
    at 10,000 cards, which the collector would walk again and again."""
    with collector_paused():
        return _revision_effects(kb, answers, stats, processes, meanwhile)


def _revision_effects(kb: KnowledgeBase, answers: dict[str, Answer], stats: Optional[dict],
                      processes: int, meanwhile: Optional[Callable[[], None]]) -> dict[str, list[Change]]:
    count = stats if stats is not None else {}
    for k in STATS:
        count.setdefault(k, 0)
    by_revision: dict[str, list[str]] = {}
    for sid, a in answers.items():
        for ref in consulted_revisions(a):
            by_revision.setdefault(ref, []).append(sid)
    tasks = sorted(by_revision.items())
    card_points = card_settings(kb)
    afters: dict[str, Record] = {}          # each answer's record, made once (it is the same for every revision)
    elsewhere: dict[str, list] = {}         # by scenario, the readings refused without another revision (`_reusing`)
    lent: dict[str, Shelf] = {}             # by scenario, the runs made without another revision (`_reusing`)
    room = [LENT_RUNS]

    def work(i: int) -> tuple[list[Change], dict]:
        ref, sids = tasks[i]
        counted = dict.fromkeys(STATS, 0)
        shelves = {sid: lent[sid] if sid in lent else lent.setdefault(sid, Shelf(room)) for sid in sids}
        return _one_revision(kb, answers, ref, sids, card_points, afters, counted, elsewhere, shelves), counted

    # the revisions consulted by the most answers first: the two processes end close together
    order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][1]))
    done = shared_map(len(tasks), work, _encode_effects, _decode_effects, processes, order, meanwhile)
    out: dict[str, list[Change]] = {}
    for (ref, _), (changes, counted) in zip(tasks, done):
        for k, n in counted.items():
            count[k] += n
        if changes:
            out[ref] = changes
    return out


# the runs the sides without a revision lend to the other sides of the same question, at most
# (`_reusing`): ~6 KB each, kept until the history ends (in each process, with two)
LENT_RUNS = 20_000

STATS = ("pairs", "answered", "in_full", "reused", "readings", "shared", "borrowed")


def _encode_effects(done: tuple[list[Change], dict]) -> list:
    return [[c.as_dict() for c in done[0]], done[1]]


def _decode_effects(data: list) -> tuple[list[Change], dict]:
    return [Change(**d) for d in data[0]], {k: int(data[1][k]) for k in STATS}


def _one_revision(kb: KnowledgeBase, answers: dict[str, Answer], ref: str, sids: list[str], card_points: dict,
                  afters: dict, count: dict, elsewhere: Optional[dict] = None,
                  lent: Optional[dict] = None) -> list[Change]:
    """The answers among `sids` that revision `ref` changed (revision_effects); `elsewhere`: by
    scenario, the readings refused without other revisions, and `lent`, the runs made without
    them (`_reusing`), added to for the next."""
    rid, label = ref.rsplit("@", 1)
    ruling = kb.rulings.get(rid)
    rev = next((x for x in ruling.revisions if x.date_label == label), None) if ruling else None
    if rev is None or not rev.settings:
        return []   # a reading the interpreter cites directly cannot be taken away
    before_kb = without_revision(kb, rid, rev)
    moved = rulings_moved(rid, rev)
    cache: dict = {}
    found: dict = {}
    changes = []
    for sid in sorted(sids):
        count["pairs"] += 1
        info = kb.scenarios[sid]
        after = afters.get(sid)
        if after is None:
            after = afters[sid] = record_of(kb, info, answers[sid])
        if still_valid(before_kb, info, after, cache=found) is None:
            continue  # nothing it consulted moves without the revision: the same answer (as the memo has it)
        count["answered"] += 1
        same, made = answered_without(before_kb, info, answers[sid], cache, kb, card_points, count, moved,
                                      None if elsewhere is None else elsewhere.setdefault(sid, []),
                                      None if lent is None else lent[sid])
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
                     lent: Optional[dict] = None) -> tuple[bool, Optional[Answer]]:
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
    the readings of the same question refused without other revisions, and `lent`, the runs made
    without them (`_reusing`), added to."""
    runs = _Watched(lent is not None)   # the runs of the answer and of its readings, shared as answer() shares them
    try:
        quick = answer(kb, info, point_cache=point_cache, settled=False, run_memo=runs)
    except EngineError:
        return False, None      # the record of a refusal is the caller's to make
    said_same = quick.as_of == after.as_of and _said(quick) == _said(after)
    with collector_paused():        # the test's answers live until it ends, as in runner.answer
        settle(kb, quick, _reusing(kb, info, quick, after, point_cache, with_kb, card_points,
                                   count if count is not None else {}, runs, moved, elsewhere, lent))
    quick.readings = None           # they list `quick` itself: a cycle the collector would have to find
    if said_same and quick.status is after.status:
        return True, None
    add_status_checks(quick, info.scenario)     # as runner.answer ends an answer
    return False, quick


def _said(a: Answer) -> tuple:
    """What an answer says apart from its status: the record's fields but the status and its checks."""
    return (verdict_of(a, status_checks=False), "".join(a.sentences),
            all(e.ok for e in a.expectations if e.applies and not e.about_status))
