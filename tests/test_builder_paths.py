"""The builder's short paths (rulesdsl/lang/builder.py) make what its general ones make: a body's
clauses sorted into their field where they are met, among statements and nested blocks, in the
order written, a statement given twice still refused; a status word its Status member itself."""

import pytest

from rulesdsl.lang.diagnostics import DslError
from rulesdsl.lang.model import Card, Clause, Ruling, Status
from rulesdsl.lang.parser import parse_text

CARD = '''card grm X "x" {
  weight 60kg
  note "one"
  effect on_play { ex_limit 3 ; draw 1 }
  text "t"
  has_effect yes
  note "two"
  range 1 2 [a, b]
}
'''


def test_a_body_s_clauses_and_statements_fill_their_fields_in_the_order_written():
    [card] = parse_text(CARD, "f.rules").decls
    assert isinstance(card, Card)
    assert [c.head for c in card.clauses] == ["weight", "effect", "has_effect", "range"]
    assert all(type(c) is Clause for c in card.clauses)
    assert [c.loc.line for c in card.clauses] == [2, 4, 6, 8]
    assert [c.head for c in card.clauses[1].body] == ["ex_limit", "draw"]
    assert card.notes == ("one", "two") and card.text.value == "t"
    assert [a.kind for a in card.clauses[3].args] == ["number", "number", "array"]


def test_a_statement_given_twice_among_clauses_is_still_refused():
    with pytest.raises(DslError) as e:
        parse_text(CARD.replace('has_effect yes', 'text "again"'), "f.rules")
    [d] = e.value.diagnostics
    assert d.code == "duplicate-statement" and d.loc.line == 6 and d.related[0].loc.line == 5


@pytest.mark.parametrize("member", list(Status))
def test_every_status_word_is_its_status_member(member):
    text = f'ruling g/r "r" {{\n  revision 2026-03 {member.value} {{\n    text "x"\n  }}\n}}\n'
    [ruling] = parse_text(text, "f.rules").decls
    assert isinstance(ruling, Ruling)
    assert ruling.revisions[0].status is member
