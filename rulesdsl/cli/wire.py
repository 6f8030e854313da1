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
import socket
import time
from typing import Optional

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
        except socket.timeout:
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
    except socket.timeout:
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


def decode(data: bytes) -> dict:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WireError("not JSON") from None
    if not isinstance(value, dict):
        raise WireError("not a JSON object")
    return value
