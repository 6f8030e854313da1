"""Which ruling revisions are in force on a given day.

For each ruling, the newest revision whose period has begun by that day is in force, unless it
is `retracted` or superseded. `supersedes RULING` ends every revision of that ruling from the
superseding revision's start; `supersedes RULING@DATE` ends just that revision. Undated
revisions are in force from the beginning of time.
"""

from __future__ import annotations

import datetime as _dt
from typing import Iterable, Optional

from ..base.record import Record
from ..lang.model import Revision, Ruling, Status

BEGINNING = _dt.date.min
FOREVER = _dt.date.max


def start(rev: Revision, reading: Optional[str] = None) -> _dt.date:
    """The day a revision comes into force (`reading`: how seasons are read, see dates.CALENDARS)."""
    return rev.date.start(reading) if rev.date else BEGINNING


def sort_key(rev: Revision) -> tuple:
    return (0,) if rev.date is None else (1, rev.date._key())


def same_revision(rev: Revision, date, undated: bool) -> bool:
    if undated:
        return rev.date is None
    return rev.date == date


class Interval(Record, frozen=True):
    """A revision's time in force: [begin, end)."""

    ruling: str
    revision: Revision
    begin: _dt.date
    end: _dt.date

    def __init__(self, ruling: str, revision: Revision, begin: _dt.date, end: _dt.date) -> None:
        # written out (one per revision); set past its own refusal, as it is frozen
        put = object.__setattr__
        put(self, "ruling", ruling), put(self, "revision", revision), put(self, "begin", begin), put(self, "end", end)

    def contains(self, day: _dt.date) -> bool:
        return self.begin <= day < self.end


def moved_without(ruling: str, rev: Revision) -> set[str]:
    """The rulings whose times of force can differ without one revision of `ruling`: that
    ruling and those the revision supersedes (the ones `Timelines.without` recomputes)."""
    return {ruling, *(ref.target for ref in rev.supersedes)}


class Timelines:
    """Interval of force for every revision of every ruling."""

    def __init__(self, rulings: Iterable[Ruling], reading: Optional[str] = None) -> None:
        self.reading = reading
        self.removed: Optional[tuple[str, Revision]] = None     # `without`'s revision, if any
        self.rulings: dict[str, Ruling] = {r.id: r for r in rulings}
        # who supersedes what: target ruling id -> [(start, superseding ruling, its revision, ref)]
        self.cuts: dict[str, list[tuple[_dt.date, str, Revision, object]]] = {}
        self.superseded_by: dict[str, list[tuple[str, Revision]]] = {}
        for r in self.rulings.values():
            for rev in r.revisions:
                for ref in rev.supersedes:
                    self.superseded_by.setdefault(ref.target, []).append((r.id, rev))
                    self.cuts.setdefault(ref.target, []).append((start(rev, reading), r.id, rev, ref))
        # each ruling's intervals, made when first asked for (`of`): a check's answers read a
        # few dozen rulings under another calendar's reading, and a history's `without` a few
        # per revision, of the thousands every ruling's would be
        self._made: dict[str, list[Interval]] = {}
        self._base: Optional[Timelines] = None      # `without`'s: whose intervals the others are

    def _intervals(self, r: Ruling, cuts, skip: Optional[Revision] = None) -> list[Interval]:
        cut_all, cut_one = FOREVER, {}
        for when, _, by, ref in cuts:
            if by is skip:
                continue
            if ref.date is None and not ref.undated:
                cut_all = min(cut_all, when)
            else:
                key = "undated" if ref.undated else ref.date
                cut_one[key] = min(when, cut_one.get(key, FOREVER))
        revs = [x for x in r.revisions if x is not skip]
        if len(revs) > 1:
            revs.sort(key=sort_key)     # (stable, as sorted: one revision needs no key)
        starts = [start(x, self.reading) for x in revs]     # each read once, not as begin and as end
        starts.append(FOREVER)
        out = []
        for i, rev in enumerate(revs):
            begin, end = starts[i], starts[i + 1]
            end = min(end, cut_all, cut_one.get("undated" if rev.date is None else rev.date, FOREVER))
            if rev.status is Status.retracted:
                continue  # a retraction ends what came before and is itself nothing in force
            if end > begin:
                out.append(Interval(r.id, rev, begin, end))
        return out

    def made_from(self, rulings) -> bool:
        """Whether these timelines are those `Timelines(rulings, …)` made of these very ruling
        objects, in this order (not `without`'s): what `read` may read again."""
        return self._base is None and self.removed is None and len(self.rulings) == len(rulings) and \
            all(a is b for a, b in zip(self.rulings.values(), rulings))

    def read(self, reading: Optional[str]) -> "Timelines":
        """The same rulings' timelines with seasons read another way: what `Timelines(rulings,
        reading)` makes from the rulings these were made from, without walking their revisions
        again — who supersedes whom is the same, only the superseding revisions' starts are read
        again, in the same order. For timelines made by `Timelines(...)` alone (not `without`)."""
        assert self._base is None and self.removed is None
        other = object.__new__(Timelines)
        other.rulings, other.superseded_by = self.rulings, self.superseded_by
        other.reading, other.removed = reading, None
        other.cuts = {target: [(start(rev, reading), rid, rev, ref) for _, rid, rev, ref in cuts]
                      for target, cuts in self.cuts.items()}
        other._made, other._base = {}, None
        return other

    def without(self, ruling: str, rev: Revision) -> "Timelines":
        """The timelines as if one revision had never been made: its ruling's intervals, and
        those of the rulings it supersedes, recomputed; everything else shared."""
        other = object.__new__(Timelines)
        other.rulings, other.cuts, other.superseded_by = self.rulings, self.cuts, self.superseded_by
        other.reading, other.removed = self.reading, (ruling, rev)
        other._base = self
        other._made = {}
        for rid in moved_without(ruling, rev):
            if rid in self.rulings:
                other._made[rid] = self._intervals(self.rulings[rid], self.cuts.get(rid, ()), skip=rev)
        return other

    def of(self, ruling: str) -> list[Interval]:
        """The ruling's intervals in force, in order (none for an unknown ruling)."""
        ivs = self._made.get(ruling)
        return self._make(ruling) if ivs is None else ivs

    def _make(self, ruling: str) -> list[Interval]:
        if self._base is not None:      # not moved by `without`'s revision: its base's own
            ivs = self._base.of(ruling)
        else:
            r = self.rulings.get(ruling)
            if r is None:
                return []
            ivs = self._intervals(r, self.cuts.get(ruling, ()))
        self._made[ruling] = ivs
        return ivs

    @property
    def intervals(self) -> dict[str, list[Interval]]:
        """Every ruling's intervals, by ruling (all made: `of` makes only the one asked for)."""
        return {rid: self.of(rid) for rid in self.rulings}

    def in_force(self, ruling: str, day: _dt.date) -> Optional[Revision]:
        ivs = self._made.get(ruling)        # (`of`, written out: every point's value asks this)
        for iv in self._make(ruling) if ivs is None else ivs:
            if iv.contains(day):
                return iv.revision
        return None

    def interval_of(self, ruling: str, rev: Revision) -> Optional[Interval]:
        for iv in self.of(ruling):
            if iv.revision is rev:
                return iv
        return None
