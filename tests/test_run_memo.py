"""The test of what decides an answer runs a reading only where the reading can change a run
(issue 25): a run is a function of its script of choices and of the values of the rule points it
consulted, so a reading that gives each of those points the value the run saw repeats it, and
is not run again (engine.deciding.RunMemo). The readings' answers stay those a fresh run gives."""

from __future__ import annotations

from rulesdsl.engine.context import EngineError
from rulesdsl.engine.deciding import SEASON_POINT, RunMemo, meets, repeat_needs, repeats
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


def test_the_memo_finds_the_first_kept_run_that_repeats_says_a_reading_repeats():
    """RunMemo.find tests the kept runs without calling `repeats`, and engine.resume its kept
    states with `meets` (what a run asks of a reading made once): the run find returns is the
    first that `repeats` accepts, and `meets` says what `repeats` says, under every reading over
    the points the runs consulted or were made under (set or left at the default, the season
    among them)."""
    import itertools
    from types import SimpleNamespace

    def made(points: dict, tag: str):
        ctx = SimpleNamespace(points={(k, None): SimpleNamespace(value=v) for k, v in points.items()},
                              rulings=set())
        return ([tag], (SimpleNamespace(steps=[tag]), ctx))

    kept = [({"a": "x", "b": "b0"}, {"a": "x"}), ({"a": "y"}, {"a": "y", "c": "z"}),
            ({"b": "b1", "c": "c0"}, {"b": "b1"}), ({"a": "x"}, {SEASON_POINT: "solar_terms", "a": "x"}),
            ({}, {"d": "w"}), ({"a": "x", "b": "b0"}, {"a": "x"}), ({"b": "b1", "c": "c0"}, {"b": "b1"})]
    memo = RunMemo()
    for i, (points, under) in enumerate(kept):     # the last two of a kind with two before them
        memo.keep((0,) if i < 5 else (0, 1), under, made(points, str(i)))
    values = {"a": (None, "x", "y"), "b": (None, "b0", "b1"), "c": (None, "z", "c0"), "d": (None, "w"),
              SEASON_POINT: (None, "solar_terms")}
    tried = 0
    for combo in itertools.product(*values.values()):
        reading = {k: v for k, v in zip(values, combo) if v is not None}
        for script, start, end in (([0], 0, 5), ([0, 1], 5, 7)):
            first = next((str(i) for i in range(start, end) if repeats(*kept[i], reading)), None)
            found = memo.find(script, reading)
            assert (found and found[0][0]) == first, (script, reading)
        for points, under in kept:
            # the rule spelled out once more here: `repeats` is itself `meets` over `repeat_needs`
            defined = reading.get(SEASON_POINT) == under.get(SEASON_POINT) and all(
                points[k] == reading.get(k) for k in (*under, *reading) if k in points)
            assert meets(repeat_needs(points, under), points, reading) == repeats(points, under, reading) == defined
        tried += first is not None
    assert tried and memo.find([1], {}) is None     # some readings repeat a run; another script has none
    assert memo.find([0, 1], {"b": "b1"}) is not None and memo.find([0, 1], {"b": "b0"}) is None   # asked again


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


def test_a_run_is_reused_under_another_season_reading_only_where_a_fresh_run_there_gives_the_same_answer(kb):
    """Asked on a day that one reading of seasons puts in summer and another not (the summer's
    rulings then come into force under the first only), each question's answer under every other
    season reading is the one a fresh run under it gives; most questions consult no ruling the
    season moves, and their runs are the default reading's (`reads_alike`), the others' not."""
    import datetime as dt

    from rulesdsl.engine.context import carded_points
    from rulesdsl.engine.deciding import reads_alike

    carded = carded_points(kb)
    day = dt.date(2026, 5, 20)     # after summer begins under the solar terms, before it does as read here
    alike = moved = 0
    for sid, info in sorted(kb.scenarios.items()):
        if info.game != "grm" or not info.expects:
            continue
        memo = RunMemo()
        try:
            a = answer(kb, info, as_of=day, run_memo=memo)
        except EngineError:
            continue
        if SEASON_POINT not in a.unsettled:
            continue
        for reading, x in a.readings.answers[1:]:
            assert _said(x) == _said(answer(kb, info, as_of=day, reading=reading)), (sid, reading)
        for value in a.unsettled[SEASON_POINT]["readings"][1:]:
            other = kb.under_calendar(value)
            for kept in memo.runs.values():
                for _, under, (_, (_, ctx)), *_ in kept:
                    if not under:       # the default reading's runs
                        same = reads_alike(ctx, other)
                        alike, moved = alike + same, moved + (not same)
                        # a point the season moves, or a ruling it brings into force, differs (a
                        # point some ruling sets for one card is taken to)
                        assert same == all(kb.value("grm", n, c, day) == other.value("grm", n, c, day)
                                           and ("grm", n) not in carded for n, c in ctx.points) and all(
                            kb.in_force(r.rpartition("@")[0], day) is other.in_force(r.rpartition("@")[0], day)
                            for r in ctx.rulings), (sid, value)
    assert alike > 100 and moved > 10, (alike, moved)
