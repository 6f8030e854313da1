"""`rulesdsl fmt [--check | --write] PATH…`: the canonical layout (see rulesdsl.fmt)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from pathlib import Path

from ..cli import EXIT_FINDINGS, EXIT_OK, Output, command, exit_code
from ..diagnostics import Diagnostic, DslError
from ..fmt import format_text
from ..loader import decode
from ..model import Loc
from ..parser import parse_text


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help=".rules files or folders")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="change nothing; list files that are not formatted and exit 1 if any")
    mode.add_argument("--write", action="store_true", help="rewrite files in place (atomically)")


def files_of(paths) -> list[Path]:
    out = []
    for p in paths:
        out.extend(sorted(p.rglob("*.rules")) if p.is_dir() else [p])
    return out


def same_model(a: str, b: str, file: str) -> bool:
    """Whether two texts parse to the same model, locations aside."""
    return _strip(parse_text(a, file).model_dump()) == _strip(parse_text(b, file).model_dump())


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "loc" and not k.endswith("_loc")}
    if isinstance(value, (list, tuple)):
        return [_strip(v) for v in value]
    return value


def write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@command("fmt", "Format .rules files in the canonical layout (comments kept; prints the result unless --check or --write).",
         configure)
def run(args, out: Output) -> int:
    diags: list[Diagnostic] = []
    changed: list[Path] = []
    files = files_of(args.paths)
    for path in files:
        try:
            original = decode(path.read_bytes(), str(path))
            formatted = format_text(original, str(path))
            if not same_model(original, formatted, str(path)):  # never lose anything
                raise DslError([Diagnostic(code="fmt", loc=Loc(file=str(path), line=1, col=1), fatal=True,
                                           message="formatting would change the meaning of this file; it was left alone",
                                           hint="please report this as a bug")])
        except OSError as e:
            diags.append(Diagnostic(code="io", message=f"cannot read {path}: {e.strerror or e}", fatal=True))
            continue
        except DslError as e:
            diags.extend(e.diagnostics)
            continue
        if args.check:
            if formatted != original:
                changed.append(path)
                diff = difflib.unified_diff(original.splitlines(), formatted.splitlines(),
                                            str(path), f"{path} (formatted)", lineterm="", n=1)
                print("\n".join(list(diff)[:40]))
        elif args.write:
            if formatted != original:
                write_atomically(path, formatted)
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
