"""A card reference (lang/vocab.py `CardRef`) made by its own written-out constructor is the record
Record's generic constructor makes: the same fields in the same order, equal, hashed alike, shown
alike, and as frozen."""

from __future__ import annotations

import pytest

from rulesdsl.base.record import FrozenRecordError, Record
from rulesdsl.lang.vocab import CardRef


def by_record(*args, **named) -> CardRef:
    ref = object.__new__(CardRef)
    Record.__init__(ref, *args, **named)
    return ref


@pytest.mark.parametrize("args,named", [
    (("No.001",), {}), (("《髭》", ("grm", "No.018")), {}), (("A",), {"key": ("", "A")}), ((), {"text": "B"}),
    ((), {"text": "C", "key": ("pm", "PM01-001")}),
])
def test_a_card_reference_is_the_record_records_own_constructor_makes(args, named):
    mine, theirs = CardRef(*args, **named), by_record(*args, **named)
    assert list(vars(mine).items()) == list(vars(theirs).items())
    assert mine == theirs and hash(mine) == hash(theirs) and repr(mine) == repr(theirs)
    with pytest.raises(FrozenRecordError):
        mine.text = "other"


def test_a_card_reference_needs_its_text():
    with pytest.raises(TypeError):
        CardRef()
