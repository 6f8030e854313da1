"""The `rulesdsl serve` protocol (standard library only): over a Unix socket, the client sends
one JSON request and shuts its side down; the server sends one JSON reply and closes.

A request: {"argv": [...], "cwd": "/abs/path", "env": {NAME: value}, "code": digest}, `env`
holding only the variables in ENV (the ones a command's output depends on; the server keeps
its own cache folder, whatever the client's). A reply: {"code", "stdout", "stderr"} as the
command line would have printed them, or {"refused": why} (the client then runs the command
itself).
"""

from __future__ import annotations

import json
import re
import time

ENV = ("RULESDSL_ROOT", "NO_COLOR")
MAX_REQUEST = 1 << 20       # bytes: a command line and an environment, never more
MAX_REPLY = 1 << 30


class WireError(Exception):
    pass


def receive(sock: socket.socket, limit: int, timeout: Optional[float]) -> bytes:
    """Everything the peer sends until it shuts its side down, within `timeout` seconds in
    all (None: no limit) and `limit` bytes; WireError otherwise."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks, size = [], 0
    while True:
        _until(sock, deadline, "the peer sent nothing more in time")
        try:
            chunk = sock.recv(1 << 16)
        except TimeoutError:     # socket.timeout
            raise WireError("the peer sent nothing more in time") from None
        except OSError as e:
            raise WireError(str(e)) from None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise WireError("too much data")
        chunks.append(chunk)


def send(sock: socket.socket, value: dict, timeout: Optional[float]) -> None:
    """Send `value` as JSON within `timeout` seconds in all; WireError otherwise."""
    data = json.dumps(value, ensure_ascii=False).encode("utf-8")
    deadline = None if timeout is None else time.monotonic() + timeout
    view = memoryview(data)
    try:
        while view:
            _until(sock, deadline, "the peer did not read in time")
            n = sock.send(view[: 1 << 16])
            view = view[n:]
    except TimeoutError:     # socket.timeout
        raise WireError("the peer did not read in time") from None
    except OSError as e:
        raise WireError(str(e)) from None


def _until(sock: socket.socket, deadline: Optional[float], late: str) -> None:
    """Give the socket the time left until `deadline` (None: no limit); WireError(late) if none."""
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WireError(late)
        sock.settimeout(left)


MAX_DEPTH = 16      # a request is an object of lists and objects of strings: two levels deep


def decode(data: bytes, max_depth: Optional[int] = MAX_DEPTH) -> dict:
    """The JSON object in `data`; WireError when it is not one or is nested deeper than
    `max_depth` (counted before parsing, so that no depth can exhaust the stack; None: a reply
    from our own server, whose depth the parser alone bounds)."""
    if max_depth is not None and _depth(data, max_depth) > max_depth:
        raise WireError(f"nested deeper than {max_depth} levels")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("not JSON") from None
    if not isinstance(value, dict):
        raise WireError("not a JSON object")
    return value


# JSON strings, and brackets outside them: compiled on first use, through re's own cache (only a
# server counts a request's depth; the command line, which imports this module, never does)
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_BRACKET = rb"[\[\]{}]"


def _depth(data: bytes, limit: int) -> int:
    """The deepest nesting of brackets outside strings in JSON text, counted until it passes
    `limit` (unbalanced text is refused by the parser afterwards)."""
    depth = deepest = 0
    for m in re.finditer(_BRACKET, re.sub(_STRING, b'""', data, flags=re.S)):
        if m.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        else:
            depth -= 1
    return deepest
