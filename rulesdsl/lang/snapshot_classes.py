"""What a snapshot may hold (rulesdsl/lang/snapshot.py describes its layout): the classes of the
syntax model, each with its kind, fields and inline location, shared by the reading side
(snapshot.py) and the writing side (snapshot_writer.py)."""

from __future__ import annotations

import enum
from functools import cache
from typing import Optional

from ..base.declared import BaseModel
from ..base.record import own_annotations
from . import model

VERSION = 4
_SCALARS = (str, int, float, bool, type(None))
_SCALAR_SET = frozenset(_SCALARS)
_Loc = model.Loc
_Atom = model.Atom
if _Atom._fields != ("kind", "value", "loc", "unit"):
    raise ImportError("lang/snapshot_writer.py writes an Atom by field order: update it with the model")


class SnapshotError(ValueError):
    """A value cannot be snapshotted, or a snapshot cannot be read back."""


# ----------------------------------------------------------------------------- the classes

def _kind(cls: type) -> Optional[str]:
    if cls is tuple:
        return "tuple"
    if cls is list:
        return "list"
    if cls is dict:
        return "dict"
    if issubclass(cls, BaseModel):
        return "model"
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return "ntuple"
    if issubclass(cls, enum.Enum):
        return "enum"
    if "__reduce__" in vars(cls) and "__slots__" in vars(cls):
        return "value"          # an immutable value class rebuilt from its own constructor
    return None


def _allowed() -> dict[str, tuple[type, str]]:
    """name -> (class, kind) for every class a snapshot may hold: the model module's own and
    the rulesdsl classes it imports, plus the plain containers."""
    out = {}
    for obj in vars(model).values():
        if isinstance(obj, type) and obj.__module__.startswith("rulesdsl."):
            kind = _kind(obj)
            if kind is not None:
                out[_name(obj)] = (obj, kind)
    for cls in (tuple, list, dict):
        out[_name(cls)] = (cls, _kind(cls))
    return out


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _fields(cls: type, kind: str) -> list[str]:
    if kind == "model":
        return list(cls.model_fields)
    if kind == "ntuple":
        return list(cls._fields)
    return []


def _written(cls: type, f: str):
    """The annotation of field `f` of `cls` as written (by the class that declares it)."""
    for c in cls.__mro__:
        written = own_annotations(c)
        if f in written:
            return written[f]
    return None


def _loc_field(cls: type, kind: str) -> Optional[str]:
    """The field of `cls` written in its owner's row as three columns (file, line, column)
    rather than as a node of its own: the first one declared a `Loc` (not an optional one).
    Nearly every node has one: inline, they are two fifths of the nodes fewer to walk and write.
    (Read from the annotations as written, which the model module postpones: evaluating them
    would cost a command that reads a snapshot a few milliseconds.)"""
    if kind not in ("model", "ntuple") or cls is _Loc:
        return None
    for f in _fields(cls, kind):
        written = _written(cls, f)
        if written is _Loc or getattr(written, "__forward_arg__", written) == "Loc":
            return f
    return None


_LOC_FIELDS: dict[type, Optional[str]] = {}


def loc_field(cls: type, kind: str) -> Optional[str]:
    found = _LOC_FIELDS.get(cls, False)
    if found is False:
        found = _LOC_FIELDS[cls] = _loc_field(cls, kind)
    return found


_ARGUMENTS = ("tuple[Atom, ...]", "tuple['Atom', ...]", 'tuple["Atom", ...]')


@cache
def inline_field(cls: type, kind: str) -> Optional[str]:
    """The field of `cls` whose atoms are written in its owner's row, field by field, rather than
    the tuple and each atom as a node of its own (version 3): its arguments, the field declared
    `tuple[Atom, ...]` (a clause's and an expectation's). The atoms and a clause's arguments were
    the commonest nodes (half of them). Instances are grouped by how many arguments they have,
    which their class entry gives (see snapshot.py)."""
    if kind not in ("model", "ntuple"):
        return None
    for f in _fields(cls, kind):
        written = _written(cls, f)
        if written is not None and getattr(written, "__forward_arg__", str(written)) in _ARGUMENTS:
            return f
    return None


_ALLOWED: Optional[dict] = None


def allowed() -> dict[str, tuple[type, str]]:
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _allowed()
    return _ALLOWED


def _all(it) -> None:
    for _ in it:
        pass
