"""The trace: the ordered steps of one run, each naming what decided it.

A step cites a rule section, a ruling revision (through a rule point's provenance), or a card.
Its status is the status of what it cites; an answer's status is the weakest of its steps'.
Steps are plain slotted objects: the engine creates many of them in its hot path.
"""

from __future__ import annotations

from typing import Optional

from ..lang.model import Status


class Cite:
    """What decided a step: `section` (a rule section id), `ruling` (id@revision, via a rule
    point), `card` (a card's printed fact or effect), `scenario` (a hypothetical given by
    the question) or `assumption` (a fact the sources do not give, taken as given: 仮定)."""

    __slots__ = ("kind", "ref", "status", "source", "note", "_key")

    def __init__(self, kind: str, ref: str, status: Status = Status.confirmed,
                 source: Optional[str] = None, note: Optional[str] = None) -> None:
        self.kind, self.ref, self.status, self.source, self.note = kind, ref, status, source, note
        self._key = None

    def key(self) -> tuple:
        k = self._key      # a citation is never changed once made: its key is made once
        if k is None:
            k = self._key = (self.kind, self.ref, self.status._value_)   # not Enum's .value: a Python property
        return k

    def label(self) -> str:
        if self.kind in ("card", "scenario"):
            return self.ref
        if self.kind == "assumption":
            return f"仮定: {self.ref}"
        return f"{self.ref} [{self.status.value}]"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "ref": self.ref, "status": self.status.value,
                "source": self.source, "note": self.note}


class Step:
    __slots__ = ("text", "cites", "kind")

    def __init__(self, text: str, cites: tuple[Cite, ...] = (), kind: str = "rule") -> None:
        self.text, self.cites, self.kind = text, cites, kind

    def as_dict(self) -> dict:
        return {"text": self.text, "kind": self.kind, "cites": [c.as_dict() for c in self.cites]}


def unique_cites(cites) -> list[Cite]:
    """Citations in order without repeats (a rule point's default cites the section that defines
    it, which a step often cites too)."""
    seen: set = set()
    out: list[Cite] = []
    for c in cites:
        k = c._key          # Cite.key, read without a call where it is made (asked at every check of every action)
        if k is None:
            k = c.key()
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out
