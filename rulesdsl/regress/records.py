"""Answers as a regression suite: what each answer depended on, a memo that reuses an answer
while its dependencies hold, impact reports between two states of the knowledge base, and a
scenario's answer over time.

An answer is a deterministic function of the scenario, the cards it uses, and the values (with
provenance) of the rule points and rulings it consulted along the way. If every consulted value
is the same in another state of the knowledge base, the run there follows the same path and
gives the same answer. So a recorded answer stays valid while its recorded dependencies do;
this is what lets `impact` re-run only the scenarios whose dependencies changed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.answer import Answer
from ..engine.runner import answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo

MEMO_VERSION = "2"


# ----------------------------------------------------------------------------- records

class Dep(NamedTuple):
    """One thing an answer consulted and what it found (a named tuple: a memo holds tens of
    thousands, and reading it back is part of every impact run)."""

    kind: str          # "point" or "ruling" or "card"
    key: tuple         # (point, card) / (ruling id,) / (code,)
    found: tuple       # what it was: value and provenance / revision / content digest


@dataclass
class Record:
    scenario: str
    digest: str                     # the scenario itself
    as_of: str
    mode: str
    verdict: str                    # distinct outcomes and expectation results
    ok: bool
    status: str
    deps: tuple[Dep, ...]
    error: Optional[str] = None     # the engine refused to answer
    answer: str = ""                # the answer's sentences (what a reader is shown)

    def summary(self) -> str:
        """The answer as a reader is shown it: its sentences (else the final state)."""
        if self.error:
            return f"error: {self.error}"
        return self.answer or self.verdict

    def same_answer(self, other: "Record") -> bool:
        return (self.verdict, self.answer, self.error, self.ok, self.status) == \
            (other.verdict, other.answer, other.error, other.ok, other.status)

    def points(self) -> tuple:
        """The rule points it rested on, with their values and provenance."""
        return tuple(d for d in self.deps if d.kind == "point")


def scenario_digest(info: ScenarioInfo) -> str:
    """Identifies the scenario's text: the loader's digest of its file (so any edit of the
    file counts as a change), or failing that a digest of the scenario itself."""
    if info.digest is None:
        info.digest = _digest(_strip(info.scenario.model_dump(mode="json")))
    return info.digest


def card_digest(kb: KnowledgeBase, game: str, code: str) -> str:
    card = kb.card(game, code)
    if card is None:
        return "missing"
    if card.digest is None:
        card.digest = _digest(_strip(card.card.model_dump(mode="json")))
    return card.digest


def _digest(value) -> str:
    return hashlib.sha1(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "loc" and not k.endswith("_loc")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def verdict_of(a: Answer) -> str:
    outcomes = " | ".join(sorted(a.outcomes))
    if a.odds is not None and a.odds.chance_points:   # the exact distribution, plan by plan
        outcomes = " | ".join((f"{p.label}: " if len(a.odds.plans) > 1 else "") +
                              ", ".join(f"{o} {pr}" for o, pr in sorted(p.outcomes)) for p in a.odds.plans)
    checks = "; ".join(f"{'✓' if e.ok else '✗'} {e.text}" for e in a.expectations if e.applies)
    return f"{outcomes}" + (f" [{checks}]" if checks else "")


def ruling_found(kb: KnowledgeBase, rid: str, day: _dt.date) -> tuple:
    rev = kb.in_force(rid, day)
    if rev is None:
        return ("none",)
    return (rev.date_label, rev.status.value, rev.text.value if rev.text else None)


def record(kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date] = None,
           point_cache: Optional[dict] = None) -> tuple[Record, Optional[Answer]]:
    """Answer a scenario and record what it depended on."""
    try:
        a = answer(kb, info, as_of=day, point_cache=point_cache)
    except EngineError as e:
        when = day or (info.scenario.as_of.start() if info.scenario.as_of else _dt.date.today())
        return Record(info.id, scenario_digest(info), when.isoformat(), info.scenario.mode or "",
                      "", False, "", (), error=e.message), None
    deps: list[Dep] = []
    for key, v in a.points.items():
        point, card = _split_point(key)
        deps.append(Dep("point", (point, card), (v["value"], v["status"], *_provenance(v["from"]))))
    via_points = {v["from"] for v in a.points.values()}
    for r in a.rulings:
        if r in via_points:
            continue  # already a point's provenance
        rid = r.split("@", 1)[0]
        deps.append(Dep("ruling", (rid,), ruling_found(kb, rid, a.as_of)))
    for code in a.cards:
        deps.append(Dep("card", (code,), (card_digest(kb, info.game, code),)))
    return Record(info.id, scenario_digest(info), a.as_of.isoformat(), a.mode, verdict_of(a), a.ok,
                  a.status.value, tuple(sorted(set(deps), key=lambda d: (d.kind, d.key))),
                  answer="".join(a.sentences)), a


def _split_point(key: str) -> tuple[str, Optional[str]]:
    if key.startswith("card("):
        code, _, point = key[5:].partition(").")
        return point, code
    return key, None


def _provenance(cite: str) -> tuple:
    if "@" in cite:
        rid, rev = cite.rsplit("@", 1)
        return (rid, rev, None)
    return (None, None, cite)


def still_valid(kb: KnowledgeBase, info: ScenarioInfo, rec: Record, day: Optional[_dt.date] = None,
                cache: Optional[dict] = None) -> Optional[Dep]:
    """None if the record holds in this knowledge base; else the first dependency that moved.
    `cache` keeps what dependencies are found to be in this knowledge base (many answers
    share them) across the calls of one run."""
    when = day or (info.scenario.as_of.start() if info.scenario.as_of else None)
    if when is None or rec.as_of != when.isoformat() or rec.digest != scenario_digest(info) or rec.error:
        return Dep("scenario", (info.id,), ("changed",))
    for d in rec.deps:
        if cache is None:
            found = now(kb, info, d, when)
        else:
            key = (info.game, d.kind, d.key, when)
            found = cache.get(key)
            if found is None:
                found = cache[key] = now(kb, info, d, when)
        if found != d.found:
            return d
    return None


def now(kb: KnowledgeBase, info: ScenarioInfo, d: Dep, day: _dt.date) -> tuple:
    if d.kind == "point":
        v = kb.value(info.game, d.key[0], card=d.key[1], as_of=day)
        return (v.value, v.status.value, v.ruling, v.revision, v.section if not v.ruling else None)
    if d.kind == "ruling":
        return ruling_found(kb, d.key[0], day)
    if d.kind == "card":
        return (card_digest(kb, info.game, d.key[0]),)
    return ()


# ----------------------------------------------------------------------------- the memo

def engine_digest() -> str:
    here = Path(__file__).resolve().parents[1]
    h = hashlib.sha1(MEMO_VERSION.encode())
    for f in sorted([*(here / "engine").glob("*.py"), *(here / "games").rglob("*.py"),
                     *(here / "kb").glob("*.py"), here / "lang" / "vocab.py"]):
        h.update(f.read_bytes())
    return h.hexdigest()


class Memo:
    """Recorded answers, kept between runs as a cache entry (JSON under a MAC bound to the
    engine's code: see rulesdsl/base/cache.py) in the knowledge base's private cache folder."""

    def __init__(self, path: Optional[Path]) -> None:
        from ..base import cache
        self.path = path
        self.key = engine_digest()
        data = cache.read_json(path, "answers", self.key) if path else None
        self.records: dict[str, Record] = {}
        try:
            for r in data or ():
                deps = tuple(Dep(d[0], tuple(d[1]), tuple(d[2])) for d in r.pop("deps"))
                rec = Record(**r, deps=deps)
                self.records[rec.scenario] = rec
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            cache.note(f"ignoring {path}: not a record of answers")
            self.records = {}
        self.dirty = False

    def get(self, kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date] = None,
            cache: Optional[dict] = None) -> Optional[Record]:
        rec = self.records.get(info.id)
        if rec is not None and still_valid(kb, info, rec, day, cache) is None:
            return rec
        return None

    def put(self, rec: Record) -> None:
        self.records[rec.scenario] = rec
        self.dirty = True

    def save(self) -> None:
        if self.path and self.dirty:
            from ..base import cache
            cache.write_json(self.path, "answers", self.key,
                             [dict(vars(r), deps=[list(d) for d in r.deps]) for r in self.records.values()])


def answer_all(kb: KnowledgeBase, infos: Iterable[ScenarioInfo], memo: Optional[Memo] = None,
               progress=None) -> dict[str, Record]:
    """A record for every scenario that has an interpreter, reusing the memo where it holds."""
    out: dict[str, Record] = {}
    cache: dict = {}
    infos = [i for i in infos if engine_for(i.game) is not None]
    for n, info in enumerate(infos, 1):
        rec = memo.get(kb, info) if memo else None
        if rec is None:
            rec, _ = record(kb, info, point_cache=cache)
            if memo:
                memo.put(rec)
        out[info.id] = rec
        if progress:
            progress(n, len(infos))
    return out


# ----------------------------------------------------------------------------- impact

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


# ----------------------------------------------------------------------------- timelines

@dataclass
class Period:
    start: Optional[_dt.date]       # None: from the beginning
    end: Optional[_dt.date]         # exclusive; None: onwards
    record: Record
    answer: Optional[Answer] = None  # the answer on the period's first day


def answers_by_day(kb: KnowledgeBase, info: ScenarioInfo, first: set, cache: dict,
                   lo: Optional[_dt.date] = None, hi: Optional[_dt.date] = None
                   ) -> dict[_dt.date, tuple[Record, Optional[Answer]]]:
    """The scenario answered on each day of `first` and on every day (within lo..hi) on which
    something those answers depend on can change, until no new such day turns up."""
    out: dict[_dt.date, tuple[Record, Optional[Answer]]] = {}
    pending = set(first)
    while pending:
        day = pending.pop()
        if day in out:
            continue
        out[day] = record(kb, info, day, cache)
        pending |= {b for b in boundaries(kb, info.game, out[day][0])
                    if b not in out and (lo is None or lo <= b) and (hi is None or b <= hi)}
    return out


def boundaries(kb: KnowledgeBase, game: str, rec: Record) -> set[_dt.date]:
    """Days on which something this answer depended on can change."""
    days: set[_dt.date] = set()

    def season(rev) -> None:
        # how a season is read moves its first day: the answer may change where readings part
        if rev.date is not None and rev.date.season:
            days.update(rev.date.starts())

    for d in rec.deps:
        if d.kind == "point":
            for rid, rev, s in kb.settings_index.get((game, d.key[0]), ()):
                iv = kb.timelines.interval_of(rid, rev)
                if iv is not None:
                    days.add(iv.begin)
                    days.add(iv.end)
                season(rev)
        elif d.kind == "ruling":
            for iv in kb.timelines.intervals.get(d.key[0], ()):
                days.update((iv.begin, iv.end))
            ruling = kb.rulings.get(d.key[0])
            for rev in ruling.revisions if ruling else ():
                season(rev)
    return {x for x in days if x not in (_dt.date.min, _dt.date.max)}


def timeline(kb: KnowledgeBase, info: ScenarioInfo, until: Optional[_dt.date] = None) -> list[Period]:
    """The scenario's answer for each period between the dates its dependencies change on."""
    start_day = _dt.date(1900, 1, 1)  # stands for "from the beginning"
    first = {start_day, info.scenario.as_of.start()} if info.scenario.as_of else {start_day}
    found = answers_by_day(kb, info, first, {})
    answers = {day: rec for day, (rec, _) in found.items()}
    days = sorted(answers)
    periods: list[Period] = []
    for i, d in enumerate(days):
        end = days[i + 1] if i + 1 < len(days) else None
        rec = answers[d]
        # a period ends where the answer, its status or what it rests on changes: a revision that
        # moves a rule point the answer consulted is a new period even if the words stay the same
        if periods and periods[-1].record.same_answer(rec) and periods[-1].record.deps == rec.deps:
            periods[-1].end = end
            continue
        periods.append(Period(None if d == start_day else d, end, rec, found[d][1]))
    return periods


# ----------------------------------------------------------------------------- reporting

def describe_failure(a: Answer) -> str:
    lines = [f"scenario {a.scenario} 《{a.title}》 as of {a.as_of.isoformat()} ({a.mode}): {a.verdict()}"]
    broken_branch: Optional[int] = None
    for i, e in enumerate(a.expectations):
        if e.applies and not e.ok and e.modality != "possible" and broken_branch is None:
            want = e.modality == "always"
            broken_branch = next((n for n, b in enumerate(a.branches)
                                  if b.results[i] is not None and b.results[i][0] != want), None)
    for e in a.expectations:
        if not e.applies:
            continue
        mark = "ok  " if e.ok else "FAIL"
        lines.append(f"  {mark} expected ({e.modality}) {e.text}: held in {e.holds_in} of {e.branches} branches")
        if not e.ok:
            for f in e.found:
                lines.append(f"         actual: {f}")
            lines.append(f"         at {e.loc}")
    if a.branches:
        b = a.branches[broken_branch or 0]
        lines.append(f"  trace ({b.path}):")
        for n, s in enumerate(b.steps, 1):
            cites = "; ".join(c.label() for c in s.cites)
            lines.append(f"    {n:>2}. {s.text}" + (f"  ← {cites}" if cites else ""))
        lines.append(f"  outcome: {b.outcome}")
    if a.points or a.rulings:
        lines.append("  rests on:")
        for name, v in a.points.items():
            lines.append(f"    {name} = {v['value']} ({v['status']}, {v['from']})")
        for r in a.rulings:
            lines.append(f"    {r}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- pinned expectations

@dataclass
class PinnedFailure:
    expectation: str
    period: str
    day: _dt.date
    found: list[str]
    because: list[str]

    def describe(self) -> str:
        why = "; ".join(self.because) or "no revision starts that day"
        return (f"pinned expectation {self.expectation!r} ({self.period}) fails from {self.day.isoformat()}: "
                f"found {' / '.join(self.found) or '?'}; because {why}")


def pinned_failures(kb: KnowledgeBase, info: ScenarioInfo) -> list[PinnedFailure]:
    """Expectations written for a date range must hold on every day of it: check them on each
    day inside the range where something they depend on changes."""
    pinned = [(i, e) for i, (e, _) in enumerate(info.expects) if e.valid_from or e.valid_until]
    if not pinned:
        return []
    out: list[PinnedFailure] = []
    cache: dict = {}
    for i, e in pinned:
        lo = e.valid_from.start() if e.valid_from else _dt.date(1900, 1, 1)
        hi = e.valid_until.end() if e.valid_until else _dt.date(2999, 12, 31)
        seen = {day: a for day, (_, a) in answers_by_day(kb, info, {lo}, cache, lo, hi).items()}
        for day in sorted(seen):
            a = seen[day]
            if a is None:
                continue
            result = a.expectations[i]
            if result.applies and not result.ok:
                out.append(PinnedFailure(result.text, _period(e), day, result.found, starting_on(kb, info, a, day)))
                break
    return out


def _period(e) -> str:
    parts = []
    if e.valid_from:
        parts.append(f"from {e.valid_from}")
    if e.valid_until:
        parts.append(f"until {e.valid_until}")
    return " ".join(parts)


def starting_on(kb: KnowledgeBase, info: ScenarioInfo, a: Answer, day: _dt.date) -> list[str]:
    """The revisions consulted by an answer that come into (or go out of) force on `day`."""
    out = []
    for key, v in a.points.items():
        point, card = _split_point(key)
        for rid, rev, s in kb.settings_index.get((info.game, point), ()):
            iv = kb.timelines.interval_of(rid, rev)
            if iv is not None and day in (iv.begin, iv.end) and (s.card in (None, card)):
                verb = "comes into force" if iv.begin == day else "ends"
                out.append(f"{rid}@{rev.date_label} ({rev.status.value}) {verb}: {s.target()} = {s.value}")
    return sorted(set(out))


# ----------------------------------------------------------------------------- what each revision changed

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
    for ref, sids in sorted(by_revision.items()):
        rid, label = ref.rsplit("@", 1)
        ruling = kb.rulings.get(rid)
        rev = next((x for x in ruling.revisions if x.date_label == label), None) if ruling else None
        if rev is None or not rev.settings:
            continue  # a reading the interpreter cites directly cannot be taken away
        before_kb = without_revision(kb, rid, rev)
        cache: dict = {}
        changes = []
        for sid in sorted(sids):
            info = kb.scenarios[sid]
            after, _ = record(kb, info)
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
