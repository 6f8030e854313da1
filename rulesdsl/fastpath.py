"""The command-line entry point, with a cache of whole command outputs.

The read-only commands (check, ask, show, timeline, deck) are pure functions of their
arguments, the package's code, the knowledge base's files and the day. Their output is kept
under the cache folder keyed by a hash of all of those, so asking again with nothing changed
costs one pass of hashing. On a miss, a resident `rulesdsl serve` for the same cache folder, if
one is running, answers with the knowledge base it keeps loaded (rulesdsl/server.py); else the
command runs here. This module uses the standard library only: on a hit, or when the server
answers, neither pydantic nor lark is imported.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

CACHEABLE = {"check", "ask", "show", "timeline", "deck"}
KB_DIRS = ("cards", "rulings")
FORMAT = "1"


def find_root(start_dir: Optional[Path] = None) -> Path:
    """The knowledge base root: $RULESDSL_ROOT, else the nearest directory holding rulings/,
    else the checkout this package was installed from."""
    env = os.environ.get("RULESDSL_ROOT")
    if env:
        return Path(env)
    here = (start_dir or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "rulings").is_dir():
            return d
    return Path(__file__).resolve().parent.parent


def cache_dir(root: Path) -> Path:
    env = os.environ.get("RULESDSL_CACHE")
    return Path(env) if env else Path(root) / ".rulesdsl-cache"


def _command(argv: Sequence[str]) -> tuple[Optional[str], Optional[str], bool]:
    """(command, --root value, --no-cache given) from the global options before the command."""
    root, i = None, 0
    while i < len(argv):
        a = argv[i]
        if a == "--root" and i + 1 < len(argv):
            root, i = argv[i + 1], i + 2
            continue
        if a.startswith("--root="):
            root, i = a.split("=", 1)[1], i + 1
            continue
        if a.startswith("-"):
            i += 1
            continue
        return a, root, "--no-cache" in argv
    return None, root, "--no-cache" in argv


def command_of(argv: Sequence[str]) -> Optional[str]:
    return _command(argv)[0]


class _Digests:
    """Content digests of files, remembered with their size and modification time so that an
    unchanged file is not read again (a manifest kept beside the cached outputs)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, list] = _read(path) or {}
        self.seen: dict[str, list] = {}

    def digest(self, p: str) -> bytes:
        try:
            st = os.stat(p)
        except OSError:
            return b"missing"
        known = self.known.get(p)
        if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
            self.seen[p] = known
            return bytes.fromhex(known[2])
        try:
            with open(p, "rb") as f:
                d = hashlib.sha1(f.read()).digest()
        except OSError:
            return b"unreadable"
        self.seen[p] = [st.st_size, st.st_mtime_ns, d.hex()]
        return d

    def save(self) -> None:
        if self.seen != self.known:
            _write(self.path, self.seen)

    def tree(self, h, base: Path, suffixes: Optional[tuple] = None) -> None:
        if base.is_file():
            h.update(str(base).encode() + b"\0" + self.digest(str(base)))
            return
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            rel = os.path.relpath(dirpath, base)
            for name in sorted(filenames):
                if suffixes and not name.endswith(suffixes):
                    continue
                h.update(f"{rel}/{name}".encode() + b"\0" + self.digest(os.path.join(dirpath, name)))


def code_digest(digests: Optional[_Digests] = None) -> str:
    """A digest of this package's code (outputs and servers are only valid for the same code)."""
    h = hashlib.sha1(FORMAT.encode())
    (digests or _Digests(Path(os.devnull))).tree(h, Path(__file__).parent, (".py", ".lark"))
    return h.hexdigest()


def server_socket(folder: Path) -> Path:
    """Where a `rulesdsl serve` for the cache folder `folder` listens."""
    return folder / "serve.sock"


def cache_key(argv: Sequence[str]) -> Optional[tuple[Path, str, str]]:
    """(the cache folder, the key of the command's output under its `out/`, the code's digest),
    or None when the command's output is not kept."""
    command, root_arg, no_cache = _command(argv)
    if command not in CACHEABLE or no_cache or os.environ.get("RULESDSL_NO_CACHE"):
        return None
    root = (Path(root_arg) if root_arg else find_root()).resolve()
    folder = cache_dir(root) / "out"
    digests = _Digests(folder / "manifest.json")
    h = hashlib.sha1(FORMAT.encode())
    h.update(json.dumps([list(argv), str(Path.cwd()), str(root), _dt.date.today().isoformat(),
                         os.environ.get("NO_COLOR", "")]).encode())
    code = code_digest(digests)
    h.update(code.encode())
    for d in KB_DIRS:
        if (root / d).is_dir():
            digests.tree(h, root / d)
    skip = {root_arg} if root_arg else set()
    for a in argv:  # files named on the command line, inside the knowledge base or not
        p = Path(a)
        if not a.startswith("-") and a not in skip and p.exists():
            digests.tree(h, p.resolve(), (".rules",) if p.is_dir() else None)
    digests.save()
    return folder.parent, h.hexdigest(), code


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        key = cache_key(argv)
    except OSError:
        key = None
    if key is None:
        from .cli import main as run
        return run(argv)
    folder, digest, code = key
    hit = _read(folder / "out" / f"{digest}.json") or ask_server(folder, argv, digest, code)
    if hit is None:
        hit = run_and_remember(argv, folder, digest)
    sys.stdout.write(hit["stdout"])
    sys.stderr.write(hit["stderr"])
    return int(hit["code"])


def run_and_remember(argv: Sequence[str], folder: Path, digest: str) -> dict:
    """Run a command with its output captured, and keep the output under its key."""
    from .cli import main as run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(argv))
    result = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
    if code != 70:  # an internal error is never remembered
        _write(folder / "out" / f"{digest}.json", result)
    return result


# What a server is told of the client's environment: the variables the commands read.
def _client_env() -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith("RULESDSL_") or k == "NO_COLOR"}


def ask_server(folder: Path, argv: Sequence[str], digest: str, code: str) -> Optional[dict]:
    """The output of the command from a `rulesdsl serve` listening for this cache folder, or
    None when there is none, it runs other code, or anything goes wrong on the way (the
    command then runs here)."""
    path = server_socket(folder)
    if not path.exists():
        return None
    import socket

    request = {"argv": list(argv), "cwd": os.getcwd(), "env": _client_env(), "folder": str(folder),
               "digest": digest, "code": code}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2.0)
            s.connect(str(path))
            s.settimeout(None)      # a large check may take a while
            s.sendall(json.dumps(request, ensure_ascii=False).encode("utf-8"))
            s.shutdown(socket.SHUT_WR)
            reply = json.loads(_read_all(s).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(reply, dict) or not {"code", "stdout", "stderr"} <= reply.keys():
        return None
    return reply


def _read_all(s) -> bytes:
    chunks = []
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _read(path: Path) -> Optional[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write(path: Path, value: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only checkout still works, just without the cache


def entry() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass
    try:
        code = main()
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say
        os._exit(0)
    # A loaded knowledge base can be millions of objects; freeing them one by one at exit
    # takes seconds and achieves nothing, so the process ends as soon as its output is out.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
