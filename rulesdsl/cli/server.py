"""`rulesdsl serve`: a resident process that answers the read-only commands with the knowledge
base kept loaded, so that a judge's question costs the answer, not the start-up.

The socket is `serve.sock` in the knowledge base's private cache folder (rulesdsl/base/cache.py):
0600 in a 0700 folder, so only its user can connect. A command line (rulesdsl/cli/fastpath.py) that
finds no kept output sends its arguments, working folder and the few variables its output
depends on (rulesdsl/cli/wire.py). The server answers only check, ask, show, timeline and deck, for
its own knowledge base and its own code (anything else is refused, and the client runs the
command itself); it computes the output's key itself and keeps the output in its own cache
folder, whatever the client asked.

Every connection has its own thread, with a deadline for reading the request and one for
writing the reply, so a client that sends nothing or stops reading holds up nobody else; the
commands themselves run one at a time (they share the process's working folder, environment
and output streams). Knowledge bases stay loaded while their files' contents are unchanged
(`kb.load` in resident mode).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Optional

from ..base import cache
from ..kb import loader
from . import wire

MAX_SOCKET_PATH = 100   # AF_UNIX paths are limited to 107 bytes on Linux
READ_TIMEOUT = 10.0     # seconds for a client to send its whole request
WRITE_TIMEOUT = 60.0    # seconds for a client to read the whole reply


_LATER = threading.local()      # per connection's thread: outputs to keep after its reply


class ServeError(Exception):
    pass


class Server:
    def __init__(self, root: Path, log=sys.stderr) -> None:
        self.root = root
        self.log = log
        self.code = cache.code_digest(cache.digests(root))
        self.run_lock = threading.Lock()       # one command at a time
        self.count_lock = threading.Lock()
        self.served = 0
        self.stopping = threading.Event()
        self.outdated = False

    def say(self, message: str) -> None:
        print(f"rulesdsl serve: {message}", file=self.log, flush=True)

    # -- one connection ----------------------------------------------------------------
    def handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = wire.decode(wire.receive(conn, wire.MAX_REQUEST, READ_TIMEOUT))
            except wire.WireError as e:
                self.say(f"a client sent no usable request ({e}); refused")
                with contextlib.suppress(wire.WireError):
                    wire.send(conn, {"refused": f"no usable request: {e}"}, WRITE_TIMEOUT)
                return
            later = _LATER.items = []   # the output's entry, kept once the client has its answer
            try:
                reply = self.answer(request)
            finally:
                _LATER.items = None
            if "refused" in reply:
                self.say(f"refused a request: {reply['refused']}")
            else:
                with self.count_lock:
                    self.served += 1
            try:
                wire.send(conn, reply, WRITE_TIMEOUT)
            except wire.WireError as e:
                self.say(f"a client did not take its answer ({e}); dropped")
            if later:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_WR)      # the client reads until this: it has its answer
                for key, result in later:
                    cache.remember(key, result)

    def answer(self, request: dict) -> dict:
        argv, cwd, env, code = (request.get(k) for k in ("argv", "cwd", "env", "code"))
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and isinstance(cwd, str)
                and os.path.isabs(cwd) and isinstance(env, dict) and isinstance(code, str)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            return {"refused": "a malformed request"}
        if code != self.code:
            if self.code_changed():
                return {"refused": "the package's code changed"}
            return {"refused": "the client runs other code than this server"}   # and it goes on serving
        command = cache.globals_of(argv).command
        if command is None:             # e.g. an abbreviated option (`--ro=/etc`): the parser decides
            return {"refused": "no command, or an option before it that is not served"}
        if command not in cache.READ_ONLY:
            return {"refused": f"{command} is not served (only {', '.join(cache.READ_ONLY)})"}
        # One command at a time. A client asks the server before it looks for a kept output
        # (fastpath), so a busy server refuses rather than keep it waiting: the client then
        # answers from its kept output, or runs the command itself, at once.
        if not self.run_lock.acquire(blocking=False):
            return {"refused": "busy with another command"}
        try:
            saved_env = {k: os.environ.get(k) for k in wire.ENV}
            here = os.getcwd()
            try:
                _set_env({k: env.get(k) for k in wire.ENV})
                os.chdir(cwd)
                return self.run(argv)
            except OSError as e:                 # e.g. the client's folder is gone
                return {"refused": f"cannot run in {cwd}: {e.strerror or e}"}
            finally:
                os.chdir(here)
                _set_env(saved_env)
        finally:
            self.run_lock.release()

    def code_changed(self) -> bool:
        """Whether this server's own code files changed since it started (their digest, taken
        again from the files themselves); if so it stops, since it answers with old code. A
        client's word alone — a request naming another digest — never stops it."""
        if cache.code_digest(cache.Digests(None)) == self.code:
            return False
        self.outdated = True
        self.stopping.set()
        return True

    def run(self, argv: list) -> dict:
        """Run the command as the client would have: its key, its output. The key names this
        server's code (the client's was checked against it in `answer`: a client whose files
        differ is refused), so the package's files are not walked again for every question;
        everything else in the key — the knowledge base's files, the question's — is looked at
        afresh, as the client does, once for the whole command (`cache.one_look`)."""
        with cache.one_look():
            return self._run(argv)

    def _run(self, argv: list) -> dict:
        key = cache.output_key(argv, code=self.code)
        if key is None or key.root != self.root:
            return {"refused": "another knowledge base, or an output that is not kept"}
        kept = cache.recall(key)
        if kept is not None:
            return kept
        from .main import run_captured
        result = run_captured(argv, allowed=cache.READ_ONLY)
        later = getattr(_LATER, "items", None)
        if later is None:
            cache.remember(key, result)
        else:                   # `handle` keeps it once the reply is out: the client need not wait
            later.append((key, result))
        return result


def serve(root: Path, idle: float, log=sys.stderr) -> None:
    """Answer requests until `idle` seconds pass without one, or until interrupted."""
    if not hasattr(socket, "AF_UNIX"):
        raise ServeError("serving needs Unix sockets, which this system does not have")
    try:
        folder = cache.kb_dir(root)
    except cache.Unavailable as e:
        raise ServeError(f"no private cache folder for the socket: {e}") from None
    path = folder / "serve.sock"
    if len(str(path).encode()) > MAX_SOCKET_PATH:
        raise ServeError(f"the socket path {path} is too long for a Unix socket; "
                         "set RULESDSL_CACHE to a shorter folder")
    lock = _lock(folder / "serve.lock")
    if lock is None:
        raise ServeError(f"a server is already answering on {path}")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temp = folder / f"serve-{os.getpid()}.sock"
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()
    umask = os.umask(0o177)                 # the socket is its owner's alone
    try:
        srv.bind(str(temp))
    finally:
        os.umask(umask)
    loader.RESIDENT = True
    server = Server(root, log)
    started = time.perf_counter()
    inode = None
    terminated = []
    # SIGTERM (a service manager, `kill`) stops it as Ctrl-C does: the answers under way finish and
    # the socket goes. Ctrl-C keeps the disposition it inherits: a server started in the background
    # of a script ignores it, as every background job does.
    previous = _stop_on_sigterm(lambda: (terminated.append(True), server.stopping.set()))
    try:
        from ..kb.build import load
        from ..lang.parser import parse_text
        kb = load(root)                     # the first question should not wait for these
        parse_text("", "<start>")
        # what is loaded now lives as long as the server: out of the collector's sight, a question's
        # collections walk only what that question made
        gc.collect()
        gc.freeze()
        srv.listen(64)
        os.replace(temp, path)              # it appears only once it answers; a stale one is replaced
        inode = os.stat(path).st_ino
        server.say(f"{len(kb.files)} files of {root} loaded in {time.perf_counter() - started:.2f} s; "
                   f"answering check, ask, show, timeline and deck on {path} "
                   f"(stops after {idle:g} s without a request, or on Ctrl-C)")
        _accept(srv, server, idle)
        if terminated:
            server.say(f"terminated; stopping after {server.served} answers")
    except KeyboardInterrupt:
        server.say(f"interrupted; stopping after {server.served} answers")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        srv.close()
        with contextlib.suppress(OSError):
            temp.unlink()
        with contextlib.suppress(OSError):
            if inode is not None and os.stat(path).st_ino == inode:   # not a newer server's socket
                path.unlink()
        loader.RESIDENT = False
        os.close(lock)


def _stop_on_sigterm(stop):
    """Make SIGTERM call `stop()`; the handler it replaces, or None off the main thread (where
    Python cannot set one)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, lambda signum, frame: stop())


def _accept(srv: socket.socket, server: Server, idle: float) -> None:
    threads: list[threading.Thread] = []
    last = time.monotonic()
    srv.settimeout(0.5)                     # to notice `stopping` while waiting
    while not server.stopping.is_set():
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            threads = [t for t in threads if t.is_alive()]
            if not threads and time.monotonic() - last >= idle:
                server.say(f"{idle:g} s without a request; stopping after {server.served} answers")
                return
            continue
        last = time.monotonic()
        conn.settimeout(READ_TIMEOUT)
        t = threading.Thread(target=server.handle, args=(conn,), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:                       # let the answers under way reach their clients
        t.join(READ_TIMEOUT + WRITE_TIMEOUT)
    if server.outdated:
        server.say(f"the package's code changed; stopping after {server.served} answers (start it again)")


def _lock(path: Path) -> Optional[int]:
    """An exclusive lock held for the server's life (one server per knowledge base); None
    when another process holds it."""
    import fcntl
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _set_env(values: dict) -> None:
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
