"""Corpus-wide: a scenario's timeline agrees with `ask --as-of` on the first day of every period
and on the day before it, for every scenario of every game that has an interpreter."""

from __future__ import annotations

import datetime as dt

from rulesdsl.engine.registry import engine_for
from rulesdsl.regress.periods import timeline
from rulesdsl.regress.records import record


def _period_of(periods, day):
    return next(p for p in periods if (p.start is None or p.start <= day) and (p.end is None or day < p.end))


def _same(rec, period_rec) -> bool:
    return rec.same_answer(period_rec) and rec.points() == period_rec.points()


def test_timeline_periods_agree_with_answers_on_their_first_day_and_the_day_before(kb):
    checked = 0
    problems = []
    for sid, info in sorted(kb.scenarios.items()):
        if engine_for(info.game) is None:
            continue
        periods = timeline(kb, info)
        assert periods, sid
        for p in periods:
            days = [p.start] if p.start else []
            if p.start:
                days.append(p.start - dt.timedelta(days=1))
            for day in days:
                rec, _ = record(kb, info, day)
                expected = _period_of(periods, day).record
                checked += 1
                if not _same(rec, expected):
                    problems.append(f"{sid} on {day}: ask says {rec.summary()} ({rec.status}, "
                                    f"{[d.found for d in rec.points()]}); timeline says {expected.summary()} "
                                    f"({expected.status}, {[d.found for d in expected.points()]})")
    assert not problems, "\n".join(problems[:20])
    assert checked > 0


def test_a_revision_that_moves_a_consulted_point_starts_a_new_period_even_if_the_words_stay(kb):
    # the flagship's zero-weight sibling: the answer's words are the same before and after the
    # March 2026 ruling, but what it rests on (and its status) is not
    info = kb.scenarios["grm/qa/rulings-zero-weight-before-march"]
    periods = timeline(kb, info)
    assert [p.start for p in periods] == [None, dt.date(2026, 3, 1)]
    assert periods[0].record.summary() == periods[1].record.summary()
    assert [d.found[1] for d in periods[0].record.points()] == ["unconfirmed"]
    assert [d.found[1] for d in periods[1].record.points()] == ["confirmed"]


def test_a_dated_revision_moving_a_point_starts_a_period_even_when_words_and_status_stay(kb):
    # optional.partial_execution is read all_or_nothing (unconfirmed default) until the August
    # 2026 provisional ruling; this answer's words and status do not change with it, but what it
    # rests on does, and `ask --as-of` on either side says so: the timeline must too
    info = kb.scenarios["grm/qa/effects-optional-may-decline"]
    periods = timeline(kb, info)
    assert [p.start for p in periods] == [None, dt.date(2026, 8, 1)]
    assert periods[0].record.same_answer(periods[1].record)
    before, after = (record(kb, info, d)[0] for d in (dt.date(2026, 7, 31), dt.date(2026, 8, 1)))
    assert [d.found[:2] for d in before.points()] == [("all_or_nothing", "unconfirmed")]
    assert [d.found[:2] for d in after.points()] == [("allowed", "provisional")]
