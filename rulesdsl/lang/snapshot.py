"""A safe, compact snapshot of parsed nodes (and of plain data), in JSON.

Reading one back constructs only the classes of `rulesdsl.lang.model` (its pydantic models, named
tuples and enums, and the value classes it uses, such as `PartialDate`) and plain tuples,
lists and dicts; it calls no other code and unpickles nothing. What is allowed is derived from
the model module itself, so a field or a node type added there is covered without a change here.

The layout is columnar so that reading is mostly C-level `map` calls rather than a Python call
per node (a knowledge base of 10,000 cards has about 800,000 nodes):

- `scalars`: every distinct str, int, float, bool and None, once;
- `classes`: per class, its name, kind, fields, and the field written inline as a location
  (below), if any;
- `groups`: the objects, grouped by class and by height (a node's height is one more than its
  tallest child's), lowest first, each group a column per field holding indices into the table
  of everything decoded so far (the scalars, then the groups in order). A node's own location
  (the field declared `loc: Loc`, which nearly every node has) is not a node of its own but the
  group's last three columns, its file, line and column as scalars (version 2: locations were
  two fifths of the nodes); an optional location is a node like any other;
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

import enum
import json
from bisect import bisect_left
from itertools import repeat, starmap
from operator import itemgetter
from typing import Any, Iterable, NamedTuple, Optional

from ..base.declared import BaseModel
from ..base.record import own_annotations
from . import model

VERSION = 2
_SCALARS = (str, int, float, bool, type(None))
_SCALAR_SET = frozenset(_SCALARS)
_new = object.__new__
_set = object.__setattr__
_tnew = tuple.__new__
_Loc = model.Loc
_Atom = model.Atom
_NONE_KEY = (type(None), "None")    # None's key among the scalars (see `_Writer.scalar`)


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


def _loc_field(cls: type, kind: str) -> Optional[str]:
    """The field of `cls` written in its owner's row as three columns (file, line, column)
    rather than as a node of its own: the first one declared a `Loc` (not an optional one).
    Nearly every node has one: inline, they are two fifths of the nodes fewer to walk and write.
    (Read from the annotations as written, which the model module postpones: evaluating them
    would cost a command that reads a snapshot a few milliseconds.)"""
    if kind not in ("model", "ntuple") or cls is _Loc:
        return None
    for f in _fields(cls, kind):
        for c in cls.__mro__:
            written = own_annotations(c)
            if f in written:
                if written[f] is _Loc or getattr(written[f], "__forward_arg__", written[f]) == "Loc":
                    return f
                break
    return None


_LOC_FIELDS: dict[type, Optional[str]] = {}


def loc_field(cls: type, kind: str) -> Optional[str]:
    found = _LOC_FIELDS.get(cls, False)
    if found is False:
        found = _LOC_FIELDS[cls] = _loc_field(cls, kind)
    return found


def _layout(cls: type, kind: str) -> tuple:
    """How a row of `cls` is read from an instance: (the getter of its other parts, as a
    tuple, from a model's __dict__ or a named tuple; its Loc field's key or index, or None)."""
    fields = _fields(cls, kind)
    at = loc_field(cls, kind)
    if kind == "model":
        return _getter([f for f in fields if f != at]), at
    if at is None:
        return None, None
    i = fields.index(at)
    return _getter([j for j in range(len(fields)) if j != i]), i


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
    return _Writer(loose).payloads([roots])[0]


def dumps_nested(small: Iterable[Any], large: Iterable[Any]) -> tuple[bytes, bytes]:
    """The snapshots of `small` and of `large`, from one walk: what the two share (the parse
    snapshot's outline shares everything but the worked questions' bodies with the documents)
    is visited once, and encoded once: the payload of `large` holds that of `small` as it is
    (its `base`) and, beside it, only what `small` does not reach. The payload of `small` is what
    `dumps` of it gives; reading either back gives what reading `dumps` of it would."""
    small_payload, large_payload = _Writer(False).payloads([small, large])
    return small_payload, large_payload


class _Writer:
    """One walk over the objects of one or more sets of roots, children before parents.

    Each object gets a position in the order of the walk; its row holds, for each of its parts,
    the index of a scalar (>= 0) or the bitwise complement of the position of an object (< 0),
    so that turning positions into the payload's indices is one C-level `map` per column. A set
    of roots walked after another reaches the objects of the first at lower positions, so the
    payload of the first is a prefix of every group and of the scalars, and the payload of the
    later set is written over it (see `payload`)."""

    def __init__(self, loose: bool) -> None:
        self.loose = loose
        self.kinds = {cls: kind for cls, kind in allowed().values()}
        self.layouts: dict[type, tuple] = {}
        self.bits: dict[type, dict[str, int]] = {}
        self.scalars: list = []
        self.strs: dict = {}
        self.ints: dict = {}
        self.others: dict = {}            # floats (by repr: 0.0 and -0.0 differ), bools, None
        self.memo: dict[int, int] = {}    # id(object) -> its reference (~position)
        self.nodes: list = []             # by position
        self.rows: list = []
        self.heights: list[int] = []
        self.masks: list[int] = []        # a model's fields given, as bits (else 0)
        self._numerals: list[str] = []
        self._visit = self._visitor()

    def scalar(self, c) -> int:
        t = type(c)
        table, key = (self.strs, c) if t is str else (self.ints, c) if t is int else (self.others, (t, repr(c)))
        i = table.get(key)
        if i is None:
            i = table[key] = len(self.scalars)
            self.scalars.append(c)
        return i

    def ref(self, c) -> int:
        t = type(c)
        if t in _SCALAR_SET:
            return self.scalar(c)
        r = self.memo.get(id(c))
        return self._visit(c) if r is None else r

    def visit(self, v) -> int:
        return self._visit(v)

    def _visitor(self):
        """`visit`, as a closure over the walk's tables: a node's visit then reads them as local
        cells instead of a dozen attribute look-ups (a knowledge base of 10,000 cards has about
        two million nodes)."""
        kinds, loose, layouts, all_bits = self.kinds, self.loose, self.layouts, self.bits
        strs, ints, scalars, memo, others = self.strs, self.ints, self.scalars, self.memo, self.others
        nodes, rows, heights, masks, scalar = self.nodes, self.rows, self.heights, self.masks, self.scalar

        def visit(v) -> int:
            t = type(v)
            kind = kinds.get(t)
            if kind is None:
                if loose and isinstance(v, str):
                    return scalar(str(v))
                raise SnapshotError(f"a snapshot cannot hold a {t.__module__}.{t.__qualname__}")
            mask = 0
            at = None
            if kind == "model":
                if getattr(v, "__pydantic_extra__", None) or getattr(v, "__pydantic_private__", None):
                    raise SnapshotError(f"{_name(t)}: extra or private attributes are not kept")
                lay = layouts.get(t)
                if lay is None:
                    lay = layouts[t] = _layout(t, kind)
                    all_bits[t] = {f: 1 << j for j, f in enumerate(t.model_fields)}
                get, at = lay
                d = v.__dict__
                p = get(d)
                if at is not None:
                    at = d[at]
                mask = sum(map(all_bits[t].__getitem__, v.__pydantic_fields_set__))
            elif kind == "ntuple":
                lay = layouts.get(t)
                if lay is None:
                    lay = layouts[t] = _layout(t, kind)
                get, at = lay
                if at is None:
                    p = v
                else:
                    p = get(v)
                    at = v[at]
            elif kind in ("tuple", "list"):
                p = v
            else:
                p = _parts(v, t, kind)
            row = []
            append = row.append
            h = 0
            for c in p:
                tc = type(c)
                if tc is str:                   # the commonest parts, registered inline
                    i = strs.get(c)
                    if i is None:
                        i = strs[c] = len(scalars)
                        scalars.append(c)
                    append(i)
                    continue
                if tc is int:
                    i = ints.get(c)
                    if i is None:
                        i = ints[c] = len(scalars)
                        scalars.append(c)
                    append(i)
                    continue
                if c is None:                   # the commonest after them (no unit, no body, …)
                    i = others.get(_NONE_KEY)
                    append(scalar(None) if i is None else i)
                    continue
                r = memo.get(id(c))
                if r is None:
                    if tc in _SCALAR_SET:
                        append(scalar(c))
                        continue
                    if tc is _Atom:             # a flat Atom (most are), its row made here:
                        ak, av, al, au = c      # what `visit` would make, without the call
                        if type(ak) is str and type(av) is str and au is None and type(al) is _Loc:
                            file, line, col = al
                            if type(file) is str and type(line) is int and type(col) is int:
                                ra = [strs.get(ak), strs.get(av), others.get(_NONE_KEY),
                                      strs.get(file), ints.get(line), ints.get(col)]
                                if None in ra:  # a scalar seen for the first time: in order
                                    ra = [scalar(ak), scalar(av), scalar(None),
                                          scalar(file), scalar(line), scalar(col)]
                                r = ~len(nodes)
                                nodes.append(c)
                                rows.append(ra)
                                heights.append(1)
                                masks.append(0)
                                memo[id(c)] = r
                                if h < 1:
                                    h = 1
                                append(r)
                                continue
                    r = visit(c)
                    if r >= 0:                  # a str subclass written as a str (loose)
                        append(r)
                        continue
                ch = heights[~r]
                if ch > h:
                    h = ch
                append(r)
            if at is not None:                  # its Loc, as three scalars of its own row
                if type(at) is not _Loc or type(at[0]) is not str or type(at[1]) is not int \
                        or type(at[2]) is not int:
                    raise SnapshotError(f"{_name(t)}: a location that is not a Loc")
                file, line, col = at
                a = strs.get(file)
                if a is None:
                    a = strs[file] = len(scalars)
                    scalars.append(file)
                b = ints.get(line)
                if b is None:
                    b = ints[line] = len(scalars)
                    scalars.append(line)
                c = ints.get(col)
                if c is None:
                    c = ints[col] = len(scalars)
                    scalars.append(col)
                append(a)
                append(b)
                append(c)
            pos = len(nodes)
            nodes.append(v)
            rows.append(row)
            heights.append(h + 1)
            masks.append(mask)
            memo[id(v)] = ~pos
            return ~pos
        return visit

    def numerals(self, n: int) -> list[str]:
        """str(i) for every i below `n` (at least), made once per walk."""
        have = self._numerals
        if len(have) < n:
            have.extend(map(str, range(len(have), n)))
        return have

    def payloads(self, root_sets: list) -> list[bytes]:
        try:
            return self._payloads(root_sets)
        finally:
            self.release()

    def release(self) -> None:
        """Let go of what the walk holds (every object it visited, a row of each): the writer
        and its `_visit` closure refer to each other, so without this only the cyclic collector
        would free them — and a cold load runs with it off (at 2,000 cards its eight writers per
        process held 184,000 objects, ~50 MB, until a collection that a wiki build never makes)."""
        for table in (self.scalars, self.strs, self.ints, self.others, self.memo, self.nodes, self.rows,
                      self.heights, self.masks, self.layouts, self.bits, self._numerals):
            table.clear()
        self._visit = None

    def _payloads(self, root_sets: list) -> list[bytes]:
        marks = []              # per set of roots: (its references, objects, scalars so far)
        try:
            for roots in root_sets:
                refs = [self.ref(r) for r in roots]
                marks.append((refs, len(self.nodes), len(self.scalars)))
        except RecursionError:
            raise SnapshotError("nested too deep for a snapshot") from None
        types = list(map(type, self.nodes))
        groups: dict[tuple[int, type], list[int]] = {}
        for pos, key in enumerate(zip(self.heights, types)):
            g = groups.get(key)
            if g is None:
                groups[key] = [pos]
            else:
                g.append(pos)
        keys = sorted(groups, key=lambda k: (k[0], _name(k[1])))
        out: list[bytes] = []
        base: Optional[_Base] = None
        for refs, n_nodes, n_scalars in marks:
            payload, table = self.payload(refs, n_nodes, n_scalars, groups, keys, base)
            out.append(payload)
            base = _Base(payload, n_nodes, n_scalars, table)
        return out

    def payload(self, roots: list[int], n_nodes: int, n_scalars: int, groups: dict, keys: list,
                base: Optional["_Base"] = None) -> tuple[bytes, "_Table"]:
        """The payload of the first `n_nodes` objects and `n_scalars` scalars, and how it numbers
        them. Over a `base` (the payload of a prefix of them), it holds the base's payload as it is
        and, beside it, only what the base does not: the scalars and the objects past the base's,
        numbered after everything the base holds."""
        lo_nodes, lo_scalars = (base.n_nodes, base.n_scalars) if base is not None else (0, 0)
        chosen = []
        for k in keys:
            g = groups[k]
            if g[-1] >= lo_nodes and g[0] < n_nodes:
                lo = bisect_left(g, lo_nodes) if g[0] < lo_nodes else 0
                hi = len(g) if g[-1] < n_nodes else bisect_left(g, n_nodes)
                if lo < hi:
                    chosen.append((k, g if lo == 0 and hi == len(g) else g[lo:hi]))
        if base is None:
            scalar_ix = list(range(n_scalars))              # a scalar's index is itself
            final: list = [None] * n_nodes
            at = n_scalars
            class_no: dict[type, int] = {}
        else:
            size = base.table.size
            scalar_ix = base.table.scalars + list(range(size, size + n_scalars - lo_scalars))
            final = base.table.final + [None] * (n_nodes - lo_nodes)
            at = size + n_scalars - lo_scalars
            class_no = dict(base.table.class_no)
        for _, g in chosen:
            _all(map(final.__setitem__, g, range(at, at + len(g))))
            at += len(g)
        table = _Table(scalar_ix, final[:], class_no, at)
        final.reverse()
        # Each reference written as the numeral of its index, looked up rather than converted
        # (a payload has several references per entry) and joined per column: the text
        # json.dumps would write for the lists of indices, without the lists or its accumulator.
        numerals = self.numerals(at)
        try:
            get = list(map(numerals.__getitem__, scalar_ix + final)).__getitem__   # ~pos: final[pos]
        except TypeError:
            raise SnapshotError("an object outside the payload") from None
        join = ",".join
        rows, masks, kinds = self.rows, self.masks, self.kinds
        classes: list = []
        out_groups = []
        for (_, cls), g in chosen:
            kind = kinds[cls]
            if cls not in class_no:
                class_no[cls] = len(class_no)
                classes.append([_name(cls), kind, _fields(cls, kind), loc_field(cls, kind)])
            grows = list(map(rows.__getitem__, g))
            if kind in ("tuple", "list"):          # a column per instance
                cols = list(map(join, map(map, repeat(get), grows)))
            else:
                if len(set(map(len, grows))) != 1:
                    raise SnapshotError(f"{_name(cls)}: instances of different shapes")
                cols = list(map(join, map(map, repeat(get), zip(*grows))))
                if kind == "model":
                    cols.append(join(map(str, map(masks.__getitem__, g))))
            cols_text = "[" + "],[".join(cols) + "]" if cols else ""
            out_groups.append(f"[{class_no[cls]},{len(g)},[{cols_text}]]")
        head = {"snapshot": VERSION, "classes": classes, "scalars": self.scalars[lo_scalars:n_scalars]}
        try:
            text = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except (ValueError, UnicodeEncodeError) as e:
            raise SnapshotError(str(e)) from None
        # the head's braces dropped by a slice that copies nothing; over a base, the base's
        # payload as written is the first member
        opening = (b'{"base":', base.payload, b",") if base is not None else (b"{",)
        text = b"".join((*opening, memoryview(text)[1:-1], b',"groups":[', ",".join(out_groups).encode("ascii"),
                         b'],"roots":[', join(map(get, roots)).encode("ascii"), b"]}"))
        return text, table


class _Table(NamedTuple):
    """How a payload numbers what it holds: by scalar, its index; by object position, its index
    (None past the payload's objects); the classes' numbers; how many entries in all."""
    scalars: list
    final: list
    class_no: dict
    size: int


class _Base(NamedTuple):
    """A payload a later one is written over (see `_Writer.payload`)."""
    payload: bytes
    n_nodes: int
    n_scalars: int
    table: _Table


def _getter(fields: list[str]):
    """The values of `fields` from a model's __dict__, as a tuple, in one C-level call."""
    if len(fields) == 1:
        f = fields[0]
        return lambda d: (d[f],)
    if not fields:
        return lambda d: ()
    return itemgetter(*fields)


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
    for name, kind, fields, at in data["classes"]:
        found = table.get(name)
        if found is None or found[1] != kind:
            raise SnapshotError(f"a snapshot may not hold {name}")
        cls = found[0]
        if fields != _fields(cls, kind) or at != loc_field(cls, kind):
            raise SnapshotError(f"{name} has other fields now")
        classes.append((cls, kind, tuple(fields), None if at is None else fields.index(at)))
    scalars = data["scalars"]
    if any(type(s) not in _SCALARS for s in scalars):
        raise SnapshotError("a scalar that is not one")
    objs.extend(scalars)
    n_scalars = len(objs)
    get = objs.__getitem__
    for no, count, cols in data["groups"]:
        cls, kind, names, at = classes[no]
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
        if at is not None:      # its Loc, as the last three columns of its fields: made here
            if len(refs) != len(names) + 2:
                raise SnapshotError(f"{_name(cls)}: wrong number of fields")
            lf, ll, lc = refs[-3:]
            if count and (max(lf) >= n_scalars or max(ll) >= n_scalars or max(lc) >= n_scalars):
                raise SnapshotError("a location that is not one")
            # (over a base, an index below this payload's scalars may name one of the base's
            # objects: the types below rule them out, as no object decoded is a plain str or int)
            lf, ll, lc = list(map(get, lf)), list(map(get, ll)), list(map(get, lc))
            if count and (set(map(type, lf)) != {str} or set(map(type, ll)) != {int} or set(map(type, lc)) != {int}):
                raise SnapshotError("a location that is not one")
            columns = [map(get, c) for c in refs[:-3]]
            columns.insert(at, map(_tnew, repeat(_Loc, count), zip(lf, ll, lc)))
        elif kind in ("model", "ntuple"):
            columns = [map(get, c) for c in refs]
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


def _all(it) -> None:
    for _ in it:
        pass
