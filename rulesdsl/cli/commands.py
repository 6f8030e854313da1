"""The CLI's commands. Importing one of these modules registers its commands with `rulesdsl.cli.main`;
a run imports only the module of the command it runs (`register`), which keeps start-up short:
asking a question need not import the formatter, the parser or the wiki."""

from __future__ import annotations

import importlib
from typing import Optional

# command -> module, in the order `rulesdsl --help` lists them
MODULES = {"ask": "ask", "check": "check", "deck": "deck", "fmt": "fmt", "test": "regression",
           "impact": "regression", "timeline": "regression", "show": "show", "serve": "serve", "lsp": "lsp", "wiki": "wiki"}


def register(command: Optional[str] = None) -> None:
    """Import the module of `command`, or of every command when it is None or unknown (for the
    help and for argparse's message about an unknown command)."""
    names = [MODULES[command]] if command in MODULES else list(dict.fromkeys(MODULES.values()))
    for name in names:
        importlib.import_module(f"rulesdsl.cli.{name}")
