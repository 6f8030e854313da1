"""The test of what decides an answer runs a reading only where the reading can change a run
(issue 25): a run is a function of its script of choices and of the values of the rule points it
consulted, so a reading that gives each of those points the value the run saw repeats it, and
is not run again (engine.deciding.RunMemo). The readings' answers stay those a fresh run gives."""

from __future__ import annotations

from rulesdsl.engine.context import EngineError
from rulesdsl.engine.deciding import SEASON_POINT, RunMemo, repeats
from rulesdsl.engine.runner import answer

SAMPLE = ("royal/", "pm/", "grm/qa/rulings-nullified-weight-before-summer")


def test_a_run_repeats_only_under_a_reading_that_gives_every_point_it_consulted_the_value_it_saw():
    seen = {"a": "x", "b": "b0"}        # consulted a (its reading set it to x) and b (at its default)
    made_under = {"a": "x"}
    assert repeats(seen, made_under, {"a": "x"})
    assert repeats(seen, made_under, {"a": "x", "c": "z"})     # c: the run never consulted it
    assert not repeats(seen, made_under, {"a": "y"})
    assert not repeats(seen, made_under, {})                  # a at its default, not the x it saw
    assert not repeats(seen, made_under, {"a": "x", "b": "b1"})
    # the season reading changes the knowledge base itself, not a value a run consults
    assert not repeats(seen, made_under, {"a": "x", SEASON_POINT: "solar_terms"})


def _said(a) -> tuple:
    return (a.sentences, a.derived, a.ok, a.status, list(a.outcomes), a.authority, a.points, a.unsettled,
            a.reading, [(e.text, e.ok, e.found) for e in a.expectations])


def test_each_readings_answer_is_the_answer_a_fresh_run_under_that_reading_gives(kb):
    made = asked = 0
    for sid, info in sorted(kb.scenarios.items()):
        if not sid.startswith(SAMPLE) or not info.expects:
            continue
        memo = RunMemo()
        try:
            a = answer(kb, info, run_memo=memo)
        except EngineError:
            continue
        made += sum(len(v) for v in memo.runs.values())
        asked += sum(len(x.branches) for _, x in a.readings.answers) if a.readings else len(a.branches)
        for reading, x in (a.readings.answers[1:] if a.readings else ()):
            assert _said(x) == _said(answer(kb, info, reading=reading)), (sid, reading)
        for reading, message in (a.readings.errors if a.readings else ()):
            try:
                answer(kb, info, reading=reading)
            except EngineError as e:
                assert e.message.splitlines()[0] == message
            else:
                raise AssertionError(f"{sid} {reading}: answered afresh, but not in the test")
    assert made < asked * 0.9, (made, asked)     # readings that repeat a run cost none
