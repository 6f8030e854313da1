"""rulesdsl/base/record.py: a Record behaves as the dataclass declared the same way, and a judge's
new question imports no `dataclasses` (nor its inspect, ast, dis and tokenize)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from rulesdsl.base.record import FrozenRecordError, Record, field, replace


@dataclasses.dataclass
class DPlain:
    x: int
    y: str = "a"
    z: list = dataclasses.field(default_factory=list)
    hidden: int = dataclasses.field(default=3, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.y += "!"


class RPlain(Record):
    x: int
    y: str = "a"
    z: list = field(default_factory=list)
    hidden: int = field(default=3, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.y += "!"


@dataclasses.dataclass(frozen=True)
class DFrozen:
    a: int
    b: tuple


class RFrozen(Record, frozen=True):
    a: int
    b: tuple


@dataclasses.dataclass
class DOne:
    v: float


class ROne(Record):
    v: float


CALLS = [((1,), {}), ((1, "b", [2]), {}), ((), {"x": 1, "z": [3]}), ((1, "a", [], 4), {}), ((1,), {"hidden": 9})]


def strip(text: str) -> str:
    return text[1:]     # the class names differ by their first letter


@pytest.mark.parametrize("args,named", CALLS)
def test_construction_repr_and_fields_order_as_a_dataclass(args, named):
    d, r = DPlain(*args, **named), RPlain(*args, **named)
    assert strip(repr(d)) == strip(repr(r))
    assert list(vars(d).items()) == list(vars(r).items())


def test_defaults_stay_class_attributes_and_factories_do_not():
    assert (RPlain.y, RPlain.hidden, hasattr(RPlain, "z")) == (DPlain.y, DPlain.hidden, hasattr(DPlain, "z"))
    assert RPlain(1).z is not RPlain(1).z


def test_equality_over_compared_fields_and_unhashable_unless_frozen():
    for K in (DPlain, RPlain):
        assert K(1, "a", [], 4) == K(1, "a", [], 5)         # `hidden` is not compared
        assert K(1) != K(2) and K(1) != (1, "a!", [])
        with pytest.raises(TypeError):
            hash(K(1))
    nan = float("nan")
    assert (ROne(nan) == ROne(nan)) == (DOne(nan) == DOne(nan))     # compared as tuples: identity first
    assert (ROne(1) == 1) is (DOne(1) == 1) is False


def test_frozen_hash_equality_and_refusal_as_a_dataclass():
    d, r = DFrozen(1, (2,)), RFrozen(1, (2,))
    assert hash(d) == hash(r) == hash((1, (2,)))
    assert strip(repr(d)) == strip(repr(r))
    assert {r: "x"}[RFrozen(1, (2,))] == "x"
    with pytest.raises(FrozenRecordError):
        r.a = 3
    with pytest.raises(AttributeError):
        del r.b
    assert vars(r) == {"a": 1, "b": (2,)}


def test_pickle_copy_and_replace():
    r = RPlain(1, "b", [2])
    for twin in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert twin == r and vars(twin) == vars(r)
    assert strip(repr(replace(r, y="q"))) == strip(repr(dataclasses.replace(DPlain(1, "b", [2]), y="q")))
    f = RFrozen(1, ())
    assert pickle.loads(pickle.dumps(f)) == f and replace(f, a=2) == RFrozen(2, ())


def test_wrong_calls_refused():
    with pytest.raises(TypeError):
        RPlain()
    with pytest.raises(TypeError):
        RPlain(1, x=2)
    with pytest.raises(TypeError):
        RPlain(1, w=2)
    with pytest.raises(TypeError):
        RPlain(1, "a", [], 3, 4)
    with pytest.raises(TypeError):
        class Wrong(Record):
            a: int = 0
            b: int


def test_repr_of_a_record_inside_itself():
    r = RPlain(1)
    r.z.append(r)
    assert repr(r) == "RPlain(x=1, y='a!', z=[...])"


def test_a_new_question_imports_no_dataclasses(new_question_probe):
    said = new_question_probe("norecord", "print(answer.startswith('答え: '), "
                              "sorted({'dataclasses', 'inspect', 'ast', 'dis', 'tokenize'} & set(sys.modules)))\n")
    assert said.split() == ["True", "[]"], said
