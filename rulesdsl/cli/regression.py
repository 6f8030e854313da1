"""`rulesdsl test`, `rulesdsl impact` and `rulesdsl timeline`: the scenario corpus as a
regression suite (see rulesdsl.regress.records)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ..base import cache
from ..base.cache import KB_DIRS, find_root
from ..engine.answer import readings_json
from ..engine.context import EngineError
from ..engine.readings import try_readings
from ..engine.registry import engine_for
from ..engine.runner import collector_paused
from ..engine.sentences import cell_spelling
from ..kb.build import from_documents, load
from ..kb.knowledge import KnowledgeBase
from ..kb.loader import display_path
from ..kb.verdict import refused
from ..lang.diagnostics import Diagnostic, DslError
from ..lang.model import Status
from ..regress.failures import describe_failure, pinned_failures
from ..regress.impact import impact
from ..regress.periods import timeline
from ..regress.records import Memo, record
from .ask import engine_diagnostic, scenarios_of
from .main import EXIT_FINDINGS, EXIT_OK, Output, command, dump_json, parse_as_of


def _usable(kb: KnowledgeBase, files=()) -> None:
    fatal = [d for d in kb.diagnostics if d.fatal]
    bad = [d for d in kb.diagnostics if d.loc is not None and any(
        d.loc.file == f or d.loc.file.startswith(f.rstrip("/") + "/") for f in files)]
    if fatal or bad:
        raise DslError(fatal or bad)


def _memo(kb: KnowledgeBase, enabled: bool) -> Memo:
    if not enabled:
        return Memo(None)
    try:
        return Memo(cache.kb_dir(kb.root) / "answers")
    except cache.Unavailable as e:
        cache.note(f"no answers memo: {e}")
        return Memo(None)


class Progress:
    """A one-line progress bar on a terminal, for runs long enough to need one."""

    def __init__(self, stream=None, minimum: int = 200) -> None:
        self.stream, self.minimum = stream or sys.stderr, minimum
        self.active = self.stream.isatty()

    def __call__(self, n: int, total: int) -> None:
        if not self.active or total < self.minimum or (n % 25 and n != total):
            return
        width = 30
        done = int(width * n / total)
        self.stream.write(f"\r  [{'#' * done}{'.' * (width - done)}] {n}/{total}")
        if n == total:
            self.stream.write("\n")
        self.stream.flush()


# ----------------------------------------------------------------------------- test

def configure_test(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders (default: everything)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


@command("test", "Run every scenario's expectations (the regression suite), like pytest does.", configure_test)
def run_test(args, out: Output) -> int:
    root = (args.root or find_root()).resolve()
    kb = load(root, extra=args.paths, use_cache=not args.no_cache)
    wanted = [display_path(p, kb.root) for p in args.paths]
    _usable(kb, wanted)
    infos = sorted((s for s in kb.scenarios.values() if s.expects and (
        not wanted or any(s.scenario.loc.file == w or s.scenario.loc.file.startswith(w.rstrip("/") + "/")
                          for w in wanted))), key=lambda s: (s.scenario.loc.file, s.scenario.loc.line))
    results = []
    failures: list[str] = []
    skipped = 0
    progress = Progress()
    cache: dict = {}
    memo = _memo(kb, not args.no_cache)
    refused_files = refused(kb)
    # the collector paused over every answer, as in records.answer_all
    with collector_paused():
        for n, info in enumerate(infos, 1):
            progress(n, len(infos))
            refusal = refused_files.get(str(info.scenario.loc.file))
            if refusal:   # one verdict per file (kb/verdict): what check and ask refuse, test refuses
                d = refusal[0]
                failures.append(f"{info.game}:{info.id}: error\n  {d.loc}: error[{d.code}]: {d.message}"
                                + (f"\n  hint: {d.hint}" if d.hint else ""))
                results.append({"scenario": info.id, "game": info.game, "result": "error", "message": d.message,
                                "loc": str(d.loc)})
                continue
            if engine_for(info.game) is None:
                skipped += 1
                results.append({"scenario": info.id, "game": info.game, "result": "skipped",
                                "reason": f"no interpreter for {info.game} yet"})
                continue
            try:
                rec, a = record(kb, info, point_cache=cache)
                if a is None:
                    raise EngineError(rec.error or "", info.scenario.loc)
                memo.put(rec)
            except EngineError as e:
                d = engine_diagnostic(e)
                failures.append(f"{info.game}:{info.id}: error\n  {d.loc}: {d.message}" + (f"\n  hint: {d.hint}" if d.hint else ""))
                results.append({"scenario": info.id, "game": info.game, "result": "error", "message": e.message,
                                "loc": str(e.loc) if e.loc else None})
                continue
            pinned = pinned_failures(kb, info) if a.ok else []
            ok = a.ok and not pinned
            if not ok:
                text = describe_failure(a) if not a.ok else "\n".join(f.describe() for f in pinned)
                failures.append(f"{info.game}:{info.id}: FAILED\n{text}")
            results.append({"scenario": info.id, "game": info.game, "result": "passed" if ok else "failed",
                            "status": a.status.value, "verdict": a.verdict(),
                            "pinned": [f.describe() for f in pinned]})
    memo.save()
    passed = sum(r["result"] == "passed" for r in results)
    failed = len(results) - passed - skipped
    if args.json:
        print(dump_json({"passed": passed, "failed": failed, "skipped": skipped, "results": results}))
    else:
        for f in failures:
            print(f + "\n")
        why = " (their game has no interpreter)" if skipped else ""
        print(f"{len(results)} scenarios: {passed} passed, {failed} failed, {skipped} skipped{why}")
    return EXIT_FINDINGS if failed else EXIT_OK


# ----------------------------------------------------------------------------- impact

def configure_impact(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--since", metavar="REV", help="the knowledge base at git revision REV against the working tree")
    what.add_argument("--with", dest="with_file", metavar="FILE", type=Path,
                      help="what-if: FILE (a proposed ruling) added to the knowledge base; nothing is written")
    what.add_argument("--ruling", metavar="ID", help="the effect of one ruling (with --as-of: on that day)")
    p.add_argument("--as-of", metavar="DATE", help="answer every scenario as of DATE instead of its own date")
    p.add_argument("--full", action="store_true", help="re-run every scenario instead of only those whose "
                   "dependencies changed (slower; the same verdicts)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def git_tree(root: Path, rev: str, into: Path) -> Path:
    """The knowledge base folders as they were at a git revision, extracted into a folder. File
    names are read NUL-separated (`-z`), as git stores them: spaces and any characters survive."""
    def refuse(message: str, hint: str = "give a commit, branch or tag of the repository holding "
               "the knowledge base (e.g. HEAD, HEAD~1, main)"):
        return DslError([Diagnostic(code="usage", fatal=True, message=message, hint=hint)])

    if not rev.strip():
        raise refuse("--since was given an empty revision")
    if rev.startswith("-"):
        raise refuse(f"--since {rev}: a revision does not start with '-'")

    def git(*args, cwd: Path) -> bytes:
        return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout

    try:
        top = Path(os.fsdecode(git("rev-parse", "--show-toplevel", cwd=root).rstrip(b"\n")))
    except FileNotFoundError:
        raise refuse("git is not installed, and --since reads the knowledge base from git",
                     "install git, or compare with --with FILE") from None
    except subprocess.CalledProcessError:
        raise refuse(f"{root} is not in a git repository, so there is no revision {rev} to compare with",
                     "compare with --with FILE, or run in a git checkout of the knowledge base") from None
    try:
        commit = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", cwd=top).strip()
    except subprocess.CalledProcessError:
        raise refuse(f"the repository at {top} has no revision {rev}") from None
    try:
        prefix = root.resolve().relative_to(top.resolve())
        paths = [str(prefix / d) for d in KB_DIRS]
        listing = git("ls-tree", "-r", "-z", "--name-only", commit.decode(), "--", *paths, cwd=top)
        for name in filter(None, listing.split(b"\0")):
            data = git("show", commit + b":" + name, cwd=top)
            dest = into / Path(os.fsdecode(name)).relative_to(prefix)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
    except subprocess.CalledProcessError as e:
        detail = (e.stderr or b"").decode("utf-8", "replace").strip() or f"git exited {e.returncode}"
        raise refuse(f"cannot read the knowledge base at revision {rev}: {detail}") from None
    except ValueError:
        raise refuse(f"{root} is not inside the git checkout {top}") from None
    (into / "rulings").mkdir(exist_ok=True)      # a revision before the knowledge base: empty
    return into


@command("impact", "Which scenario verdicts a change of rulings changes, from what to what, and why.", configure_impact)
def run_impact(args, out: Output) -> int:
    root = (args.root or find_root()).resolve()
    day = parse_as_of(args.as_of)
    day = day.start() if day else None
    cache = not args.no_cache
    if args.since is not None:
        new = load(root, use_cache=cache)
        with tempfile.TemporaryDirectory(prefix="rulesdsl-since-") as tmp:
            old = load(git_tree(root, args.since, Path(tmp)), use_cache=False)
            old.root = root  # the same knowledge base, earlier
            title = f"since {args.since}"
            _usable(old)
            _usable(new)
            result = impact(old, new, _memo(new, cache), use_memo=not args.full, day=day, keep="new")
    elif args.with_file:
        if not args.with_file.exists():
            raise DslError([Diagnostic(code="io", fatal=True, message=f"cannot read {args.with_file}: no such file")])
        old = load(root, use_cache=cache)
        new = load(root, extra=[args.with_file], use_cache=cache)
        _usable(old)
        _usable(new, [display_path(args.with_file, root)])
        problems = [d for d in _lint(new) if d.loc and d.loc.file == display_path(args.with_file, root)]
        if problems:
            raise DslError(problems)
        title = f"with {args.with_file}"
        result = impact(old, new, _memo(old, cache), use_memo=not args.full, day=day)
    else:
        new = load(root, use_cache=cache)
        _usable(new)
        if args.ruling not in new.rulings:
            from ..lang.diagnostics import did_you_mean
            raise DslError([Diagnostic(code="usage", fatal=True, message=f"unknown ruling {args.ruling}",
                                       hint=did_you_mean(args.ruling, new.rulings))])
        docs = [d.model_copy(update={"decls": tuple(x for x in d.decls if getattr(x, "id", None) != args.ruling)})
                for d in new.documents]
        old = from_documents(root, docs)
        title = f"of ruling {args.ruling}" + (f" as of {day.isoformat()}" if day else "")
        result = impact(old, new, _memo(new, cache), use_memo=not args.full, day=day, keep="new")
    if args.json:
        print(dump_json({"change": title, **result.as_dict()}))
        return EXIT_OK
    print(render_impact(title, result))
    return EXIT_OK


def _lint(kb):
    from ..kb.lint import run_checks
    return run_checks(kb)


def render_impact(title: str, result) -> str:
    lines = [f"## Impact {title}", ""]
    lines.append(f"{len(result.changes)} answer(s) change; {result.rerun} of {result.total} scenarios re-run "
                 f"(the others' dependencies did not move).")
    for c in result.changes:
        lines += ["", f"- **{c.scenario}** 《{c.title}》",
                  f"  - before: {c.before}", f"  - after:  {c.after}"]
        if c.before == c.after and c.state_before != c.state_after:
            lines += [f"  - state before: {c.state_before}", f"  - state after:  {c.state_after}"]
        if c.ok_before != c.ok_after:
            lines.append(f"  - expectations: {_ok(c.ok_before)} → {_ok(c.ok_after)}")
        if c.status_before != c.status_after:
            lines.append(f"  - status: {c.status_before} → {c.status_after}")
        if c.readings_after is False or c.readings_before is False:
            words = {True: "どの読みでも同じ", False: "読みによって変わる", None: "読みは一通り"}
            lines.append(f"  - readings: {words[c.readings_before]} → {words[c.readings_after]}")
        for b in c.because:
            lines.append(f"  - because {b}")
    if result.added:
        lines += ["", "new scenarios: " + ", ".join(result.added)]
    if result.removed:
        lines += ["", "removed scenarios: " + ", ".join(result.removed)]
    return "\n".join(lines)


def _ok(v) -> str:
    return {True: "pass", False: "FAIL", None: "error"}[v]


# ----------------------------------------------------------------------------- timeline

def _rests_on(d, answer=None) -> str:
    """「rests on P = v (status, where)」, or 「touches …」 for a point that is not confirmed and
    decides nothing (every other value of it gives the same answer)."""
    point = d.key[0] if d.key[1] is None else f"card({d.key[1]}).{d.key[0]}"
    where = d.found[2] + "@" + d.found[3] if d.found[2] else "default"
    r = answer.readings if answer is not None else None
    if r is not None and point in r.points and point not in r.deciding:
        return f"touches {point} = {d.found[0]} ({d.found[1]}, {where}); every other value gives the same answer"
    return f"rests on {point} = {d.found[0]} ({d.found[1]}, {where})"


def configure_timeline(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a scenario file (or a scenario id)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


_JA = {s.value: s.ja for s in Status}


@command("timeline", "A scenario's answer for each period between the dates of the rulings it depends on.",
         configure_timeline)
def run_timeline(args, out: Output) -> int:
    root = (args.root or find_root()).resolve()
    target = Path(args.file)
    kb = load(root, extra=[target] if target.exists() else [], use_cache=not args.no_cache)
    _usable(kb, [display_path(target, kb.root)] if target.exists() else [])
    data = []
    for info in scenarios_of(kb, args.file):
        if engine_for(info.game) is None:
            raise DslError([Diagnostic(code="no-engine", fatal=True, loc=info.scenario.loc,
                                       message=f"there is no interpreter for {info.game} yet")])
        periods = timeline(kb, info)
        spell = cell_spelling(info.scenario.question)      # cells as the question writes them (B2)
        for p in periods:
            if p.answer is not None:
                try_readings(kb, info, p.answer, as_of=p.answer.as_of)
        data.append({"scenario": info.id, "title": info.scenario.title, "periods": [{
            "from": p.start.isoformat() if p.start else None, "until": p.end.isoformat() if p.end else None,
            "answer": spell(p.record.summary()), "status": p.record.status, "ok": p.record.ok,
            "status_words": p.answer.to_json()["status_words"] if p.answer else None,
            "fuzzy": p.answer.fuzzy if p.answer else [],
            "readings": readings_json(p.answer) if p.answer else None,
            "odds": p.answer.odds.as_dict() if p.answer and p.answer.odds and p.answer.odds.chance_points else None,
            "rests_on": [_rests_on(d, p.answer) for d in p.record.points()]} for p in periods]})
    if args.json:
        print(dump_json(data))
        return EXIT_OK
    for item in data:
        print(f"{item['scenario']}  {item['title']}")
        for p in item["periods"]:
            span = (f"from {p['from']}" if p["from"] else "from the beginning") + \
                   (f" until {p['until']}" if p["until"] else " on")
            status = p["status"] and f"{p['status']} ({p['status_words'] or _JA.get(p['status'], '')})"
            print(f"  {span}: {status}")
            print(f"      {p['answer']}")
            for f in p["fuzzy"]:
                print(f"      date: {f}")
            r = p["readings"]
            if r and r.get("answers") and len(r["answers"]) > 1:
                print("      readings: " + ("どの読みでも答えは同じ" if r["same"] else
                                            "読みによって答えが変わる（ask --readings --as-of で各読みの答え）"))
            for r in p["rests_on"]:
                print(f"      {r}")
        print()
    return EXIT_OK
