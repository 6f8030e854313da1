"""Bytes a wiki build writes once and reads back once, kept on disk rather than in the build's
memory (rulesdsl/wiki/plugin.py: the Q&A pages drawn long before they are written)."""

from __future__ import annotations

import os
import tempfile
from typing import NamedTuple

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
