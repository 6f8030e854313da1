"""A card's and a scenario's clauses reach their vocabulary entries by look-ups written out
(`Validator.clauses`, the build's `card_clauses`), as `Validator.clause` dispatches each: the same
calls, facts, effects and errors, in order, as the clause-by-clause form gives (written out here),
over clauses known, unknown, `unknown` as a whole fact, given twice, effects valid and not, and a
vocabulary that names a fact `effect`."""

from __future__ import annotations

from rulesdsl.kb.build import _Builder
from rulesdsl.lang.model import Atom, Clause, Loc
from rulesdsl.lang.vocab import UNKNOWN, Validator, build_vocabulary

AT = Loc("t.rules", 1, 1)


def at(line: int) -> Loc:
    return Loc("t.rules", line, 1)


def atom(kind, value, unit=None) -> Atom:
    return Atom(kind, value, AT, unit)


def name(v: str) -> Atom:
    return atom("name", v)


def arg(n: str, *types: str) -> Clause:
    return Clause("arg", AT, (name(n), *(name(t) for t in types)))


VOCAB = (
    Clause("fact", AT, (name("weight"),), (arg("value", "kg", "unknown"),)),
    Clause("fact", AT, (name("cost"),), (arg("value", "int", "unknown"),)),
    Clause("fact", AT, (name("effect"),), (arg("value", "string"),)),
    Clause("trigger", AT, (name("on_play"),)),
    Clause("verb", AT, (name("draw"),), (arg("count", "int"),)),
    Clause("setup", AT, (name("hand"),), (arg("who", "player"), arg("n", "int"))),
    Clause("action", AT, (name("pass"),), (arg("who", "player"),)),
)

CARD = (
    Clause("weight", at(1), (atom("quantity", 60, "kg"),)),
    Clause("cost", at(2), (name("unknown"),)),
    Clause("effect", at(3), (name("unknown"),)),
    Clause("effect", at(4), (name("on_play"),), (Clause("draw", at(5), (atom("number", 1),)),)),
    Clause("effect", at(6), (name("on_leave"),), ()),
    Clause("colour", at(7), (atom("string", "青"),)),
    Clause("cost", at(8), (atom("number", 3),)),
    Clause("weight", at(9), (atom("quantity", 60, "lb"),)),
    Clause("effect", at(10), (atom("string", "x"),)),
    Clause("hand", at(11), (name("P1"), atom("number", 2))),
)

SCENARIO = (
    Clause("hand", at(1), (name("P1"), atom("number", 2))),
    Clause("pass", at(2), (name("P2"),)),
    Clause("hand", at(3), (name("P3"),)),
    Clause("draw", at(4), (atom("number", 1),)),
    Clause("effect", at(5), (name("on_play"),), ()),
    Clause("pas", at(6), (name("P1"),)),
)


def validator() -> Validator:
    vocab, errors = build_vocabulary("g", VOCAB, (), ("P1", "P2"))
    assert not errors
    return Validator(vocab)


def one_by_one_card(v: Validator, clauses):
    """The card's clauses as the build read them before: `clause` of each."""
    facts, effects = {}, []
    fact_names = v.vocab.entries["fact"]
    for cl in clauses:
        if cl.head in fact_names and len(cl.args) == 1 and cl.args[0].kind == "name" \
                and cl.args[0].value == "unknown" and cl.body is None:
            facts[cl.head] = UNKNOWN
            continue
        call = v.clause(cl, ("fact", "effect"), "card")
        if call is None:
            continue
        if call.kind == "effect":
            effects.append(call)
        else:
            if call.name in facts:
                v.err(cl.loc, f"{call.name} is given twice for this card")
            params = call.params
            facts[call.name] = next(iter(params.values())) if len(params) == 1 else params
    return facts, tuple(effects)


def shown(errors) -> list:
    return [(e.loc, e.message, e.hint, e.width) for e in errors]


def test_a_cards_clauses_give_the_facts_effects_and_errors_clause_by_clause_gives():
    v, w = validator(), validator()
    got = _Builder.card_clauses(None, v, CARD)
    want = one_by_one_card(w, CARD)
    assert got == want
    assert shown(v.errors) == shown(w.errors)
    assert got[0]["effect"] is UNKNOWN and len(got[1]) == 1 and len(v.errors) >= 5


def test_a_scenarios_clauses_give_the_calls_and_errors_clause_by_clause_gives():
    for kinds, where in ((("setup", "action"), "scenario"), (("verb",), "effect"), (("fact", "effect"), "card"),
                         (("deck",), "deck")):
        v, w = validator(), validator()
        got = v.clauses(SCENARIO, kinds, where)
        want = tuple(c for c in (w.clause(cl, kinds, where) for cl in SCENARIO) if c is not None)
        assert got == want, kinds
        assert shown(v.errors) == shown(w.errors), kinds
