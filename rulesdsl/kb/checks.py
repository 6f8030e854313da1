"""The registry of checks over a loaded knowledge base. Each check registers itself with
`@check(code)` and yields located diagnostics; `run_checks` (in lint.py, which imports every
module that holds checks) runs them all."""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from ..lang.diagnostics import Diagnostic
from ..lang.model import Loc
from .knowledge import KnowledgeBase

CheckFn = Callable[[KnowledgeBase], Iterable[Diagnostic]]
CHECKS: dict[str, CheckFn] = {}


def check(code: str):
    def register(fn: CheckFn) -> CheckFn:
        CHECKS[code] = fn
        return fn
    return register


def diag(code: str, loc: Optional[Loc], message: str, hint: Optional[str] = None,
         related: tuple = (), width: int = 1) -> Diagnostic:
    return Diagnostic(code=code, loc=loc, message=message, hint=hint, related=related, width=width)
