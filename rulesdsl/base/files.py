"""Reading a file named by a user or found in a knowledge base (standard library only): only a
regular file is read (symlinks followed), never more than a limit, and a FIFO or a device is
refused before anything is read from it, so that reading always ends."""

from __future__ import annotations

import os
import stat

MAX_BYTES = 16 * 1024 * 1024     # the largest real .rules file is a few hundred kB

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class NotAFile(OSError):
    """The path names something other than a regular file; the message says what."""


class TooLarge(OSError):
    """The file holds more than the limit; `data` is its first limit + 1 bytes."""

    def __init__(self, data: bytes) -> None:
        super().__init__(f"larger than {(len(data) - 1) // (1024 * 1024)} MB")
        self.data = data


def kind_of(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_regular(path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at `path`. OSError when it cannot be opened or read,
    NotAFile when it is not a regular file, TooLarge past `limit` bytes."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(kind_of(st.st_mode))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise TooLarge(data)
    return data
