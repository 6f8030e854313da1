"""`rulesdsl serve`: keep the knowledge base loaded and answer the read-only commands."""

from __future__ import annotations

import argparse

from ..base.cache import find_root
from ..kb.build import check_root
from ..lang.diagnostics import Diagnostic, DslError
from .main import EXIT_OK, Output, command


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--idle", type=float, default=1800.0, metavar="SECONDS",
                   help="stop after this many seconds without a request (default: 1800)")


@command("serve", "Keep the knowledge base loaded and answer check, ask, show, timeline and deck from "
                  "other terminals at once (`rulesdsl serve &`).", configure)
def run(args, out: Output) -> int:
    from .server import ServeError, serve

    if args.idle <= 0:
        raise DslError([Diagnostic(code="usage", fatal=True, message="--idle must be a positive number of seconds")])
    try:
        serve(check_root(args.root or find_root()), args.idle)
    except ServeError as e:
        raise DslError([Diagnostic(code="serve", fatal=True, message=str(e))]) from None
    except OSError as e:
        raise DslError([Diagnostic(code="serve", fatal=True, message=f"cannot serve: {e}")]) from None
    return EXIT_OK
