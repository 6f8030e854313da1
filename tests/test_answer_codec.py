"""The answers handed back by a forked copy (engine.answer_codec, wiki.answering): equal field by
field to the ones made in one process, what is shared still shared, nothing run to decode them,
and every question answered when the copy fails part-way."""

from __future__ import annotations

import json
import os

import pytest

from rulesdsl.base.record import Record
from rulesdsl.engine import answer_codec
from rulesdsl.engine.answer_codec import CodecError, decode, encode
from rulesdsl.engine.trace import Cite, Step
from rulesdsl.kb.build import load
from rulesdsl.lang.model import Loc, Status
from rulesdsl.wiki.site import Wiki
from rulesdsl.wiki.testing import REPO


def difference(x, y, path: str = "answer", seen: dict | None = None):
    """Where two values differ, field by field (records, citations and steps by their fields:
    a step or citation has no `==` of its own), or None."""
    seen = {} if seen is None else seen
    if x.__class__ is not y.__class__:
        return f"{path}: {x.__class__.__name__} against {y.__class__.__name__}"
    if isinstance(x, Record):
        if seen.get(id(x)) is y:
            return None
        seen[id(x)] = y
        names = x.__record_names__
        pairs = ((n, getattr(x, n), getattr(y, n)) for n in names)
    elif isinstance(x, (Cite, Step)):
        pairs = ((n, getattr(x, n), getattr(y, n)) for n in x.__slots__)
    elif isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        if len(x) != len(y):
            return f"{path}: {len(x)} items against {len(y)}"
        pairs = ((f"[{i}]", a, b) for i, (a, b) in enumerate(zip(x, y)))
    elif isinstance(x, dict):
        if list(x) != list(y):
            return f"{path}: keys {list(x)} against {list(y)}"
        pairs = ((f"[{k!r}]", x[k], y[k]) for k in x)
    else:
        return None if x == y else f"{path}: {x!r} against {y!r}"
    for name, a, b in pairs:
        found = difference(a, b, f"{path}.{name}", seen)
        if found:
            return found
    return None


def _answers(monkeypatch, processes: str) -> Wiki:
    monkeypatch.setenv("RULESDSL_WIKI_JOBS", processes)
    w = Wiki(load(REPO))
    w.compute_answers()
    return w


@pytest.fixture(scope="module")
def in_one():
    with pytest.MonkeyPatch.context() as mp:
        yield _answers(mp, "1")


def _same_as(one: Wiki, other: Wiki) -> None:
    assert list(other.answers) == list(one.answers)
    for sid, a in one.answers.items():
        assert difference(a, other.answers[sid], sid) is None
    assert [(f.scenario, f.loc, f.message) for f in other.failures] == \
        [(f.scenario, f.loc, f.message) for f in one.failures]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="two processes need fork")
def test_the_answers_made_over_two_processes_are_those_made_in_one_field_by_field(in_one, monkeypatch):
    two = _answers(monkeypatch, "2")
    assert sum(a is not None for a in in_one.answers.values()) > 100
    _same_as(in_one, two)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="two processes need fork")
def test_a_copy_failing_part_way_leaves_every_question_answered_and_the_same(in_one, monkeypatch):
    encoded = [0]
    real = answer_codec.encode

    def failing(value):     # the copy dies after handing a few answers to the encoder
        encoded[0] += 1
        if encoded[0] > 5:
            os._exit(3)
        return real(value)
    monkeypatch.setattr(answer_codec, "encode", failing)
    two = _answers(monkeypatch, "2")
    assert encoded[0] == 0          # this process encoded nothing: the copy did, then died
    _same_as(in_one, two)


def test_what_is_shared_stays_shared_and_a_cycle_comes_back_a_cycle():
    cite = Cite("section", "grm/stack", Status.provisional, "grm.md", None)
    steps = [Step("a", (cite,)), Step("b", (cite, cite), "card")]
    shared = ["x", Loc("f.rules", 3, 4)]
    loop: list = [1]
    loop.append(loop)
    value = {"steps": steps, "one": shared, "two": shared, "loop": loop, "keys": {("a", 1): {"s"}}}
    back = decode(json.loads(json.dumps(encode(value))))
    assert back["one"] is back["two"] and back["one"][1] == Loc("f.rules", 3, 4)
    assert back["steps"][0].cites[0] is back["steps"][1].cites[0] is back["steps"][1].cites[1]
    assert back["steps"][1].cites[0].status is Status.provisional and back["steps"][1].kind == "card"
    assert back["loop"][1] is back["loop"]
    assert back["keys"] == {("a", 1): {"s"}}


def test_a_value_the_codec_does_not_carry_is_refused_not_guessed():
    with pytest.raises(CodecError):
        encode([object()])
    with pytest.raises(CodecError):         # only records, enums, named tuples and the slotted classes
        decode({"r": "os:system", "v": {}})
    with pytest.raises(CodecError):
        decode({"o": "rulesdsl.lang.model:Loc", "v": []})


def test_a_frozen_record_comes_back_frozen_with_what_its_constructor_made():
    # Resolved's `cite` is no field: __post_init__ makes it; CardRef's key is a tuple
    from rulesdsl.base.record import FrozenRecordError
    from rulesdsl.kb.knowledge import Resolved
    from rulesdsl.lang.vocab import CardRef
    point = Resolved("grm/stack-order", "top-only", Status.provisional, ruling="grm/r-7",
                     revision="2026-03", loc=Loc("r.rules", 2, 1), readings=("a", "b"))
    card = CardRef('"Ash"', ("grm", "GRM-001"))
    back_point, back_card = decode(json.loads(json.dumps(encode([point, card]))))
    assert back_point.__class__ is Resolved and back_card.__class__ is CardRef
    assert back_point == point and back_point.cite == point.cite == "grm/r-7@2026-03"
    assert back_point.loc == Loc("r.rules", 2, 1) and back_point.readings == ("a", "b")
    assert back_card == card and back_card.key == ("grm", "GRM-001")
    assert hash(back_point) == hash(point) and hash(back_card) == hash(card)
    with pytest.raises(FrozenRecordError):
        back_point.value = "other"
