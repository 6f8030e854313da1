"""The 東方グランドメレー interpreter: what `rulesdsl ask` answers, the board, located errors for bad
input (exit 2, nothing written), illegal actions as cited answers, deck validation, the odds on
the wiki's Q&A page."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import REPO

HEAD = """\
scenario thgm/t/q "問い" {{
  as of 2026-11-30
  card "攻撃キャラ" {{ attack_means "物理" 3d 1 }}
  card "防御キャラ" {{ score 4; base_defense 9; special_defense none }}
  turn P1 attack
  character P1 front 1 down "攻撃キャラ"
  character P2 front 1 down "防御キャラ"
  character P2 front 2 down
{body}
}}
"""


@pytest.fixture
def ask(tmp_path, run_cli, monkeypatch):
    """Answer scenario text against the bundled knowledge base; the cache folder is private."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))

    def run(text: str, *args: str, body: bool = True):
        f = tmp_path / "q.rules"
        f.write_text(HEAD.format(body=textwrap.indent(textwrap.dedent(text), "  ")) if body else textwrap.dedent(text),
                     encoding="utf-8")
        return run_cli("--root", REPO, "ask", f, *args)
    run.path = tmp_path / "q.rules"
    return run


# ----------------------------------------------------------------------------- answers

def test_the_source_example_six_two_three_gives_nine_and_cites_the_rule(ask):
    code, out, err = ask("""\
        declare_attack P1 front 1 "物理" 3d P2 front 1
        roll 6 2 3
        expect attack_value 9
        expect result injured
    """)
    assert code == 0, out + err
    assert out.startswith("答え: 攻撃力は9。攻撃の結果は負傷。")
    assert "サイコロ3個の出目は6，2，3。目が大きいほうから２つ選んだ合計が攻撃力: 6＋3で9" in out
    assert "← thgm/attack/value [confirmed]" in out


def test_an_unfixed_roll_is_answered_with_exact_odds_first(ask):
    code, out, _ = ask("""\
        declare_attack P1 front 1 "物理" 3d P2 front 1
        roll any
        expect probability = 77/216 result defeated
    """)
    assert code == 0, out
    first = out.splitlines()[0]
    assert "撃破（P2の前列1の《防御キャラ》→P1のスコアカード） 77/216（35.6%）" in first
    assert "「攻撃の結果は撃破」となる確率は77/216（35.6%）" in first
    assert "odds (exact" in out


def test_the_json_answer_carries_the_distribution_and_each_branch_probability(ask):
    code, out, _ = ask("""\
        declare_attack P1 front 1 "物理" 3d P2 front 1
        roll any
        expect probability = 77/216 result defeated
    """, "--json")
    data = json.loads(out)["answers"][0]
    (plan,) = data["odds"]["plans"]
    assert {o["probability"] for o in plan["outcomes"]} == {"77/216", "1/6", "103/216"}
    assert data["expectations"][0]["probability"] == "= 77/216"
    assert sorted(b["probability"] for b in data["branches"]) == sorted(["77/216", "1/6", "103/216"])
    chance = data["branches"][0]["choices"][0]
    assert chance["chance"] is True and chance["chooser"] is None
    board = data["branches"][0]["before"]
    assert [a["label"] for a in board["areas"]][:2] == ["P1 前列", "P1 後列"]
    card = board["areas"][0]["cards"][0]
    assert {"name", "code", "owner", "face", "hypothetical", "note"} <= set(card)
    assert ["手番", "P1（攻撃の手順）"] in board["info"]


def test_the_text_board_shows_both_camps_rows_and_injuries(ask):
    code, out, _ = ask("""\
        declare_attack P1 front 1 "物理" 3d P2 front 1
        roll 6 2 3
        expect result injured
    """)
    after = out.split("board after:")[1]
    assert "P2 前列  裏《防御キャラ》負傷" in after
    assert all(len(line) <= 78 for line in out.split("board before:")[1].split("expectations:")[0].splitlines())


def test_the_same_question_gives_the_same_answer_byte_for_byte(ask):
    text = """\
        declare_attack P1 front 1 "物理" 3d P2 front 1
        roll 6 any any
        may_use_spell_card
        expect possible result defeated
    """
    assert ask(text) == ask(text)
    assert ask(text, "--json") == ask(text, "--json")


def test_an_illegal_declaration_is_an_answer_with_its_rule_not_an_error(ask):
    code, out, err = ask("""\
        declare_attack P1 front 1 "物理" 1d P2 front 1
        expect result defeated
    """)
    assert code == 1 and not err
    assert out.startswith("答え: ルール上できない：強さ1D: 強さを１以下にすることはできない")
    assert "not reached" in out


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("body, words, line", [
    ('declare_attack P1 front 1 "物理" 3d P2 front 1\nroll 6 2', "so 3 dice are rolled; the roll gives 2", 10),
    ('declare_attack P1 front 1 "物理" 3d P2 front 1\nroll 6 2 7', "a face of 7: the dice are six-sided", 10),
    ('declare_attack P1 front 1 "物理" 0d P2 front 1', "a strength of 0 dice", 9),
    ('declare_attack P1 front 7 "物理" 3d P2 front 1', "there is no place 7 on a side", 9),
    ('declare_attack P1 front 1 "物理" 3d P2 back 2', "P2 has no character to attack at 後列・左から2番目", 9),
    ('declare_attack P1 front 1 "物理" 3d P2 front 1\nroll 1 2 3\nreroll 6 6 6', "", 0),
])
def test_bad_input_is_a_located_error_with_a_hint_and_exit_two(ask, body, words, line):
    code, out, err = ask(body + "\nexpect possible result failed\n")
    if not words:   # a reroll without an ability is an illegal action: answered, not an error
        assert code == 1 and "ルール上できない" in out
        return
    assert code == 2, out + err
    assert words in err
    assert f"q.rules:{line}:" in err and "hint:" in err and "Traceback" not in err


def test_a_fifth_player_is_refused_where_it_is_written(ask):
    code, out, err = ask("""\
    scenario thgm/t/five "５人" {
      as of 2026-11-30
      seats P1 P2 P3 P4 P5
      deal
      expect unused 0
    }
    """, body=False)
    assert code == 2
    assert "q.rules:3:21" in err and "P5" in err and "Traceback" not in err
    assert "hint: thgm is played by at most 4 players: P1–P4" in err


def test_an_attack_on_a_character_whose_defense_is_unknown_asks_for_it(ask):
    code, out, err = ask("""\
        declare_attack P1 front 1 "物理" 3d P2 front 2
        roll 6 2 3
        expect result defeated
    """)
    assert code == 2
    assert "the 特殊防御力 field of （内容の指定がないキャラ） is not given" in err
    assert "hint: supply it in the scenario" in err


def test_nothing_is_written_by_a_refused_question(ask, tmp_path):
    code, _, _ = ask('declare_attack P1 front 1 "物理" 3d P2 front 1\nroll 9 9 9\nexpect result failed')
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["q.rules"]
    assert ask.path.read_text(encoding="utf-8").count("roll 9 9 9") == 1
    assert not list((tmp_path / "cache").rglob("answers*"))


# ----------------------------------------------------------------------------- decks

def test_deck_validates_a_set_up_as_far_as_001_gives_rules(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "d.rules"
    f.write_text(textwrap.dedent("""\
    deck thgm/decks/short "足りないセット" {
      card "一枚" {}
      add "一枚" 30
    }
    deck thgm/decks/full "全カード" {
      card "一枚" {}
      add "一枚" 36
    }
    """), encoding="utf-8")
    code, out, err = run_cli("--root", REPO, "deck", f)
    assert code == 1
    assert "the set has 30 cards; the game is played with all of its cards, ３６枚" in err
    assert "thgm/decks/full 《全カード》: valid (36 cards)" in out
    assert "dealt 9 each, 3 players leave 9 cards unused" in out


# ----------------------------------------------------------------------------- the wiki

def test_the_qa_page_of_an_odds_question_has_an_exact_odds_table():
    pytest.importorskip("mkdocs")
    from rulesdsl.kb.build import load
    from rulesdsl.wiki.answers import scenario_page
    from rulesdsl.wiki.render import Doc
    from rulesdsl.wiki.site import Wiki
    kb = load(REPO)
    w = Wiki(kb)
    w.answers = {}
    from rulesdsl.engine.runner import answer
    sid = "thgm/qa/odds-3d-defense-9"
    w.answers[sid] = answer(kb, kb.scenarios[sid])
    doc = Doc("q", "../")
    scenario_page(w, doc, sid)
    html = doc.html()
    assert 'class="rd-odds"' in html
    assert "<code>77/216</code>" in html and "35.6%" in html
    assert "撃破（P2の前列1の《防御キャラ》→P1のスコアカード）" in html


def test_read_as_the_row_an_empty_column_leaves_no_way_to_replenish_behind_full_columns(ask):
    """「誰もいない列」 read as the row (replenish.empty_column = row): with every front character
    backed, no placement is left, and the step says so instead of failing."""
    code, out, err = ask("""\
        scenario thgm/t/rows "前列キャラがすべて後列キャラを持つときの補充" {
          as of 2026-11-30
          turn P1 replenish
          character P1 front 1 down
          character P1 back 1 down
          character P1 front 2 down
          character P1 back 2 down
          stock P1 2
          step P1 replenish
          expect character_count P1 6
        }
    """, "--readings", "--trace", "none", body=False)
    assert code == 0, out + err
    assert "答えを左右する" in out and "replenish.empty_column" in out
    assert "P1の場のキャラは4人" in out     # the answer under the row reading
