"""An argument's plan (`Validator.plan`) types every atom as its types' own tests, tried in order,
type it (`_test_types`): for every list of one to three types (built-in, an enum, an enum named
as a built-in type, an undeclared type), over atoms of every kind, including the words a plan
keeps (cells, players, enum values, unknown, yes, no) and `unknown`, which a card does not take."""

from __future__ import annotations

from itertools import permutations

from rulesdsl.lang.model import Atom, Clause, Loc
from rulesdsl.lang.vocab import (BUILTIN_TYPES, Entry, Enum, Param, Validator, Vocabulary, _test_types,
                                 build_vocabulary)

AT = Loc("t.rules", 1, 1)
TYPES = [*BUILTIN_TYPES, "face", "player_enum", "nosuch"]


def atom(kind, value, unit=None) -> Atom:
    return Atom(kind, value, AT, unit)


ATOMS = [atom("name", w) for w in ("P1", "P2", "P9", "a1", "a2", "z9", "up", "down", "unknown", "yes", "no",
                                   "true", "rule/1", "x")] + \
        [atom("string", "名前"), atom("string", "unknown"), atom("string", "P1"), atom("number", 3),
         atom("number", 2.5), atom("number", 0), atom("quantity", 60, "kg"), atom("quantity", 60, "KG"),
         atom("quantity", 3, "d"), atom("quantity", 3, "D"), atom("quantity", 3, "m"), atom("quantity", 3, None),
         atom("array", (atom("number", 1),))]


def vocabulary() -> Vocabulary:
    enums = {"face": Enum("face", None, {"up": None, "down": None}),
             "player_enum": Enum("player_enum", None, {"P9": None, "unknown": None}),
             "player": Enum("player", None, {"up": None})}     # a built-in type's name: never used
    return Vocabulary(game="g", enums=enums, cells=("a1", "a2"), players=("P1", "P2"))


def test_a_plan_types_every_atom_as_the_types_tests_do():
    vocab = vocabulary()
    v = Validator(vocab)
    for n in (1, 2, 3):
        for types in permutations(TYPES, n):
            p = Param("x", types)
            for a in ATOMS:
                want = _test_types(vocab, types, a.kind, a.value, a.unit)
                got = v.typed(a, p)
                assert got == want and type(got and got[1]) is type(want and want[1]), (types, a)


def test_validators_sharing_plans_type_as_each_alone():
    vocab = vocabulary()
    shared: dict = {}
    first, second = Validator(vocab, plans=shared), Validator(vocab, plans=shared)
    params = [Param("x", types) for types in permutations(TYPES, 2)]
    for p in params:
        for a in ATOMS:
            assert first.typed(a, p) == second.typed(a, p) == Validator(vocab).typed(a, p), (p.types, a)


# as the validator before plans said them (main 6e7ab6f)
ERRORS = {
    ('P3', 'sideways'): [('expected a player (P1, P2, …) for who, found P3', 'g is played by at most 2 players: P1–P2'), ('expected a whole number or unknown for n, found sideways', None)],
    ('P1', 'up', 2.5): [('expected a whole number or unknown for n, found 2.5', None)],
    ('P1',): [('setup put needs a whole number or unknown for n', 'written `put who:player [face:face] n:int|unknown`')],
    ('P1', 'down', 3, 'x'): [('unexpected x: written `put who:player [face:face] n:int|unknown`', None)],
    ('up', 3): [('expected a player (P1, P2, …) for who, found up', None)],
    ('P2', 'upp', 1): [('expected a whole number or unknown for n, found upp', None), ('unexpected 1: written `put who:player [face:face] n:int|unknown`', None)],
}


def test_a_call_with_optional_arguments_gives_what_convert_gives_and_the_same_errors():
    src = [Clause("vocabulary", AT, (), (
        Clause("enum", AT, (atom("name", "face"),), (Clause("up", AT), Clause("down", AT))),
        Clause("setup", AT, (atom("name", "put"),), (
            Clause("arg", AT, (atom("name", "who"), atom("name", "player"))),
            Clause("arg", AT, (atom("name", "face"), atom("name", "face"), atom("name", "optional"))),
            Clause("arg", AT, (atom("name", "n"), atom("name", "int"), atom("name", "unknown"))))),))]
    vocab, errors = build_vocabulary("g", src[0].body, ("a1",), ("P1", "P2"))
    assert not errors
    entry: Entry = vocab.entries["setup"]["put"]
    v = Validator(vocab)
    cases = {("P1", "up", 3): {"who": "P1", "face": "up", "n": 3},
             ("P2", 4): {"who": "P2", "n": 4},
             ("P2", "unknown"): {"who": "P2", "n": "unknown"}}
    for words, want in cases.items():
        args = tuple(atom("number", w) if isinstance(w, int) else atom("name", w) for w in words)
        call = v.call(Clause("put", AT, args), entry)
        got = {k: str(x) for k, x in call.params.items()} if call else None
        assert got == {k: str(x) for k, x in want.items()}, words
    assert not v.errors
    for words, messages in ERRORS.items():
        args = tuple(atom("number", w) if isinstance(w, (int, float)) else atom("name", w) for w in words)
        v.errors = []
        assert v.call(Clause("put", AT, args), entry) is None
        assert [(e.message, e.hint) for e in v.errors] == messages, words
