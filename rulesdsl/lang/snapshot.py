"""A safe, compact snapshot of parsed nodes (and of plain data), in JSON.

Reading one back constructs only the classes of `rulesdsl.lang.model` (its pydantic models, named
tuples and enums, and the value classes it uses, such as `PartialDate`) and plain tuples,
lists and dicts; it calls no other code and unpickles nothing. What is allowed is derived from
the model module itself, so a field or a node type added there is covered without a change here.

The layout is columnar so that reading is mostly C-level `map` calls rather than a Python call
per node (a knowledge base of 10,000 cards has about 800,000 nodes):

- `scalars`: every distinct str, int, float, bool and None, once;
- `groups`: the objects, grouped by class and by height (a node's height is one more than its
  tallest child's), lowest first, each group a column per field holding indices into the table
  of everything decoded so far (the scalars, then the groups in order);
- `roots`: the indices of what was snapshotted.

Models are rebuilt without validation (they were validated when first built, and the snapshot
is only read back after its MAC verifies: see rulesdsl/base/cache.py), keeping the set of fields that
was explicitly given, so that a round trip gives identical model dumps.
"""

from __future__ import annotations

import enum
import json
from itertools import repeat, starmap
from typing import Any, Iterable, Optional

from ..base.declared import BaseModel
from . import model

VERSION = 1
_SCALARS = (str, int, float, bool, type(None))
_SCALAR_SET = frozenset(_SCALARS)
_new = object.__new__
_set = object.__setattr__
_tnew = tuple.__new__


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


_ALLOWED: Optional[dict] = None


def allowed() -> dict[str, tuple[type, str]]:
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _allowed()
    return _ALLOWED


# ----------------------------------------------------------------------------- writing

def dumps(roots: Iterable[Any], loose: bool = False) -> bytes:
    """The snapshot of `roots` as UTF-8 JSON. With `loose`, instances of str subclasses (such
    as lark's tokens) are written as plain strings. SnapshotError for anything else the
    snapshot cannot hold."""
    roots = [str(r) if loose and isinstance(r, str) else r for r in roots]
    kinds = {cls: kind for cls, kind in allowed().values()}
    scalars: list = []
    strs: dict = {}
    ints: dict = {}
    others: dict = {}                 # floats (by repr: 0.0 and -0.0 differ), bools, None
    height: dict[int, int] = {}
    parts: dict[int, list] = {}
    order: list = []                  # children before parents

    def scalar(c) -> None:
        t = type(c)
        table, key = (strs, c) if t is str else (ints, c) if t is int else (others, (t, repr(c)))
        if key not in table:
            table[key] = len(scalars)
            scalars.append(c)

    def visit(v) -> int:
        """The height of `v` (one more than its tallest child), visiting its children first."""
        t = type(v)
        kind = kinds.get(t)
        if kind is None:
            raise SnapshotError(f"a snapshot cannot hold a {t.__module__}.{t.__qualname__}")
        p = _parts(v, t, kind)
        if loose:
            p = [str(c) if isinstance(c, str) and type(c) is not str else c for c in p]
        h = 0
        for c in p:
            t = type(c)
            if t is str:                    # the commonest children, registered inline
                if c not in strs:
                    strs[c] = len(scalars)
                    scalars.append(c)
                continue
            if t is int:
                if c not in ints:
                    ints[c] = len(scalars)
                    scalars.append(c)
                continue
            if t in _SCALAR_SET:
                scalar(c)
                continue
            ch = height.get(id(c))
            if ch is None:
                ch = visit(c)
            if ch > h:
                h = ch
        h += 1
        height[id(v)] = h
        parts[id(v)] = p
        order.append(v)
        return h

    try:
        for r in roots:
            if type(r) in _SCALAR_SET:
                scalar(r)
            elif id(r) not in height:
                visit(r)
    except RecursionError:
        raise SnapshotError("nested too deep for a snapshot") from None
    groups: dict[tuple[int, type], list] = {}
    for v in order:
        groups.setdefault((height[id(v)], type(v)), []).append(v)
    keys = sorted(groups, key=lambda k: (k[0], _name(k[1])))
    index: dict[int, int] = {}
    n = len(scalars)
    for k in keys:
        for v in groups[k]:
            index[id(v)] = n
            n += 1

    def refs(values) -> list[int]:
        return [index[id(c)] if (t := type(c)) not in _SCALAR_SET else
                strs[c] if t is str else ints[c] if t is int else others[(t, repr(c))] for c in values]

    classes: list = []
    class_no: dict[type, int] = {}
    out_groups = []
    for h, cls in keys:
        objs = groups[(h, cls)]
        kind = kinds[cls]
        if cls not in class_no:
            class_no[cls] = len(classes)
            classes.append([_name(cls), kind, _fields(cls, kind)])
        rows = [parts[id(v)] for v in objs]
        if kind in ("tuple", "list"):
            cols = [refs(r) for r in rows]
        else:
            width = len(rows[0])
            if any(len(r) != width for r in rows):
                raise SnapshotError(f"{_name(cls)}: instances of different shapes")
            cols = [refs(col) for col in zip(*rows)]
            if kind == "model":
                bits = {f: 1 << j for j, f in enumerate(cls.model_fields)}
                cols.append([sum(bits[f] for f in v.__pydantic_fields_set__) for v in objs])
        out_groups.append([class_no[cls], len(objs), cols])
    data = {"snapshot": VERSION, "classes": classes, "scalars": scalars, "groups": out_groups,
            "roots": refs(roots)}
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as e:
        raise SnapshotError(str(e)) from None


def _parts(v, t: type, kind: str) -> list:
    if kind == "model":
        if getattr(v, "__pydantic_extra__", None) or getattr(v, "__pydantic_private__", None):
            raise SnapshotError(f"{_name(t)}: extra or private attributes are not kept")
        d = v.__dict__
        return [d[f] for f in t.model_fields]
    if kind in ("tuple", "list", "ntuple"):
        return list(v)
    if kind == "dict":
        return [tuple(v.keys()), tuple(v.values())]
    if kind == "enum":
        return [v.value]
    fn, args = v.__reduce__()[:2]
    if fn is not t:
        raise SnapshotError(f"{_name(t)} does not rebuild itself from its constructor")
    return [tuple(args)]


# ----------------------------------------------------------------------------- reading

def loads(payload: bytes) -> list:
    """The roots of a snapshot written by `dumps`. SnapshotError when it is not one, names a
    class outside the allowed ones, or does not fit the classes as they are now."""
    try:
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("snapshot") != VERSION:
            raise SnapshotError("not a snapshot of this version")
        return _decode(data)
    except SnapshotError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        raise SnapshotError(f"damaged snapshot: {type(e).__name__}: {e}") from None


def _decode(data: dict) -> list:
    table = allowed()
    classes = []
    for name, kind, fields in data["classes"]:
        found = table.get(name)
        if found is None or found[1] != kind:
            raise SnapshotError(f"a snapshot may not hold {name}")
        cls = found[0]
        if fields != _fields(cls, kind):
            raise SnapshotError(f"{name} has other fields now")
        classes.append((cls, kind, tuple(fields)))
    objs = list(data["scalars"])
    if any(type(s) not in _SCALARS for s in objs):
        raise SnapshotError("a scalar that is not one")
    get = objs.__getitem__
    for no, count, cols in data["groups"]:
        cls, kind, names = classes[no]
        top = len(objs)
        refs = cols[:-1] if kind == "model" else cols
        if kind in ("tuple", "list"):
            if len(cols) != count:
                raise SnapshotError("a group of the wrong size")
            refs = [c for c in cols if c]
        elif any(len(c) != count for c in cols):
            raise SnapshotError("a group of the wrong size")
        if refs and (max(map(max, refs)) >= top or min(map(min, refs)) < 0):
            raise SnapshotError("a reference to nothing")
        if kind == "tuple":
            objs.extend(map(tuple, map(map, repeat(get, count), cols)))
        elif kind == "list":
            objs.extend(map(list, map(map, repeat(get, count), cols)))
        elif kind == "dict":
            objs.extend(map(dict, map(zip, map(get, cols[0]), map(get, cols[1]))))
        elif kind == "ntuple":
            objs.extend(map(_tnew, repeat(cls, count), zip(*[map(get, c) for c in cols])))
        elif kind == "enum":
            objs.extend(map(cls, map(get, cols[0])))
        elif kind == "value":
            objs.extend(starmap(cls, map(get, cols[0])))
        else:   # a model: its fields, then the mask of the fields that were given
            *fcols, masks = cols
            if len(fcols) != len(names):
                raise SnapshotError(f"{_name(cls)}: wrong number of fields")
            new = list(map(_new, repeat(cls, count)))
            dicts = map(dict, map(zip, repeat(names, count), zip(*[map(get, c) for c in fcols])))
            given = {m: frozenset(f for j, f in enumerate(names) if m >> j & 1) for m in set(masks)}
            _all(map(_set, new, repeat("__dict__", count), dicts))
            _all(map(_set, new, repeat("__pydantic_fields_set__", count), map(set, map(given.__getitem__, masks))))
            _all(map(_set, new, repeat("__pydantic_extra__", count), repeat(None, count)))
            _all(map(_set, new, repeat("__pydantic_private__", count), repeat(None, count)))
            objs.extend(new)
        if len(objs) != top + count:
            raise SnapshotError("a group of the wrong size")
    return [objs[r] for r in data["roots"]]


def _all(it) -> None:
    for _ in it:
        pass
