"""An answer's status is the weakest among what decides it; what it touches without deciding is
listed; what the scenario takes as given is a 仮定; a reading the source excludes is no reading;
`expect status` pins a status; and every command gives a file the same verdict."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import REPO, write_kb

from rulesdsl.engine.runner import answer
from rulesdsl.kb.build import load
from rulesdsl.kb.verdict import file_findings
from rulesdsl.lang.model import Status

# --------------------------------------------------------------------------- what decides


def test_an_answer_that_touches_an_unsettled_point_every_reading_agrees_on_stays_confirmed(kb):
    a = answer(kb, kb.scenarios["royal/qa/start-with-bad-deck"])
    assert a.status is Status.confirmed and not a.cautions
    assert a.readings.same and a.readings.exhaustive
    assert [p["key"] for t in a.touched for p in t["points"]] == ["deck.colour_scope"]


def test_an_answer_a_reading_changes_is_unconfirmed_and_says_which_point_decides(kb):
    a = answer(kb, kb.scenarios["grm/qa/stack-cell-limit-logo-active"])
    assert a.status is Status.unconfirmed
    assert "stack.cell_limit_count" in a.readings.deciding
    assert not a.readings.same


def test_a_point_that_decides_counts_even_where_no_step_cites_it(kb):
    # the source does not say whether a cost of 0 still needs a card of the colour: the answer
    # was 確定 because the illegal step cited only the cost rule
    a = answer(kb, kb.scenarios["pm/qa/zero-cost-needs-card"])
    assert "cost.zero_cost_colour" in a.readings.deciding
    assert a.status is Status.unconfirmed
    assert any("cost.zero_cost_colour" in (c.note or "") for c in a.cautions)


def test_an_unofficial_rule_that_decides_keeps_its_word_and_one_that_does_not_weakens_nothing(kb):
    first = answer(kb, kb.scenarios["grm/qa/effects-simultaneous-triggers-turn-player-first"])
    assert first.status is Status.unofficial and "triggers.simultaneous_order" in first.readings.deciding
    same_side = answer(kb, kb.scenarios["grm/qa/effects-same-side-triggers-any-order"])
    assert same_side.status is Status.confirmed
    assert any(t["status"] == "unofficial" for t in same_side.touched)


def test_a_known_cards_unknown_effects_are_an_assumption_not_a_status(kb):
    a = answer(kb, kb.scenarios["grm/qa/battle-no018-eight-directions"])
    assert a.status is Status.confirmed and not a.cautions
    assert any("効果は資料にない" in x and "grm/reading/unknown-effects" in x for x in a.assumptions)


def test_ask_lists_what_is_touched_and_shows_no_banner_for_it(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, _ = run_cli("--root", REPO, "ask", "royal/qa/start-with-bad-deck", "--trace", "none")
    assert code == 0
    assert "根拠: 確定" in out
    assert "資料が定めていない点（隣り合う3色の制限を数える範囲）に触れるが、どの読みでも答えは同じ" in out
    assert "全ての組み合わせ" in out
    assert "この答えは確定していない裁定・解釈に依拠している" not in out


def test_the_readings_say_when_the_points_were_varied_one_at_a_time(kb):
    from rulesdsl.engine.readings import try_readings
    info = kb.scenarios["royal/qa/lasting-trigger-as-cost"]
    r = try_readings(kb, info, answer(kb, info, settled=False), limit=2)
    assert r.exhaustive is False


# --------------------------------------------------------------------------- the words


def test_the_status_line_uses_the_sources_words(kb):
    from rulesdsl.engine.answer import status_line
    a = answer(kb, kb.scenarios["grm/qa/rulings-partial-optional-after-august"])
    assert a.status is Status.provisional
    assert status_line(a).startswith("暫定裁定")
    b = answer(kb, kb.scenarios["grm/qa/effects-simultaneous-triggers-turn-player-first"])
    assert status_line(b).startswith("※暫定ルール・非公式")


def test_no_page_or_answer_says_what_the_sources_do_not():
    for path in [REPO / "site/docs/guide/statuses.md", REPO / "site/docs/index.md",
                 *(REPO / "rulesdsl").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "公式の暫定裁定" not in text and "コミュニティの取り決め" not in text, path
    guide = (REPO / "site/docs/guide/statuses.md").read_text(encoding="utf-8")
    assert "知識ベースの読み（※未確定）" in guide


# --------------------------------------------------------------------------- readings the source excludes


def test_the_lowest_strength_offers_no_reading_the_source_excludes(kb):
    point = kb.games["thgm"].points["attack.min_strength"]
    assert [v.name for v in point.values] == ["two"] and point.unsettled is None
    a = answer(kb, kb.scenarios["thgm/qa/strength-one-illegal"])
    assert a.status is Status.confirmed and a.ok


EXCLUDED = """\
section mini/strength "強さ" {
  source "mini.txt §バトル"
  text "重いカードが勝つ。"
  defines battle.least
}
"""


def test_check_reports_a_reading_a_numeric_bound_of_the_source_excludes(kb_root, run_cli):
    from conftest import MINI_GAME, MINI_SOURCE
    game = MINI_GAME.replace('  point flip_scope', '''  point battle.least "最低の強さ" {
    value one "1"
    value two "2"
    default two unconfirmed from mini/strength
    reason "本文の読み"
  }
  point flip_scope''')
    write_kb(kb_root, {"rulings/mini/sources/mini.txt": MINI_SOURCE.replace("重いカードが勝つ。", "重いカードが勝つ。強さを１以下にすることはできません。"),
                       "rulings/mini/game.rules": game,
                       "rulings/mini/s.rules": EXCLUDED.replace("重いカードが勝つ。", "重いカードが勝つ。強さを１以下にすることはできません。")},
             with_game=False)
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1
    assert "error[reading-excluded]: the value one of battle.least is not a reading" in out
    assert "value two" not in out


def test_a_bound_the_source_allows_is_not_an_exclusion():
    from rulesdsl.kb.bounds import bounds_in
    assert bounds_in("強さは２以上にすることができる。") == []
    assert [(b[1]) for b in bounds_in("ただし、強さを１以下にすることはできません。")] == [1.0]


# --------------------------------------------------------------------------- expect status

# the judge's question of examples/, with one more expectation in place of EXPECT
JUDGE = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8").rstrip().removesuffix("}") + "  EXPECT\n}\n"


@pytest.mark.parametrize("line, code", [
    ("expect status confirmed", 0),
    ("expect status at_least provisional", 0),
    ("expect status at_least unconfirmed", 0),
    ("expect status unconfirmed", 1),
    ("expect status unconfirmed from 2026-01 until 2026-02", 0),   # not in force on the day
])
def test_expect_status_pins_the_answers_status(ask, line, code):
    got, out, _ = ask(JUDGE.replace("EXPECT", line))
    assert got == code, out
    if code:
        assert "答えの状態は※未確定" in out and "found: 状態は確定" in out


def test_expect_status_retracted_is_a_located_error(ask):
    code, _, err = ask(JUDGE.replace("EXPECT", "expect status retracted"))
    assert code == 2
    assert "error[syntax]: an answer's status is never retracted" in err


def test_expect_status_round_trips_through_the_formatter():
    from rulesdsl.lang.fmt import format_text
    text = JUDGE.replace("EXPECT", "expect status at_least provisional")
    assert format_text(text) == text and "  expect status at_least provisional\n}" in text


def test_a_status_change_is_a_change_for_impact(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    code, out, _ = run_cli("--root", REPO, "impact", "--with", REPO / "examples/proposed-whole-stack.rules", "--json")
    data = json.loads(out)
    assert any(c["status_before"] != c["status_after"] for c in data["changes"])


# --------------------------------------------------------------------------- one verdict per file

NO_ASSUME = """\
scenario grm/judge/no-assume "仮定と書かない" {
  as of 2026-09-01
  card No.034 { weight 40kg }
  card "重い" { weight 60kg }
  field b2 P1 No.034 up
  hand P2 "重い"
  turn P2
  play P2 "重い" c2
  expect card_face b2 No.034 down
}
"""
SYNTAX = 'scenario grm/judge/broken "壊れた" {\n  as of 2026-09-01\n  expect bogus\n'
UNKNOWN_VERB = NO_ASSUME.replace("card No.034 { weight 40kg }", "").replace("play P2", "plya P2")


def _verdicts(run_cli, root, path, scenarios: bool = True):
    """(check refuses?, ask refuses?, test refuses?, the pytest plugin refuses?); a file of
    rulings alone (no scenario) is not asked."""
    c, _, _ = run_cli("--root", root, "check", path)
    a, out, _ = run_cli("--root", root, "ask", path, "--json") if scenarios else (0, "", "")
    t, tout, _ = run_cli("--root", root, "test", path, "--json")
    results = json.loads(tout)["results"] if tout.strip() else []
    refused_by_test = t != 0 and not any(r["result"] == "passed" for r in results)
    kb = load(root, extra=[path])
    from rulesdsl.kb.loader import display_path
    plugin = bool(file_findings(kb, [display_path(path, kb.root)]))
    if a == 2:
        assert json.loads(out)["ok"] is False
    return (c != 0, a == 2, refused_by_test, plugin)


@pytest.mark.parametrize("text", [NO_ASSUME, SYNTAX, UNKNOWN_VERB, NO_ASSUME.replace("card No.034", "assume card No.034")])
def test_check_ask_test_and_pytest_give_a_judges_file_one_verdict(run_cli, tmp_path, monkeypatch, text):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    f = tmp_path / "q.rules"
    f.write_text(textwrap.dedent(text), encoding="utf-8")
    verdicts = _verdicts(run_cli, REPO, f)
    assert len(set(verdicts)) == 1, verdicts


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "examples").glob("*.rules")))
def test_every_example_file_gets_one_verdict(run_cli, tmp_path, monkeypatch, name):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    path = REPO / "examples" / name
    scenarios = "scenario " in path.read_text(encoding="utf-8")
    assert _verdicts(run_cli, REPO, path, scenarios) == (False, False, False, False)


def test_every_bundled_file_gets_one_verdict(kb, run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    code, out, _ = run_cli("--root", REPO, "test", "--json")
    results = json.loads(out)["results"]
    assert code == 0 and not [r for r in results if r["result"] == "error"]
    files = {str(s.scenario.loc.file) for s in kb.scenarios.values()}
    assert file_findings(kb, files) == []
    assert run_cli("--root", REPO, "check")[0] == 0
