"""`rulesdsl ask FILE [--as-of DATE] [--tournament] [--json]`: answer a judge's scenario.

The verdict comes first; then a banner for anything provisional, unofficial or unconfirmed the
answer rests on; the board before and after; every expectation checked; the outcomes of unfixed
choices (always / possible / never, and the choices that lead to each); the trace with its
citations; and what the answer depends on. Exit 1 when an expectation fails.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from ..base.cache import find_root
from ..engine.answer import STATUS_MEANING, STATUS_WORDS, Answer
from ..engine.chance import expectation_odds, render_odds
from ..engine.context import MAX_BRANCHES_CEILING, MAX_OUTCOMES_CEILING, Bounds, EngineError
from ..engine.readings import reading_words, try_readings
from ..engine.registry import engine_for
from ..engine.runner import answer
from ..kb import brief
from ..kb.build import load, refuse_folder
from ..kb.knowledge import KnowledgeBase
from ..kb.loader import display_path, question_games
from ..kb.verdict import file_findings, findings
from ..lang.diagnostics import Diagnostic, DslError
from ..lang.model import Status
from .main import EXIT_FINDINGS, EXIT_OK, Output, command, dump_json, exit_code, parse_as_of


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a .rules file with one or more scenarios (or a scenario id)")
    p.add_argument("--as-of", metavar="DATE", help="answer as of DATE instead of the scenario's own date")
    p.add_argument("--tournament", action="store_true", help="answer under tournament rules")
    p.add_argument("--json", action="store_true", help="machine-readable output (see README: ask --json)")
    p.add_argument("--trace", choices=("first", "all", "none"), default="first",
                   help="traces to print: of one branch per outcome (default), of every branch, or none")
    p.add_argument("--readings", action="store_true",
                   help="answer under each value of the points the answer consulted that are not confirmed")
    p.add_argument("--max-branches", type=_bounded(MAX_BRANCHES_CEILING, "branches"), metavar="N",
                   default=Bounds.max_branches,
                   help=f"stop exploring past N branches of choices and chance (default {Bounds.max_branches}, "
                        f"at most {MAX_BRANCHES_CEILING:,})")
    p.add_argument("--max-outcomes", type=_bounded(MAX_OUTCOMES_CEILING, "outcomes"), metavar="N",
                   default=Bounds.max_outcomes,
                   help=f"refuse a chance point (e.g. a roll) with more than N outcomes (default {Bounds.max_outcomes:,}, "
                        f"at most {MAX_OUTCOMES_CEILING:,})")


def _bounded(ceiling: int, what: str):
    """An argparse type: a whole number from 1 to `ceiling` (the memory a question may take)."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not 1 <= n <= ceiling:
            raise argparse.ArgumentTypeError(
                f"{n:,} is outside 1 to {ceiling:,} {what}, the most a question may explore (past it the "
                "memory it needs is not bounded); fix some of the choices or dice in the scenario instead")
        return n
    return parse


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
    try:
        return _run(args, out)
    except DslError as e:
        if not args.json:
            raise
        return _refused(args, out, e.diagnostics, exit_code([d for d in e.diagnostics if d.fatal]) or 2)


def _refused(args, out: Output, diagnostics: list[Diagnostic], code: int) -> int:
    """A file refused while loading: its located errors (on stderr), and with --json the same
    errors on stdout as `{"ok": false, "answers": [], "errors": […]}`."""
    if args.json:
        print(dump_json({"ok": False, "answers": [], "errors": [
            (f"{d.loc}: " if d.loc else "") + f"error[{d.code}]: {d.message}" for d in diagnostics]}))
    out.diagnostics(diagnostics)
    return code


def _run(args, out: Output) -> int:
    root = (args.root or find_root()).resolve()
    target = Path(args.file)
    refuse_folder(target)
    extra = [target] if target.exists() else []
    # only the scenarios asked about are validated (the others would cost most of the load)
    shown = display_path(target, root) if extra else None
    wanted = (lambda s: s.loc.file == shown) if extra else (lambda s: s.id == args.file)
    # a new question from outside the knowledge base: first on the games it names alone (kb/brief);
    # a file refused there is loaded again with the whole knowledge base, which says why
    games = question_games(target, shown) if extra and not args.no_cache else None
    for narrow in ((True, False) if games else (False,)):
        with brief.only(games if narrow else None, shown):
            kb = load(root, extra=extra, use_cache=not args.no_cache, scenarios=wanted)
        # one verdict per file (kb/verdict): what check reports in the file refuses its scenarios;
        # on the narrowed knowledge base the file (scenarios only) can be refused only by the
        # checks about scenarios (kb/checks.py): the others report in the other files alone
        found = findings(kb, scenarios_only=narrow)
        relevant = [d for d in found if d.loc is None or not extra or d.loc.file == display_path(target, kb.root)]
        fatal = [d for d in kb.diagnostics if d.fatal]
        if not (fatal or (extra and relevant)):
            break
    as_of = parse_as_of(args.as_of)
    if fatal or (extra and relevant):
        return _refused(args, out, fatal or relevant, exit_code(fatal) if fatal else 2)
    if not extra and args.file in kb.scenarios:
        # a scenario of the knowledge base asked by id: a line of it that did not validate would
        # otherwise be dropped silently, and the answer would be to another question
        own = kb.scenarios[args.file].scenario.loc.file
        broken = file_findings(kb, [own], found)
        if broken:
            return _refused(args, out, broken, 2)
    answers: list[Answer] = []
    errors: list[Diagnostic] = []
    for info in scenarios_of(kb, args.file):
        options = dict(as_of=as_of.start() if as_of else None, tournament=True if args.tournament else None,
                       bounds=Bounds(max_branches=args.max_branches, max_outcomes=args.max_outcomes))
        try:
            a = answer(kb, info, **options)
            try_readings(kb, info, a, **options)
            answers.append(a)
        except EngineError as e:
            errors.append(engine_diagnostic(e))
    ok = bool(answers) and not errors and all(a.ok for a in answers)
    if args.json:
        print(dump_json({"ok": ok, "answers": [a.to_json() for a in answers],
                         "errors": [d.message for d in errors]}))
    else:
        for i, a in enumerate(answers):
            if i:
                print("\n" + "=" * 78 + "\n")
            print(render_answer(a, args.trace, kb=kb, readings=args.readings))
    if errors:  # the other scenarios of the file are still answered
        out.diagnostics(errors)
        return 2
    return EXIT_OK if ok else EXIT_FINDINGS


# ----------------------------------------------------------------------------- text

_STATUS_JA = {s: STATUS_WORDS[s] for s in (Status.provisional, Status.unofficial, Status.unconfirmed)}


def readings_summary(a: Answer, kb: Optional[KnowledgeBase]) -> Optional[str]:
    """Whether another value of a point the answer consulted that is not confirmed would change
    it (computed), and how: every combination, or each point varied alone."""
    r = a.readings
    if r is None or len(r.answers) + len(r.errors) <= 1:
        return None
    how = "全ての組み合わせ" if r.exhaustive else "組み合わせが多いため一点ずつ"
    if r.same:
        return f"どの読みでも答えは同じ（確定していない点 {len(r.points)} 件の読み {len(r.answers)} 通りで確認、{how}）"
    return (f"読みによって答えが変わる: 確定していない点 {len(r.points)} 件の読み {len(r.answers)} 通り（{how}）のうち、"
            f"{len(r.groups())} 通りの答えがある（--readings で各読みの答え）")


def touched_lines(a: Answer, kb: Optional[KnowledgeBase]) -> list[str]:
    """「資料が定めていない点（…）に触れるが、どの読みでも答えは同じ」: what the answer consulted
    that is not confirmed and decides nothing, so weakens nothing."""
    out = []
    for t in a.touched:
        names = "、".join(_point_label(kb, a.game, p["key"]) for p in t["points"])
        if all(p["kind"] == "unsettled" for p in t["points"]):
            out.append(f"資料が定めていない点（{names}）に触れるが、どの読みでも答えは同じ")
        else:
            word = STATUS_WORDS.get(Status(t["status"]), t["status"])
            out.append(f"{word}の{t['ref']}が定める点（{names}）に触れるが、ほかの値でも答えは同じ")
    return out


def _point_label(kb: Optional[KnowledgeBase], game: str, key: str) -> str:
    from ..engine.deciding import split_key
    name, card = split_key(key)
    decl = kb.games[game].points.get(name) if kb is not None else None
    label = decl.label if decl is not None and decl.label else name
    return label + (f"（{card}）" if card else "")


def render_answer(a: Answer, traces: str = "first", kb: Optional[KnowledgeBase] = None,
                  readings: bool = False) -> str:
    engine = engine_for(a.game)
    lines: list[str] = []
    add = lines.append
    applicable = [e for e in a.expectations if e.applies]
    # the first two lines answer the question, with the status in the sources' own words
    add("答え: " + "".join(a.sentences))
    mark = "" if not applicable else ("期待どおり" if a.ok else "期待と異なる")
    add(f"根拠: {a.to_json()['status_words']}" + (f"  —  {mark}" if mark else ""))
    summary = readings_summary(a, kb)
    if summary:
        add(f"読み: {summary}")
    for line in touched_lines(a, kb):
        add(f"読み: {line}")
    for f in a.fuzzy:
        add(f"日付: {f}")
    for x in a.assumptions:
        add(f"仮定: {x}")
    if readings and kb is not None:
        add("")
        add(render_readings(a, kb))
    if a.cautions:
        add("")
        add("!" * 78)
        add(f"!! この答えは確定していない裁定・解釈に依拠している（最も弱い根拠: {STATUS_WORDS[a.status]}）")
        for c in a.cautions:
            add(f"!!   {STATUS_WORDS.get(c.status, c.status.value)}  {c.ref}  — {STATUS_MEANING[c.status]}")
            if c.note:
                add(f"!!         {c.note}")
        add("!" * 78)
    for g in a.gaps:
        add(f"資料の欠落: {g['ref']}" + (f" — {g['note']}" if g.get("note") else ""))
    add("")
    add(f"scenario: {a.scenario}  {a.title}")
    if a.question:
        add(f"question: {a.question}")
    add(f"as of:    {a.as_of.isoformat()}  ({'トーナメント' if a.mode == 'tournament' else '通常プレイ'})")
    add(f"status:   {a.status.value} ({a.status.ja})")
    add(f"verdict:  {a.verdict()}")
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
            if e.evaluated == 0:
                add(f"  -  {e.text}  (not reached: the action is not allowed)")
                continue
            tick = "✓" if e.ok else "✗"
            detail = f"{e.modality}: holds in {e.holds_in} of {e.branches} branch{'es' if e.branches != 1 else ''}"
            chance = expectation_odds(a.odds, a.expectations.index(e)) if a.odds and a.odds.chance_points else None
            if chance:
                detail = f"{e.modality}; {chance}"
            add(f"  {tick}  {e.text}  ({detail})")
            if not e.ok:
                for f in e.found:
                    add(f"       found: {f}")
                add(f"       at {e.loc}")
    outcomes = a.outcomes
    if a.odds is not None and a.odds.chance_points:
        add("")
        lines += render_odds(a.odds, len(a.branches))
    elif len(a.branches) > 1:
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
            open_ = "  [資料に定めなし: 読みあり]" if name in a.unsettled else ""
            add(f"  {name} = {v['value']}  ({v['status']}, {v['from']}){open_}")
        for r in a.rulings:
            if not any(r == f"{p['from']}" for p in a.points.values()):
                add(f"  {r}")
    return "\n".join(lines)


def render_readings(a: Answer, kb: KnowledgeBase) -> str:
    r = a.readings
    if r is None or len(r.answers) <= 1:
        return "読み: この答えは資料が定めていない点に依拠していない（読みは一通り）"
    lines = []
    if r.same:
        lines.append(f"どの読みでも答えは同じ（{len(r.answers)} 通りの読み）:")
    else:
        lines.append(f"読みによって答えが変わる（{len(r.answers)} 通りの読み、{len(r.groups())} 通りの答え）:")
    for readings_, x in r.groups():
        lines.append("  答え: " + "".join(x.sentences) + f"  [{x.to_json()['status_words']}]")
        for reading in readings_:
            lines.append("    ← " + reading_words(kb, a.game, reading, r.points))
    for reading, message in r.errors:
        lines.append(f"  答えられない読み: {reading_words(kb, a.game, reading, r.points)} — {message}")
    for key, p in r.points.items():
        decides = "答えを左右する" if key in r.deciding else "答えを左右しない"
        if p.get("kind", "unsettled") == "unsettled":
            lines.append(f"  資料に定めのない点: {key}（記録: {p['gap']}）— {decides}")
        else:
            word = STATUS_WORDS.get(Status(p["status"]), p["status"])
            lines.append(f"  {word}が定める点: {key}（{p.get('from')}、ほかの値も試した）— {decides}")
    if not r.exhaustive:
        lines.append("  （組み合わせが多いため、各点を一つずつ変えて答えた）")
    return "\n".join(lines)
