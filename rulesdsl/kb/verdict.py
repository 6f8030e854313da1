"""One verdict per file: what makes a file's scenarios unusable, the same for `check`, `ask`,
`test` and the pytest plugin — every diagnostic of loading it (syntax, validation) and every
finding of the checks (kb/lint: a known card given facts without `assume`, …) located in it.

A file with any is refused by every command, with the same located messages; `check` reports
them, `ask` and `test` refuse to answer its scenarios, and the pytest plugin fails to collect it."""

from __future__ import annotations

from typing import Iterable, Optional

from ..lang.diagnostics import Diagnostic
from .knowledge import KnowledgeBase


def findings(kb: KnowledgeBase, scenarios_only: bool = False) -> list[Diagnostic]:
    """Every diagnostic of loading and checking the knowledge base (computed afresh: a knowledge
    base an editor keeps may change its diagnostics in place); `scenarios_only`: of the checks,
    only those about scenarios (kb/checks.py: all that a file of scenarios alone can be refused
    for)."""
    from .lint import run_checks
    return list(kb.diagnostics) + run_checks(kb, scenarios_only)


def _inside(file: str, paths: Iterable[str]) -> bool:
    return any(file == p or file.startswith(p.rstrip("/") + "/") for p in paths)


def file_findings(kb: KnowledgeBase, paths: Iterable[str], found: Optional[list[Diagnostic]] = None
                  ) -> list[Diagnostic]:
    """The findings located in these files or folders (paths as the knowledge base shows them);
    `found`: the knowledge base's findings, if already computed."""
    paths = list(paths)
    return [d for d in (findings(kb) if found is None else found)
            if d.loc is not None and _inside(str(d.loc.file), paths)]


def refused(kb: KnowledgeBase) -> dict[str, list[Diagnostic]]:
    """file -> its findings, for every file that has any."""
    out: dict[str, list[Diagnostic]] = {}
    for d in findings(kb):
        if d.loc is not None:
            out.setdefault(str(d.loc.file), []).append(d)
    return out
