"""A document's outline (kb/doc_outline.py) is the document with every worked question made bare;
a node it leaves as it is, is the node itself rather than an equal copy, so the parse snapshot,
which encodes the outline and the documents from one walk, writes it once."""

from __future__ import annotations

import json

from conftest import REPO

from rulesdsl.kb import loader
from rulesdsl.lang import builder, parser, snapshot
from rulesdsl.lang.model import Document, Ruling, Scenario


def copied_outline(doc: Document) -> Document:
    """The outline as every node copied (pydantic's model_copy) makes it: what it must equal."""
    make = builder.constructor(Scenario)

    def bare(s):
        return make(id=s.id, title=s.title, loc=s.loc)

    def ruling(r):
        return r.model_copy(update={
            "scenarios": tuple(map(bare, r.scenarios)),
            "revisions": tuple(v.model_copy(update={"scenarios": tuple(map(bare, v.scenarios))})
                               for v in r.revisions)})
    return doc.model_copy(update={"decls": tuple(bare(d) if isinstance(d, Scenario) else ruling(d)
                                                  if isinstance(d, Ruling) else d for d in doc.decls)})


def whole(x):
    """Everything of a value that reading it back could tell: types, fields, the fields given."""
    if hasattr(x, "__pydantic_fields_set__"):
        return (type(x).__name__, sorted(x.__pydantic_fields_set__), {k: whole(v) for k, v in x.__dict__.items()},
                x.__pydantic_extra__, x.__pydantic_private__)
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [whole(v) for v in x])
    return (type(x).__name__, x)


def documents() -> list[Document]:
    """The bundled knowledge base's documents, and one whose ruling and revision hold worked questions."""
    docs = [parser.parse_text(p.read_text(encoding="utf-8"), str(p))
            for p in sorted((REPO / "rulings").rglob("*.rules")) + sorted((REPO / "cards").rglob("*.rules"))]
    asked = next(d for d in docs if any(isinstance(x, Scenario) for x in d.decls))
    ruled = next(d for d in docs if any(isinstance(x, Ruling) and x.revisions for x in d.decls))
    questions = tuple(x for x in asked.decls if isinstance(x, Scenario))[:3]
    decls = tuple(x.model_copy(update={"scenarios": questions[:1], "revisions": (
        x.revisions[0].model_copy(update={"scenarios": questions[1:]}), *x.revisions[1:])})
                  if isinstance(x, Ruling) and x.revisions else x for x in ruled.decls)
    return docs + [ruled.model_copy(update={"decls": decls})]


def test_an_outline_equals_the_documents_copied_with_their_questions_made_bare():
    for doc in documents():
        assert whole(loader.outline(doc)) == whole(copied_outline(doc))


def test_a_node_the_outline_leaves_as_it_is_is_the_node_itself():
    docs = documents()
    without = [d for d in docs if not any(loader.scenarios_in(d))]
    assert without and all(loader.outline(d) is d for d in without)
    for doc in docs:
        brief = loader.outline(doc)
        for old, new in zip(doc.decls, brief.decls):
            asks = isinstance(old, Scenario) or isinstance(old, Ruling) and (
                bool(old.scenarios) or any(v.scenarios for v in old.revisions))
            assert (new is old) == (not asks)


def test_the_parse_snapshot_writes_what_the_outline_shares_with_the_documents_once():
    docs = tuple(d for d in documents() if not any(loader.scenarios_in(d)))
    keys = tuple(map(str, range(len(docs))))
    small, large = snapshot.dumps_nested([keys, tuple(map(loader.outline, docs))], [keys, docs])
    own = json.loads(large)
    del own["base"]
    named = {i: c[0].rsplit(":", 1)[-1] for i, c in enumerate(json.loads(small)["classes"] + own["classes"])}
    # beyond the outline, only the two roots' containers: no document, ruling or revision again
    assert not {named[g[0]] for g in own["groups"]} & {"Document", "Ruling", "Revision"}
    assert snapshot.loads(large) == [keys, docs]
    assert whole(snapshot.loads(small)) == whole([keys, tuple(map(copied_outline, docs))])
