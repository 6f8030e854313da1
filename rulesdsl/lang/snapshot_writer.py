"""Writing a snapshot (rulesdsl/lang/snapshot.py describes its layout and reads it back): one walk
over the objects of one or more sets of roots, then each payload's columns and JSON. Apart from
the reading side, so that a process that only reads a snapshot (an `ask` of unchanged files, the
browser) does not import it."""

from __future__ import annotations

import json
from bisect import bisect_left
from functools import lru_cache
from itertools import chain, cycle, repeat
from operator import add, itemgetter
from typing import Callable, NamedTuple, Optional

from .snapshot_classes import (VERSION, SnapshotError, _SCALAR_SET, _Atom, _Loc, _all, _fields, _name, allowed,
                               inline_field, loc_field)
from . import snapshot_rows
from .snapshot_rows import factory, written, wrote

_NONE_KEY = None    # None's key among the scalars (see `Writer.scalar`): itself, hashed and compared at once


def _layout(cls: type, kind: str) -> tuple:
    """How a row of `cls` is read from an instance: (the getter of its other parts, as a
    tuple, from a model's __dict__ or a named tuple; its Loc field's key or index, or None; its
    arguments' (written inline, see `inline_field`) key or index, or None)."""
    fields = _fields(cls, kind)
    at, args = loc_field(cls, kind), inline_field(cls, kind)
    if kind == "model":
        return _getter([f for f in fields if f != at and f != args]), at, args
    if at is None and args is None:
        return None, None, None
    at, args = (None if f is None else fields.index(f) for f in (at, args))
    return _getter([j for j in range(len(fields)) if j != at and j != args]), at, args


class Writer:
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
        self.others: dict = {}            # floats by (type, repr): 0.0 and -0.0 differ; bools, None by themselves
        self.memo: dict[int, int] = {}    # id(object) -> its reference (~position)
        self.kept: list = []              # what the walk made and visited (a date's arguments): kept alive
        self.rows: list = []
        self.heights: list[int] = []
        self.masks: list[int] = []        # a model's fields given, as bits (else 0)
        # (height, class), or (height, (class, how many arguments its rows hold inline; -1: a reference))
        # -> the positions of its objects, in order: the payload's groups
        self.groups: dict[tuple, list[int]] = {}
        self._numerals: list[str] = []
        self.makers: dict = {}
        self._visit, self._unlink = self._visitor()

    def scalar(self, c) -> int:
        t = type(c)
        if t is str or t is int:
            table, key = (self.strs if t is str else self.ints), c
        else:
            table, key = self.others, (c if c is None or t is bool else (t, repr(c)))
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
        two million nodes); and the function that unlinks the walk's closures (`release`).
        A node's row is made by its class's maker (compiled per class, lang/snapshot_rows.py),
        a tuple's by `tuple_row`, any other's by `generic`, which they hand odd shapes to."""
        kinds, loose, layouts, all_bits = self.kinds, self.loose, self.layouts, self.bits
        strs, ints, scalars, memo, others = self.strs, self.ints, self.scalars, self.memo, self.others
        kept, rows, heights, masks, scalar = self.kept, self.rows, self.heights, self.masks, self.scalar
        groups = self.groups
        groups_get = groups.get
        last_file = last_a = None       # the last location's file, and its scalar's index
        makers: dict[type, Callable] = self.makers   # class -> its row maker (lang/snapshot_rows.py)
        makers_get, memo_get, strs_get, ints_get = makers.get, memo.get, strs.get, ints.get
        scalars_append = scalars.append

        def visit(v) -> int:
            """A node's reference, its row made by its class's maker (made on first sight)."""
            m = makers_get(type(v))
            if m is None:
                m = made(type(v))
            return m(v)

        def made(t: type) -> Callable:
            kind = kinds.get(t)
            if kind is None:
                return generic          # not cached: a loose str, or refused
            if snapshot_rows.GENERIC_ONLY:
                m = generic
            elif kind == "tuple":
                m = tuple_row
            elif kind == "value":
                m = value_row
            elif kind not in ("model", "ntuple"):
                m = generic
            elif written(t) < snapshot_rows.ROWS_BEFORE_MAKER:
                m = counted(t, kind)
            else:
                m = maker(t, kind)
            makers[t] = m
            return m

        def maker(t: type, kind: str) -> Callable:
            f = factory(t, kind)
            return generic if f is None else f(strs, ints, others, scalars, memo, rows, heights, masks,
                                               groups, makers, part, generic, _NONE_KEY)

        def counted(t: type, kind: str) -> Callable:
            """`generic`, counting the class's rows written in this process until its maker is
            worth compiling (lang/snapshot_rows.py)."""
            def count(v) -> int:
                r = generic(v)
                if wrote(t) >= snapshot_rows.ROWS_BEFORE_MAKER:
                    makers[t] = maker(t, kind)
                return r
            return count

        def part(c) -> int:
            """One part's entry in its owner's row: a scalar's index, or an object's reference."""
            tc = type(c)
            table = strs if tc is str else ints if tc is int else None
            if table is not None:
                i = table.get(c)
                if i is None:
                    i = table[c] = len(scalars)
                    scalars_append(c)
                return i
            if c is None:
                i = others.get(_NONE_KEY)
                return scalar(None) if i is None else i
            r = memo_get(id(c))
            if r is None:
                if tc in _SCALAR_SET:
                    return scalar(c)
                r = visit(c)
            return r

        tuple_groups: dict[int, list] = {}  # a tuple's tallest child's height -> its group's positions
        tuple_groups_get = tuple_groups.get
        rows_append, heights_append, masks_append = rows.append, heights.append, masks.append

        def tuple_row(v) -> int:
            """A tuple's row: `generic`'s loop, its children's makers called directly; then what
            `add` does, its group found by height alone."""
            h = 0
            if len(v) == 1:             # (two tuples in five: the loop's set-up without the loop)
                c = v[0]
                r = strs_get(c) if type(c) is str else None
                if r is None:
                    r = memo_get(id(c))
                    if r is None:
                        m = makers_get(type(c))
                        r = part(c) if m is None else m(c)
                    if r < 0:
                        h = heights[~r]
                row = [r]
            else:
                row = []
                append = row.append
                for c in v:
                    if type(c) is str:
                        r = strs_get(c)
                        if r is not None:
                            append(r)
                            continue
                    r = memo_get(id(c))
                    if r is None:
                        m = makers_get(type(c))
                        r = part(c) if m is None else m(c)
                    if r < 0 and heights[~r] > h:
                        h = heights[~r]
                    append(r)
            pos = len(heights)
            rows_append(row)
            heights_append(h + 1)
            masks_append(0)
            g = tuple_groups_get(h)
            if g is None:
                g = tuple_groups[h] = groups.setdefault((h + 1, tuple), [])
            g.append(pos)
            r = memo[id(v)] = ~pos
            return r

        def value_row(v) -> int:
            """A value's row (a date): the tuple of its constructor's arguments, as `generic` writes it."""
            t = type(v)
            fn, args = v.__reduce__()[:2]
            if fn is not t:
                return generic(v)       # refused there
            c = tuple(args)
            kept.append(c)
            r = memo_get(id(c))
            if r is None:
                m = makers_get(type(c))
                r = part(c) if m is None else m(c)
            return add(v, (r,), heights[~r] if r < 0 else 0, 0, t)

        def add(v, row, h: int, mask: int, of) -> int:
            """`v` written: its position, row, height (its tallest child's `h` + 1), fields-given
            mask and group (`of`: its class, or its class and arguments' count); its reference."""
            pos = len(heights)
            rows.append(row)
            heights.append(h + 1)
            masks.append(mask)
            k = (h + 1, of)
            g = groups_get(k)
            if g is None:
                groups[k] = [pos]
            else:
                g.append(pos)
            r = memo[id(v)] = ~pos
            return r

        def generic(v) -> int:
            """Any node's reference, its row made part by part from its class's layout."""
            nonlocal last_file, last_a
            t = type(v)
            kind = kinds.get(t)
            if kind is None:
                if loose and isinstance(v, str):
                    return scalar(str(v))
                raise SnapshotError(f"a snapshot cannot hold a {t.__module__}.{t.__qualname__}")
            mask = 0
            at = ix = None
            if kind == "model":
                if getattr(v, "__pydantic_extra__", None) or getattr(v, "__pydantic_private__", None):
                    raise SnapshotError(f"{_name(t)}: extra or private attributes are not kept")
                lay = layouts.get(t)
                if lay is None:
                    lay = layouts[t] = _layout(t, kind)
                    all_bits[t] = {f: 1 << j for j, f in enumerate(t.model_fields)}
                get, at, ix = lay
                d = src = v.__dict__
                p = get(d)
                if at is not None:
                    at = d[at]
                mask = sum(map(all_bits[t].__getitem__, v.__pydantic_fields_set__))
            elif kind == "ntuple":
                lay = layouts.get(t)
                if lay is None:
                    lay = layouts[t] = _layout(t, kind)
                get, at, ix = lay
                if get is None:
                    p = v
                else:
                    p = get(v)
                    src = v
                    if at is not None:
                        at = v[at]
            elif kind in ("tuple", "list"):
                p = v
            else:
                p = _parts(v, t, kind)
                kept.append(p)                  # (what it made: a date's arguments, a dict's keys and values)
            if ix is not None:                  # its arguments, inline: their atoms' fields are parts
                a = src[ix]
                inline = _atoms(a, at[0]) if type(a) is tuple and type(at) is _Loc else None
                if inline is not None:
                    p += inline
                    width = len(a)
                else:
                    p += (a,)
                    width = -1
            row = []
            append = row.append
            h = 0
            for c in p:
                r = part(c)
                if r < 0 and heights[~r] > h:   # (r >= 0: a scalar, or a str subclass written as a str)
                    h = heights[~r]
                append(r)
            if at is not None:                  # its Loc, as three scalars of its own row
                if type(at) is not _Loc:
                    raise SnapshotError(f"{_name(t)}: a location that is not a Loc")
                file, line, col = at
                if type(file) is not str or type(line) is not int or type(col) is not int:
                    raise SnapshotError(f"{_name(t)}: a location that is not a Loc")
                if file is not last_file:       # a document's nodes share their file's str
                    a = strs.get(file)
                    if a is None:
                        a = strs[file] = len(scalars)
                        scalars.append(file)
                    last_file, last_a = file, a
                else:
                    a = last_a
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
            return add(v, row, h, mask, t if ix is None else (t, width))

        def unlink() -> None:
            """The walk's functions call each other through the cells of this closure: emptied,
            nothing of the walk is left in a cycle (see `release`)."""
            nonlocal visit, made, maker, counted, part, tuple_row, value_row, add, generic
            visit = made = maker = counted = part = tuple_row = value_row = add = generic = None
            tuple_groups.clear()
        return visit, unlink

    def numerals(self, n: int) -> list[str]:
        """str(i) for every i below `n` (at least), made once per walk."""
        have = self._numerals
        if len(have) < n:
            _numerals(have, n)
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
        for table in (self.scalars, self.strs, self.ints, self.others, self.memo, self.kept, self.rows,
                      self.heights, self.masks, self.groups, self.layouts, self.bits, self._numerals,
                      self.makers):
            table.clear()
        self._unlink()
        self._visit = self._unlink = None

    def _payloads(self, root_sets: list) -> list[bytes]:
        marks = []              # per set of roots: (its references, objects, scalars so far)
        try:
            for roots in root_sets:
                refs = [self.ref(r) for r in roots]
                marks.append((refs, len(self.heights), len(self.scalars)))
        except RecursionError:
            raise SnapshotError("nested too deep for a snapshot") from None
        groups = self.groups
        keys = sorted(groups, key=_order)
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
        for (_, key), g in chosen:
            cls, width = key if type(key) is tuple else (key, None)
            kind = kinds[cls]
            if key not in class_no:
                class_no[key] = len(class_no)
                entry = [_name(cls), kind, _fields(cls, kind), loc_field(cls, kind)]
                if width is not None:
                    entry.append([inline_field(cls, kind), width])
                classes.append(entry)
            grows = list(map(rows.__getitem__, g))
            if kind in ("tuple", "list"):          # a column per instance
                cols = list(map(join, map(map, repeat(get), grows)))
            else:
                if len(set(map(len, grows))) != 1:
                    raise SnapshotError(f"{_name(cls)}: instances of different shapes")
                # every entry's numeral, row after row, in one C-level map; each column then every
                # width-th of them, a slice (rather than a map, and the list join makes of it, per
                # column of zip's)
                texts = list(map(get, chain.from_iterable(grows)))
                cols = list(map(join, map(texts.__getitem__, _slices(len(grows[0])))))
                if kind == "model":
                    cols.append(join(map(repr, map(masks.__getitem__, g))))     # (an int's repr is its str)
            cols_text = "[" + "],[".join(cols) + "]" if cols else ""
            out_groups.append(f"[{class_no[key]},{len(g)},[{cols_text}]]")
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


_DIGITS = tuple("0123456789")


def _numerals(have: list, n: int) -> None:
    """`have`, str(i) for every i below its length, extended to `n` at least: past 9, ten numerals
    at a time, each the numeral of i // 10 followed by a digit — a C-level concatenation, about a
    third of what converting each int costs."""
    if len(have) < 10:
        have.extend(map(repr, range(len(have), 10)))        # (an int's repr is its str)
    while len(have) < n:
        lo = len(have)              # a multiple of ten
        hi = min(-(-n // 10) * 10, lo * 10)
        tens = chain.from_iterable(map(repeat, have[lo // 10:hi // 10], repeat(10)))
        have.extend(map(add, tens, cycle(_DIGITS)))


def _atoms(args: tuple, file) -> Optional[tuple]:
    """The parts of a clause's arguments written inline: each atom's kind, value, unit and its
    location's line and column (see snapshot.py; its file is its owner's, `file`); None when one
    is not an atom with a location in that file (the arguments are then a node, as any tuple)."""
    out: tuple = ()
    for atom in args:
        if type(atom) is not _Atom:
            return None
        kind, value, loc, unit = atom
        if type(loc) is not _Loc:
            return None
        at, line, col = loc
        if type(at) is not str or type(line) is not int or type(col) is not int or (at is not file and at != file):
            return None
        out += (kind, value, unit, line, col)
    return out


class _Table(NamedTuple):
    """How a payload numbers what it holds: by scalar, its index; by object position, its index
    (None past the payload's objects); the classes' numbers; how many entries in all."""
    scalars: list
    final: list
    class_no: dict
    size: int


class _Base(NamedTuple):
    """A payload a later one is written over (see `Writer.payload`)."""
    payload: bytes
    n_nodes: int
    n_scalars: int
    table: _Table


def _order(key: tuple) -> tuple:
    """The groups' order: by height, then by class name and arguments' count."""
    height, of = key
    return (height, _name(of[0]), of[1]) if type(of) is tuple else (height, _name(of), -2)


@lru_cache(maxsize=None)
def _slices(width: int) -> tuple:
    """The slices that take each column out of a group's entries laid row after row, `width` a row."""
    return tuple(slice(j, None, width) for j in range(width))


def _getter(fields: list):
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
