"""Failed expectations in words: what a failing answer found instead, and the expectations
pinned to a period that fail there (with the revisions that start or end on that day).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Optional

from ..engine.answer import Answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from .periods import answers_by_day, starting_on


def describe_failure(a: Answer) -> str:
    lines = [f"scenario {a.scenario} 《{a.title}》 as of {a.as_of.isoformat()} ({a.mode}): {a.verdict()}"]
    broken_branch: Optional[int] = None
    for i, e in enumerate(a.expectations):
        if e.applies and not e.ok and e.modality != "possible" and broken_branch is None and not e.about_status:
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
