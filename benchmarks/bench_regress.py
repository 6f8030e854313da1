"""Regression and impact benchmarks on a 10,000-scenario synthetic corpus.

The corpus is the bundled knowledge base with its GRM questions copied until there are
--scenarios of them (plus the other games' own questions, recorded too) (ids made unique, as-of
dates spread over 2026 so that the dated rulings matter). A copy whose question, asked on its
day, no longer holds is asked instead on the nearest day of 2026 on which it does (found with the
scenario's timeline), so every copy passes, like the real corpus, and the figures measure answers
rather than quick failures: the benchmark stops before timing anything if one fails.

1. Full regression: every scenario answered (what `rulesdsl test` does), and recorded.
2. Impact of one changed revision: a what-if ruling that sets stack.flip_scope from
   2026-08-15, computed (a) by re-running only the scenarios whose recorded dependencies moved
   and (b) by re-running everything on both sides; the two reports must be identical.
   Goal: (a) at least 10x faster than (b).

    python benchmarks/bench_regress.py [--scenarios 10000] [--json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.kb import loader  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402
from rulesdsl.lang.model import Status  # noqa: E402
from rulesdsl.engine.expecting import status_matches  # noqa: E402
from rulesdsl.regress.impact import impact  # noqa: E402
from rulesdsl.regress.periods import timeline  # noqa: E402
from rulesdsl.regress.records import Memo, answer_all, record

loader.FREEZE_AFTER_LOAD = True  # as the command line does

WHAT_IF = (REPO / "examples/proposed-whole-stack.rules").read_text(encoding="utf-8")


def build_corpus(out: Path, scenarios: int) -> int:
    shutil.copytree(REPO / "cards", out / "cards")
    shutil.copytree(REPO / "rulings", out / "rulings")
    qa = sorted((REPO / "rulings/grm/qa").glob("*.rules"))
    blocks = []
    for f in qa:
        text = f.read_text(encoding="utf-8")
        blocks += re.findall(r"^scenario .*?^}\n", text, flags=re.S | re.M)
    copies, n, day = [], 0, dt.date(2026, 1, 1)
    while n < scenarios - len(blocks):
        for b in blocks:
            if n >= scenarios - len(blocks):
                break
            when = day + dt.timedelta(days=(n * 7) % 365)
            b2 = re.sub(r"^scenario (\S+)", lambda m: f"scenario {m.group(1)}-copy{n}", b, count=1, flags=re.M)
            b2 = re.sub(r"as of \S+", f"as of {when.isoformat()}", b2, count=1)
            copies.append(b2)
            n += 1
    folder = out / "rulings/grm/qa-copies"
    folder.mkdir(parents=True)
    write_copies(folder, copies)
    write_copies(folder, settle_days(out, copies))
    return len(blocks) + len(copies)


def write_copies(folder: Path, copies: list[str], per_file: int = 100) -> None:
    for i in range(0, len(copies), per_file):
        (folder / f"copies-{i // per_file:03d}.rules").write_text("\n".join(copies[i:i + per_file]),
                                                                  encoding="utf-8")


def settle_days(root: Path, copies: list[str]) -> list[str]:
    """Each copy asked on a day on which its expectations hold: its own day if they do, else the
    nearest day of 2026 inside a period of its timeline whose answer passes (else the nearest such
    day at all). A copy that passes on no day at all is an error of the benchmark."""
    kb = load(root, use_cache=False)
    cache: dict = {}
    out = []
    for b in copies:
        sid = re.match(r"scenario (\S+)", b).group(1)
        info = kb.scenarios[sid]
        day = info.scenario.as_of.start()
        rec, _ = record(kb, info, point_cache=cache)
        if rec.ok:
            out.append(b)
            continue
        best = None
        for p in timeline(kb, info):
            if not p.record.ok or not status_holds(info, p.record.status):
                continue
            lo = p.start or dt.date(1900, 1, 1)
            hi = (p.end - dt.timedelta(days=1)) if p.end else dt.date(2999, 12, 31)
            cand = min(max(day, lo), hi)
            key = (not (dt.date(2026, 1, 1) <= cand <= dt.date(2026, 12, 31)), abs((cand - day).days))
            if best is None or key < best[0]:
                best = (key, cand)
        if best is None:
            raise SystemExit(f"bench_regress: {sid} passes on no day; the benchmark needs every copy to pass")
        out.append(re.sub(r"as of \S+", f"as of {best[1].isoformat()}", b, count=1))
    return out


def status_holds(info, status: str) -> bool:
    """Whether the copy's `expect status` lines without a period hold for an answer of `status`.
    They are checked on the scenario's own day only, so a period of the timeline (answered on other
    days) is `ok` whatever its status; once the copy is asked on a day of that period, that day is
    its own and the lines are checked there."""
    found = Status(status)
    return all(status_matches(e, found) for e in info.scenario.status_expects
               if e.valid_from is None and e.valid_until is None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenarios", type=int, default=10_000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rulesdsl-regress-"))
    try:
        total = build_corpus(tmp / "kb", args.scenarios)
        whatif = tmp / "whatif.rules"
        whatif.write_text(WHAT_IF, encoding="utf-8")
        t = time.perf_counter()
        old = load(tmp / "kb", use_cache=False)
        new = load(tmp / "kb", extra=[whatif], use_cache=False)
        load_s = time.perf_counter() - t
        assert not [d for d in old.diagnostics if d.fatal], old.diagnostics[:3]
        # every answerable scenario, as `rulesdsl test` records them: the copied GRM questions and
        # the other games' own (impact looks at all of them; one left out of the memo re-runs)
        answerable = [s for s in old.scenarios.values() if s.expects]

        # asserted before anything is timed: a failing answer is often a quick one
        failing = [r.scenario for r in answer_all(old, answerable).values() if not r.ok]
        if failing:
            raise SystemExit(f"bench_regress: {len(failing)} of {len(answerable)} scenarios fail "
                             f"(first: {', '.join(failing[:5])}); the benchmark measures passing answers")
        memo = Memo(tmp / "memo.json")
        t = time.perf_counter()
        records = answer_all(old, answerable, memo)
        full_regression = time.perf_counter() - t
        memo.save()
        failed = sum(1 for r in records.values() if not r.ok)

        t = time.perf_counter()
        fast = impact(old, new, Memo(tmp / "memo.json"))
        fast_s = time.perf_counter() - t
        t = time.perf_counter()
        full = impact(old, new, None, use_memo=False)
        full_s = time.perf_counter() - t
        identical = [c.as_dict() for c in fast.changes] == [c.as_dict() for c in full.changes]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {
        "scenarios": len(answerable), "load_two_states_s": round(load_s, 1),
        "full_regression_s": round(full_regression, 1), "per_second": round(len(answerable) / full_regression),
        "regression_failures": failed,
        "impact_changed_answers": len(fast.changes), "impact_rerun": fast.rerun,
        "impact_s": round(fast_s, 2), "full_rerun_impact_s": round(full_s, 1),
        "speedup": round(full_s / fast_s, 1), "identical_verdicts": identical,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['scenarios']:,} scenarios (both states loaded in {result['load_two_states_s']} s)")
    print(f"full regression: {result['full_regression_s']} s ({result['per_second']:,}/s), "
          f"{failed} failing")
    print(f"impact of one changed revision: {result['impact_s']} s re-running {fast.rerun} scenarios "
          f"({len(fast.changes)} answers change)")
    print(f"the same by a full rerun of both states: {result['full_rerun_impact_s']} s "
          f"-> {result['speedup']}x faster (goal >= 10x); identical verdicts: {identical}")


if __name__ == "__main__":
    main()
