"""Work shared between this process and a forked copy of it, on a machine with two processors.

`shared_map`: independent tasks, each process taking the next task not yet taken until none is
left, so that a few long tasks do not leave one process idle while the other works through them.
`beside`: one piece of work done by a forked copy while this process goes on with another.

The tasks are numbered; their numbers wait in a pipe written before the fork, each number four
bytes (a read of four bytes from a pipe is atomic: two processes never take the same number).
The child sends what it made back through a second pipe, a line of JSON per task (`encode` makes
a result JSON-able, `decode` reads it back: nothing pickled travels; the lines are read and
decoded one at a time, so that no more than one task's JSON value is held at once), and leaves without this process's
exit handlers. Nothing is lost when the child fails: every task it did not report is done here
afterwards, so the results are always every task's, in order, exactly as `[work(i) for i in
range(count)]` gives them (each task must depend only on what was there before the fork).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from typing import Any, Callable, Optional

MAX_TASKS = 16000        # numbers written before the fork: 64 kB, a pipe's room on Linux


def jobs(count: int, minimum: int, env: Optional[str] = None) -> int:
    """How many processes to share `count` tasks between: two on a machine with two or more
    processors that can fork, for at least `minimum` tasks, when no other thread runs (a fork
    copies only the thread that calls it: a lock another holds would stay locked in the child,
    as under `mkdocs serve`). The environment variable `env`, when set, says how many (1: off)."""
    if not hasattr(os, "fork"):
        return 1
    wanted = os.environ.get(env, "").strip() if env else ""
    if wanted:
        return max(1, int(wanted)) if wanted.isdigit() else 1
    import threading
    if (os.cpu_count() or 1) < 2 or threading.active_count() > 1:
        return 1
    return 2 if count >= minimum else 1


def shared_map(count: int, work: Callable[[int], Any], encode: Callable[[Any], Any] = lambda r: r,
               decode: Callable[[Any], Any] = lambda r: r, processes: int = 2,
               order: Optional[list[int]] = None, meanwhile: Optional[Callable[[], None]] = None,
               in_child: Optional[Callable[[], None]] = None) -> list[Any]:
    """`[work(i) for i in range(count)]`, the tasks taken in `order` (the longest first, for the
    best balance) by this process and, when `processes` > 1, a forked child. `meanwhile`: other
    work of this process's, done first (while the child starts on the tasks); it must not change
    what the tasks read. `in_child`: what the forked child does before its first task, to let go
    of what the tasks do not read (the room it frees is the tasks' to reuse, rather than memory
    added to what the child shares with this process); it must not change what they give."""
    order = list(range(count)) if order is None else order
    if processes < 2 or count < 2 or count > MAX_TASKS or not hasattr(os, "fork"):
        if meanwhile is not None:
            meanwhile()
        return [work(i) for i in range(count)]
    queue_r, queue_w = os.pipe()
    numbers = b"".join(i.to_bytes(4, "little") for i in order)
    os.set_blocking(queue_w, False)
    try:
        written = os.write(queue_w, numbers)
    except OSError:
        written = 0
    os.close(queue_w)       # once the numbers are taken, a read finds the end
    forked = fork_with_pipe() if written == len(numbers) else None     # (else the pipe is smaller than usual)
    if forked is None:
        os.close(queue_r)
        return shared_map(count, work, processes=1, meanwhile=meanwhile)
    pid, out_r, out_w = forked
    if pid == 0:            # the child: its share, then its results, and out without the parent's exit handlers
        code = 0
        try:
            os.close(out_r)
            if in_child is not None:
                in_child()
            made = []           # a line per task, as bytes: far smaller than the values, let go of as made
            for i in _taken(queue_r):
                made.append(json.dumps([i, encode(work(i))], ensure_ascii=False,
                                       separators=(",", ":")).encode("utf-8"))
            with os.fdopen(out_w, "wb") as f:
                for line in made:
                    f.write(line + b"\n")
                f.write(_END)
        except BaseException:   # noqa: BLE001 - the parent does what the child did not report
            code = 1
        finally:
            os._exit(code)
    os.close(out_w)
    results: dict[int, Any] = {}
    done = False
    try:
        if meanwhile is not None:
            meanwhile()
        for i in _taken(queue_r):
            results[i] = work(i)
        done = True
    finally:
        os.close(queue_r)
        if not done:        # this process failed: what the child makes would not be read
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        theirs = _read_results(out_r, lambda i, v: decode(v) if 0 <= i < count and i not in results else _SKIP)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0 and theirs is not None:
        results.update(theirs)          # all the child's results, or (one unreadable) none of them
    return [results[i] if i in results else work(i) for i in range(count)]


_END = b"\x00end\n"      # the child's last line: what comes before it is whole


def beside(work: Callable[[], bytes], processes: int = 2) -> "Beside":
    """Start `work` (which gives bytes) in a forked copy of this process when `processes` > 1.
    `work` must depend only on what was there before the fork and change nothing this process
    reads (files aside, which it may write as it would here)."""
    forked = fork_with_pipe() if processes > 1 and hasattr(os, "fork") else None
    if forked is None:
        return Beside(None, None)
    pid, out_r, out_w = forked
    if pid == 0:
        code = 0
        try:
            os.close(out_r)
            data = work()
            with os.fdopen(out_w, "wb") as f:
                f.write(len(data).to_bytes(8, "little") + data)
        except BaseException:   # noqa: BLE001 - the parent does the work itself
            code = 1
        finally:
            os._exit(code)
    os.close(out_w)
    return Beside(pid, out_r)


class Beside:
    """Work `beside` started: `result()` waits for it and gives its bytes, or None when it failed
    or was not started — then the caller does the work itself, so nothing is lost; `cancel()`
    stops it (the caller failed: nobody will read what it makes)."""

    def __init__(self, pid: Optional[int], fd: Optional[int]) -> None:
        self._pid, self._fd = pid, fd
        self.forked = pid is not None       # False: nothing was started, the caller does the work
        self._data: Optional[bytes] = None

    def result(self) -> Optional[bytes]:
        if self._pid is not None:
            data = _read_all(self._fd)
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
            whole = data is not None and len(data) >= 8 and int.from_bytes(data[:8], "little") == len(data) - 8
            self._data = data[8:] if whole and os.waitstatus_to_exitcode(status) == 0 else None
        return self._data

    def cancel(self) -> None:
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(self._fd)
            os.waitpid(self._pid, 0)
            self._pid = None


def fork_with_pipe() -> Optional[tuple[int, int, int]]:
    """A pipe, then a fork: (the child's pid — 0 in the child —, the pipe's read end, its write
    end), each process to close the end it does not use; None (nothing left open) when either
    cannot be made."""
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        return os.fork(), r, w
    except OSError:
        os.close(r)
        os.close(w)
        return None


def _taken(fd: int):
    """The task numbers this process takes from the queue, one at a time, until none is left."""
    while True:
        data = os.read(fd, 4)
        if len(data) < 4:
            return
        yield int.from_bytes(data, "little")


_SKIP = object()     # a result `_read_results` is told not to keep


def _read_results(fd: int, decode: Callable[[int, Any], Any]) -> Optional[dict[int, Any]]:
    """The child's results from its pipe, each line decoded as it is read (`decode(i, value)`,
    `_SKIP` for one not to keep), so that no more than a line's text is held beside the values
    — not the whole of the child's output and its lines besides; None when a line is unreadable or
    the end line is not the last. The pipe is read to its end in every case (the child may be
    writing still)."""
    decoded: Optional[dict[int, Any]] = {}
    ended = False
    try:
        with os.fdopen(fd, "rb") as f:
            for line in f:
                if decoded is None:
                    continue            # (read on to the end, what comes is not kept)
                if ended or line == _END:
                    decoded, ended = (decoded if not ended else None), True
                    continue
                try:
                    i, v = json.loads(line)
                    v = decode(i, v)
                except (ValueError, TypeError, AttributeError, KeyError, IndexError):
                    decoded = None
                    continue
                if v is not _SKIP:
                    decoded[i] = v
    except OSError:
        return None
    return decoded if ended else None


def _read_all(fd: int) -> Optional[bytes]:
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read()
    except OSError:
        return None
