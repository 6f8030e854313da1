"""`rulesdsl fmt [--check | --write] PATH…`: the canonical layout (see rulesdsl.lang.fmt).

A formatted text must mean what the original meant: both are parsed, and their tokens (layout
aside) and comments must be the same, or the file is left alone. `--write` respects the file:

- a symlink is followed and its target rewritten; a read-only file is refused;
- the new text is written whole into a temporary file in the same folder (unnamed where the
  system allows, so that even a kill leaves nothing behind), given the file's mode and, when
  run as root, its owner, and renamed over the file: a reader sees the old text or the new;
- a file with other hard links, or owned by another user, keeps its inode: a complete copy of
  the new text is written first, then the text is written back in place, then the copy goes;
- a folder where no temporary file can be written is an error, and the file is left alone;
- a file saved by another program while it was being formatted (an editor's save) is left as
  that program saved it, and named in an error: just before the new text replaces it, the file
  must still be the one read (the same inode, size, mtime and ctime, or else the same bytes).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import errno
import os
import re
import signal
import stat
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple, Optional

from ..base import files
from ..kb.loader import decode, no_gc, read_file, rules_files
from ..lang.diagnostics import Diagnostic, DslError
from ..lang.fmt import format_and_compare
from ..lang.model import Loc
from .main import EXIT_FINDINGS, EXIT_OK, Output, command, exit_code


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help=".rules files or folders")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="change nothing; list files that are not formatted and exit 1 if any")
    mode.add_argument("--write", action="store_true", help="rewrite files in place (atomically)")


def files_of(paths) -> list[Path]:
    return [f for p in paths for f in rules_files(p)]


class Refused(Exception):
    """The file is not rewritten; the message says why."""


def format_checked(text: str, file: str) -> str:
    """`text` in the canonical layout, once it is checked to mean the same (DslError if not)."""
    formatted, same = format_and_compare(text, file)
    if not same:
        raise DslError([Diagnostic(code="fmt", loc=Loc(file=file, line=1, col=1), fatal=True,
                                   message="formatting would change the meaning of this file; it was left alone",
                                   hint="please report this as a bug")])
    return formatted


# ----------------------------------------------------------------------------- writing

class Read(NamedTuple):
    """A file as it was read: its bytes, and its status taken just before they were read."""
    data: bytes
    status: Optional[os.stat_result]


def read_for_writing(path: Path, shown: str) -> Read:
    try:
        status = os.stat(os.path.realpath(path))
    except OSError:
        status = None                       # reading it says what is wrong
    return Read(read_file(path, shown), status)


def _before_replace(target: Path) -> None:
    """Called just before the file's text is replaced (the tests put another program's save here)."""


def _still_as_read(target: Path, read: Optional[Read]) -> None:
    """Refused unless the file at `target` is still the one read: the same inode, size, mtime and
    ctime, or else (a save that wrote the same text) the same bytes."""
    _before_replace(target)
    if read is None:
        return
    st = os.stat(target)
    same = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
    if read.status is not None and all(getattr(st, f) == getattr(read.status, f) for f in same):
        return
    try:
        now = files.read_regular(target, len(read.data) + 1)
    except OSError:
        now = None
    if now != read.data:
        raise Refused("it changed while it was being formatted (another program saved it?); it was left "
                      "as that program wrote it: run fmt again")


def write_back(path: Path, text: str, read: Optional[Read] = None) -> None:
    """Replace the text of the file at `path` (through a symlink: of its target) by `text`,
    unless it is no longer the file `read` (when given)."""
    target = Path(os.path.realpath(path))
    st = os.stat(target)
    if not stat.S_ISREG(st.st_mode):
        raise Refused("it is not a regular file")
    if st.st_mode & 0o222 == 0 or not os.access(target, os.W_OK):
        raise Refused(f"it is read-only (mode {stat.filemode(st.st_mode)}); make it writable to format it")
    data = text.encode("utf-8")
    with _signals_raise():
        if st.st_nlink > 1 or (st.st_uid != os.geteuid() and os.geteuid() != 0):
            _in_place(target, data, st, read)
        else:
            _replace(target, data, st, read)


def _replace(target: Path, data: bytes, st: os.stat_result, read: Optional[Read] = None) -> None:
    """Write a new file beside `target` and rename it over `target`."""
    fd, named = _temp(target.parent, target.name)
    try:
        _fill(fd, data, st)
        if named is None:                    # unnamed: it gets a name at the last moment
            named = _name_unnamed(fd, target)
        if named is None:                    # this file system cannot: a named file after all
            os.close(fd)
            fd, named = _temp(target.parent, target.name, unnamed=False)
            _fill(fd, data, st)
        _still_as_read(target, read)
        os.replace(named, target)
        named = None
    finally:
        os.close(fd)
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)


def _fill(fd: int, data: bytes, st: os.stat_result) -> None:
    """The new file's text, mode and (as far as this user may) owner and group, on disk."""
    _write_all(fd, data)
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if os.geteuid() == 0:
        os.fchown(fd, st.st_uid, st.st_gid)         # root keeps the owner, not takes it
    elif st.st_gid != os.getegid():
        with contextlib.suppress(OSError):
            os.fchown(fd, -1, st.st_gid)
    os.fsync(fd)


def _name_unnamed(fd: int, target: Path) -> Optional[Path]:
    named = target.parent / f".{target.name}.rulesdsl-fmt-{os.getpid()}.tmp"
    try:
        os.link(f"/proc/self/fd/{fd}", named, follow_symlinks=True)
    except OSError:
        return None
    return named


def _in_place(target: Path, data: bytes, st: os.stat_result, read: Optional[Read] = None) -> None:
    """Keep the inode (its hard links, its owner): a complete copy first, then the text in place."""
    fd, named = _temp(target.parent, target.name, unnamed=False)
    started = False
    try:
        _write_all(fd, data)
        os.fsync(fd)
        _still_as_read(target, read)
        with open(target, "r+b") as f:
            started = True
            f.write(data)
            f.truncate()
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        if started:     # the file may hold part of the new text: keep the complete copy
            print(f"rulesdsl fmt: writing {target} was interrupted; its formatted text is in {named}",
                  file=sys.stderr)
            named = None
        raise
    finally:
        os.close(fd)
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)


def _temp(folder: Path, name: str, unnamed: bool = True):
    """(fd, path or None): a new 0600 file in `folder`, unnamed (O_TMPFILE) when possible."""
    if unnamed and hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(folder, os.O_TMPFILE | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600), None
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
                raise Refused(f"no file can be written in {folder}: {e.strerror}") from None
    try:
        fd, named = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".rulesdsl-fmt.tmp")
    except OSError as e:
        raise Refused(f"no file can be written in {folder}: {e.strerror or e}") from None
    return fd, Path(named)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@contextlib.contextmanager
def _signals_raise():
    """SIGTERM and SIGHUP raise while a file is written, so that the temporary file is removed."""
    def stop(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    saved = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(ValueError, OSError):     # not the main thread: leave them
                saved[sig] = signal.signal(sig, stop)
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def diff_excerpt(original: str, formatted: str, shown: str, lines: int = 40) -> str:
    """The start of a unified diff, from the first line that differs: linear in the files' size
    (a diff of two large files in full is not)."""
    a, b = original.splitlines(), formatted.splitlines()
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(first - 1, 0)
    window = 4 * lines
    diff = difflib.unified_diff(a[start:start + window], b[start:start + window], shown, f"{shown} (formatted)",
                                lineterm="", n=1)
    out = []
    for line in diff:
        if line.startswith("@@") and start:     # line numbers of the whole file, not the window
            line = re.sub(r"-(\d+)", lambda m: f"-{int(m.group(1)) + start}", line, count=1)
            line = re.sub(r"\+(\d+)", lambda m: f"+{int(m.group(1)) + start}", line, count=1)
        out.append(line)
        if len(out) >= lines:
            break
    return "\n".join(out)


# ----------------------------------------------------------------------------- the command

@command("fmt", "Format .rules files in the canonical layout (comments kept; prints the result unless --check or --write).",
         configure)
def run(args, out: Output) -> int:
    diags: list[Diagnostic] = []
    changed: list[Path] = []
    files = files_of(args.paths)
    for path in files:
        shown = str(path)
        try:
            with no_gc():       # millions of short-lived nodes and no cycles: see loader.no_gc
                read = read_for_writing(path, shown)
                original = decode(read.data, shown)
                formatted = format_checked(original, shown)
        except DslError as e:
            diags.extend(e.diagnostics)
            continue
        if args.check:
            if formatted != original:
                changed.append(path)
                print(diff_excerpt(original, formatted, shown))
        elif args.write:
            if formatted != original:
                try:
                    write_back(path, formatted, read)
                except (Refused, OSError) as e:
                    why = str(e) if isinstance(e, Refused) else (e.strerror or str(e))
                    diags.append(Diagnostic(code="fmt", loc=Loc(shown, 1, 1), fatal=True,
                                            message=f"{shown} was not rewritten: {why}"))
                    continue
                changed.append(path)
        else:
            sys.stdout.write(formatted)
    out.diagnostics(diags)
    if diags:
        return exit_code(diags)
    if args.check:
        if changed:
            print(f"{len(changed)} of {len(files)} file(s) would be reformatted", file=sys.stderr)
            return EXIT_FINDINGS
        print(f"{len(files)} file(s) already formatted", file=sys.stderr)
    elif args.write:
        print(f"reformatted {len(changed)} of {len(files)} file(s)", file=sys.stderr)
    return EXIT_OK
