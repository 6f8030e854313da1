"""Regular expressions compiled on their first use.

Python's `re` compiles in Python: 0.1–0.5 ms a pattern (a Japanese alternation more), and a new
question's process compiled some sixty of them, a tenth of its time after Python's start — most
of them module constants of checks, readings and source formats that the question never meets.
A `LazyPattern` is such a constant that costs nothing until it is used."""

from __future__ import annotations

import re

# what a module's code asks of a compiled pattern; after the first use each is the compiled
# pattern's own attribute, held by the instance, so a call costs what the pattern's own does
_ATTRIBUTES = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
               "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """`re.compile(pattern, flags)`, made on the first use of any of its attributes."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def compiled(self) -> re.Pattern:
        return re.compile(*self._source)

    def __getattr__(self, name: str):
        # only for attributes the instance does not hold yet (never its own private ones)
        if name.startswith("_") or name not in _ATTRIBUTES:
            raise AttributeError(name)
        compiled = self.compiled()
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r}{', ' + str(self._source[1]) if self._source[1] else ''})"
