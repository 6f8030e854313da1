"""The command-line entry point (standard library only, and imported by nothing else).

The read-only commands (check, ask, show, timeline, deck) are pure functions of their
arguments, the package's code, the knowledge base's files and the day, so their output is kept
in the knowledge base's private cache folder under a key made of all of those (rulesdsl/base/cache.py):
asking again with nothing changed costs one pass over the file list. On a miss, a running
`rulesdsl serve` for the same knowledge base answers, if there is one (rulesdsl/cli/server.py);
else the command runs here (rulesdsl/cli/main.py). On a hit, or when the server answers, neither
pydantic nor lark is imported.
"""

from __future__ import annotations

import os
import sys

from ..base import cache
from . import wire

CONNECT_TIMEOUT = 5.0
REPLY_TIMEOUT = 900.0        # a large `check` takes a while; past this, run it here


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cache.set_verbose(cache.globals_of(argv).verbose or bool(os.environ.get("RULESDSL_VERBOSE")))
    # a read-only command looks at each file once: its key and its run judge the same disk
    with cache.one_look():
        try:
            key = cache.output_key(argv)
        except OSError as e:
            cache.note(f"no output cache: {e}")
            key = None
        if key is not None:
            hit = cache.recall(key) or ask_server(key, argv)
            if hit is None:
                answer_path(argv)
                from .main import run_captured
                hit = run_captured(argv)
                cache.remember(key, hit)
            sys.stdout.write(hit["stdout"])
            sys.stderr.write(hit["stderr"])
            return int(hit["code"])
    answer_path(argv)
    from .main import main as run
    return run(argv)


# the commands that run here on the plain models (rulesdsl/base/declared.py): they only answer,
# so they need none of pydantic's machinery, whose import and class building are a third of
# a judge's new question
PLAIN_COMMANDS = frozenset({"ask"})


def answer_path(argv: Sequence[str]) -> None:
    command = cache.globals_of(argv).command
    if command in PLAIN_COMMANDS and not os.environ.get("RULESDSL_PYDANTIC"):
        from ..base import declared
        declared.use_plain()
        # The command's modules are imported with the collector off (their thousands of classes,
        # functions and constants are no garbage: collecting while they are made was 4-7 ms of a
        # new question), then frozen out of its sight for the rest of the run.
        import gc
        gc.disable()
        try:
            from .commands import register
            register(command)
        finally:
            gc.freeze()
            gc.enable()


def ask_server(key: cache.OutputKey, argv: Sequence[str]) -> Optional[dict]:
    """The output of the command from a `rulesdsl serve` for this knowledge base, or None when
    there is none, it runs other code or refuses, or anything goes wrong on the way (the
    command then runs here)."""
    path = key.path.parent.parent / "serve.sock"
    if not os.path.exists(path):
        return None
    # the C module: `socket` wraps it in enums and selectors, a tenth of the served client's start
    import _socket
    if not hasattr(_socket, "AF_UNIX"):
        return None
    request = {"argv": list(argv), "cwd": os.getcwd(),
               "env": {k: os.environ[k] for k in wire.ENV if k in os.environ}, "code": key.code}
    try:
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            s.settimeout(CONNECT_TIMEOUT)
            s.connect(str(path))
            wire.send(s, request, CONNECT_TIMEOUT)
            s.shutdown(_socket.SHUT_WR)
            reply = wire.decode(wire.receive(s, wire.MAX_REPLY, REPLY_TIMEOUT), max_depth=None)
        finally:
            s.close()
    except (OSError, wire.WireError) as e:
        cache.note(f"the server did not answer ({e}); running the command here")
        return None
    if "refused" in reply:
        cache.note(f"the server refused: {reply['refused']}; running the command here")
        return None
    if not isinstance(reply.get("code"), int) or not all(isinstance(reply.get(f), str) for f in ("stdout", "stderr")):
        return None
    cache.note("answered by the server")
    return reply


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
