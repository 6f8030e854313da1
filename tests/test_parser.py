"""The grammar and the syntax errors a person sees."""

import pytest

from rulesdsl.lang.diagnostics import DslError, Sources, render
from rulesdsl.lang.model import Card, Game, Ruling, Scenario, Section, Status
from rulesdsl.lang.parser import parse_text


def error_of(text: str):
    with pytest.raises(DslError) as e:
        parse_text(text, "f.rules")
    [d] = e.value.diagnostics
    return d


def test_every_declaration_kind_parses_with_positions():
    doc = parse_text(
        'game g "G" {\n  players 2\n}\n'
        'section g/a "A" {\n  text "本文"\n}\n'
        'card g No.1 "名前" {\n  weight 3kg\n}\n'
        'ruling g/r "R" {\n  revision 2026-03 confirmed {\n    text "x"\n  }\n}\n'
        'scenario g/s "S" {\n  as of 2026-09-01\n  expect face b2 down\n}\n', "f.rules")
    kinds = [type(d) for d in doc.decls]
    assert kinds == [Game, Section, Card, Ruling, Scenario]
    ruling = doc.decls[3]
    assert (ruling.loc.line, ruling.loc.col) == (10, 1)
    assert ruling.revisions[0].status is Status.confirmed
    assert str(ruling.revisions[0].date) == "2026-03"


def test_columns_count_japanese_characters_not_bytes():
    d = error_of('section g/a "見出し" {\n  text "本文" 余り\n}\n')
    assert (d.loc.line, d.loc.col) == (2, 13)


def test_misspelled_status_is_located_with_expected_words_and_a_suggestion():
    d = error_of('ruling g/r "R" {\n  revision 2026-03 confirmd {\n  }\n}\n')
    assert (d.loc.line, d.loc.col) == (2, 20)
    assert "expected a status (confirmed, provisional, unofficial, unconfirmed or retracted)" in d.message
    assert d.hint == 'did you mean "confirmed"?'
    assert d.fatal


def test_unclosed_brace_names_the_line_that_opened_it():
    d = error_of('card g No.1 "x" {\n  weight 3kg\n')
    assert "ends too early" in d.message
    assert 'the "{" on line 1 is never closed' in d.hint


def test_unquoted_japanese_text_gets_a_quoting_hint():
    d = error_of('section g/a "t" {\n  text 本文\n}\n')
    assert d.loc.col == 8
    assert d.hint.startswith("Japanese text goes in double quotes")


def test_japanese_date_gets_an_iso_date_hint():
    d = error_of('ruling g/r "t" {\n  revision 2026年3月 confirmed {}\n}\n')
    assert "2026-03" in d.hint


def test_setting_without_equals_is_explained():
    d = error_of('ruling g/r "t" {\n  revision 2026 confirmed {\n    set a.b c\n  }\n}\n')
    assert 'expected "="' in d.message
    assert "set point.name = value" in d.hint


def test_unknown_declaration_keyword_suggests_the_right_one():
    d = error_of('rule g/r "t" {}\n')
    assert (d.loc.line, d.loc.col) == (1, 1)
    assert d.hint == 'did you mean "ruling"?'


def test_unterminated_string_is_pointed_at():
    d = error_of('section g/a "t" {\n  text "abc\n}\n')
    assert (d.loc.line, d.loc.col) == (2, 8)
    assert "not closed" in d.hint


def test_fullwidth_quotes_are_recognised():
    d = error_of('section g/a "t" {\n  text 「本文」\n}\n')
    assert "straight double quotes" in d.hint


def test_impossible_date_is_a_located_error():
    d = error_of('ruling g/r "t" {\n  revision 2026-13 confirmed {}\n}\n')
    assert d.code == "invalid-date"
    assert (d.loc.line, d.loc.col) == (2, 12)
    assert "month 13" in d.message


def test_statement_given_twice_points_at_both():
    with pytest.raises(DslError) as e:
        parse_text('section g/a "t" {\n  text "a"\n  text "b"\n}\n', "f.rules")
    [d] = e.value.diagnostics
    assert d.code == "duplicate-statement"
    assert d.loc.line == 3 and d.related[0].loc.line == 2


def test_keywords_are_reserved_only_where_the_grammar_expects_them():
    doc = parse_text('game g "G" {\n  vocabulary {\n    expect face "x" {}\n    setup card "y" {}\n  }\n}\n', "f")
    assert [c.head for c in doc.decls[0].vocabulary] == ["expect", "setup"]


def test_triple_quoted_text_is_dedented():
    doc = parse_text('section g/a "t" {\n  text """\n    一行目\n      二行目\n  """\n}\n', "f")
    assert doc.decls[0].text.value == "一行目\n  二行目"


def test_rendered_error_shows_the_line_and_a_caret_under_wide_characters():
    text = 'section g/a "見出し" {\n  text "本文" 余り\n}\n'
    d = error_of(text)
    sources = Sources()
    sources.add("f.rules", text)
    shown = render(d, sources)
    line, caret = shown.splitlines()[1:3]
    assert line.endswith('text "本文" 余り')
    # two 2-cell characters (本文) precede 余, so the caret sits two cells further right
    assert caret.index("^") - caret.index("|") == line.index("余") - line.index("|") + 2


def test_settings_card_points_supersedes_and_periods_parse():
    doc = parse_text(
        'ruling g/r "t" {\n  revision 2026-summer confirmed {\n'
        '    set card(No.142).stack_scope = this_card_only\n'
        '    supersedes g/old@undated g/x@2026-03\n  }\n}\n'
        'scenario g/s "t" {\n  expect never face b2 down from 2026-03 until 2026-08\n}\n', "f")
    rev = doc.decls[0].revisions[0]
    assert rev.settings[0].card == "No.142" and rev.settings[0].target() == "card(No.142).stack_scope"
    assert [str(s) for s in rev.supersedes] == ["g/old@undated", "g/x@2026-03"]
    e = doc.decls[1].expects[0]
    assert (e.modality, e.form, str(e.valid_from), str(e.valid_until)) == ("never", "face", "2026-03", "2026-08")
