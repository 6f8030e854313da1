"""Readings benchmark: a scenario answered under every reading of the unsettled rule points it
rests on, in-process, with the knowledge base loaded once.

For every answerable scenario of the bundled corpus that rests on at least three unsettled
points, the time of `answer` plus `try_readings` (every combination of readings, as
`rulesdsl ask` computes to say whether another reading changes the answer). Goal (issue 10):
under 50 ms for a scenario with three unsettled points.

    python benchmarks/bench_readings.py [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.engine.context import EngineError  # noqa: E402
from rulesdsl.engine.readings import try_readings  # noqa: E402
from rulesdsl.engine.registry import engine_for  # noqa: E402
from rulesdsl.engine.runner import answer  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    kb = load(REPO)
    rows = []
    for sid, info in sorted(kb.scenarios.items()):
        if engine_for(info.game) is None:
            continue
        try:
            points = len(answer(kb, info).unsettled)
        except EngineError:
            continue
        if points < 3:
            continue
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            a = answer(kb, info)
            r = try_readings(kb, info, a)
            times.append((time.perf_counter() - start) * 1000)
        rows.append({"scenario": sid, "points": points, "readings": len(r.answers),
                     "same": r.same, "median_ms": round(statistics.median(times), 2),
                     "max_ms": round(max(times), 2)})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    print(f"{'scenario':48} {'points':>6} {'readings':>8} {'median ms':>10} {'max ms':>8}")
    for row in rows:
        print(f"{row['scenario']:48} {row['points']:>6} {row['readings']:>8} {row['median_ms']:>10} {row['max_ms']:>8}")
    three = [r for r in rows if r["points"] == 3]
    if three:
        print(f"\nthree unsettled points: median {statistics.median(r['median_ms'] for r in three):.1f} ms "
              f"over {len(three)} scenarios (goal < 50 ms); slowest of all: "
              f"{max(r['max_ms'] for r in rows):.1f} ms")


if __name__ == "__main__":
    main()
