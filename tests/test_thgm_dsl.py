"""Probability expectations in the DSL: parsed into the model, kept by the formatter, refused
with a location when they are not probabilities, and listed by `show`."""

from __future__ import annotations

import textwrap

import pytest
from conftest import REPO

from rulesdsl.lang.diagnostics import DslError
from rulesdsl.lang.fmt import format_text
from rulesdsl.lang.parser import parse_text

TEXT = textwrap.dedent("""\
scenario thgm/qa/x "題" {
  as of 2026-11-30
  expect probability = 77/216 result defeated
  expect possible probability >= 1/2 result failed  # some choice reaches it
  expect never probability ≤ 0.25 result injured
}
""")


def test_a_probability_bound_is_read_before_the_expectation_it_bounds():
    (sc,) = parse_text(TEXT, "x.rules").decls
    first, second, third = sc.expects
    assert (first.modality, first.probability.op, first.probability.value, first.form) == (None, "=", "77/216", "result")
    assert (second.modality, second.probability.op) == ("possible", ">=")
    assert (third.probability.op, str(third.probability.fraction())) == ("<=", "1/4")
    assert second.probability.holds(second.probability.fraction())


def test_the_formatter_keeps_probability_bounds_and_their_comments():
    once = format_text(TEXT, "x.rules")
    assert "  expect possible probability >= 1/2 result failed  # some choice reaches it\n" in once
    assert format_text(once, "x.rules") == once
    a = [(e.modality, str(e.probability), e.form) for e in parse_text(once, "x.rules").decls[0].expects]
    b = [(e.modality, str(e.probability), e.form) for e in parse_text(TEXT, "x.rules").decls[0].expects]
    assert a == b


@pytest.mark.parametrize("bound, words, col", [
    ("= 3/2", "3/2 is not a probability", 24),
    ("= 1/0", "1/0 is not a probability", 24),
    ("== 1/2", 'unexpected "="; expected a probability', 23),
    ("1/2", "expected =, >= or <=, best for PLAYER or plan", 22),
])
def test_a_bound_that_is_not_a_probability_is_a_located_error(bound, words, col):
    with pytest.raises(DslError) as e:
        parse_text(f'scenario thgm/qa/x "題" {{\n  expect probability {bound} result defeated\n}}\n', "x.rules")
    d = e.value.diagnostics[0]
    assert words in d.message
    assert (d.loc.line, d.loc.col) == (2, col)


def test_check_reports_a_bad_bound_at_its_place(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "q.rules"
    f.write_text('scenario thgm/qa/x "題" {\n  as of 2026-11-30\n  expect probability = 5/4 result defeated\n}\n',
                 encoding="utf-8")
    code, out, err = run_cli("--root", REPO, "check", f)
    assert code == 2
    assert "q.rules:3:24" in out + err and "5/4 is not a probability" in out + err


def test_show_lists_an_expectation_with_its_bound(run_cli):
    code, out, _ = run_cli("--root", REPO, "show", "thgm/qa/odds-may-reroll")
    assert code == 0
    assert "[possible probability = 113/216] 攻撃の結果は撃破" in out
