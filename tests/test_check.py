"""`rulesdsl check`: every finding it promises, located, with the right exit code."""

import re

import pytest

from conftest import write_kb

LOC = re.compile(r"(\S+\.rules):(\d+):(\d+): error\[([\w-]+)\]")

RULING_OK = """\
ruling mini/battle/tie-ruling "同じ重さ" {
  revision 2026-03 confirmed {
    source "mini.txt §バトル"
    text "同じ重さなら何も起きない（2026年3月確認済み）。"
    set battle.tie = nothing
  }
}
"""


def findings(out: str):
    return [(f, int(l), int(c), code) for f, l, c, code in LOC.findall(out)]


def test_clean_knowledge_base_exits_zero(kb_root, run_cli):
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 0, out
    assert "no findings" in out


def test_syntax_error_makes_input_unusable_exit_two(kb_root, run_cli):
    write_kb(kb_root, {"rulings/mini/r.rules": 'ruling mini/x "t" {\n  revision 2026 confirmd {}\n}\n'})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 2
    assert findings(out) == [("rulings/mini/r.rules", 2, 17, "syntax")]


def test_invalid_utf8_is_located_at_the_bad_byte(kb_root, run_cli):
    write_kb(kb_root, {})
    bad = kb_root / "rulings/mini/bad.rules"
    bad.write_bytes('section mini/z "ぜ" {\n  text "あ'.encode() + b"\xff\xfe" + b'"\n}\n')
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 2
    assert findings(out) == [("rulings/mini/bad.rules", 2, 10, "encoding")]
    assert "not valid UTF-8" in out


@pytest.mark.parametrize("files, expected", [
    # unknown references: in refs, in pins, in supersedes, a default's section, a card setting
    ({"rulings/mini/r.rules": RULING_OK.replace("revision", "refs mini/nope\n  revision")},
     ("rulings/mini/r.rules", 2, 8, "unknown-ref")),
    ({"rulings/mini/s.rules": 'scenario mini/s "s" {\n  pins mini/battle/tei-ruling\n}\n',
      "rulings/mini/r.rules": RULING_OK}, ("rulings/mini/s.rules", 2, 8, "unknown-ref")),
    ({"rulings/mini/r.rules": RULING_OK.replace('    set battle.tie = nothing', '    supersedes mini/gone')},
     ("rulings/mini/r.rules", 5, 16, "unknown-ref")),
    # a setting outside the point's values, and a point that does not exist
    ({"rulings/mini/r.rules": RULING_OK.replace("= nothing", "= nothin")}, ("rulings/mini/r.rules", 5, 5, "setting")),
    ({"rulings/mini/r.rules": RULING_OK.replace("battle.tie", "battle.ties")}, ("rulings/mini/r.rules", 5, 5, "unknown-ref")),
    # a game-wide point set for one card
    ({"rulings/mini/r.rules": RULING_OK.replace("set battle.tie", "set card(X).battle.tie"),
      "cards/mini/X.rules": 'card mini X "エックス" {\n  source "mini.txt §はじめに"\n  text unknown\n  weight unknown\n}\n'},
     ("rulings/mini/r.rules", 5, 5, "setting")),
    # revisions out of order
    ({"rulings/mini/r.rules": RULING_OK.replace("  }\n}", '  }\n  revision 2025 confirmed {\n    source "mini.txt §バトル"\n    text "重いカードが勝つ。"\n  }\n}')},
     ("rulings/mini/r.rules", 7, 3, "revision-order")),
    # a revision without a source
    ({"rulings/mini/r.rules": RULING_OK.replace('    source "mini.txt §バトル"\n', "")}, ("rulings/mini/r.rules", 2, 3, "missing-source")),
    # unconfirmed without a reason
    ({"rulings/mini/r.rules": RULING_OK.replace("confirmed", "unconfirmed")}, ("rulings/mini/r.rules", 2, 3, "unconfirmed-reason")),
    # citations: unknown heading, text not in the source, unknown document
    ({"rulings/mini/r.rules": RULING_OK.replace("§バトル", "§バトルル")}, ("rulings/mini/r.rules", 3, 12, "citation")),
    ({"rulings/mini/r.rules": RULING_OK.replace("何も起きない", "両方裏返る")}, ("rulings/mini/r.rules", 4, 10, "citation")),
    ({"rulings/mini/r.rules": RULING_OK.replace("mini.txt", "maxi.txt")}, ("rulings/mini/r.rules", 3, 12, "citation")),
    # a card that does not say one of the game's facts
    ({"cards/mini/X.rules": 'card mini X "エックス" {\n  source "mini.txt §はじめに"\n  text unknown\n}\n'},
     ("cards/mini/X.rules", 1, 1, "unknown-fact")),
    # a duplicate id
    ({"rulings/mini/r.rules": RULING_OK, "rulings/mini/r2.rules": RULING_OK}, ("rulings/mini/r2.rules", 1, 1, "duplicate-id")),
    # vocabulary: an unknown statement, an argument of the wrong type, an unknown card
    ({"rulings/mini/s.rules": 'scenario mini/s "s" {\n  feild b2 P1 "x" up\n}\n'}, ("rulings/mini/s.rules", 2, 3, "vocabulary")),
    ({"rulings/mini/s.rules": 'scenario mini/s "s" {\n  card "x" { weight 3kg }\n  field b2 P1 "x" upp\n}\n'},
     ("rulings/mini/s.rules", 3, 19, "vocabulary")),
    ({"rulings/mini/s.rules": 'scenario mini/s "s" {\n  field b2 P1 "ない" up\n}\n'}, ("rulings/mini/s.rules", 2, 15, "vocabulary")),
    # a scenario with expectations but no date
    ({"rulings/mini/s.rules": 'scenario mini/s "s" {\n  expect face b2 down\n}\n'}, ("rulings/mini/s.rules", 1, 1, "scenario")),
])
def test_each_finding_is_located_and_exits_one(kb_root, run_cli, files, expected):
    write_kb(kb_root, files)
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1, out
    assert expected in findings(out), out


def test_contradiction_names_both_rulings_and_both_places(kb_root, run_cli):
    other = RULING_OK.replace("tie-ruling", "tie-other").replace("= nothing", "= both_flip").replace(
        "2026-03", "2026-05").replace("何も起きない（2026年3月確認済み）。", "両方裏返る（2026年5月確認済み）。")
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK, "rulings/mini/o.rules": other})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1
    assert ("rulings/mini/o.rules", 5, 5, "contradiction") in findings(out)
    assert "both in force from 2026-05-01" in out
    assert "rulings/mini/r.rules:5:5: note: mini/battle/tie-ruling sets nothing" in out


def test_superseding_resolves_a_contradiction(kb_root, run_cli):
    other = RULING_OK.replace("tie-ruling", "tie-other").replace("= nothing", "= both_flip").replace(
        "2026-03", "2026-05").replace("何も起きない（2026年3月確認済み）。", "両方裏返る（2026年5月確認済み）。").replace(
        "    set", "    supersedes mini/battle/tie-ruling\n    set")
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK, "rulings/mini/o.rules": other})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 0, out


def test_check_paths_reports_only_those_files_and_accepts_files_outside(kb_root, run_cli, tmp_path):
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK.replace("§バトル", "§バトルル")})
    proposal = tmp_path / "proposal.rules"
    proposal.write_text(RULING_OK.replace("tie-ruling", "proposed"), encoding="utf-8")
    code, out, _ = run_cli("--root", kb_root, "check", proposal)
    assert "rulings/mini/r.rules" not in out
    assert code == 0, out
    code, out, _ = run_cli("--root", kb_root, "check", kb_root / "rulings/mini/r.rules")
    assert code == 1 and "citation" in out


def test_warm_check_repeats_the_cold_result(kb_root, run_cli):
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK.replace("§バトル", "§バトルル")})
    first = run_cli("--root", kb_root, "check")
    second = run_cli("--root", kb_root, "check")
    assert first == second and first[0] == 1


def test_changing_a_file_invalidates_the_warm_result(kb_root, run_cli):
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK})
    assert run_cli("--root", kb_root, "check")[0] == 0
    (kb_root / "rulings/mini/r.rules").write_text(RULING_OK.replace("= nothing", "= nothin"), encoding="utf-8")
    assert run_cli("--root", kb_root, "check")[0] == 1


def test_gaps_lists_recorded_gaps_with_reason(kb_root, run_cli):
    gap = """\
    ruling mini/gap/tie "同じ重さの扱いが曖昧" {
      gap ambiguity
      revision undated unconfirmed {
        source "mini.txt §バトル"
        quote "同じ重さなら何も起きない"
        text "何も起きないと読む"
        reason "資料が一文しか述べていない"
      }
    }
    """
    write_kb(kb_root, {"rulings/mini/g.rules": gap})
    code, out, _ = run_cli("--root", kb_root, "check", "--gaps")
    assert code == 0, out
    assert "mini/gap/tie  [ambiguity" in out
    assert "reason: 資料が一文しか述べていない" in out


def test_json_output_has_findings_with_locations(kb_root, run_cli):
    import json
    write_kb(kb_root, {"rulings/mini/r.rules": RULING_OK.replace("= nothing", "= nothin")})
    code, out, _ = run_cli("--root", kb_root, "check", "--json")
    data = json.loads(out)
    assert code == data["exit"] == 1
    [f] = data["findings"]
    assert f["code"] == "setting" and f["loc"] == {"file": "rulings/mini/r.rules", "line": 5, "col": 5}


# ----------------------------------------------------------------------------- fidelity lints

GAP = """\
ruling mini/gap/tie "同じ重さの場合が資料にない" {
  gap missing
  revision undated unconfirmed {
    source "mini.txt §バトル"
    quote "重いカードが勝つ。"
    text "同じ重さの場合は書かれていない。"
    reason "本文は重いほうが勝つとだけ述べる。"
    set battle.tie = nothing
  }
}
"""


def _codes(out: str) -> list[str]:
    return [code for *_, code in findings(out)]


def test_a_point_a_gap_ruling_reads_must_be_declared_unsettled(kb_root, run_cli):
    write_kb(kb_root, {"rulings/mini/gap.rules": GAP})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "battle.tie is read by gap mini/gap/tie but not declared unsettled" in out
    assert "unsettled mini/gap/tie" in out                           # the hint says what to write


def test_a_confirmed_default_on_a_point_a_gap_says_is_open_is_a_finding(kb_root, run_cli):
    from conftest import MINI_GAME
    game = MINI_GAME.replace("default nothing unconfirmed from mini/battle", "default nothing from mini/battle")
    write_kb(kb_root, {"rulings/mini/game.rules": game, "rulings/mini/gap.rules": GAP})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "is marked confirmed, but gap mini/gap/tie says the sources leave it open" in out


def test_an_unsettled_point_names_an_existing_gap_ruling(kb_root, run_cli):
    from conftest import MINI_GAME
    game = MINI_GAME.replace('reason "本文の読み"', 'reason "本文の読み"\n    unsettled mini/gap/nope')
    write_kb(kb_root, {"rulings/mini/game.rules": game})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "unknown ruling mini/gap/nope" in out
    game = game.replace("unsettled mini/gap/nope", "unsettled mini/gap/tie")
    write_kb(kb_root, {"rulings/mini/game.rules": game, "rulings/mini/gap.rules": GAP})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 0, out


def test_a_note_stating_a_rule_the_source_does_not_give_is_a_finding(kb_root, run_cli):
    section = """\
    section mini/extra "バトル（補足）" {
      source "mini.txt §バトル"
      text "重いカードが勝つ。"
      note "同じ重さなら両方とも裏返る。"
    }
    """
    write_kb(kb_root, {"rulings/mini/extra.rules": section})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "error[note]" in out and "同じ重さなら両方とも裏返る" in out
    # no word lets a note through: not 資料, nor a rule section's id
    for bad in ("資料には見出しがない。", "資料によれば、同じ重さなら両方とも裏返る。",
                "mini/battle によれば、同じ重さなら両方とも裏返る。"):
        write_kb(kb_root, {"rulings/mini/extra.rules": section.replace("同じ重さなら両方とも裏返る。", bad)})
        code, out, _ = run_cli("--root", kb_root, "check")
        assert code == 1 and "error[note]" in out, (bad, out)
    for ok in ("同じ重さの場合は mini/gap/tie の読みによる。", "「重いカードが勝つ。」とある。"):
        write_kb(kb_root, {"rulings/mini/extra.rules": section.replace("同じ重さなら両方とも裏返る。", ok),
                           "rulings/mini/gap.rules": GAP.replace("    set battle.tie = nothing\n", "")})
        code, out, _ = run_cli("--root", kb_root, "check")
        assert "error[note]" not in out, (ok, out)


def test_a_reading_stated_in_a_note_must_name_the_ruling_that_records_it(kb_root, run_cli):
    section = """\
    section mini/extra "バトル（補足）" {
      source "mini.txt §バトル"
      text "重いカードが勝つ。"
      note "資料の「勝つ」は相手を裏返すことと読む。"
    }
    """
    write_kb(kb_root, {"rulings/mini/extra.rules": section})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "error[note]" in out


def test_a_scenario_completing_a_known_card_must_say_it_assumes(kb_root, run_cli):
    card = 'card mini X "エックス" { weight unknown }\n'
    scenario = """\
    scenario mini/qa/x "x" {
      as of 2026-09-01
      question "エックスは？"
      card X { weight 60kg }
      expect face b2 up
    }
    """
    write_kb(kb_root, {"cards/mini/x.rules": card, "rulings/mini/qa.rules": scenario})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "error[assumption]" in out and "assume card X" in out
    write_kb(kb_root, {"rulings/mini/qa.rules": scenario.replace("card X {", "assume card X {")})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert "error[assumption]" not in out, out


def test_a_question_without_expectations_or_answer_is_a_finding(kb_root, run_cli):
    scenario = 'scenario mini/qa/q "q" {\n  as of 2026-09-01\n  question "どうなる？"\n}\n'
    write_kb(kb_root, {"rulings/mini/qa.rules": scenario})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 1 and "error[answer]" in out
    write_kb(kb_root, {"rulings/mini/qa.rules": scenario.replace('question "どうなる？"',
                                                                   'question "どうなる？"\n  answer "何も起きない。"')})
    code, out, _ = run_cli("--root", kb_root, "check")
    assert "error[answer]" not in out, out
