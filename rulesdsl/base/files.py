"""Reading a file named by a user or found in a knowledge base (standard library only): only a
regular file is read (symlinks followed), never more than a limit, and a FIFO or a device is
refused before anything is read from it, so that reading always ends; writing a file whole
(`write_whole`); finding the files under a folder (`walk`); and looking at each file and folder once in a command (`one_look`)."""

from __future__ import annotations

import contextlib
import os
import stat
import time

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


def read_whole(path) -> bytes:
    """Every byte of the file at `path`, however large, in a few system calls (`open()` adds an
    fstat, an ioctl and a buffer to each file). The caller has seen that it is a regular file;
    should it have become a FIFO meanwhile, opening it does not wait for a writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def write_whole(path, data: bytes) -> None:
    """Make (or empty) the file at `path` and write `data` into it, in three system calls: `open()`
    adds an fstat, an ioctl and a buffer to each file, and a wiki writes tens of thousands."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


# While a command runs inside `one_look` (the command line's run of a read-only command, a
# server's answer), each file and folder is looked at once: its stat (with the moment just
# before it) and a folder's listing are kept for the rest of the command, so that its key, the
# file list, the digests and the loader all judge the same state of the disk, at the cost of
# one look per file. The next command looks again.
_looks: Optional[dict] = None


@contextlib.contextmanager
def one_look():
    """Look at each file and folder once in the command inside (see `_looks`)."""
    global _looks
    saved, _looks = _looks, {}
    try:
        yield
    finally:
        _looks = saved


def keep_read(p: str, data: bytes, digest: str) -> None:
    """Keep the bytes just read of the regular file at `p`, and their digest, for the rest of the
    command inside `one_look`: the command's key hashed them, its run reads them (`read_once`) and
    knows their digest (`kept_digest`) without reading and hashing the file again."""
    if _looks is not None:
        _looks[("read", p)] = (data, digest)


def read_once(path, limit: int = MAX_BYTES) -> bytes:
    """`read_regular(path, limit)`, but the bytes `keep_read` kept of it in this command when it
    kept some (what the command's key was made of), the same errors for them past `limit`."""
    found = _looks.get(("read", str(path))) if _looks is not None else None
    if found is None:
        return read_regular(path, limit)
    data = found[0]
    if len(data) > limit:
        raise TooLarge(data[:limit + 1])
    return data


def kept_digest(p: str, data: bytes) -> Optional[str]:
    """The digest `keep_read` kept with the bytes of `p` when `data` is those very bytes, else
    None; either way they are let go of (a file's bytes are held until its run has read them)."""
    found = _looks.pop(("read", p), None) if _looks is not None else None
    return found[1] if found is not None and found[0] is data else None


def looks() -> Optional[dict]:
    """What the command under way has looked at (None outside `one_look`), for more of the
    same kind (the cache folder it checked)."""
    return _looks


def looked(p: str) -> tuple:
    """(the moment just before looking, os.stat(p)); OSError as os.stat raises it."""
    memo = _looks
    found = memo.get(p) if memo is not None else None
    if found is None:
        taken = time.time_ns()
        try:
            found = (taken, os.stat(p))
        except OSError as e:
            found = (taken, e)
        if memo is not None:
            memo[p] = found
    if isinstance(found[1], OSError):
        raise found[1]
    return found


def look(p: str) -> os.stat_result:
    """os.stat(p), taken once inside `one_look`."""
    return looked(p)[1]


def walk(base: Path, suffixes: Optional[tuple] = None) -> list[tuple[str, str]]:
    """(path relative to `base`, path) of the files under `base`, sorted (with `suffixes`, those
    ending so), each folder listed once inside `one_look` (see `listing`)."""
    memo = _looks
    if memo is None:
        return listing(base, suffixes)
    key = ("walk", str(base))
    found = memo.get(key)
    if found is None:
        found = memo[key] = listing(base)
    return [f for f in found if f[0].endswith(suffixes)] if suffixes else list(found)


def listing(base: Path, suffixes: Optional[tuple] = None) -> list[tuple[str, str]]:
    """(path relative to `base`, path) of the files under `base`, sorted, following symlinks to
    files and folders (each real folder once, so a symlink loop ends), skipping hidden folders
    and __pycache__."""
    seen: set = set()
    top = str(base)
    stack = [(top, "")]
    out = []
    while stack:
        folder, rel = stack.pop()
        try:
            st = os.stat(folder)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        try:
            entries = [(e.name, e) for e in os.scandir(folder)]
        except OSError:
            continue
        entries.sort()                      # by name (names are unique: entries never compared)
        subdirs = []
        for _, e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                continue
            if is_dir:
                if not e.name.startswith(".") and e.name != "__pycache__":
                    subdirs.append((e.path, rel + e.name + "/"))
            elif not suffixes or e.name.endswith(suffixes):
                out.append((rel + e.name, e.path))
        stack.extend(reversed(subdirs))
    out.sort()
    return out
