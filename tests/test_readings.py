"""Readings: answers under each way of reading what the sources leave unsettled, computed."""

from __future__ import annotations

import datetime as dt
import json

from conftest import REPO

from rulesdsl.engine.readings import try_readings
from rulesdsl.engine.runner import answer
from rulesdsl.lang.dates import PartialDate

BEFORE_SUMMER = "grm/qa/rulings-nullified-weight-before-summer"     # asked on 2026-05-15


def test_a_season_is_read_three_ways_and_each_ends_the_day_before_the_next_begins():
    summer = PartialDate.parse("2026年夏")
    assert (summer.start(), summer.end()) == (dt.date(2026, 6, 1), dt.date(2026, 8, 31))
    assert summer.start("solar_terms") == dt.date(2026, 5, 5)
    assert summer.start("astronomical") == dt.date(2026, 6, 21)
    assert summer.window() == (dt.date(2026, 5, 5), dt.date(2026, 9, 22))
    winter = PartialDate.parse("2026-winter")
    assert winter.end("meteorological") == dt.date(2027, 2, 28)


def test_a_day_before_summer_as_read_here_is_after_it_under_the_solar_terms(kb):
    info = kb.scenarios[BEFORE_SUMMER]
    a = answer(kb, info)
    assert "dates.season" in a.unsettled
    r = try_readings(kb, info, a)
    assert not r.same
    # the season varied alone (the old nullification scope is another unsettled point of this day)
    by_reading = {x.reading.get("dates.season", "meteorological"): x for _, x in r.answers
                  if set(x.reading) <= {"dates.season"}}
    assert set(by_reading) == {"meteorological", "solar_terms", "astronomical"}
    assert by_reading["meteorological"].ok and by_reading["astronomical"].ok
    assert not by_reading["solar_terms"].ok          # the unified ruling is then already in force
    assert by_reading["solar_terms"].sentences != a.sentences
    assert any("2026年夏がいつ始まるかも資料にない" in f for f in a.fuzzy)


def test_an_answer_far_from_any_season_date_has_no_season_reading(kb):
    info = kb.scenarios["grm/qa/stack-flips-top-only"]
    a = answer(kb, info)
    assert a.unsettled == {}
    r = try_readings(kb, info, a)
    assert r.same and len(r.answers) == 1


def test_ask_says_whether_another_reading_changes_the_answer_and_readings_shows_each(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    code, out, _ = run_cli("--root", REPO, "ask", BEFORE_SUMMER)
    lines = out.splitlines()
    assert lines[0].startswith("答え: ") and lines[1].startswith("根拠: ")
    assert lines[2].startswith("読み: 読みによって答えが変わる")
    code, out, _ = run_cli("--root", REPO, "ask", BEFORE_SUMMER, "--readings")
    assert "読みによって答えが変わる（6 通りの読み、2 通りの答え）" in out
    assert "二十四節気" in out and "資料に定めのない点: dates.season（記録: grm/gap/season-bounds）" in out
    code, out, _ = run_cli("--root", REPO, "ask", BEFORE_SUMMER, "--json")
    data = json.loads(out)["answers"][0]["readings"]
    assert data["same"] is False and len(data["answers"]) == 6
    assert data["points"][0]["key"] == "dates.season"


def test_the_timeline_splits_where_the_season_reading_would_matter(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    code, out, _ = run_cli("--root", REPO, "timeline", BEFORE_SUMMER)
    assert code == 0
    assert "from 2026-06-01" in out
    assert "2026年夏がいつ始まるかも資料にない" in out


def test_every_reading_of_a_royal_soul_phase_is_answered_each_soul_effect_cast_once(kb):
    # under the reading "cast every soul skill in the blank zone", a guardian whose soul effect
    # leaves it in the blank zone must not be cast again and again
    info = kb.scenarios["royal/qa/guardian-three-effects"]
    a = answer(kb, info)
    r = try_readings(kb, info, a)
    assert r.errors == []
    assert any(reading.get("soul_phase.casting") == "mandatory" for reading, _ in r.answers)


def test_the_season_is_an_open_point_exactly_on_the_days_some_reading_of_a_season_revision_begins_and_another_not():
    """`_season_reading` reads each season revision's earliest and latest first day from a list
    made once per knowledge base and game: a day is open when it lies in [earliest, latest) of
    one of them, asked on every such edge and the days either side."""
    from rulesdsl.engine.runner import _season_reading
    from rulesdsl.kb.build import load
    kb = load(REPO)
    one = dt.timedelta(days=1)
    opened = 0
    for game in kb.games:
        starts = [rev.date.starts() for _, rev in kb.season_revisions(game)]
        for day in sorted({d + k * one for first, last in starts for d in (first, last) for k in (-1, 0, 1)}):
            decl = kb.games[game].points.get("dates.season")
            is_open = decl is not None and decl.unsettled is not None and any(
                first <= day < last for first, last in starts)
            got = _season_reading(kb, game, day)
            assert (got is not None) == is_open, (game, day)
            opened += is_open
    assert opened
