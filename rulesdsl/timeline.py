"""Which ruling revisions are in force on a given day.

For each ruling, the newest revision whose period has begun by that day is in force, unless it
is `retracted` or superseded. `supersedes RULING` ends every revision of that ruling from the
superseding revision's start; `supersedes RULING@DATE` ends just that revision. Undated
revisions are in force from the beginning of time.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Iterable, Optional

from .model import Revision, Ruling, Status

BEGINNING = _dt.date.min
FOREVER = _dt.date.max


def start(rev: Revision) -> _dt.date:
    return rev.date.start() if rev.date else BEGINNING


def sort_key(rev: Revision) -> tuple:
    return (0,) if rev.date is None else (1, rev.date._key())


def same_revision(rev: Revision, date, undated: bool) -> bool:
    if undated:
        return rev.date is None
    return rev.date == date


@dataclass(frozen=True)
class Interval:
    """A revision's time in force: [begin, end)."""

    ruling: str
    revision: Revision
    begin: _dt.date
    end: _dt.date

    def contains(self, day: _dt.date) -> bool:
        return self.begin <= day < self.end


class Timelines:
    """Interval of force for every revision of every ruling."""

    def __init__(self, rulings: Iterable[Ruling]) -> None:
        rulings = list(rulings)
        # (target ruling id, revision selector or None) -> earliest superseding start
        cut_all: dict[str, _dt.date] = {}
        cut_one: dict[tuple[str, object], _dt.date] = {}
        self.superseded_by: dict[str, list[tuple[str, Revision]]] = {}
        for r in rulings:
            for rev in r.revisions:
                for ref in rev.supersedes:
                    when = start(rev)
                    self.superseded_by.setdefault(ref.target, []).append((r.id, rev))
                    if ref.date is None and not ref.undated:
                        cut_all[ref.target] = min(when, cut_all.get(ref.target, FOREVER))
                    else:
                        key = (ref.target, "undated" if ref.undated else ref.date)
                        cut_one[key] = min(when, cut_one.get(key, FOREVER))
        self.intervals: dict[str, list[Interval]] = {}
        for r in rulings:
            revs = sorted(r.revisions, key=sort_key)
            out = []
            for i, rev in enumerate(revs):
                begin = start(rev)
                end = start(revs[i + 1]) if i + 1 < len(revs) else FOREVER
                end = min(end, cut_all.get(r.id, FOREVER),
                          cut_one.get((r.id, "undated" if rev.date is None else rev.date), FOREVER))
                if rev.status is Status.retracted:
                    continue  # a retraction ends what came before and is itself nothing in force
                if end > begin:
                    out.append(Interval(r.id, rev, begin, end))
            self.intervals[r.id] = out

    def in_force(self, ruling: str, day: _dt.date) -> Optional[Revision]:
        for iv in self.intervals.get(ruling, ()):
            if iv.contains(day):
                return iv.revision
        return None

    def interval_of(self, ruling: str, rev: Revision) -> Optional[Interval]:
        for iv in self.intervals.get(ruling, ()):
            if iv.revision is rev:
                return iv
        return None
