"""A record that writes its own constructor (base/record.py: a record made in a hot loop) makes
exactly what the generic one makes of the same fields: every field set, in field order, to the
value given or the field's default (a factory's value made anew), so that a field added to the
class body cannot be silently left out of the written-out constructor."""

import importlib
import pkgutil

import pytest

from rulesdsl.base.record import _MISSING, Record


LAYERS = ("base", "lang", "kb", "engine", "games", "regress")     # where records are declared (no optional packages)


def _all_records() -> list[type]:
    for layer in LAYERS:
        package = importlib.import_module(f"rulesdsl.{layer}")
        for m in pkgutil.walk_packages(package.__path__, f"rulesdsl.{layer}."):
            importlib.import_module(m.name)
    out, todo = [], [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            out.append(sub)
            todo.append(sub)
    return sorted(set(out), key=lambda c: (c.__module__, c.__qualname__))


WRITTEN_OUT = [c for c in _all_records() if "__init__" in vars(c)]


def test_the_records_that_write_their_own_constructor_are_found():
    names = {f"{c.__module__}.{c.__qualname__}" for c in WRITTEN_OUT}
    assert {"rulesdsl.games.thgm.state.State", "rulesdsl.games.thgm.state.Attack",
            "rulesdsl.games.grm.state.State", "rulesdsl.engine.answer.Answer"} <= names


@pytest.mark.parametrize("cls", WRITTEN_OUT, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_a_written_out_constructor_makes_what_the_generic_one_makes(cls):
    required = {n: object() for n, default, factory in cls.__record_fill__ if default is _MISSING and factory is None}
    own = cls(**required)
    generic = cls.__new__(cls)
    Record.__init__(generic, **required)
    if "__record_defaults__" not in vars(cls):      # (a record with `slots=True` keeps them in its slots: each read below)
        assert list(vars(own)) == list(vars(generic)) == list(cls.__record_names__)
    for name in cls.__record_names__:
        mine, theirs = getattr(own, name), getattr(generic, name)
        assert mine == theirs, name
        if isinstance(theirs, (list, dict, set)):
            assert mine is not getattr(cls(**required), name), f"{name}: one container shared by every instance"
