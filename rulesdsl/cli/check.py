"""`rulesdsl check [PATH…] [--gaps] [--json]`: parse, validate and lint the knowledge base."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from ..base.cache import find_root
from ..kb.build import load, names_of
from ..kb.lint import GAP_KINDS, run_checks
from ..kb.loader import rules_files, wait_for_writers
from ..lang.diagnostics import Diagnostic, DslError
from ..regress.answers import answer_findings
from .main import EXIT_OK, Output, command, dump_json, exit_code, hold


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or folders to report on (default: the whole knowledge base); files "
                        "outside the knowledge base are checked together with it")
    p.add_argument("--gaps", action="store_true",
                   help="list the gaps and contradictions of the sources that the knowledge base records")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def check_paths(root: Path, paths: list[Path], use_cache: bool = True):
    """Load the knowledge base plus `paths` and return (kb, findings), the findings limited to
    `paths` when any are given."""
    empty = [p for p in paths if Path(p).is_dir() and not rules_files(p)]
    if empty:       # a path with nothing to check is a mistake, not a clean result
        raise DslError([Diagnostic(code="usage", fatal=True, message=f"{p} holds no .rules file to check",
                                   hint="give a .rules file or a folder holding some") for p in empty])
    kb = load(root, extra=paths, use_cache=use_cache)
    findings = findings_of(kb, names_of(kb, paths) if paths else None)
    wait_for_writers()      # the parse snapshot's parts a child wrote meanwhile: nothing is left running
    return kb, findings


def findings_of(kb, files: Optional[set[str]] = None) -> list:
    """Every finding about a loaded knowledge base (loading, validation, lints), limited to
    the files named `files` when given (those without a place are kept); sorted. `rulesdsl
    lsp` reports these for the file being edited."""
    findings = list(kb.diagnostics) + run_checks(kb)
    if not any(d.fatal for d in kb.diagnostics):
        findings += answer_findings(kb)     # a scenario's own answer against the engine's result
    if files is not None:
        findings = [d for d in findings if d.loc is None or d.loc.file in files]
    return sorted(findings, key=lambda d: d.sort_key())


@command("check", "Parse, validate and lint the knowledge base (exit 0 clean, 1 findings, 2 unusable input).",
         configure)
def run(args, out: Output) -> int:
    root = args.root or find_root()
    use_cache = not args.no_cache
    if args.gaps:
        return _gaps(root, args, out)
    kb, findings = check_paths(root, list(args.paths), use_cache)
    hold(kb, findings)
    nfiles = len(kb.files)
    code = exit_code(findings)
    if args.json:
        print(dump_json({"files": nfiles, "exit": code,
                         "findings": [d.as_json() for d in findings]}))
        return code
    import sys
    out.diagnostics(findings, stream=sys.stdout)
    if findings:
        errors = sum(d.severity == "error" for d in findings)
        files = len({d.loc.file for d in findings if d.loc})
        print(f"{errors} error{'s' if errors != 1 else ''} in {files} file{'s' if files != 1 else ''} "
              f"({nfiles} files checked)")
    else:
        print(f"{nfiles} files checked: no findings")
    return code


def _gaps(root: Path, args, out: Output) -> int:
    kb, findings = check_paths(root, list(args.paths), not args.no_cache)
    hold(kb, findings)
    gaps = [r for r in kb.rulings.values() if r.gap]
    gaps.sort(key=lambda r: (r.game, r.id))
    if args.json:
        print(dump_json([{
            "id": r.id, "game": r.game, "kind": r.gap, "title": r.title,
            "revisions": [{"date": rev.date_label, "status": rev.status.value,
                           "source": rev.source.raw if rev.source else None,
                           "quotes": [q.text for q in rev.quotes], "text": rev.text.value if rev.text else None,
                           "reason": rev.reason} for rev in r.revisions],
            "loc": str(r.loc)} for r in gaps]))
    else:
        print(f"Gaps and contradictions of the sources recorded in the knowledge base: {len(gaps)}\n")
        for r in gaps:
            print(f"{r.id}  [{r.gap}: {GAP_KINDS.get(r.gap, '')}]")
            print(f"  {r.title}")
            for rev in r.revisions:
                print(f"  revision {rev.date_label} {rev.status.value} ({rev.status.ja})")
                if rev.source:
                    print(f"    source: {rev.source.raw}")
                for q in rev.quotes:
                    print(f"    quote:  {q.text}")
                if rev.text and rev.text.value:
                    print(f"    text:   {rev.text.value}")
                if rev.reason:
                    print(f"    reason: {rev.reason}")
            print(f"  at {r.loc}\n")
    if findings:
        out.diagnostics(findings)
    return exit_code(findings) if findings else EXIT_OK
