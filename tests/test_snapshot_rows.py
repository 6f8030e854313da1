"""The snapshot writer's row makers (lang/snapshot_rows.py), compiled per class, write exactly the
bytes its generic walk writes — for every class over the repository's files and a generated
corpus, and for the odd shapes a maker hands back to the generic walk — and fail as it fails."""

from __future__ import annotations

import pytest
from conftest import REPO

from rulesdsl.kb import loader
from rulesdsl.lang import parser, snapshot, snapshot_rows
from rulesdsl.lang.dates import PartialDate
from rulesdsl.lang.model import (Atom, Card, Citation, Clause, Expectation, Loc, Revision, RevRef, Ruling, Status,
                                 Text)
from rulesdsl.lang.snapshot_classes import allowed


def both(monkeypatch, write):
    """What `write()` gives (its bytes, or its error's type and message) with every class's
    maker compiled and used from its first row, then with the generic walk alone."""
    out = []
    monkeypatch.setattr(snapshot_rows, "ROWS_BEFORE_MAKER", 0)
    for generic in (False, True):
        monkeypatch.setattr(snapshot_rows, "GENERIC_ONLY", generic)
        try:
            out.append(write())
        except Exception as e:          # noqa: BLE001 - compared, not swallowed
            out.append((type(e), str(e)))
    return out


def documents(paths, root=REPO):
    return [parser.parse_text(p.read_text(encoding="utf-8"), str(p.relative_to(root))) for p in paths]


def test_every_class_of_the_model_with_fields_gets_a_maker():
    made = {cls.__name__ for cls, kind in allowed().values() if snapshot_rows.factory(cls, kind) is not None}
    assert {"Clause", "Citation", "Text", "RevRef", "Revision", "Ruling", "Card", "Scenario", "Expectation",
            "Setting", "Document", "Loc", "Atom"} <= made


def test_the_makers_write_the_bytes_of_the_generic_walk_for_every_file_of_the_repository(monkeypatch):
    docs = documents(sorted(REPO.glob("*/**/*.rules")))
    assert len(docs) > 100
    keys = tuple(map(str, range(len(docs))))
    fast, slow = both(monkeypatch, lambda: snapshot.dumps_nested([keys, tuple(map(loader.outline, docs))],
                                                                 [keys, tuple(docs)]))
    assert fast == slow and type(fast) is tuple
    for doc in docs[::7]:
        one, other = both(monkeypatch, lambda: snapshot.dumps([doc]))
        assert one == other and type(one) is bytes


def test_the_makers_write_the_bytes_of_the_generic_walk_for_a_generated_corpus(monkeypatch, tmp_path):
    import subprocess
    import sys
    corpus = tmp_path / "kb"
    subprocess.run([sys.executable, str(REPO / "benchmarks/gen_corpus.py"), str(corpus), "--cards", "60",
                    "--revisions", "300", "--scenarios", "80", "--seed", "3"], check=True, capture_output=True)
    docs = documents(sorted(corpus.rglob("*.rules")), corpus)
    keys = tuple(map(str, range(len(docs))))
    fast, slow = both(monkeypatch, lambda: snapshot.dumps_nested([keys, tuple(map(loader.outline, docs))],
                                                                 [keys, tuple(docs)]))
    assert fast == slow and type(fast) is tuple


class Word(str):
    """A loose str subclass (as lark's tokens are)."""


HERE, THERE = Loc("f", 1, 2), Loc("g", 3, 4)
ODD = {
    "optional fields None and not given": lambda: [Citation.model_construct(raw="r", document="d", loc=HERE),
                                                  Text.model_construct(value=None, loc=HERE)],
    "fields given in another order": lambda: [Citation.model_construct(loc=HERE, heading="h", document="d",
                                                                       raw="r")],
    "a date, a status, nested tuples, a list": lambda: [
        Revision.model_construct(date=PartialDate(2024, 5), status=Status.confirmed, notes=("a", ("b", ("c",))),
                                 refs=[RevRef.model_construct(target="t", loc=HERE)], loc=HERE)],
    "scalars where nodes are declared, nodes where scalars are": lambda: [
        Card.model_construct(game=3, code=Text.model_construct(value="x", loc=HERE), name=2.5, source=True,
                             text="plain", notes=None, clauses=(), loc=HERE)],
    "a clause's odd arguments": lambda: [
        Clause("h", HERE, [Atom("name", "x", HERE)], None),
        Clause("h", HERE, (Atom("name", "x", HERE), "y"), None),
        Clause("h", HERE, (Atom("name", "x", THERE),), None),
        Clause("h", HERE, (Atom("name", "x", Loc("".join("f"), 5, 6)),), None),
        Clause("h", HERE, (Atom("array", (Atom("number", 1, HERE), Atom("name", "y", HERE)), HERE),
                           Atom("quantity", 60.5, HERE, "kg"), Atom("name", -1, HERE, None)), None),
        Clause(("h",), HERE, (), (Clause("i", HERE, (), ()),)),
        Expectation.model_construct(form="f", args=(Atom("name", "x", HERE),), loc=HERE)],
    "shared nodes": lambda: [(c := Clause("h", HERE, (), None), c, (c, c))],
    "bools in bool fields beside 1 and 0, and where a bool is not declared": lambda: [
        (1, 0, 1.0),
        RevRef.model_construct(target="t", undated=True, loc=HERE), RevRef.model_construct(target="u", undated=False,
                                                                                           loc=HERE),
        RevRef.model_construct(target=True, undated=1, loc=HERE), RevRef.model_construct(target="t", undated=None,
                                                                                         loc=HERE),
        Card.model_construct(game="g", code="X", assumed=False, loc=HERE), (True, False)],
    "new and seen strs, ints and other values as a clause's arguments' values": lambda: [
        Clause("h", HERE, (Atom("number", 3, HERE), Atom("name", "3", HERE), Atom("number", 3, HERE),
                           Atom("name", "new", HERE, "u"), Atom("flag", True, HERE), Atom("flag", 1, HERE),
                           Atom("name", Word("w"), HERE), Atom("n", 2.0, HERE), Atom("n", None, HERE)), None),
        Clause(Word("h"), HERE, (Atom(Word("k"), "v", HERE),), None)],
    "a str subclass and None in str fields first seen": lambda: [
        Citation.model_construct(raw=Word("r"), document=None, loc=HERE), Citation.model_construct(raw="r",
                                                                                                   document="d",
                                                                                                   loc=HERE)],
    "a bool, a float, -0.0 and None beside ints": lambda: [(True, 1, 1.0, -0.0, 0.0, None, 0, False)],
    "dates, one shared": lambda: [(d := PartialDate(2024, 5), d, PartialDate(2023), PartialDate(2024, season="spring"),
                                  PartialDate(2024, 5, 1))],
    "a location that is not a Loc": lambda: [Card.model_construct(game="g", code="X", loc=("f", 1, 1))],
    "a location of a str subclass": lambda: [Card.model_construct(game="g", code="X", loc=Loc(Word("f"), 1, 1))],
    "a clause's location that is not a Loc": lambda: [Clause("h", ("f", 1, 2), (), None)],
    "an argument's location that is not a Loc": lambda: [Clause("h", HERE, (Atom("name", "x", ("f", 1, 2)),), None)],
    "an unknown field value": lambda: [Citation.model_construct(raw=object(), document="d", loc=HERE)],
    "extra attributes": lambda: [Ruling.model_construct(id="r", title="t", loc=HERE, colour="red")],
}


@pytest.mark.parametrize("loose", [False, True])
@pytest.mark.parametrize("shape", sorted(ODD))
def test_the_makers_write_odd_shapes_as_the_generic_walk_does_or_fail_as_it_fails(monkeypatch, shape, loose):
    roots = ODD[shape]()
    if loose:
        roots.append(Card.model_construct(game=Word("g"), code=Word("X"), notes=(Word("n"),), loc=HERE))
    fast, slow = both(monkeypatch, lambda: snapshot.dumps(roots, loose=loose))
    assert fast == slow
    if type(fast) is bytes:             # and read back, the same values of the same types
        back = snapshot.loads(fast)
        assert back == roots and repr(back) == repr(roots)     # (repr tells True from 1, 1.0 from 1)
