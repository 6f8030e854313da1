"""`rulesdsl ask FILE [--as-of DATE] [--tournament] [--json]`: answer a judge's scenario.

The verdict comes first; then a banner for anything provisional, unofficial or unconfirmed the
answer rests on; the board before and after; every expectation checked; the outcomes of unfixed
choices (always / possible / never, and the choices that lead to each); the trace with its
citations; and what the answer depends on. Exit 1 when an expectation fails.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..cli import EXIT_FINDINGS, EXIT_OK, Output, command, dump_json, exit_code
from ..diagnostics import Diagnostic, DslError
from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.runner import Answer, answer
from ..kb import KnowledgeBase, display_path, find_root, load, refuse_folder
from ..lint import run_checks
from ..model import Status
from .show import parse_as_of


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a .rules file with one or more scenarios (or a scenario id)")
    p.add_argument("--as-of", metavar="DATE", help="answer as of DATE instead of the scenario's own date")
    p.add_argument("--tournament", action="store_true", help="answer under tournament rules")
    p.add_argument("--json", action="store_true", help="machine-readable output (see README: ask --json)")
    p.add_argument("--trace", choices=("first", "all", "none"), default="first",
                   help="traces to print: of one branch per outcome (default), of every branch, or none")


def engine_diagnostic(e: EngineError) -> Diagnostic:
    return Diagnostic(code=e.code, message=e.message, loc=e.loc, hint=e.hint, fatal=True)


def scenarios_of(kb: KnowledgeBase, target: str) -> list:
    path = Path(target)
    if target in kb.scenarios:
        return [kb.scenarios[target]]
    shown = display_path(path, kb.root) if path.exists() else None
    found = [s for s in kb.scenarios.values() if s.scenario.loc.file == shown]
    if not found:
        what = "no scenario" if path.exists() else "no such file or scenario id"
        raise DslError([Diagnostic(code="usage", fatal=True, message=f"{target}: {what}",
                                   hint="write a scenario: scenario grm/qa/… \"題\" { as of …; … expect … }")])
    return sorted(found, key=lambda s: (s.scenario.loc.line, s.id))


@command("ask", "Answer a judge's scenario: verdict, statuses relied on, board, trace, choices.", configure)
def run(args, out: Output) -> int:
    root = (args.root or find_root()).resolve()
    target = Path(args.file)
    refuse_folder(target)
    extra = [target] if target.exists() else []
    kb = load(root, extra=extra, use_cache=not args.no_cache)
    as_of = parse_as_of(args.as_of)
    relevant = [d for d in kb.diagnostics + run_checks(kb)
                if d.loc is None or not extra or d.loc.file == display_path(target, kb.root)]
    fatal = [d for d in kb.diagnostics if d.fatal]
    if fatal or (extra and relevant):
        out.diagnostics(fatal or relevant)
        return exit_code(fatal) if fatal else 2
    answers: list[Answer] = []
    errors: list[Diagnostic] = []
    for info in scenarios_of(kb, args.file):
        try:
            answers.append(answer(kb, info, as_of=as_of.start() if as_of else None,
                                  tournament=True if args.tournament else None))
        except EngineError as e:
            errors.append(engine_diagnostic(e))
    if args.json:
        print(dump_json({"ok": all(a.ok for a in answers), "answers": [a.to_json() for a in answers]}))
    else:
        for i, a in enumerate(answers):
            if i:
                print("\n" + "=" * 78 + "\n")
            print(render_answer(a, args.trace))
    if errors:  # the other scenarios of the file are still answered
        out.diagnostics(errors)
        return 2
    return EXIT_OK if all(a.ok for a in answers) else EXIT_FINDINGS


# ----------------------------------------------------------------------------- text

_STATUS_JA = {Status.provisional: "暫定", Status.unofficial: "非公式", Status.unconfirmed: "※未確定"}


def render_answer(a: Answer, traces: str = "first") -> str:
    engine = engine_for(a.game)
    lines: list[str] = []
    add = lines.append
    applicable = [e for e in a.expectations if e.applies]
    mark = "" if not applicable else ("OK  " if a.ok else "FAIL  ")
    tag = f" [{a.status.ja}に依拠]" if a.status in _STATUS_JA else ""
    add(f"VERDICT{tag}: {mark}{a.verdict()}")
    if a.cautions:
        add("")
        add("!" * 78)
        add(f"!! この答えは確定していない裁定・解釈に依拠している（最も弱い根拠: {a.status.ja}）")
        for c in a.cautions:
            add(f"!!   {_STATUS_JA.get(c.status, c.status.value):<5} {c.ref}")
            if c.note:
                add(f"!!         {c.note}")
        add("!" * 78)
    add("")
    add(f"scenario: {a.scenario}  {a.title}")
    if a.question:
        add(f"question: {a.question}")
    add(f"as of:    {a.as_of.isoformat()}  ({'トーナメント' if a.mode == 'tournament' else '通常プレイ'})")
    add(f"status:   {a.status.value} ({a.status.ja})")
    for f in a.fuzzy:
        add(f"note:     {f}")
    first = a.branches[0]
    if engine and first.before is not None:
        add("")
        add("board before:")
        add(engine.render_board(first.before))
    if applicable or len(a.expectations) > len(applicable):
        add("")
        add("expectations:")
        for e in a.expectations:
            if not e.applies:
                add(f"  -  {e.text}  (not in force on this date)")
                continue
            tick = "✓" if e.ok else "✗"
            detail = f"{e.modality}: holds in {e.holds_in} of {e.branches} branch{'es' if e.branches != 1 else ''}"
            add(f"  {tick}  {e.text}  ({detail})")
            if not e.ok:
                for f in e.found:
                    add(f"       found: {f}")
                add(f"       at {e.loc}")
    outcomes = a.outcomes
    if len(a.branches) > 1:
        add("")
        add(f"choices: {len(a.branches)} branches explored, {len(outcomes)} distinct outcome(s)")
        for outcome, bs in outcomes.items():
            kind = "always" if len(bs) == len(a.branches) else "possible"
            add(f"  [{kind}] {outcome}")
            for b in bs:
                add(f"      via {b.path}")
    shown = [bs[0] for bs in outcomes.values()] if traces == "first" else (a.branches if traces == "all" else [])
    for b in shown:
        add("")
        if len(a.branches) > 1:
            add(f"trace ({b.path}):")
        else:
            add("trace:")
        for n, s in enumerate(b.steps, 1):
            cite = "; ".join(c.label() for c in s.cites)
            add(f"  {n:>2}. {s.text}" + (f"\n      ← {cite}" if cite else ""))
        if engine and b.after is not None:
            add("")
            add("board after:" if len(a.branches) == 1 else f"board after ({b.path}):")
            add(engine.render_board(b.after))
    if a.points or a.rulings:
        add("")
        add("depends on:")
        for name, v in a.points.items():
            add(f"  {name} = {v['value']}  ({v['status']}, {v['from']})")
        for r in a.rulings:
            if not any(r == f"{p['from']}" for p in a.points.values()):
                add(f"  {r}")
    return "\n".join(lines)
