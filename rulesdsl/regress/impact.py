"""What a change to the knowledge base moves: every scenario's answer before and after, the
recorded answers reused where nothing they consulted changed (the memo), the reasons an answer
moved in words, and for each ruling revision the answers it changed.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional

from ..engine.answer import Answer
from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.runner import answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from .records import Memo, Record, now, record, record_of, still_valid


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
    the records of the `keep` side (the state the next question will most likely start from)."""
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
        fresh_old = rec_old is None
        if fresh_old:
            rec_old, _ = record(old, o, day, old_cache)
        rec_new = memo.get(new, n, day, new_found) if (memo and use_memo) else None
        fresh_new = rec_new is None
        if fresh_new:
            rec_new, _ = record(new, n, day, new_cache)
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
            readings_before=readings_agree(old, o, day), readings_after=readings_agree(new, n, day)))
    if memo is not None:
        memo.save()
    return result


def readings_agree(kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date]) -> Optional[bool]:
    """Whether every reading of the unsettled points the answer rests on gives the same answer
    (None: it rests on none, or the scenario cannot be answered)."""
    from ..engine.readings import try_readings
    try:
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
    changed). Everything but the timelines and the memoised values is shared."""
    import dataclasses
    return dataclasses.replace(kb, timelines=kb.timelines.without(ruling, rev), _values={}, memo={},
                               _active_memo={}, _fuzzy_memo={})


def consulted_revisions(a: Answer) -> set[str]:
    """The ruling revisions (`id@date`) an answer consulted."""
    return set(a.rulings) | {v["from"] for v in a.points.values() if "@" in v["from"]}


def revision_effects(kb: KnowledgeBase, answers: dict[str, Answer]) -> dict[str, list[Change]]:
    """For every ruling revision an answer consulted (`id@date`), the answers that would be
    different had the revision never been made: the same impact data as `rulesdsl impact`,
    computed by re-answering only the scenarios that consulted it."""
    by_revision: dict[str, list[str]] = {}
    for sid, a in answers.items():
        for ref in consulted_revisions(a):
            by_revision.setdefault(ref, []).append(sid)
    out: dict[str, list[Change]] = {}
    afters: dict[str, Record] = {}          # each answer's record, made once (it is the same for every revision)
    for ref, sids in sorted(by_revision.items()):
        rid, label = ref.rsplit("@", 1)
        ruling = kb.rulings.get(rid)
        rev = next((x for x in ruling.revisions if x.date_label == label), None) if ruling else None
        if rev is None or not rev.settings:
            continue  # a reading the interpreter cites directly cannot be taken away
        before_kb = without_revision(kb, rid, rev)
        cache: dict = {}
        found: dict = {}
        changes = []
        for sid in sorted(sids):
            info = kb.scenarios[sid]
            after = afters.get(sid)
            if after is None:
                after = afters[sid] = record_of(kb, info, answers[sid])
            if still_valid(before_kb, info, after, cache=found) is None:
                continue  # nothing it consulted moves without the revision: the same answer (as the memo has it)
            before, _ = record(before_kb, info, point_cache=cache)
            if before.same_answer(after):
                continue
            changes.append(Change(
                scenario=sid, title=info.scenario.title, before=before.summary(), after=after.summary(),
                ok_before=None if before.error else before.ok, ok_after=None if after.error else after.ok,
                status_before=before.status, status_after=after.status,
                because=reasons(before_kb, kb, info, before, after, None),
                state_before=before.verdict, state_after=after.verdict))
        if changes:
            out[ref] = changes
    return out
