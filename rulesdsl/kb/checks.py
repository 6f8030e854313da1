"""The registry of checks over a loaded knowledge base. Each check registers itself with
`@check(code)` and yields located diagnostics; `run_checks` (in lint.py, which imports every
module that holds checks) runs them all, in the order they registered.

A check says what its findings are about. `about="scenarios"`: it may locate a finding in a
scenario (its pins, its source, its cards, its expectations); it lives in lint.py. Every other
check is about the other declarations (games, rule sections, cards, rulings) and locates its
findings in them alone, never in a scenario: so a file of scenarios only, added to a knowledge
base, can be refused only by the checks about scenarios (`ask` of a judge's new question, first
on the knowledge base narrowed to its games: kb/brief.py)."""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from ..lang.diagnostics import Diagnostic
from ..lang.model import Loc
from .knowledge import KnowledgeBase

CheckFn = Callable[[KnowledgeBase], Iterable[Diagnostic]]
CHECKS: dict[str, CheckFn] = {}
ABOUT_SCENARIOS: set[str] = set()       # the names of the checks about scenarios


def check(code: str, about: Optional[str] = None):
    """Register a check under `code` (its findings' code, or a name of its own when a code's
    checks are split); `about="scenarios"` (see the module's text)."""
    if about not in (None, "scenarios"):
        raise ValueError(f"a check is about scenarios or about the rest, not {about!r}")

    def register(fn: CheckFn) -> CheckFn:
        CHECKS[code] = fn
        if about == "scenarios":
            ABOUT_SCENARIOS.add(code)
        return fn
    return register


def diag(code: str, loc: Optional[Loc], message: str, hint: Optional[str] = None,
         related: tuple = (), width: int = 1) -> Diagnostic:
    return Diagnostic(code=code, loc=loc, message=message, hint=hint, related=related, width=width)
