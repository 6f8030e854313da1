"""Which atoms an argument type accepts and the value each gives (`Validator.convert`, `matches`):
every built-in type and an enum, over atoms of every kind, as the types are documented
(vocab.BUILTIN_TYPES); a built-in type's name wins over an enum declared with the same name."""

from __future__ import annotations

import pytest

from rulesdsl.lang.model import Atom, Loc
from rulesdsl.lang.vocab import _BAD, BUILTIN_TYPES, UNKNOWN, CardRef, Enum, Param, Validator, Vocabulary

AT = Loc("t.rules", 1, 1)


def atom(kind, value, unit=None) -> Atom:
    return Atom(kind, value, AT, unit)


ATOMS = [atom("name", "P1"), atom("name", "P9"), atom("name", "a1"), atom("name", "z9"), atom("name", "up"),
         atom("name", "unknown"), atom("name", "yes"), atom("name", "no"), atom("name", "rule/1"),
         atom("string", "名前"), atom("string", "unknown"), atom("number", 3), atom("number", 2.5),
         atom("quantity", 60, "kg"), atom("quantity", 60, "KG"), atom("quantity", 3, "d"), atom("quantity", 3, "D"),
         atom("quantity", 3, "m"), atom("array", (atom("number", 1),))]


def expected(a: Atom, t: str):
    """The type's rule, written out: (accepted, value)."""
    k, v = a.kind, a.value
    rules = {
        "int": (k == "number" and isinstance(v, int), v),
        "number": (k == "number", v),
        "string": (k == "string", v),
        "word": (k == "name", v),
        "kg": (k == "quantity" and (a.unit or "").lower() == "kg", v),
        "dice": (k == "quantity" and (a.unit or "").lower() == "d", v),
        "cell": (k == "name" and v in ("a1", "a2"), v),
        "player": (k == "name" and v in ("P1", "P2"), v),
        "card": (k == "string" or (k == "name" and v != "unknown"), CardRef(str(v))),
        "unknown": (k == "name" and v == "unknown", UNKNOWN),
        "bool": (k == "name" and v in ("yes", "no"), v == "yes"),
        "section": (k == "name", v),
        "ruling": (k == "name", v),
        "face": (k == "name" and v in ("up", "down"), v),
    }
    return rules[t]


def validator() -> Validator:
    enums = {"face": Enum("face", None, {"up": None, "down": None}),
             "player": Enum("player", None, {"up": None})}     # declared twice (an error), never used
    return Validator(Vocabulary(game="g", enums=enums, cells=("a1", "a2"), players=("P1", "P2")))


@pytest.mark.parametrize("t", [*BUILTIN_TYPES, "face"])
def test_each_type_accepts_the_atoms_its_rule_names_and_gives_their_value(t):
    v = validator()
    p = Param("x", (t,))
    for a in ATOMS:
        ok, value = expected(a, t)
        assert v.matches(a, p) is ok, (t, a)
        got = v.convert(a, p)
        if ok:
            assert got == value and type(got) is type(value), (t, a)
        else:
            assert got is _BAD, (t, a)
    assert sum(not expected(a, t)[0] for a in ATOMS) == len(v.errors)


def test_the_first_type_that_accepts_an_atom_gives_its_value():
    v = validator()
    p = Param("x", ("int", "unknown", "bool"))
    assert [v.convert(a, p) for a in (atom("number", 3), atom("name", "unknown"), atom("name", "no"))] \
        == [3, UNKNOWN, False]
    assert not v.errors
    assert not v.matches(atom("number", 2.5), p)


def test_an_atom_no_type_accepts_is_an_error_naming_the_types():
    v = validator()
    v.convert(atom("name", "sideways"), Param("x", ("face", "unknown")))
    assert len(v.errors) == 1 and "found sideways" in v.errors[0].message
