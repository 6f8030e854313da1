"""The command-line entry point (standard library only, and imported by nothing else).

The read-only commands (check, ask, show, timeline, deck) are pure functions of their
arguments, the package's code, the knowledge base's files and the day, so their output is kept
in the knowledge base's private cache folder under a key made of all of those (rulesdsl/base/cache.py):
asking again with nothing changed costs one pass over the file list. A running `rulesdsl serve`
for the same knowledge base answers first, if there is one (rulesdsl/cli/server.py: it keys the
command itself and answers a kept output as this process would); else the kept output answers,
and on a miss the command runs here (rulesdsl/cli/main.py). On a hit, or when the server
answers, neither pydantic nor lark is imported.
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
            kept = cache.kept_root(argv)
            # A running server is asked first, with this package's code digest alone: it keys
            # the command itself (looking at the knowledge base's files and the question's)
            # and answers a kept output as this process would, so the client does not walk
            # the knowledge base too. Anything else keys the command here.
            code = cache.code_digest(cache.digests(kept[0])) if kept is not None else None
            hit = ask_server(cache.socket_path(kept[0]), code, argv) if kept is not None else None
            if hit is not None:
                return _write(hit)
            key = cache.output_key(argv, code=code) if kept is not None else None
        except OSError as e:
            cache.note(f"no output cache: {e}")
            key = None
        if key is not None:
            hit = cache.recall(key)
            if hit is None:
                answer_path(argv)
                from .main import run_captured
                _hold_to_exit(argv)
                hit = run_captured(argv)
                cache.remember(key, hit)
            return _write(hit)
    answer_path(argv)
    from .main import main as run
    _hold_to_exit(argv)
    return run(argv)


_ENDS_BY_EXIT = False       # set by `entry`, which ends the process by os._exit


def _hold_to_exit(argv: Sequence[str]) -> None:
    """When this process ends by os._exit once its one command has run (a read-only command:
    never `serve` or `lsp`, which run command after command), what the command loaded is left
    for that exit to drop whole (rulesdsl/cli/main.py's HOLD_TO_EXIT)."""
    if _ENDS_BY_EXIT and cache.globals_of(argv).command in cache.READ_ONLY:
        from . import main as command_line
        command_line.HOLD_TO_EXIT = True


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


def _write(output: dict) -> int:
    sys.stdout.write(output["stdout"])
    sys.stderr.write(output["stderr"])
    return int(output["code"])


def ask_server(path: Path, code: str, argv: Sequence[str]) -> Optional[dict]:
    """The output of the command from the `rulesdsl serve` listening at `path` (this knowledge
    base's), or None when there is none, it runs other code than `code` or refuses, or
    anything goes wrong on the way (the command then runs here)."""
    if not os.path.exists(path):
        return None
    # the C module: `socket` wraps it in enums and selectors, a tenth of the served client's start
    import _socket
    if not hasattr(_socket, "AF_UNIX"):
        return None
    request = {"argv": list(argv), "cwd": os.getcwd(),
               "env": {k: os.environ[k] for k in wire.ENV if k in os.environ}, "code": code}
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
    global _ENDS_BY_EXIT
    _ENDS_BY_EXIT = True        # this process ends by os._exit below
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
