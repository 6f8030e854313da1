"""When an answer changes: the periods of a scenario's answer over time (each bounded by a
dated revision that moves a point the answer rests on), and the revisions that come into force
or end on a day.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Optional

from ..engine.answer import Answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from .records import Record, _split_point, record


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
            for iv in kb.timelines.of(d.key[0]):
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
