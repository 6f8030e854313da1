"""Every worked question's `rulesdsl ask --json` output, written to one file, to prove that a
change made for speed changed no answer (issue 25): run it before the change (`--write`), then
after (`--check`), byte for byte.

Each question is asked by its id, as a judge would (`rulesdsl ask ID --json`, in this process
through the command line's own entry, `cli.main.run_captured`): on its own date, and with `--as-of`
on the first day of every period of its timeline and the day before it (regress.periods: the days
its answer can change), and on the first and last days of the expectations dated `from`/`until`.
The outputs go to a private cache folder made for the run, so no kept output is reused.

    python benchmarks/answers_digest.py --write /tmp/before.jsonl
    python benchmarks/answers_digest.py --check /tmp/before.jsonl     # exit 1 on any difference
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def questions(kb, only: str | None = None) -> list[tuple[str, list[str]]]:
    """(scenario id, the `--as-of` days to ask it on besides its own date), for every scenario
    of a game with an interpreter."""
    from rulesdsl.engine.registry import engine_for
    from rulesdsl.regress.periods import timeline
    out = []
    for sid, info in sorted(kb.scenarios.items()):
        if engine_for(info.game) is None or (only and not sid.startswith(only)):
            continue
        days: set[dt.date] = set()
        for p in timeline(kb, info):
            if p.start:
                days |= {p.start, p.start - dt.timedelta(days=1)}
        for e in [*(e for e, _ in info.expects), *info.scenario.status_expects]:
            if e.valid_from is not None:
                days |= {e.valid_from.start(), e.valid_from.start() - dt.timedelta(days=1)}
            if e.valid_until is not None:
                days |= {e.valid_until.end(), e.valid_until.end() + dt.timedelta(days=1)}
        out.append((sid, sorted(d.isoformat() for d in days)))
    return out


def outputs(only: str | None = None):
    """Yield (the command line, its exit code, stdout, stderr) for every question and day."""
    cache = Path(tempfile.mkdtemp(prefix="rulesdsl-digest-"))
    os.environ["RULESDSL_CACHE"] = str(cache)
    os.environ.pop("RULESDSL_NO_CACHE", None)
    try:
        from rulesdsl.cli.main import run_captured
        from rulesdsl.kb.build import load
        kb = load(REPO)
        for sid, days in questions(kb, only):
            for day in [None, *days]:
                argv = ["--root", str(REPO), "ask", sid, "--json"] + (["--as-of", day] if day else [])
                r = run_captured(argv)
                yield argv[2:], r["code"], r["stdout"], r["stderr"]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE", help="write every output to FILE (one JSON line each)")
    g.add_argument("--check", metavar="FILE", help="compare every output with FILE's; exit 1 on a difference")
    p.add_argument("--only", metavar="PREFIX", help="only the scenario ids starting with PREFIX")
    args = p.parse_args()
    lines = [json.dumps({"argv": argv, "code": code, "stdout": so, "stderr": se}, ensure_ascii=False)
             for argv, code, so, se in outputs(args.only)]
    if args.write:
        Path(args.write).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} outputs written to {args.write}")
        return 0
    before = {tuple(r["argv"]): r for r in map(json.loads, Path(args.check).read_text(encoding="utf-8").splitlines())}
    differ = missing = 0
    for line in lines:
        now = json.loads(line)
        was = before.pop(tuple(now["argv"]), None)
        if was is None:
            missing += 1
            print(f"new: {' '.join(now['argv'])}")
        elif was != now:
            differ += 1
            if differ <= 10:
                print(f"differs: {' '.join(now['argv'])}")
                _show_diff(was, now)
    for argv in before:
        if not args.only:
            missing += 1
            print(f"gone: {' '.join(argv)}")
    print(f"{len(lines)} outputs compared: {differ} differ, {missing} new or gone")
    return 1 if differ or missing else 0


def _show_diff(was: dict, now: dict) -> None:
    import difflib
    for key in ("code", "stdout", "stderr"):
        if was[key] != now[key]:
            a, b = str(was[key]).splitlines(), str(now[key]).splitlines()
            for d in list(difflib.unified_diff(a, b, "before", "after", lineterm="", n=1))[:20]:
                print("    " + d)


if __name__ == "__main__":
    sys.exit(main())
