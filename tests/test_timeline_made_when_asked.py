"""A ruling's intervals are made when first asked for (`Timelines.of`), not every ruling's at once:
asked in any order, before or after a `without`, under every reading of seasons, they are those of
timelines whose every ruling was made first."""

from __future__ import annotations

import datetime as dt

from rulesdsl.kb.timeline import Timelines
from rulesdsl.lang.dates import CALENDARS

DAY = dt.date(2020, 1, 1)


def _plain(ivs):
    return [(iv.ruling, iv.revision.date_label, iv.begin, iv.end) for iv in ivs]


def test_a_rulings_intervals_made_when_asked_are_those_made_with_every_rulings(kb):
    rulings = list(kb.rulings.values())
    ids = [r.id for r in rulings]
    revisions = [(r.id, rev) for r in rulings for rev in r.revisions]
    assert any(rev.supersedes for _, rev in revisions), "the bundled knowledge base supersedes a ruling"
    for reading in (None, *CALENDARS):
        whole = Timelines(rulings, reading)
        every = {rid: _plain(ivs) for rid, ivs in whole.intervals.items()}     # every ruling's first
        assert list(every) == ids
        for rid, rev in revisions:
            one_by_one = Timelines(rulings, reading)
            first = one_by_one.without(rid, rev)     # its base's intervals still unmade
            for other in reversed(ids):
                assert _plain(first.of(other)) == _plain(whole.without(rid, rev).of(other)), (rid, other, reading)
                assert _plain(one_by_one.of(other)) == every[other], (other, reading)
            for ruling in (rid, *(ref.target for ref in rev.supersedes)):
                assert all(iv.revision is not rev for iv in first.of(ruling))
        assert whole.of("no-such-ruling") == [] and whole.in_force("no-such-ruling", DAY) is None


def test_asking_one_ruling_makes_that_rulings_intervals_alone(kb):
    rulings = list(kb.rulings.values())
    t = Timelines(rulings)
    rid = rulings[0].id
    t.in_force(rid, DAY)
    assert list(t._made) == [rid]


def test_timelines_read_under_another_calendar_are_those_made_anew_under_it(kb):
    rulings = list(kb.rulings.values())
    for made_under in (None, *CALENDARS):
        made = Timelines(rulings, made_under)
        for reading in (None, *CALENDARS):
            anew, read = Timelines(rulings, reading), made.read(reading)
            assert read.reading == reading and read.removed is None
            assert list(read.rulings.items()) == list(anew.rulings.items())
            assert list(read.superseded_by.items()) == list(anew.superseded_by.items())
            assert list(read.cuts.items()) == list(anew.cuts.items()), (made_under, reading)
            assert {rid: _plain(ivs) for rid, ivs in read.intervals.items()} == \
                {rid: _plain(ivs) for rid, ivs in anew.intervals.items()}


def test_a_knowledge_base_under_another_calendar_has_the_timelines_made_anew_under_it(kb):
    for reading in CALENDARS:
        other = kb.under_calendar(reading)
        anew = Timelines(kb.rulings.values(), reading)
        assert list(other.timelines.cuts.items()) == list(anew.cuts.items())
        assert {rid: _plain(ivs) for rid, ivs in other.timelines.intervals.items()} == \
            {rid: _plain(ivs) for rid, ivs in anew.intervals.items()}
