"""`rulesdsl check` cannot be fooled: the nine ways a review found to slip a statement the
sources do not make past it, each planted as a proposed file beside the bundled knowledge base
and each expected to be found — so that weakening a check fails here.

Each test also checks the honest version of its plant, so that a check that found everything
would fail too."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

GRM = "000_a437c75d0e53c518.txt"
PM = "004_b16f2fd495c48e23.txt"


@pytest.fixture
def plant(tmp_path, run_cli):
    """check a file planted beside the bundled knowledge base: (exit code, output)."""
    def run(text: str, name: str = "planted.rules"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        code, out, _ = run_cli("--root", REPO, "check", path)
        return code, out
    return run


def section(source: str, text: str, note: str = "") -> str:
    note = f'\n  note "{note}"' if note else ""
    return f'section grm/planted "植えた節" {{\n  source "{source}"\n  text """\n{text}\n"""{note}\n}}\n'


def ruling(date_status: str, source: str, text: str) -> str:
    return (f'ruling grm/planted "植えた裁定" {{\n  revision {date_status} {{\n    source "{source}"\n'
            f'    text """\n{text}\n"""\n  }}\n}}\n')


# 1 ---------------------------------------------------------------------------------------------

def test_a_quote_from_a_later_section_than_the_one_cited_is_found(plant):
    gap = ('ruling pm/planted "植えた" {\n  gap ambiguity\n  revision undated unconfirmed {\n'
           f'    source "{PM} §カードを引く"\n    quote "相手のデッキにカードが1枚もない"\n'
           '    text "読み"\n    reason "理由"\n  }\n}\n')
    code, out = plant(gap)
    assert code == 1 and f'this text is not in {PM} under "カードを引く"' in out
    assert 'it stands under "ゲームの勝利条件"' in out
    code, out = plant(gap.replace("§カードを引く", "§ゲームの勝利条件"))
    assert code == 0, out


# 2 ---------------------------------------------------------------------------------------------

def test_the_first_heading_is_no_licence_for_a_quote_from_anywhere(plant):
    text = "プレイしたカードの体重が相手カードの体重より重い場合のみバトルに勝利し、相手カードを裏向きにする。"
    code, out = plant(section(f"{GRM} §免責事項", text))
    assert code == 1 and 'under "免責事項"' in out and 'it stands under "バトルの勝敗"' in out
    code, out = plant(section(f"{GRM} §バトルの勝敗", text))
    assert code == 0, out


# 3 ---------------------------------------------------------------------------------------------

def test_a_body_sentence_is_not_a_heading(plant):
    text = "実際のプレイ例や確認された裁定をもとに一般化・整理したものであり、プレイヤー間での一貫した理解を目的として作成されている。"
    code, out = plant(section(f"{GRM} §本ページはGRMカードの公式ゲームルールではない。", text))
    assert code == 1 and "is a line of 000_a437c75d0e53c518.txt but not a heading" in out
    code, out = plant(section(f"{GRM} §免責事項", text))
    assert code == 0, out


# 4 ---------------------------------------------------------------------------------------------

def test_a_multi_line_quote_that_skips_text_between_its_lines_is_found(plant):
    inverted = "プレイしたカードの体重が相手カードの体重より\n軽い場合は\nバトルに勝利せず"
    code, out = plant(section(f"{GRM} §バトルの勝敗", inverted))
    assert code == 1 and "does not occur in 000_a437c75d0e53c518.txt as written" in out
    marked = "プレイしたカードの体重が相手カードの体重より重い場合のみバトルに勝利し…\n同体重・軽い場合はバトルに勝利せず"
    code, out = plant(section(f"{GRM} §バトルの勝敗", marked))
    assert code == 0, out          # an omission marked 「…」, every piece in order in the section
    outside = "プレイしたカードの体重が相手カードの体重より重い場合のみバトルに勝利し…\n先攻プレイヤーは2枚"
    code, out = plant(section(f"{GRM} §バトルの勝敗", outside))
    assert code == 1, out          # a marked omission does not reach outside the section


# 5 ---------------------------------------------------------------------------------------------

def test_a_date_marker_spliced_onto_another_sentence_is_found(plant):
    spliced = "同時に複数のカードがバトルの対象となる場合、対象側のプレイヤーが解決順を選択できる。\n（2026年3月確認済み）"
    code, out = plant(ruling("2026-03 confirmed", f"{GRM} §複数方向への同時バトル", spliced))
    assert code == 1 and "error[citation]" in out
    onto = "プレイしたカードの体重が相手カードの体重より重い場合のみバトルに勝利し、相手カードを裏向きにする。"
    code, out = plant(ruling("2026-03 confirmed", f"{GRM} §バトルの勝敗", onto + "\n（2026年3月確認済み）"))
    assert code == 1 and "error[citation]" in out
    code, out = plant(ruling("2026-04 confirmed", f"{GRM} §複数方向への同時バトル",
                             "これにより、意図的に特定のカードを先に裏向きにして身代わり効果を誘発させてから、"
                             "次のバトルに移ることが可能である。（2026年4月確認済み）"))
    assert code == 0, out


# 6 ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("recorded, source, text, marker", [
    ("undated confirmed", "複数の誘発効果が同時に発生した場合", "ターンプレイヤー側の誘発効果を先に解決する。",
     "「※暫定ルール・非公式」 (unofficial, undated)"),
    ("2026-08 confirmed", "任意効果と強制効果", "複数のアクションを含む任意効果は、一部のみを実行することもできる",
     "「2026年8月暫定裁定」 (provisional 2026-08)"),
    ("2026-05 confirmed", "バトルの勝敗", "0kgのカードを含むいかなる体重差においてもバトル自体は発生する",
     "「2026年3月確認済み」 (confirmed 2026-03)"),
    ("2026-03-14 confirmed", "バトルの勝敗", "0kgのカードを含むいかなる体重差においてもバトル自体は発生する",
     "「2026年3月確認済み」 (confirmed 2026-03)"),
    ("2026-winter confirmed", "効果の種類", "無効化効果（No.058《KUAN》、No.091《すぎちゃん》、No.146《CERESTIA GROWN》等）は、"
     "影響下のカードの全効果テキストを種類を問わず白紙化するものとされ", "「2026年夏の統一裁定」 (confirmed 2026-summer)"),
])
def test_a_status_or_date_other_than_the_sources_marker_is_found(plant, recorded, source, text, marker):
    code, out = plant(ruling(recorded, f"{GRM} §{source}", text))
    assert code == 1 and "error[status]" in out, out
    assert f"is recorded {recorded.split()[1]}" in out and marker in out     # names both


@pytest.mark.parametrize("recorded, source, text", [
    ("undated unofficial", "複数の誘発効果が同時に発生した場合", "ターンプレイヤー側の誘発効果を先に解決する。"),
    ("2026-08 provisional", "任意効果と強制効果", "複数のアクションを含む任意効果は、一部のみを実行することもできる"),
    ("2026-summer confirmed", "効果の種類", "影響下のカードの全効果テキストを種類を問わず白紙化するものとされ"),
])
def test_the_sources_own_status_and_date_pass(plant, recorded, source, text):
    code, out = plant(ruling(recorded, f"{GRM} §{source}", text))
    assert code == 0, out


def test_a_date_the_cited_section_does_not_give_is_found(plant):
    code, out = plant(ruling("2026-06 confirmed", f"{GRM} §デッキ構築ルール", "デッキは8枚以上であれば上限なく構築できる。"))
    assert code == 1 and "dates no text 2026-06 (it carries no dated marker)" in out


# 7 ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("note", [
    "資料によれば、同体重の場合は両方のカードが裏向きになる。",
    "原文の見出しのとおり、同体重の場合は両方のカードが裏向きになる。",
    "grm/battle/outcome のとおり、同体重の場合は両方のカードが裏向きになる。",
])
def test_a_note_stating_an_invented_rule_has_no_escape_word(plant, note):
    text = "同体重・軽い場合はバトルに勝利せず、裏返しは発生しない。"
    code, out = plant(section(f"{GRM} §バトルの勝敗", text, note))
    assert code == 1 and "error[note]" in out, out
    code, out = plant(section(f"{GRM} §バトルの勝敗", text, "資料は「裏返しは発生しない」と書く。"))
    assert code == 0, out


# 8 ---------------------------------------------------------------------------------------------

def _stack_scenario(answer: str) -> str:
    text = (REPO / "rulings/grm/qa/stack.rules").read_text(encoding="utf-8")
    block = re.search(r"scenario grm/qa/stack-flips-top-only .*?\n}\n", text, re.S).group(0)
    block = block.replace("grm/qa/stack-flips-top-only", "grm/qa/planted-answer")
    return re.sub(r'answer "[^"]*"', f'answer "{answer}"', block)


def test_a_scenarios_answer_that_contradicts_the_engine_is_found_and_not_read_out(plant, run_cli, tmp_path):
    wrong = "《上》も下の《土台》も裏向きになる。"
    code, out = plant(_stack_scenario(wrong))
    assert code == 1 and "error[answer]" in out and "《土台》" in out, out
    code, out, _ = run_cli("--root", REPO, "ask", tmp_path / "planted.rules")
    assert wrong not in out.splitlines()[0] and "《土台》は表向き" in out.splitlines()[0]
    code, out = plant(_stack_scenario("裏向きになるのは一番上の《上》だけで、下の《土台》は表向きのまま。"))
    assert code == 0, out


# 9 ---------------------------------------------------------------------------------------------

def test_an_invented_card_with_a_real_cards_name_is_found(plant):
    real = (REPO / "cards/grm/No.018.rules").read_text(encoding="utf-8")
    invented = real.replace("No.018", "No.999").replace("weight unknown", "weight 80kg")
    code, out = plant(invented)
    assert code == 1 and "error[card-source]" in out and "never names a card No.999" in out


def test_a_real_code_under_another_name_is_found(tmp_path, run_cli, monkeypatch):
    import shutil
    root = tmp_path / "kb"
    for part in ("cards", "rulings"):
        shutil.copytree(REPO / part, root / part)
    card = root / "cards/grm/No.018.rules"
    card.write_text(card.read_text(encoding="utf-8").replace('"髭ヅラ体育教師・須藤"', '"須藤"'), encoding="utf-8")
    code, out, _ = run_cli("--root", root, "check", card)
    assert code == 1 and "000_a437c75d0e53c518.txt names No.018 《髭ヅラ体育教師・須藤》, never 《須藤》" in out, out
