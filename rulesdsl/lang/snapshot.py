"""A safe, compact snapshot of parsed nodes (and of plain data), in JSON.

Reading one back constructs only the classes of `rulesdsl.lang.model` (its pydantic models, named
tuples and enums, and the value classes it uses, such as `PartialDate`) and plain tuples,
lists and dicts; it calls no other code and unpickles nothing. What is allowed is derived from
the model module itself, so a field or a node type added there is covered without a change here.

The layout is columnar so that reading is mostly C-level `map` calls rather than a Python call
per node (a knowledge base of 10,000 cards has about 800,000 nodes):

- `scalars`: every distinct str, int, float, bool and None, once;
- `classes`: per class, its name, kind, fields, and the field written inline as a location
  (below), if any; for a class whose arguments are written inline (below), one entry per count
  of arguments, with a fifth member: [the arguments' field, their count];
- `groups`: the objects, grouped by class and by height (a node's height is one more than its
  tallest child's), lowest first, each group a column per field holding indices into the table
  of everything decoded so far (the scalars, then the groups in order). A node's own location
  (the field declared `loc: Loc`, which nearly every node has) is not a node of its own but the
  group's last three columns, its file, line and column as scalars (version 2: locations were
  two fifths of the nodes); an optional location is a node like any other. A clause's or an
  expectation's arguments (the field declared `tuple[Atom, ...]`) are neither a tuple node nor
  atom nodes but columns of the group, after its other fields and before its location: five per
  argument, its atom's kind, value and unit and its location's line and column (version 3: the
  atoms and the arguments' tuples were half of the nodes), its file being its owner's (version
  4: six columns, with the file, which is the owner's in every file the parser reads), so that a
  group holds instances of as many arguments; arguments that are not a plain tuple of atoms
  located in their owner's file are one column of references (count -1);
- `roots`: the indices of what was snapshotted;
- `base` (optional): a whole payload (without a base of its own) that this one is written over:
  its scalars and objects come first in the table, this payload's own after them, and this
  payload's classes are numbered after the base's (the parse snapshot's documents are written
  over their outline, which they share most of: `dumps_nested`).

Models are rebuilt without validation (they were validated when first built, and the snapshot
is only read back after its MAC verifies: see rulesdsl/base/cache.py), keeping the set of fields that
was explicitly given, so that a round trip gives identical model dumps.
"""

from __future__ import annotations

import json
from itertools import repeat, starmap
from typing import Any, Iterable

from .snapshot_classes import (VERSION, SnapshotError, _SCALARS, _Atom, _Loc, _all, _fields, _name, allowed,
                               inline_field, loc_field)

_new = object.__new__
_set = object.__setattr__
_tnew = tuple.__new__


# ----------------------------------------------------------------------------- writing

def dumps(roots: Iterable[Any], loose: bool = False) -> bytes:
    """The snapshot of `roots` as UTF-8 JSON. With `loose`, instances of str subclasses (such
    as lark's tokens) are written as plain strings. SnapshotError for anything else the
    snapshot cannot hold."""
    from .snapshot_writer import Writer     # here: a process that only reads never imports it
    return Writer(loose).payloads([roots])[0]


def dumps_nested(small: Iterable[Any], large: Iterable[Any]) -> tuple[bytes, bytes]:
    """The snapshots of `small` and of `large`, from one walk: what the two share (the parse
    snapshot's outline shares everything but the worked questions' bodies with the documents)
    is visited once, and encoded once: the payload of `large` holds that of `small` as it is
    (its `base`) and, beside it, only what `small` does not reach. The payload of `small` is what
    `dumps` of it gives; reading either back gives what reading `dumps` of it would."""
    from .snapshot_writer import Writer
    small_payload, large_payload = Writer(False).payloads([small, large])
    return small_payload, large_payload


# ----------------------------------------------------------------------------- reading

def loads(payload: bytes) -> list:
    """The roots of a snapshot written by `dumps`. SnapshotError when it is not one, names a
    class outside the allowed ones, or does not fit the classes as they are now."""
    try:
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("snapshot") != VERSION:
            raise SnapshotError("not a snapshot of this version")
        base = data.get("base")
        if base is None:
            return _decode(data, [], [])
        if not isinstance(base, dict) or base.get("snapshot") != VERSION or "base" in base:
            raise SnapshotError("a base that is not a snapshot of this version")
        objs: list = []
        classes: list = []
        _decode(base, objs, classes)
        return _decode(data, objs, classes)
    except SnapshotError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        raise SnapshotError(f"damaged snapshot: {type(e).__name__}: {e}") from None


def _decode(data: dict, objs: list, classes: list) -> list:
    """The roots of the payload `data`; over a base already decoded, `objs` and `classes` are
    what it holds, to which `data`'s own are added (its scalars and objects numbered after them)."""
    table = allowed()
    for name, kind, fields, at, *inline in data["classes"]:
        found = table.get(name)
        if found is None or found[1] != kind:
            raise SnapshotError(f"a snapshot may not hold {name}")
        cls = found[0]
        args = inline_field(cls, kind)
        if fields != _fields(cls, kind) or at != loc_field(cls, kind) or (args is None) != (not inline):
            raise SnapshotError(f"{name} has other fields now")
        if args is not None:    # [the arguments' field, how many]
            if len(inline) != 1 or inline[0][0] != args or type(inline[0][1]) is not int or inline[0][1] < -1:
                raise SnapshotError(f"{name} has other fields now")
            args = (fields.index(args), inline[0][1])
        classes.append((cls, kind, tuple(fields), None if at is None else fields.index(at), args))
    scalars = data["scalars"]
    if any(type(s) not in _SCALARS for s in scalars):
        raise SnapshotError("a scalar that is not one")
    objs.extend(scalars)
    n_scalars = len(objs)
    get = objs.__getitem__
    for no, count, cols in data["groups"]:
        cls, kind, names, at, args = classes[no]
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
        columns: list = []
        made: dict = {}         # field's index -> its column, made here
        if kind in ("model", "ntuple") and len(refs) != len(names) + (at is not None) * 2 + (
                0 if args is None else _width(args[1]) - 1):
            raise SnapshotError(f"{_name(cls)}: wrong number of fields")
        if at is not None:      # its Loc, as the last three columns of its fields
            files = _files(refs[-3], count, n_scalars, get)
            made[at] = _located(files, refs[-2:], count, n_scalars, get)
            refs = refs[:-3]
        if args is not None:    # its arguments, the columns before: five per atom
            ix, width = args
            if width == -1:
                made[ix] = map(get, refs[-1])
            elif width == 0:
                made[ix] = repeat((), count)
            elif at is None:
                raise SnapshotError(f"{_name(cls)}: arguments written inline without a location")
            else:
                block = refs[len(refs) - _width(width):]
                made[ix] = zip(*[map(_tnew, repeat(_Atom, count),
                                     zip(map(get, c[0]), map(get, c[1]), _located(files, c[3:], count, n_scalars, get),
                                         map(get, c[2])))
                                 for c in (block[j:j + _ATOM_COLUMNS] for j in range(0, len(block), _ATOM_COLUMNS))])
            refs = refs[:len(refs) - _width(width)]
        if kind in ("model", "ntuple"):
            columns = [map(get, c) for c in refs]
            for i in sorted(made):
                columns.insert(i, made[i])
        if kind == "tuple":
            objs.extend(map(tuple, map(map, repeat(get, count), cols)))
        elif kind == "list":
            objs.extend(map(list, map(map, repeat(get, count), cols)))
        elif kind == "dict":
            objs.extend(map(dict, map(zip, map(get, cols[0]), map(get, cols[1]))))
        elif kind == "ntuple":
            if len(columns) != len(names):
                raise SnapshotError(f"{_name(cls)}: wrong number of fields")
            objs.extend(map(_tnew, repeat(cls, count), zip(*columns)))
        elif kind == "enum":
            objs.extend(map(cls, map(get, cols[0])))
        elif kind == "value":
            objs.extend(starmap(cls, map(get, cols[0])))
        else:   # a model: its fields, then the mask of the fields that were given
            masks = cols[-1]
            if len(columns) != len(names):
                raise SnapshotError(f"{_name(cls)}: wrong number of fields")
            new = list(map(_new, repeat(cls, count)))
            dicts = map(dict, map(zip, repeat(names, count), zip(*columns)))
            given = {m: frozenset(f for j, f in enumerate(names) if m >> j & 1) for m in set(masks)}
            _all(map(_set, new, repeat("__dict__", count), dicts))
            if (getattr(cls, "model_config", None) or {}).get("frozen"):
                # one set per class and mask, shared: a frozen model's fields are never set, and
                # a copy (model_copy) copies the set before it adds to it (pydantic's and Plain's)
                shared = {m: set(f) for m, f in given.items()}
                _all(map(_set, new, repeat("__pydantic_fields_set__", count), map(shared.__getitem__, masks)))
            else:
                _all(map(_set, new, repeat("__pydantic_fields_set__", count), map(set, map(given.__getitem__, masks))))
            _all(map(_set, new, repeat("__pydantic_extra__", count), repeat(None, count)))
            _all(map(_set, new, repeat("__pydantic_private__", count), repeat(None, count)))
            objs.extend(new)
        if len(objs) != top + count:
            raise SnapshotError("a group of the wrong size")
    return [objs[r] for r in data["roots"]]


def _files(column: list, count: int, n_scalars: int, get) -> list[str]:
    """The files of a group's `count` locations, from a column of this payload's scalars."""
    if count and max(column) >= n_scalars:
        raise SnapshotError("a location that is not one")
    # (over a base, an index below this payload's scalars may name one of the base's
    # objects: the type below rules them out, as no object decoded is a plain str)
    files = list(map(get, column))
    if count and set(map(type, files)) != {str}:
        raise SnapshotError("a location that is not one")
    return files


def _located(files: list, columns: list, count: int, n_scalars: int, get) -> Iterable[_Loc]:
    """The locations of a group's `count` instances, from their `files` and two columns of this
    payload's scalars: line, column."""
    ll, lc = columns
    if count and (max(ll) >= n_scalars or max(lc) >= n_scalars):
        raise SnapshotError("a location that is not one")
    # (as in `_files`: the types rule out the base's objects)
    ll, lc = list(map(get, ll)), list(map(get, lc))
    if count and (set(map(type, ll)) != {int} or set(map(type, lc)) != {int}):
        raise SnapshotError("a location that is not one")
    return map(_tnew, repeat(_Loc, count), zip(files, ll, lc))


_ATOM_COLUMNS = 5       # an argument written inline: its atom's kind, value, unit, line, column


def _width(count: int) -> int:
    """How many columns a group's arguments take: five per argument, one for a reference (-1)."""
    return 1 if count == -1 else _ATOM_COLUMNS * count
