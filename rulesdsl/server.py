"""`rulesdsl serve`: a resident process that answers the read-only commands with the knowledge
base kept loaded, so that a judge's question costs the answer, not the start-up.

A command line (rulesdsl/fastpath.py) that finds no cached output sends its arguments, working
folder and RULESDSL_* environment over the Unix socket `<cache folder>/serve.sock`; the server
runs the command exactly as the command line would (same code: a client whose code differs
is refused and runs the command itself), keeps the output in the same output cache, and sends
it back. Requests are answered one at a time. Knowledge bases stay loaded while their files
are unchanged (`kb.load` in resident mode); an edited file is read again on the next request.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from . import fastpath, loader

MAX_SOCKET_PATH = 100   # AF_UNIX paths are limited to 107 bytes on Linux


class ServeError(Exception):
    pass


def serve(root: Path, idle: float, log=sys.stderr) -> None:
    """Answer requests until `idle` seconds pass without one, or until interrupted."""
    if not hasattr(socket, "AF_UNIX"):
        raise ServeError("serving needs Unix sockets, which this system does not have")
    folder = fastpath.cache_dir(root)
    path = fastpath.server_socket(folder)
    if len(str(path).encode()) > MAX_SOCKET_PATH:
        raise ServeError(f"the socket path {path} is too long for a Unix socket; "
                         "set RULESDSL_CACHE to a shorter folder")
    folder.mkdir(parents=True, exist_ok=True)
    if path.exists():
        if _answers(path):
            raise ServeError(f"a server is already answering on {path}")
        path.unlink()                       # left behind by a server that was killed
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    umask = os.umask(0o177)                 # the socket is its owner's alone
    try:
        srv.bind(str(path))
    finally:
        os.umask(umask)
    inode = os.stat(path).st_ino
    srv.listen(16)
    srv.settimeout(idle)
    loader.RESIDENT = True
    code = fastpath.code_digest()
    started = time.perf_counter()
    from .kb import load
    from .parser import parse_text
    kb = load(root)                         # the first question should not wait for these
    parse_text("", "<start>")
    print(f"rulesdsl serve: {len(kb.files)} files of {root} loaded in {time.perf_counter() - started:.2f} s; "
          f"answering check, ask, show, timeline and deck on {path} "
          f"(stops after {idle:g} s without a request, or on Ctrl-C)", file=log, flush=True)
    served = 0
    try:
        while True:
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                print(f"rulesdsl serve: {idle:g} s without a request; stopping after {served} answers",
                      file=log, flush=True)
                break
            with conn:
                if not _handle(conn, code):
                    print("rulesdsl serve: the package's code changed; stopping (start it again)",
                          file=log, flush=True)
                    break
            served += 1
    except KeyboardInterrupt:
        print(f"rulesdsl serve: interrupted; stopping after {served} answers", file=log, flush=True)
    finally:
        srv.close()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == inode:   # not a newer server's socket
                path.unlink()
        loader.RESIDENT = False


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(str(path))
            return True
        except OSError:
            return False


def _handle(conn: socket.socket, code: str) -> bool:
    """Answer one request; False when the client runs other code (this server is outdated)."""
    conn.settimeout(10.0)
    try:
        request = json.loads(fastpath._read_all(conn).decode("utf-8"))
        argv, cwd, env = request["argv"], request["cwd"], request["env"]
        folder, digest, client_code = Path(request["folder"]), request["digest"], request["code"]
    except (OSError, ValueError, KeyError, TypeError):
        return True                          # not a client of ours: nothing to answer
    if client_code != code:
        return False                         # the client runs the command itself
    reply = _run(argv, cwd, env, folder, digest)
    conn.settimeout(None)
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(reply, ensure_ascii=False).encode("utf-8"))
    return True


def _run(argv: list, cwd: str, env: dict, folder: Path, digest: str) -> dict:
    """Run the command as the client would have: in its folder, with its RULESDSL_* variables."""
    names = set(env) | {k for k in os.environ if k.startswith("RULESDSL_") or k == "NO_COLOR"}
    saved = {k: os.environ.get(k) for k in names}
    here = os.getcwd()
    try:
        _set_env({k: env.get(k) for k in names})
        os.chdir(cwd)
        return fastpath.run_and_remember(argv, folder, digest)
    except SystemExit as e:
        return {"code": int(e.code or 0), "stdout": "", "stderr": ""}
    except OSError as e:                     # e.g. the client's folder is gone
        return {"code": 2, "stdout": "", "stderr": f"rulesdsl serve: {e}\n"}
    finally:
        os.chdir(here)
        _set_env(saved)


def _set_env(values: dict) -> None:
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
