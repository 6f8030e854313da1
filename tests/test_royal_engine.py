"""The royal interpreter (source 003): what `rulesdsl ask` answers about chains, speeds, summons
and deck rules, the board it draws, and its errors for bad input."""

import json

import pytest
from conftest import REPO

from rulesdsl.engine.runner import answer
from rulesdsl.lang.diagnostics import display_width

SLOW = """\
scenario royal/judge/slow "スピード3のファンクションにトリガーエフェクトで応答する" {
  as of 2026-11-30
  card "王R" { kind royal; effect magic_function { draw 1 } }
  card "守護G" { kind guardian; force 3; effect trigger_effect { stand_off responded } }
  first P1
  turn P1 2
  phase cast
  royal_zone P1 up "王R"
  guardian P2 "守護G"
  stand P1 "王R" magic_function
  stand P2 "守護G" trigger_effect ["王R"]
  expect legal
}
"""


def test_a_slower_response_is_illegal_with_the_speed_rule_cited_and_exit_one(ask):
    code, out, err = ask(SLOW)
    assert code == 1, out + err
    first = out.splitlines()[0]
    assert first.startswith("答え: ルール上できない：")
    assert "スピード2" in first and "スピード3" in first
    code, out, _ = ask(SLOW, "--json")
    a = json.loads(out)["answers"][0]
    assert a["illegal"]["rule"] == "royal/speed/levels"
    assert a["expectations"][0]["ok"] is False


def test_the_same_response_answering_a_slower_card_is_legal(ask):
    text = SLOW.replace('effect magic_function { draw 1 }', 'effect magic_function { draw 1 }') \
        .replace('card "王R" { kind royal; effect magic_function { draw 1 } }',
                 'card "魔法A" { kind skill; effect magic_skill { draw 1 } }') \
        .replace('royal_zone P1 up "王R"', 'hand P1 "魔法A"') \
        .replace('stand P1 "王R" magic_function', 'cast P1 "魔法A" magic_skill') \
        .replace('["王R"]', '["魔法A"]').replace("stand_off responded", "nothing")
    code, out, err = ask(text)
    assert code == 0, out + err
    assert "チェーン2: P2がP1《魔法A》のマジックスキル（チェーン1・スピード1）に対して《守護G》のトリガーエフェクト（スピード2）をスタンドする" in out


CHAIN = """\
scenario royal/judge/chain "3つ重なったチェーン" {
  as of 2026-11-30
  card "魔法A" { kind skill; effect magic_skill { draw 1 } }
  card "応答B" { kind skill; effect trigger_skill { draw 1 } }
  card "守護G" { kind guardian; force 4; effect trigger_effect { cast_off responded } }
  first P1
  turn P1 2
  phase cast
  hand P1 "魔法A"
  hand P2 "応答B"
  guardian P2 "守護G"
  main_deck_count P1 10
  main_deck_count P2 10
  cast P1 "魔法A" magic_skill
  cast P2 "応答B" trigger_skill ["魔法A"]
  stand P2 "守護G" trigger_effect ["魔法A"]
  pass P1
  expect resolution_order ["守護G", "応答B"]
  expect zone_of "魔法A" blank_zone
}
"""


def test_the_trace_shows_the_chain_as_a_stack_and_resolves_the_last_link_first(ask):
    code, out, err = ask(CHAIN)
    assert code == 0, out + err
    assert ("チェーンを最後に発動したカードから処理する（上から）: 3. P2《守護G》のトリガーエフェクト（スピード2）"
            "／2. P2《応答B》のトリガースキル（スピード1）／1. P1《魔法A》のマジックスキル（スピード1）") in out
    trace = out[out.index("trace:"):]
    assert trace.index("チェーン3: P2《守護G》のトリガーエフェクトを処理する") < trace.index("チェーン2: P2《応答B》のトリガースキルを処理する")
    assert "チェーン1: P1《魔法A》のマジックスキルはキャストオフされたため処理されない" in trace
    assert "royal/chain/lifo" in trace


def test_the_board_shows_the_open_chain_and_fits_the_terminal(ask):
    code, out, _ = ask(CHAIN.replace("  pass P1\n", "").replace('expect resolution_order ["守護G", "応答B"]', "expect legal")
                       .replace('  expect zone_of "魔法A" blank_zone\n', "").replace(
                           '  stand P2 "守護G" trigger_effect ["魔法A"]\n', '  stand P2 "守護G" trigger_effect ["魔法A"]\n  cast P1 "魔法A" trigger_skill\n'))
    data = json.loads(ask(CHAIN, "--json")[1])["answers"][0]
    after = data["branches"][0]["after"]
    labels = [a["label"] for a in after["areas"]]
    assert "P1 スキルゾーン" in labels and "P2 ガーディアンゾーン" in labels and "P1 ロイヤルゾーン" in labels
    assert ["P2 ライフポイント", 10] in after["info"]
    before_chain = data["branches"][0]["before"]
    assert not any(a["label"].startswith("チェーン") for a in before_chain["areas"])
    # an illegal fourth link leaves the chain open on the board after
    assert code == 1
    board = out[out.index("board after:"):].split("\n\n")[0].splitlines()[1:]
    assert any("チェーン（上から処理）" in line for line in board)
    for line in board:
        assert display_width(line) <= 78, line


def test_a_response_the_scenario_leaves_open_is_the_opponents_choice(ask):
    text = """\
    scenario royal/judge/open "応答するかは相手が選ぶ" {
      as of 2026-11-30
      card "魔法A" { kind skill; effect magic_skill { draw 1 } }
      card "打ち消しB" { kind skill; effect trigger_skill { cast_off responded } }
      first P1
      turn P1 2
      phase cast
      hand P1 "魔法A"
      hand P2 "打ち消しB"
      cast P1 "魔法A" magic_skill
      expect possible resolved "魔法A"
      expect possible zone_of "魔法A" blank_zone
    }
    """
    code, out, err = ask(text, "--json")
    assert code == 0, out + err
    a = json.loads(out)["answers"][0]
    assert len(a["outcomes"]) == 2
    chooser = a["choosers"][0]
    assert chooser["chooser"] == "P2" and chooser["rule"] == "royal/speed/levels"
    picked = sorted(b["choices"][0]["picked"] for b in a["branches"])
    assert picked == ["《打ち消しB》のトリガースキル", "応答しない"]


@pytest.mark.parametrize("setup, action, rule", [
    ('hand P1 ["S", "S", "S"]\n  skill_zone P1 ["S", "S"]', 'cast P1 "S" magic_skill', "royal/deck/main"),
    ('royal_zone P1 down ["R", "R"]', 'advance summon', "royal/deck/extra"),
    ('extra_deck P1 "G"\n  skill_zone P1 "S"', 'summon P1 "G"', "royal/guardian/rank"),
])
def test_a_fifth_copy_a_second_royal_and_a_summon_without_cost_are_illegal_and_cited(ask, setup, action, rule):
    text = f"""\
    scenario royal/judge/bad "できないこと" {{
      as of 2026-11-30
      card "S" {{ kind skill; effect magic_skill {{ draw 1 }} }}
      card "R" {{ kind royal }}
      card "G" {{ kind guardian; rank 1; force 2 }}
      first P1
      turn P1 2
      phase {"summon" if "summon P1" in action else "cast"}
      {setup}
      {action}
      expect illegal
    }}
    """
    code, out, err = ask(text, "--json")
    assert code == 0, out + err
    a = json.loads(out)["answers"][0]
    assert a["illegal"]["rule"] == rule
    assert a["answer"][0].startswith("ルール上できない：")


def test_a_card_not_in_play_is_a_located_error_with_exit_two(ask):
    code, out, err = ask("""\
    scenario royal/judge/missing "手札にないカード" {
      as of 2026-11-30
      card "魔法A" { kind skill; effect magic_skill { draw 1 } }
      first P1
      turn P1 2
      phase cast
      cast P1 "魔法A" magic_skill
      expect legal
    }
    """)
    assert code == 2
    assert "q.rules:7:" in err and "《魔法A》 is not among P1's cards" in err
    assert "hint:" in err and "Traceback" not in err


def test_an_action_without_a_turn_in_the_set_up_is_a_located_error(ask):
    code, out, err = ask("""\
    scenario royal/judge/noturn "ターンのない場面" {
      as of 2026-11-30
      card "魔法A" { kind skill; effect magic_skill { draw 1 } }
      hand P1 "魔法A"
      cast P1 "魔法A" magic_skill
      expect legal
    }
    """)
    assert code == 2
    assert "q.rules:5:" in err and "cast needs to know whose turn it is" in err and "turn P1 2" in err


def test_a_battle_without_a_force_asks_for_it_at_the_card(ask):
    code, out, err = ask("""\
    scenario royal/judge/force "フォースのないガーディアン" {
      as of 2026-11-30
      card "攻めG" { kind guardian }
      first P1
      turn P1 2
      phase battle
      guardian P1 "攻めG"
      attack P1 "攻めG"
      no_block P2
      expect life P2 5
    }
    """)
    assert code == 2
    assert "q.rules:3:" in err and "the force of 《攻めG》 is not given" in err and "force N" in err


def test_a_misspelt_ability_is_a_located_error(ask):
    code, out, err = ask("""\
    scenario royal/judge/typo "綴り違い" {
      as of 2026-11-30
      first P1
      turn P1 2
      phase cast
      cast P1 "X" magic_skil
      expect legal
    }
    """)
    assert code == 2
    assert "q.rules:6:" in err and "magic_skill" in err


def test_same_question_same_answer(ask):
    assert ask(CHAIN) == ask(CHAIN)
    assert ask(CHAIN, "--json") == ask(CHAIN, "--json")


def test_every_bundled_royal_scenario_runs_and_holds(kb):
    infos = [s for s in kb.scenarios.values() if s.game == "royal"]
    assert len(infos) >= 70
    failed = [s.id for s in infos if not answer(kb, s).ok]
    assert failed == []


def test_every_royal_rule_section_is_pinned_by_a_scenario(kb):
    pinned = {p.target for s in kb.scenarios.values() if s.game == "royal" for p in s.pins}
    flavour = {"royal/colours/royal-names", "royal/colours/red", "royal/colours/orange", "royal/colours/yellow",
               "royal/colours/green", "royal/colours/blue", "royal/colours/purple"}  # world setting, not rules
    sections = {sid for sid in kb.sections if sid.startswith("royal/")} - flavour
    assert sorted(sections - pinned) == []
    assert sorted(r for r in kb.rulings if r.startswith("royal/") and r not in pinned) == []


DECK = """\
deck royal/decks/t "テスト" {
  card "赤S" { kind skill; colour red }
  card "橙S" { kind skill; colour orange }
  card "青S" { kind skill; colour blue }
  card "白R" { kind royal; royal_colour white }
  card "黒R" { kind royal; royal_colour black }
  main "赤S" 4
  main "橙S" 5
  main "青S" 4
  extra "白R" 1
  extra "黒R" 1
  extra "白R" 1
}
"""


def test_deck_rules_are_located_at_the_lines_that_break_them(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "d.rules"
    f.write_text(DECK, encoding="utf-8")
    code, out, err = run_cli("--root", REPO, "deck", f)
    assert code == 1
    assert "d.rules:8:3: error[deck]: 《橙S》: 5 copies; at most 4 of one name in the main deck" in err
    assert "d.rules:9:3" in err and "the main deck has 13 cards; it must have 40" in err
    assert "d.rules:12:3" in err and "《白R》: 2 copies; at most 1 of one name in the extra deck" in err
    assert "also counted here" in err
    assert "not three neighbours of the wheel" in err and "white and black cannot be in one deck" in err
    assert "INVALID" in out


def test_a_legal_royal_deck_is_valid(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    cards = "\n".join(f'  card "S{i}" {{ kind skill; colour {"red" if i % 2 else "purple"} }}' for i in range(10))
    cards += "\n" + "\n".join(f'  card "R{i}" {{ kind royal; royal_colour grey }}' for i in range(5))
    cards += "\n" + "\n".join(f'  card "G{i}" {{ kind guardian; colour orange }}' for i in range(10))
    adds = "\n".join(f'  main "S{i}" 4' for i in range(10)) + "\n" + \
        "\n".join(f'  extra "R{i}"' for i in range(5)) + "\n" + "\n".join(f'  extra "G{i}"' for i in range(10))
    f = tmp_path / "d.rules"
    f.write_text(f'deck royal/decks/ok "紫・赤・橙" {{\n{cards}\n{adds}\n}}\n', encoding="utf-8")
    code, out, err = run_cli("--root", REPO, "deck", f)
    assert code == 0, err
    assert "valid (55 cards)" in out
    assert "deck.colour_scope = combined" in out


def test_a_new_royal_state_holds_every_zone_of_each_player_empty_in_the_order_of_zones():
    """State() writes its zones out (not by a comprehension): each player's, in ZONES' order, its own lists."""
    from rulesdsl.games.royal.state import PLAYERS, ZONES, State
    st = State()
    assert tuple(st.zones) == PLAYERS
    for p in PLAYERS:
        assert tuple(st.zones[p]) == ZONES and not any(st.zones[p].values())
    assert all(st.zones["P1"][z] is not st.zones["P2"][z] for z in ZONES)


def test_no_action_works_out_the_cards_it_names_where_no_ruling_sets_a_point_for_one_card(kb, monkeypatch):
    """The cards an action names (GameEngine.subjects) matter only to a point some ruling sets for
    one card; the bundled rulings set none of royal's, so the runner never asks for them there."""
    from rulesdsl.engine.context import carded_games
    from rulesdsl.engine.registry import engine_for
    assert "royal" not in carded_games(kb)
    monkeypatch.setattr(type(engine_for("royal")), "subjects",
                        lambda self, st, call: pytest.fail("the cards an action names were worked out"))
    assert answer(kb, kb.scenarios["royal/qa/chain-ten-links"], settled=False).ok
