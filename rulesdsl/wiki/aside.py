"""Bytes a wiki build writes once and reads back once, kept on disk rather than in the build's
memory (rulesdsl/wiki/plugin.py: the Q&A pages drawn long before they are written), an item
page's parts (`Drawn`) as such bytes, and the C heap's free pages handed back (`give_back_free_memory`;
here, not in base/: what base/ imports is shipped to readers' browsers, ctypes with it)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zlib
from typing import Any, NamedTuple

from mkdocs.exceptions import PluginError


class Kept(NamedTuple):
    """Where `Aside.put` wrote some bytes."""

    offset: int
    size: int


class Aside:
    """Bytes the build writes once and reads back once, kept in an unnamed temporary file rather
    than in the process's memory (at 10,000 questions the drawn Q&A pages' compressed contents
    are ~35 MB of the heap while the index pages are rendered, which sets the build's peak). Read
    by offset (`os.pread`), so a forked copy reads the same file without moving a shared position;
    the file goes when it is closed or the process ends."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="rulesdsl-wiki-")
        self._end = 0

    def put(self, data: bytes) -> Kept:
        at, fd = self._end, self._file.fileno()
        done = 0
        while done < len(data):
            done += os.pwrite(fd, data[done:], at + done)
        self._end += len(data)
        return Kept(at, len(data))

    def get(self, kept: Kept) -> bytes:
        data = os.pread(self._file.fileno(), kept.size, kept.offset)
        if len(data) != kept.size:
            raise PluginError("rulesdsl wiki: a drawn page's content was cut short in its temporary file")
        return data

    def close(self) -> None:
        self._file.close()


class Drawn(NamedTuple):
    """An item page's parts: its title, its content (HTML), its table of contents, its first
    heading's id and its search entries (search.Entry)."""

    title: str
    content: str
    toc: list
    first: str
    entries: list


def packed(d: Drawn) -> bytes:
    """`d` as bytes to keep aside (`unpacked` gives it back, equal): its parts but the content as
    JSON (ASCII: any string comes back as it was), a NUL byte, the content, compressed."""
    meta = json.dumps([d.title, d.toc, d.first, [list(e) for e in d.entries]], separators=(",", ":"))
    return zlib.compress(meta.encode("ascii") + b"\0" + d.content.encode("utf-8"), 1)


def unpacked(data: bytes) -> Drawn:
    """The `Drawn` that `packed` made `data` of."""
    from .search import Entry
    meta, content = zlib.decompress(data).split(b"\0", 1)
    title, toc, first, entries = json.loads(meta)
    return Drawn(title, content.decode("utf-8"), toc, first, [Entry(*_entry(e)) for e in entries])


def _entry(fields: list) -> list[Any]:
    """An entry's fields as JSON gave them back: its exact-match keys a tuple again."""
    fields[4] = tuple(fields[4])
    return fields


def give_back_free_memory() -> None:
    """Hand the C library's free memory back to the system (glibc's `malloc_trim`; elsewhere
    nothing): what a process lets go of leaves whole free pages among the heap's blocks, which
    later allocations may not reuse and which would otherwise count in its peak (the wiki: once the
    answers' runs are let go of). (30 ms at 10,000 cards; the blocks still in use are not moved.)"""
    import ctypes
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(None).malloc_trim(0)        # (the process's own symbols: the C library's)
