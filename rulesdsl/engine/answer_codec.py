"""Answers as JSON, for a forked copy of this process to hand back the answers it made
(base.shared_work): `encode(answer)` gives a JSON-able value, `decode(value)` the answer again,
equal to the one encoded field by field, its readings' answers with it.

What an answer holds: records (`Record` subclasses: the answer, its branches, expectations'
results, choice and chance points, readings, odds), citations and steps (slotted), named tuples
(source locations), enums (statuses), dates, fractions, and lists, tuples, dicts, sets. Each
container and object is numbered as it is first met, and met again it is written as a reference:
what is shared stays shared (a branch between two readings' answers, a list between an answer and
its twin under the default reading, a citation between steps), and a cycle comes back a cycle.

A run's branch draws its boards when they are first read (runner `_RunBranch`): encoding reads
them, so they are drawn in the process that encodes, and decoded as drawn. Nothing else is run:
a class is named by its module and name and taken from that module, already imported, only when
it is a record, a named tuple, an enum or one of the slotted classes here, and made without its
constructor (its fields set as they were). Anything else is refused (`CodecError`): the caller
then makes the answer itself rather than receive a different one.
"""

from __future__ import annotations

import datetime as _dt
import sys
from enum import Enum
from fractions import Fraction
from typing import Any, Optional

from ..base.record import Record
from .trace import Cite, Step


class CodecError(ValueError):
    """A value this codec does not carry (or a malformed encoding)."""


_SLOTTED = {Cite: Cite.__slots__, Step: Step.__slots__}
_SCALARS = (str, int, float, bool, type(None))


def encode(value: Any) -> Any:
    """`value` (an answer, or anything an answer holds) as a JSON-able value."""
    return _Encoder().value(value)


def decode(data: Any, strings: Optional[dict[str, str]] = None) -> Any:
    """What `encode` gave, made again. `strings`: the strings decoded so far, each kept once
    (JSON makes a new string at each occurrence: card names, references, sources repeat from
    answer to answer), shared between the calls that pass the same dict."""
    return _Decoder({} if strings is None else strings).value(data)


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class _Encoder:
    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.kept: list = []            # the objects numbered (so that no id is reused meanwhile)

    def value(self, x: Any) -> Any:
        cls = x.__class__
        if cls is str or cls is int or cls is bool or cls is float or x is None:
            return x
        n = self.seen.get(id(x))
        if n is not None:
            return {"@": n}
        how = _HOW.get(cls)
        if how is None:
            how = _HOW[cls] = _how(cls)
        return how(self, x)

    def numbered(self, x: Any) -> None:
        self.seen[id(x)] = len(self.kept)
        self.kept.append(x)

    def list(self, x: list) -> Any:
        self.numbered(x)
        value = self.value
        return [value(v) for v in x]

    def tuple(self, x: tuple) -> Any:
        self.numbered(x)
        value = self.value
        return {"t": [value(v) for v in x]}

    def dict(self, x: dict) -> Any:
        self.numbered(x)
        value = self.value
        for k in x:
            if k.__class__ is not str:
                return {"d": [[value(k), value(v)] for k, v in x.items()]}
        return {"m": {k: value(v) for k, v in x.items()}}

    def set(self, x: Any) -> Any:
        self.numbered(x)
        return {"s" if x.__class__ is set else "f": [self.value(v) for v in x]}

    def record(self, x: Record) -> Any:
        self.numbered(x)
        value = self.value
        return {"r": _name(x.__class__), "v": {k: value(v) for k, v in _record_fields(x).items()}}

    def slotted(self, x: Any) -> Any:
        self.numbered(x)
        value = self.value
        return {"o": _name(x.__class__), "v": [value(getattr(x, s)) for s in _SLOTTED[x.__class__]]}

    def named(self, x: tuple) -> Any:
        self.numbered(x)
        value = self.value
        return {"n": _name(x.__class__), "v": [value(v) for v in x]}

    def enum(self, x: Enum) -> Any:
        return {"e": _name(x.__class__), "v": self.value(x._value_)}

    def fraction(self, x: Fraction) -> Any:
        return {"q": [x.numerator, x.denominator]}

    def date(self, x: _dt.date) -> Any:
        return {"date": x.isoformat()}


def _how(cls: type):
    """How the encoder writes an instance of `cls` (worked out once per class)."""
    exact = _EXACT.get(cls)
    if exact is not None:
        return exact
    for base, how in ((Enum, _Encoder.enum), (Record, _Encoder.record)):
        if issubclass(cls, base):
            return how
    if cls in _SLOTTED:
        return _Encoder.slotted
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return _Encoder.named

    def refused(self, x: Any) -> Any:
        raise CodecError(f"an answer holds a {cls.__qualname__}, which the codec does not carry")
    return refused


_HOW: dict[type, Any] = {}
_EXACT = {list: _Encoder.list, tuple: _Encoder.tuple, dict: _Encoder.dict, set: _Encoder.set,
          frozenset: _Encoder.set, Fraction: _Encoder.fraction, _dt.date: _Encoder.date}


def _record_fields(x: Record) -> dict:
    """A record's own attributes as kept (a board drawn late read through its property: drawn)."""
    out = dict(x.__dict__)
    for k in ("_before", "_after"):
        if k in out:
            out[k] = getattr(x, k[1:])
    return out


class _Decoder:
    def __init__(self, strings: dict[str, str]) -> None:
        self.made: list = []
        self.strings = strings

    def value(self, d: Any) -> Any:
        cls = d.__class__
        if cls is list:
            out: list = []
            self.made.append(out)
            value = self.value
            out.extend([value(v) for v in d])
            return out
        if cls is dict:
            for tag in d:       # an encoding's first key says what it is
                how = _READ.get(tag)
                if how is not None:
                    return how(self, d)
                break
            raise CodecError(f"not an encoding: {sorted(d)[:3]}")
        if cls is str:
            return self.strings.setdefault(d, d)
        if cls in _SCALARS:
            return d
        raise CodecError(f"not an encoding: {cls.__qualname__}")

    def _later(self) -> int:
        """A number kept for an immutable value made once its parts are (a tuple, a set)."""
        self.made.append(None)
        return len(self.made) - 1

    def reference(self, d: dict) -> Any:
        return self.made[d["@"]]

    def tuple(self, d: dict) -> Any:
        at = self._later()
        value = self.value
        t = self.made[at] = tuple([value(v) for v in d["t"]])
        return t

    def str_dict(self, d: dict) -> Any:
        m: dict = {}
        self.made.append(m)
        value, kept = self.value, self.strings.setdefault
        for k, v in d["m"].items():
            m[kept(k, k)] = value(v)
        return m

    def dict(self, d: dict) -> Any:
        m: dict = {}
        self.made.append(m)
        value = self.value
        for k, v in d["d"]:
            key = value(k)
            m[key] = value(v)
        return m

    def set(self, d: dict) -> Any:
        at = self._later()
        s = self.made[at] = set([self.value(v) for v in d["s"]])
        return s

    def frozenset(self, d: dict) -> Any:
        at = self._later()
        s = self.made[at] = frozenset([self.value(v) for v in d["f"]])
        return s

    def enum(self, d: dict) -> Any:
        return _class(d["e"], Enum)(self.value(d["v"]))

    def fraction(self, d: dict) -> Any:
        return Fraction(*d["q"])

    def date(self, d: dict) -> Any:
        return _dt.date.fromisoformat(d["date"])

    def record(self, d: dict) -> Any:
        rc = _class(d["r"], Record)
        r = rc.__new__(rc)
        self.made.append(r)
        value, setter, name = self.value, object.__setattr__, sys.intern    # (a field's name: the class's own)
        for k, v in d["v"].items():
            setter(r, name(k), value(v))
        return r

    def slotted(self, d: dict) -> Any:
        oc = _class(d["o"], object)
        if oc not in _SLOTTED:
            raise CodecError(f"not a class the codec carries: {d['o']}")
        o = oc.__new__(oc)
        self.made.append(o)
        for s, v in zip(_SLOTTED[oc], d["v"]):
            setattr(o, s, self.value(v))
        return o

    def named(self, d: dict) -> Any:
        nc = _class(d["n"], tuple)
        if not hasattr(nc, "_fields"):
            raise CodecError(f"not a named tuple: {d['n']}")
        at = self._later()
        value = self.value
        t = self.made[at] = nc._make([value(v) for v in d["v"]])
        return t


_READ = {"@": _Decoder.reference, "t": _Decoder.tuple, "m": _Decoder.str_dict, "d": _Decoder.dict,
         "s": _Decoder.set, "f": _Decoder.frozenset, "e": _Decoder.enum, "q": _Decoder.fraction,
         "date": _Decoder.date, "r": _Decoder.record, "o": _Decoder.slotted, "n": _Decoder.named}
_CLASSES: dict[str, type] = {}


def _class(name: str, base: type) -> type:
    """The class `module:qualname`, from a module already imported, when it derives from `base`."""
    known = _CLASSES.get(name)
    if known is not None and issubclass(known, base):
        return known
    module, _, qual = name.partition(":")
    found: Any = sys.modules.get(module)
    for part in qual.split("."):
        found = getattr(found, part, None)
    if not isinstance(found, type) or not issubclass(found, base):
        raise CodecError(f"not a class the codec carries: {name}")
    _CLASSES[name] = found
    return found
