"""A parsed document's outline: the document with every worked question (scenario) reduced to its
id, title and location. A command that answers one new question needs the others' ids only (a
duplicate is still found), and worked questions are most of the nodes; the parse snapshot keeps
each part's outline beside it (kb/loader.py), the wiki ships a game's outline to the browser.

A node the outline leaves as it is — a ruling none of whose revisions holds a worked question
(in the corpora nearly all of them), a document declaring none — is the node itself, not a copy
of it: a copy would be equal in every field and in the fields given, so reading an outline back
gives what it gave, and the parse snapshot, which encodes the outline and the documents from one
walk (lang/snapshot.py `dumps_nested`), writes such a node once instead of twice.
"""

from __future__ import annotations

from operator import is_
from typing import Iterable

from ..lang.model import Document, Ruling, Scenario


def outline(doc: Document) -> Document:
    """`doc` with every scenario reduced to its id, title and location (see the module's text)."""
    from ..lang.builder import constructor      # the parse's (pydantic's model_construct: ~20× its time)
    make = constructor(Scenario)

    def bare(s: Scenario) -> Scenario:
        return make(id=s.id, title=s.title, loc=s.loc)

    def ruling(r: Ruling) -> Ruling:
        revisions = _same(tuple([_updated(v, {"scenarios": tuple(map(bare, v.scenarios))}) for v in r.revisions]),
                          r.revisions)
        return _updated(r, {"scenarios": tuple(map(bare, r.scenarios)), "revisions": revisions})
    decls = _same(tuple([bare(d) if isinstance(d, Scenario) else ruling(d) if isinstance(d, Ruling) else d
                         for d in doc.decls]), doc.decls)
    return _updated(doc, {"decls": decls})


def _updated(node, update: dict):
    """`node.model_copy(update=update)`, or `node` itself when that copy would equal it: each
    field updated to the very value it holds, and already among the fields given."""
    held = node.__dict__
    if all(held.get(k, _NONE) is v for k, v in update.items()) and node.__pydantic_fields_set__ >= update.keys():
        return node
    return node.model_copy(update=update)


_NONE = object()        # a field the node does not hold


def _same(made: tuple, held) -> tuple:
    """`held` when `made` holds the very same items (so that the node holding it may be kept), else `made`."""
    if type(held) is tuple and len(made) == len(held) and all(map(is_, made, held)):
        return held
    return made


def scenarios_in(doc: Document) -> Iterable[Scenario]:
    """Every scenario `doc` declares: its own and its rulings' and their revisions'."""
    for d in doc.decls:
        if isinstance(d, Scenario):
            yield d
        elif isinstance(d, Ruling):
            yield from d.scenarios
            for v in d.revisions:
                yield from v.scenarios
