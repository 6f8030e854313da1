"""The プレシャスメモリーズ interpreter: what `rulesdsl ask` answers, its readings of the source's
silences, its board, and its errors for bad input."""

import json
import textwrap

import pytest
from conftest import REPO

from rulesdsl.engine.runner import answer

RED = """\
  card "赤の札" { kind event; generated_cost 1; colour "赤"; work "作品A" }
"""

APPROACH = """\
scenario pm/t/approach "アプローチ" {
  as of 2026-11-30
  card "アタッカー" { kind character; ap 3; dp 2 }
  card "ブロッカー" { kind character; ap 1; dp 2 }
  turn P1 2
  phase approach
  main P1 "アタッカー" active
  main P2 "ブロッカー" active
  approach P1 "アタッカー"
  interfere P2 "ブロッカー"
  expect exits "ブロッカー"
  expect never exits "アタッカー"
}
"""


def test_exit_check_compares_each_dp_with_the_other_ap_and_cites_both_checks(ask):
    code, out, err = ask(APPROACH)
    assert code == 0, out + err
    assert out.splitlines()[0] == "答え: 《ブロッカー》は退場する。「《アタッカー》は退場する」とはならない。"
    assert "妨害キャラ《ブロッカー》のDP2、アプローチをしている《アタッカー》のAP3：DPがAPを上回らなかった" in out
    assert "← pm/approach/exit-interferer [confirmed]" in out
    assert "← pm/approach/exit-approacher [confirmed]" in out
    assert "pm/gap/exit-subject@undated [unconfirmed]" in out


def test_same_input_gives_byte_identical_output(ask):
    assert ask(APPROACH) == ask(APPROACH)
    assert ask(APPROACH, "--json") == ask(APPROACH, "--json")


def test_board_has_areas_info_hands_decks_and_a_picture_within_78_columns(ask):
    from rulesdsl.lang.diagnostics import display_width
    code, out, _ = ask(APPROACH, "--json")
    branch = json.loads(out)["answers"][0]["branches"][0]
    before, after = branch["before"], branch["after"]
    labels = [a["label"] for a in before["areas"]]
    assert labels[:3] == ["P1 メインエリア", "P1 サポートエリア", "P1 ポイント置き場"]
    card = before["areas"][0]["cards"][0]
    assert card["name"] == "アタッカー" and card["owner"] == "P1" and card["face"] == "up" and card["hypothetical"]
    assert card["note"].startswith("活動")
    assert after["areas"][0]["cards"][0]["note"].startswith("休息")
    assert after["graveyards"]["P2"] == ["ブロッカー"]
    assert dict(before["info"])["ターン"] == "P1の2回目のターン・アプローチフェイズ"
    code, text, _ = ask(APPROACH)
    picture = text[text.index("board before:"):text.index("expectations:")]
    assert "P1 メイン:   《アタッカー》[活動・AP3/DP2]" in picture
    assert all(display_width(line) <= 78 for line in picture.splitlines())


@pytest.mark.parametrize("body, said, rule", [
    # an unpayable cost: no card of the played card's colour or work among those paid
    ('card "赤のイベント" { kind event; cost 1; colour "赤"; work "作品A" }\n'
     '  card "青の札" { kind event; generated_cost 2; colour "青"; work "作品B" }\n'
     '  turn P1 3\n  phase main\n  hand P1 ["赤のイベント", "青の札"]\n'
     '  play_event P1 "赤のイベント" ["青の札"]',
     "同じ色（赤）または作品（作品A）のカードが1枚もない", "pm/cost/colour"),
    # an approach with a character that entered this turn
    ('card "新顔" { kind character; ap 3; dp 3 }\n  turn P1 3\n  phase approach\n'
     '  main P1 "新顔" active\n  entered "新顔"\n  approach P1 "新顔"',
     "出したターンはアプローチできない", "pm/main/enter"),
    # an interrupt out of turn: the other player holds the right after a play
    ('card "E" { kind event; cost 1; colour "赤"; work "作品A" }\n'
     '  card "割" { kind event; timing interrupt; cost 1; colour "赤"; work "作品A" }\n'
     '  card "赤の札2" { kind event; generated_cost 1; colour "赤"; work "作品A" }\n'
     '  turn P1 3\n  phase main\n  hand P1 ["E", "割", "赤の札", "赤の札2"]\n'
     '  play_event P1 "E" ["赤の札"]\n  play_event P1 "割" ["赤の札2"]',
     "優先権はP2にある", "pm/priority"),
])
def test_an_action_the_rules_forbid_is_answered_as_illegal_with_the_rule(ask, body, said, rule):
    code, out, err = ask(f"""\
    scenario pm/t/illegal "できない操作" {{
      as of 2026-11-30
    {textwrap.indent(RED, "  ")}
      {body.replace(chr(10), chr(10) + "  ")}
      expect illegal
    }}
    """)
    assert code == 0, out + err
    first = out.splitlines()[0]
    assert first.startswith("答え: ルール上できない：") and said in first
    assert f"← {rule} [confirmed]" in out


def test_an_illegal_action_not_asked_about_fails_the_expectations_with_one_line(ask):
    code, out, _ = ask(APPROACH.replace('main P2 "ブロッカー" active', 'main P2 "ブロッカー" resting'))
    assert code == 1
    assert "休息状態：妨害には活動状態のキャラを指定する" in out.splitlines()[0]


@pytest.mark.parametrize("body, message, line", [
    ('card "X" { kind character; ap 3 }\n  card "Y" { kind character; ap 1; dp 1 }\n  turn P1 2\n'
     '  phase approach\n  main P1 "X" active\n  main P2 "Y" active\n  approach P1 "X"\n  interfere P2 "Y"',
     "the sources do not give the DP of 《X》", 3),
    ('card "E" { kind event; cost 1 }\n  hand P1 ["E"]\n  play_event P1 "E"',
     "the set-up gives no turn", 5),
    ('card "E" { kind event; cost 1; colour "赤"; work "作品A" }\n  turn P1 2\n  phase main\n'
     '  play_event P1 "E"', "is not in the game", 6),
    ('turn P1 1\n  phase turn_start\n  draw_step P1', "add `first P1`", 5),
    ('card "S" { kind support }\n  set_on "S" "Y"\n  card "Y" { kind character; ap 1; dp 1 }',
     "is not on the field in the set-up", 4),
])
def test_a_question_the_engine_cannot_answer_gets_a_located_error_and_exit_2(ask, body, message, line):
    code, out, err = ask(f"""\
    scenario pm/t/bad "bad" {{
      as of 2026-11-30
      {body.replace(chr(10), chr(10) + "  ")}
      expect legal
    }}
    """)
    assert code == 2, out + err
    assert message in err
    assert f"q.rules:{line}:" in err
    assert "hint:" in err
    assert "Traceback" not in err


def test_a_malformed_scenario_gets_a_located_syntax_error(ask):
    code, out, err = ask("""\
    scenario pm/t/typo "typo" {
      as of 2026-11-30
      turn P1 2
      phase approch
      expect legal
    }
    """)
    assert code == 2
    assert "q.rules:4:" in err and "approach" in err


# ----------------------------------------------------------------------------- readings

def _answer(kb, sid, reading=None):
    return answer(kb, kb.scenarios[sid], reading=reading or {})


def _holds(a, text):
    return next(e.ok for e in a.expectations if e.text == text)


def test_deck_out_is_answered_under_each_reading_of_its_two_statements(kb):
    sid = "pm/qa/deck-out-after-last-draw"      # a draw takes the last card of the deck
    assert _holds(_answer(kb, sid), "P2が勝利する")
    later = _answer(kb, sid, {"deck_out.timing": "on_draw"})
    assert not _holds(later, "P2が勝利する")
    assert later.branches[0].outcome.startswith("ゲームは続く")
    assert "pm/gap/deck-out-timing" in json.dumps(later.to_json()["depends_on"], ensure_ascii=False)
    both = "pm/qa/deck-out-draw-from-empty"       # a draw finds no card: a loss under both readings
    for timing in ("any_time", "on_draw"):
        assert _holds(_answer(kb, both, {"deck_out.timing": timing}), "P2が勝利する")


def test_a_draw_from_an_empty_deck_cites_the_draw_rule_under_either_reading(kb):
    for timing in ("any_time", "on_draw"):
        a = _answer(kb, "pm/qa/deck-out-draw-from-empty", {"deck_out.timing": timing})
        assert "pm/turn-start/draw" in {c.ref for b in a.branches for s in b.steps for c in s.cites}


def test_turn_end_effects_of_cards_in_hand_fire_only_under_the_hand_reading(kb):
    sid = "pm/qa/turn-end-effects-field-only"      # one drawer on the field, one in the hand
    assert _holds(_answer(kb, sid), "P1の手札は4枚")
    both = _answer(kb, sid, {"turn_end.effect_zone": "field_and_hand"})
    assert not _holds(both, "P1の手札は4枚")
    assert [f for e in both.expectations for f in e.found] == ["P1の手札は5枚"]


def test_face_down_points_count_toward_seven_only_under_one_reading(kb):
    sid = "pm/qa/victory-face-up-only-reading"
    assert _holds(_answer(kb, sid), "P1が勝利する")
    assert not _holds(_answer(kb, sid, {"victory.face_down_points": "face_up_only"}), "P1が勝利する")


def test_surplus_from_the_hand_is_kept_for_the_next_payment_only_under_the_narrow_reading(kb):
    sid = "pm/qa/cost-surplus-does-not-carry"
    assert _answer(kb, sid).branches[0].illegal
    kept = _answer(kb, sid, {"cost.surplus_scope": "point_zone_only"})
    assert kept.branches[0].illegal is None
    steps = [s.text for s in kept.branches[0].steps]
    assert any("余剰のコスト2はその場では消滅せず" in s for s in steps)


def test_a_use_type_text_while_a_play_waits_for_interrupts_is_refused_only_if_text_use_is_a_play(kb):
    sid = "pm/qa/text-use-while-a-play-waits"   # the refusal of commit 488507a, once a NameError
    a = _answer(kb, sid)
    assert a.branches[0].illegal is None and _holds(a, "P2の手札は4枚")
    assert "text_use.is_play" in a.readings.deciding and a.status.value == "unconfirmed"
    play = _answer(kb, sid, {"text_use.is_play": "play"})
    assert play.branches[0].illegal == ("《P1のイベント》のプレイが割り込みを待っている：このとき使用できるのは"
                                        "使用タイミングが割り込みのカードのみで、《P2のキャラ》のテキストは割り込みではない")
    assert play.illegal["rule"] == "pm/effects/interrupt"


def test_a_refused_action_is_said_once_though_an_expectation_of_legality_fails_with_it(kb):
    play = _answer(kb, "pm/qa/text-use-while-a-play-waits", {"text_use.is_play": "play"})
    said = "".join(play.sentences)
    assert said.startswith("ルール上できない：《P1のイベント》のプレイが割り込みを待っている")
    assert said.count("のプレイが割り込みを待っている") == 1, play.sentences


def test_interrupts_resolve_last_first_or_in_play_order_by_reading(kb):
    sid = "pm/qa/interrupt-resolves-first"
    assert _holds(_answer(kb, sid), "《狙われたキャラ》は手札にある")
    first_first = _answer(kb, sid, {"interrupt.order": "first_first"})
    assert not _holds(first_first, "《狙われたキャラ》は手札にある")
    assert not _holds(first_first, "《呼び戻し》の効果は《退場のイベント》の効果より先に解決される")


def test_events_during_an_approach_are_illegal_under_the_between_approaches_reading(kb):
    sid = "pm/qa/event-during-approach"
    assert _answer(kb, sid).branches[0].illegal is None
    narrow = _answer(kb, sid, {"approach.event_windows": "between_approaches"})
    # refused, and the scenario goes on from the state before it (the actions after it run)
    refusals = [narrow.branches[0].illegal or "", *narrow.branches[0].refused]
    assert any("アプローチの途中" in r for r in refusals)


def test_the_non_active_player_may_interrupt_twice_only_if_it_keeps_the_right(kb):
    sid = "pm/qa/interrupt-twice-in-a-row"
    assert _answer(kb, sid).branches[0].illegal
    assert _answer(kb, sid, {"priority.after_non_active": "non_active_keeps"}).branches[0].illegal is None


def test_every_unsettled_point_names_its_gap_ruling_and_every_gap_is_read_by_a_point(kb):
    points = kb.games["pm"].points
    gaps = {r for r in kb.rulings if r.startswith("pm/gap/")}
    unsettled = {p.unsettled for p in points.values() if p.unsettled}
    assert unsettled <= gaps
    assert len(unsettled) >= 20
    for name in ("deck_out.timing", "victory.face_down_points", "cost.surplus_scope"):
        assert points[name].unsettled and points[name].default.status.value == "unconfirmed"


# ----------------------------------------------------------------------------- the corpus

def test_every_pm_scenario_is_answered_and_holds(kb):
    infos = [s for s in kb.scenarios.values() if s.game == "pm"]
    assert len(infos) >= 60
    failed = [s.id for s in infos if not answer(kb, s).ok]
    assert failed == []


def test_every_step_of_every_pm_answer_cites_what_makes_it_true(kb):
    for info in (s for s in kb.scenarios.values() if s.game == "pm"):
        for b in answer(kb, info).branches:
            bare = [s.text for s in b.steps if not s.cites]
            assert bare == [], info.id


# ----------------------------------------------------------------------------- decks

def test_deck_command_validates_pm_decks_with_located_problems(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    fifteen = "".join(f'  card "札{i}" {{ number "仮-{i:03d}" }}\n  add "札{i}" 4\n' for i in range(1, 15))
    f = tmp_path / "decks.rules"
    f.write_text(
        'deck pm/decks/ok "ちょうど60枚" {\n'
        '  card "A" { number "仮-100" }\n  card "A（プロモ）" { number "仮-100P" }\n'
        '  add "A" 2\n  add "A（プロモ）" 2\n' + fifteen + "}\n\n"
        'deck pm/decks/bad "プロモを含めて5枚" {\n'
        '  card "C" { number "仮-200" }\n  card "C（プロモ）" { number "仮-200P" }\n'
        '  add "C" 3\n  add "C（プロモ）" 2\n' + fifteen + "}\n", encoding="utf-8")
    line = f.read_text(encoding="utf-8").splitlines().index('  add "C（プロモ）" 2') + 1
    code, out, err = run_cli("--root", REPO, "deck", f)
    assert code == 1, out + err
    assert "pm/decks/ok 《ちょうど60枚》: valid (60 cards)" in out
    assert "pm/decks/bad 《プロモを含めて5枚》: INVALID (61 cards, 2 problem(s))" in out
    assert "《C》・《C（プロモ）》: 5 copies of the same card; at most 4" in err
    assert "the deck has 61 cards; a deck has exactly 60" in err
    assert f"decks.rules:{line}:" in err      # located at the line that makes five
