"""`rulesdsl lsp`: the language server for editors, over stdio (see lsp_server.py)."""

from __future__ import annotations

import argparse

from ..kb.build import check_root
from ..lang.diagnostics import Diagnostic, DslError
from .main import EXIT_OK, Output, command


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true",
                   help="talk over stdin and stdout (the default and only way; accepted for editors that pass it)")
    p.add_argument("--debounce", type=float, default=30.0, metavar="MS",
                   help="check a file once its text has not changed for MS milliseconds (default 30)")


@command("lsp", "Run the language server for editors over stdio: diagnostics as you type, hover, "
                "definitions, references, completion, formatting, answers.", configure)
def run(args, out: Output) -> int:
    try:
        from .lsp_server import build
    except ImportError as e:
        raise DslError([Diagnostic(code="usage", fatal=True, message=f"the language server needs pygls ({e})",
                                   hint="install it: pip install 'rulesdsl[lsp]'")]) from None
    if args.debounce < 0:
        raise DslError([Diagnostic(code="usage", fatal=True, message="--debounce must not be negative")])
    from ..kb import loader
    root = check_root(args.root) if args.root else None
    loader.RESIDENT = True          # keep parsed files in memory between checks, as `serve` does
    try:
        build(root, use_cache=not args.no_cache, debounce=args.debounce / 1000).start_io()
    finally:
        loader.RESIDENT = False
    return EXIT_OK
