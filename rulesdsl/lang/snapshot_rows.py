"""Row makers for the snapshot writer (lang/snapshot_writer.py), one per class, written as Python
source from the class's fields and compiled once, as `dataclasses` and `namedtuple` write their
methods: a model's or a named tuple's row made field by field, without the generic walk's loop
over its parts and its chain of type tests per part.

A maker does exactly what the writer's generic `visit` does for an instance of its class — the same
scalars registered in the same order, the same children visited in the same order, the same row,
height, fields-given mask and argument count — and nothing else: each field's value is tested first
for the type its annotation declares (a `str` field for a str, an optional one for None, a node's
field for an object already walked), and any value of another type is handed to the generic
handling of one part (`part`), so a wrong annotation costs time, never a different byte. An
instance of an unexpected shape (a location that is not a `Loc` of a str and two ints, arguments
that are not a tuple of atoms located in their owner's file, a model with extra or private
attributes) is handed whole to the generic `visit` before anything is registered.

Only the classes of the syntax model reach this (`snapshot_classes.allowed`), and only their field
names and the kinds of their annotations are written into the source: nothing read from a snapshot
or a file does."""

from __future__ import annotations

from typing import Callable, Optional

from .snapshot_classes import _Atom, _Loc, _fields, _written, inline_field, loc_field

_FACTORIES: dict[type, Optional[Callable]] = {}

# Compiling a maker costs 0.15-0.9 ms (~80,000 instructions a line of its source, most of them
# Python's parser), about what a thousand of its rows save: a class's maker is made once the
# generic walk has written a hundred of its rows in this process, so that encoding a few files
# (a question's) compiles nothing, and a large encoding loses little to the wait (at 1,000 rows,
# a 300-card corpus's encoding saved 1.9 % of its instructions instead of 6.2 %).
ROWS_BEFORE_MAKER = 100
GENERIC_ONLY = False        # every row by the generic walk (what the tests compare the makers with)
_WRITTEN: dict[type, int] = {}


def written(cls: type) -> int:
    """How many rows of `cls` the generic walk has written in this process (while counted)."""
    return _WRITTEN.get(cls, 0)


def wrote(cls: type) -> int:
    """One more row of `cls` written generically; how many now."""
    n = _WRITTEN[cls] = _WRITTEN.get(cls, 0) + 1
    return n


def factory(cls: type, kind: str) -> Optional[Callable]:
    """The function that makes `cls`'s row maker over one writer's tables (see `_source`), made
    once per class; None for a class the generic walk writes (not a model or a named tuple)."""
    found = _FACTORIES.get(cls, False)
    if found is False:
        found = _FACTORIES[cls] = _compile(cls, kind) if kind in ("model", "ntuple") else None
    return found


def _hint(cls: type, f: str) -> str:
    """The type a field's values are tested for first: "str", "int", "bool", "node" (an object of the
    model, or a tuple of them), None then one of those ("none_str", "none_node"), or "other"."""
    w = _written(cls, f)
    s = getattr(w, "__forward_arg__", w)
    if not isinstance(s, str):
        return "other"
    if s == "str" or s.startswith("Literal["):
        return "str"
    if s == "int":
        return "int"
    if s == "bool":
        return "bool"
    if s.startswith("Optional["):
        inner = s[len("Optional["):-1]
        return "none_str" if inner == "str" or inner.startswith("Literal[") else "none_node"
    if s.startswith("tuple[") or (s.isidentifier() and s[:1].isupper()):
        return "node"
    return "other"


# Each part's code: its value in `{v}`, its entry left in `{e}` (an object's reference is below
# zero), the tallest child's height in `h`. A value the first test does not find — a scalar seen
# for the first time, a value of another type — goes to `part`, the generic walk's handling of one
# part (a str field's new str is registered in place, as `part` registers it); an object not yet
# walked to its class's maker.
_FIRST = {
    "str": "{e} = strs_get({v}) if type({v}) is str else None",
    "int": "{e} = ints_get({v}) if type({v}) is int else None",
    "str_int": "{e} = strs_get({v}) if type({v}) is str else ints_get({v}) if type({v}) is int else None",
    "bool": "{e} = others_get({v}) if type({v}) is bool else None",     # (a bool is its own key there)
    "none_str": "{e} = others_get(NONE_KEY) if {v} is None else strs_get({v}) if type({v}) is str else None",
    "node": "{e} = memo_get(id({v}))",
    "none_node": "{e} = others_get(NONE_KEY) if {v} is None else memo_get(id({v}))",
    "other": "{e} = None",
}
_THEN = {
    "str": """\
if {e} is None:
    if type({v}) is str:
        {e} = strs[{v}] = len(scalars)
        scalars_append({v})
    else:
        {e} = part({v})
        if {e} < 0 and heights[~{e}] > h:
            h = heights[~{e}]""",
    "scalar": """\
if {e} is None:
    {e} = part({v})
    if {e} < 0 and heights[~{e}] > h:
        h = heights[~{e}]""",
    "node": """\
if {e} is None:
    m = makers_get(type({v}))
    {e} = part({v}) if m is None else m({v})
if {e} < 0 and heights[~{e}] > h:
    h = heights[~{e}]""",
}

# An int's entry, the int known to be one.
_INT = """\
{e} = ints_get({v})
if {e} is None:
    {e} = ints[{v}] = len(scalars)
    scalars_append({v})"""

# The location's three scalars (`a`, `b`, `d`: its file, line and column), as the generic walk
# registers them, after every other part.
_LOC = """\
a = strs_get(file)
if a is None:
    a = strs[file] = len(scalars)
    scalars_append(file)
""" + _INT.format(v="line", e="b") + "\n" + _INT.format(v="col", e="d")

# Arguments written inline (`inline_field`): checked first, whole, as `_atoms` checks them.
_ARGS_CHECK = """\
if type(args) is not tuple:
    return generic(v)
for c in args:
    if type(c) is not Atom:
        return generic(v)
    c = c[2]
    if type(c) is not Loc:
        return generic(v)
    at, ln, co = c
    if type(at) is not str or type(ln) is not int or type(co) is not int or (at is not file and at != file):
        return generic(v)"""


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line for line in text.splitlines())


def _code(hint: str, value: str, entry: str, n: int) -> str:
    """The code registering `value` (a local name) as one part whose entry is `entry`."""
    then = _THEN["node" if hint in ("node", "none_node") else
                 "str" if hint in ("str", "none_str") else "scalar"]
    return _indent(_FIRST[hint].format(v=value, e=entry) + "\n" + then.format(v=value, e=entry), n)


def _source(cls: type, kind: str) -> str:
    fields = _fields(cls, kind)
    at, ix = loc_field(cls, kind), inline_field(cls, kind)
    others = [f for f in fields if f != at and f != ix]
    lines = ["def make(v):"]
    if kind == "model":
        lines += ["    try:",              # (the generic walk's two getattr, as slot reads)
                  "        if v.__pydantic_extra__ or v.__pydantic_private__:",
                  "            return generic(v)",
                  "    except AttributeError:",
                  "        return generic(v)",
                  "    d = v.__dict__"]
        # read in the generic walk's order (its other fields, then its location, then arguments)
        read = [f"    f{j} = d[{f!r}]" for j, f in enumerate(others)]
        if at is not None:
            read.append(f"    loc = d[{at!r}]")
        if ix is not None:
            read.append(f"    args = d[{ix!r}]")
        lines += read
    else:
        names = {f: f"f{others.index(f)}" for f in others}
        names.update({at: "loc", ix: "args"} if ix is not None else {at: "loc"})
        lines.append("    " + "".join(names.get(f, "_") + ", " for f in fields) + "= v")
    if at is not None:
        lines += ["    if type(loc) is not Loc:",
                  "        return generic(v)",
                  "    file, line, col = loc",
                  "    if type(file) is not str or type(line) is not int or type(col) is not int:",
                  "        return generic(v)"]
    if ix is not None:
        if at is None:
            return ""           # arguments inline need the owner's location: the generic walk
        lines.append(_indent(_ARGS_CHECK, 4))
    lines.append("    h = 0")
    for j, f in enumerate(others):
        lines.append(_code(_hint(cls, f), f"f{j}", f"e{j}", 4))
    entries = [f"e{j}" for j in range(len(others))]
    if ix is not None:
        lines.append("    row = [" + "".join(x + ", " for x in entries) + "]")
        lines += ["    for c in args:",
                  "        kd, vl, al, ut = c",
                  "        al, ln, co = al",
                  _code("str", "kd", "ek", 8),
                  _code("str_int", "vl", "ev", 8),
                  _code("none_str", "ut", "eu", 8),
                  _indent(_INT.format(v="ln", e="el") + "\n" + _INT.format(v="co", e="ec"), 8),   # ints: checked
                  "        row += (ek, ev, eu, el, ec)"]
    if at is not None:
        lines.append(_indent(_LOC, 4))
        if ix is not None:
            lines.append("    row += (a, b, d)")
        else:
            entries += ["a", "b", "d"]
    if ix is None:              # a tuple: what reads a row only indexes and iterates it
        lines.append("    row = (" + "".join(x + ", " for x in entries) + ")")
    lines += ["    pos = len(heights)",
              "    rows_append(row)",
              "    heights_append(h + 1)"]
    if kind == "model":
        lines += ["    fs = v.__pydantic_fields_set__",
                  "    masks_append(FULL if fs == FULL_SET else sum(map(bits_get, fs)))"]
    else:
        lines.append("    masks_append(0)")
    # its group's list, found by height (and arguments' count) in the maker's own table, the
    # writer's shared one (keyed by height and class, as `add` keys it) asked only the first time
    key, mine = ("(CLS, len(args))", "(h, len(args))") if ix is not None else ("CLS", "h")
    lines += [f"    g = mine_get({mine})",
              "    if g is None:",
              f"        g = mine[{mine}] = groups.setdefault((h + 1, {key}), [])",
              "    g.append(pos)"]
    lines += ["    r = memo[id(v)] = ~pos",
              "    return r"]
    return "\n".join(lines)


_TABLES = "strs, ints, others, scalars, memo, rows, heights, masks, groups, makers, part, generic, NONE_KEY"


def _compile(cls: type, kind: str) -> Optional[Callable]:
    body = _source(cls, kind)
    if not body:
        return None
    src = (f"def factory({_TABLES}):\n"
           "    strs_get, ints_get, others_get, memo_get, makers_get = strs.get, ints.get, others.get, memo.get, makers.get\n"
           "    mine = {}\n"
           "    mine_get = mine.get\n"
           "    scalars_append, rows_append = scalars.append, rows.append\n"
           "    heights_append, masks_append = heights.append, masks.append\n"
           + _indent(body, 4) + "\n"
           "    return make\n")
    bits = {f: 1 << j for j, f in enumerate(cls.model_fields)} if kind == "model" else {}
    namespace = {"Loc": _Loc, "Atom": _Atom, "CLS": cls, "FULL": sum(bits.values()), "FULL_SET": frozenset(bits),
                 "bits_get": bits.__getitem__, "__builtins__": __builtins__}
    exec(compile(src, f"<snapshot row maker of {cls.__qualname__}>", "exec"), namespace)
    return namespace["factory"]
