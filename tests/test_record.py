"""rulesdsl/base/record.py: a Record behaves as the dataclass declared the same way, and a judge's
new question imports no `dataclasses` (nor its inspect, ast, dis and tokenize)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from rulesdsl.base.record import FrozenRecordError, Record, field, replace, shallow_copy


@dataclasses.dataclass
class DPlain:
    x: int
    y: str = "a"
    z: list = dataclasses.field(default_factory=list)
    hidden: int = dataclasses.field(default=3, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.y += "!"


def _declared(name: str, **how) -> type:
    """DPlain as a record (`how`: `slots=True`, base/record.py), named `name`."""
    class R(Record, **how):
        x: int
        y: str = "a"
        z: list = field(default_factory=list)
        hidden: int = field(default=3, repr=False, compare=False)

        def __post_init__(self) -> None:
            self.y += "!"
    R.__name__ = R.__qualname__ = name
    return R


RPlain = _declared("RPlain")
RSlotted = _declared("RSlotted", slots=True)


class RSlottedFrozen(Record, frozen=True, slots=True):
    a: int
    b: tuple


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


def _fields(r: Record) -> dict:
    return {name: getattr(r, name) for name in r.__record_names__}


def _shown(r) -> str:
    return repr(r).split("(", 1)[1]     # without the class's name


@pytest.mark.parametrize("args,named", CALLS)
def test_a_record_with_slots_is_made_equal_shown_and_compared_as_one_with_a_dict(args, named):
    plain, slotted = RPlain(*args, **named), RSlotted(*args, **named)
    assert _fields(plain) == _fields(slotted) and _shown(plain) == _shown(slotted)
    assert RSlotted.__record_names__ == RPlain.__record_names__
    assert RSlotted(1, "a", [], 4) == RSlotted(1, "a", [], 5) and RSlotted(1) != RSlotted(2) != RPlain(2)
    assert RSlotted(1).z is not RSlotted(1).z
    with pytest.raises(TypeError):
        hash(slotted)
    with pytest.raises(TypeError):
        RSlotted(1, w=2)


def test_a_record_with_slots_keeps_its_fields_in_them_and_no_dict_until_something_else_is_set():
    r = RSlotted(1)
    assert set(RSlotted.__slots__) == {"x", "y", "z", "hidden", "__dict__"}
    assert vars(r) == {}
    r.extra = 5         # anything else: in its __dict__
    assert vars(r) == {"extra": 5} and _fields(r) == {"x": 1, "y": "a!", "z": [], "hidden": 3}


def test_a_frozen_record_with_slots_hashes_and_refuses_as_a_frozen_dataclass():
    d, r = DFrozen(1, (2,)), RSlottedFrozen(1, (2,))
    assert hash(d) == hash(r) and _shown(d) == _shown(r) and {r: "x"}[RSlottedFrozen(1, (2,))] == "x"
    with pytest.raises(FrozenRecordError):
        r.a = 3
    with pytest.raises(AttributeError):
        del r.b
    assert replace(r, a=2) == RSlottedFrozen(2, (2,))


def test_copies_of_a_record_with_slots_hold_its_values():
    r = RSlotted(1, "b", [2])
    r.extra = "e"
    for twin in (shallow_copy(r), copy.copy(r), copy.deepcopy(r), pickle.loads(pickle.dumps(r))):
        assert twin == r and _fields(twin) == _fields(r) and vars(twin) == {"extra": "e"}
    assert shallow_copy(r).z is r.z and copy.deepcopy(r).z is not r.z
    assert _shown(replace(r, y="q")) == _shown(replace(RPlain(1, "b", [2]), y="q"))


def test_a_shallow_copy_skips_a_slot_a_subclass_keeps_elsewhere():
    class Kept(RSlotted):       # `y` kept in another attribute, as engine.late's answers keep their words
        __slots__ = ("_y",)
        y = property(lambda self: self._y, lambda self, v: setattr(self, "_y", v))

    k = Kept(1, "b")
    twin = shallow_copy(k)
    assert type(twin) is Kept and twin == k and twin._y == "b!" and _fields(twin) == _fields(k)


def test_a_shallow_copy_holds_every_slot_set_and_leaves_unset_ones_unset_frozen_or_not():
    class Late(RSlotted):
        __slots__ = ("_late", "__own")

        def own(self):
            return self.__own

        def keep(self, v) -> None:
            self.__own = v

    k = Late(1, "b")
    twin = shallow_copy(k)          # `_late` and `__own` never set: the twin has neither
    assert twin == k and not hasattr(twin, "_late") and not hasattr(twin, "_Late__own")
    k._late = "x"
    k.keep([3])
    twin = shallow_copy(k)
    assert twin._late == "x" and twin.own() is k.own() and _fields(twin) == _fields(k)
    f = RSlottedFrozen(1, (2,))
    twin = shallow_copy(f)          # past a frozen record's refusal to set a field
    assert type(twin) is RSlottedFrozen and twin == f and hash(twin) == hash(f)
