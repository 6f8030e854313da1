"""The `rulesdsl` command line, run in this process (the entry point, rulesdsl/cli/fastpath.py,
comes here when no kept output or running server answers).

Every command reports bad input as located diagnostics and exits non-zero; a file-system
problem (a path too long, a permission) is an error about the input, exit 2; an unexpected
internal failure is reported in one line (set RULESDSL_DEBUG=1 for the traceback) with exit 70.
Exit codes: 0 fine, 1 findings (or a failed expectation), 2 unusable input, 70 internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from ..base import cache
from ..lang.dates import DateError, PartialDate
from ..lang.diagnostics import Diagnostic, DslError, Sources, render

EXIT_OK, EXIT_FINDINGS, EXIT_UNUSABLE, EXIT_INTERNAL = 0, 1, 2, 70

COMMANDS: dict[str, tuple[Callable, Callable, str]] = {}

# Set by the entry point (rulesdsl/cli/fastpath.py), which ends the process with os._exit as soon
# as the output is out: what a command loaded is then `hold`en until that exit, not freed object
# by object when the command returns (a 10,000-card knowledge base: ~0.35 s of CPU and ~18,000
# page faults spent on a heap the exit drops whole). Anyone else calling `main` (a server, a
# test) frees it as usual.
HOLD_TO_EXIT = False
_held: list = []


def hold(*values) -> None:
    """Keep `values` alive until the process exits, when the entry point ends it (see HOLD_TO_EXIT);
    never in a process that keeps knowledge bases loaded between commands."""
    from ..kb import loader
    if HOLD_TO_EXIT and not loader.RESIDENT:
        _held.extend(values)


def command(name: str, help: str, configure: Callable[[argparse.ArgumentParser], None]):
    """Register `fn(args, out) -> exit code` as a subcommand whose options `configure` adds."""
    def deco(fn: Callable):
        COMMANDS[name] = (configure, fn, help)
        return fn
    return deco


class Output:
    """Writes results and diagnostics; knows the sources for rendering excerpts."""

    def __init__(self, color: Optional[bool] = None) -> None:
        self.sources = Sources()
        self.color = sys.stdout.isatty() if color is None else color
        self.color = self.color and not os.environ.get("NO_COLOR")

    def diagnostics(self, diags: Sequence[Diagnostic], stream=None) -> None:
        stream = stream or sys.stderr
        for d in sorted(diags, key=lambda d: d.sort_key()):
            print(render(d, self.sources, color=self.color and stream.isatty()), file=stream)
            print(file=stream)


def exit_code(diags: Sequence[Diagnostic]) -> int:
    if any(d.fatal for d in diags):
        return EXIT_UNUSABLE
    return EXIT_FINDINGS if diags else EXIT_OK


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, its width found as shutil.get_terminal_size finds it
    ($COLUMNS, the terminal, 80) without importing shutil (and its archive modules) for every
    parser argparse builds: a tenth of a new question's imports."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: Optional[int] = None) -> None:
        if width is None:
            try:
                columns = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                columns = 0
            if columns <= 0:
                try:
                    columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    columns = 0
            width = (columns or 80) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The argument parser, with `command` alone registered when given (see `commands.register`)."""
    from .commands import MODULES, register
    register(command)

    p = argparse.ArgumentParser(
        prog="rulesdsl", allow_abbrev=False, formatter_class=_Formatter,
        description="Rules adjudication and ruling knowledge base for trading card games.")
    p.add_argument("--root", type=Path, help="knowledge base root (holds cards/ and rulings/); "
                   "default: $RULESDSL_ROOT, or the nearest folder above holding rulings/")
    p.add_argument("--no-cache", action="store_true",
                   help="use no cache: parse everything afresh, keep no output")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say what the caches and the server did (on stderr)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    order = list(MODULES)       # the help lists the commands in this order, whatever imported them
    for name in sorted(COMMANDS, key=lambda n: order.index(n) if n in order else len(order)):
        configure, fn, help_ = COMMANDS[name]
        sp = sub.add_parser(name, help=help_, description=help_, allow_abbrev=False, formatter_class=_Formatter)
        configure(sp)
        sp.set_defaults(func=fn)
    return p


_parsers: dict = {}


def kept_parser(command: Optional[str]) -> argparse.ArgumentParser:
    """`build_parser(command)` for a resident process (`rulesdsl serve`), built once: parsing
    leaves a parser as it was, and one is built again when other commands have registered since
    (the help lists them). Its options' defaults are read when it is built, so a process that
    changes them (a test) builds its own."""
    from .commands import register
    register(command)
    key = (command, tuple(COMMANDS))
    parser = _parsers.get(key)
    if parser is None:
        parser = _parsers[key] = build_parser(command)
    return parser


def main(argv: Optional[Sequence[str]] = None, allowed: Optional[Iterable[str]] = None) -> int:
    """Run a command line here; `allowed`, when given, is the set of commands that may run."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass
    argv = list(sys.argv[1:] if argv is None else argv)
    from ..kb import loader
    command = cache.globals_of(argv).command
    parser = kept_parser(command) if loader.RESIDENT else build_parser(command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse already printed a usage message
        return int(e.code or 0) and EXIT_UNUSABLE
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_UNUSABLE
    out = Output()
    if allowed is not None and args.command not in allowed:
        out.diagnostics([Diagnostic(code="usage", fatal=True,
                                    message=f"{args.command} is not one of the commands served here")])
        return EXIT_UNUSABLE
    loader.FREEZE_AFTER_LOAD = True
    verbose = cache.verbose()
    cache.set_verbose(verbose or args.verbose)
    try:
        return int(args.func(args, out))
    except DslError as e:
        out.diagnostics(e.diagnostics)
        return exit_code(e.diagnostics)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as e:  # the file system said no (a path too long, a permission, a full disk)
        if os.environ.get("RULESDSL_DEBUG"):
            raise
        out.diagnostics([os_diagnostic(e)])
        return EXIT_UNUSABLE
    except Exception as e:  # the last line of defence: no traceback for a user
        if os.environ.get("RULESDSL_DEBUG"):
            raise
        print(f"rulesdsl: internal error: {type(e).__name__}: {e} "
              "(set RULESDSL_DEBUG=1 for details, and please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        loader.FREEZE_AFTER_LOAD = False
        cache.set_verbose(verbose)
        if not loader.RESIDENT:     # a command ends with nothing it started still running
            loader.wait_for_writers()


def parse_as_of(text: Optional[str]) -> Optional[PartialDate]:
    """The date of an `--as-of DATE` option (None when not given); a usage error otherwise."""
    if text is None:
        return None
    try:
        return PartialDate.parse(text)
    except DateError as e:
        raise DslError([Diagnostic(code="usage", message=f"--as-of: {e}", fatal=True)]) from None


def os_diagnostic(e: OSError) -> Diagnostic:
    what = "the path is too long for this system" if e.errno == errno.ENAMETOOLONG else (e.strerror or str(e))
    where = f"{e.filename}: " if e.filename else ""
    return Diagnostic(code="io", fatal=True, message=f"{where}{what}",
                      hint="shorten the file or folder names" if e.errno == errno.ENAMETOOLONG else None)


def run_captured(argv: Sequence[str], allowed: Optional[Iterable[str]] = None) -> dict:
    """Run a command line here with its output captured: {"code", "stdout", "stderr"}."""
    out, err = io.StringIO(), io.StringIO()
    with cache.notes_to(sys.stderr), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv), allowed)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def dump_json(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False, default=str)
