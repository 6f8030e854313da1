"""GRM interpreter benchmarks.

1. Scenarios answered per second on one core: every GRM scenario of the bundled corpus with a
   single play action (and, for reference, all of them), answered repeatedly in-process with the
   knowledge base loaded once. Goal: >= 2,000 per second for single-play scenarios.
2. `rulesdsl ask` end to end on the bundled knowledge base, as a subprocess: cold (no cached
   output; parsed files cached, as after any earlier command) and warm (nothing changed since
   the last ask). Goal: <= 200 ms. The package's bytecode is compiled first, as an installed
   package has it (this sandbox sets PYTHONDONTWRITEBYTECODE, which would otherwise make every
   run compile every module afresh).

    python benchmarks/bench_engine.py [--seconds 3] [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.engine.runner import answer  # noqa: E402
from rulesdsl.kb import load  # noqa: E402

FLAGSHIP = REPO / "rulings/grm/qa/stack.rules"


def throughput(infos, kb, seconds: float) -> float:
    cache: dict = {}
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for info in infos:
            answer(kb, info, point_cache=cache)
            n += 1
    return n / (time.process_time() - start)


def ask_times(runs: int, env_extra: dict) -> tuple[list[float], list[float]]:
    cache = Path(tempfile.mkdtemp(prefix="rulesdsl-bench-"))
    env = dict(os.environ, RULESDSL_CACHE=str(cache), **env_extra)
    cmd = [sys.executable, "-m", "rulesdsl", "ask", str(FLAGSHIP)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parent.parent / "rulesdsl")],
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""), capture_output=True, check=True)
    subprocess.run(cmd, env=env, capture_output=True, check=True)   # fills the parse cache
    cold, warm = [], []
    for _ in range(runs):
        shutil.rmtree(cache / "out", ignore_errors=True)                # forget outputs only
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        warm.append(time.perf_counter() - t)
    shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0, help="time per throughput measurement")
    p.add_argument("--runs", type=int, default=7, help="subprocess runs of rulesdsl ask")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()

    kb = load(REPO)
    grm = [s for s in kb.scenarios.values() if s.game == "grm" and s.expects]
    single = [s for s in grm if sum(1 for c in s.calls if c.kind == "action" and c.name in ("play", "play_on")) == 1
              and not any(c.kind == "action" and c.name not in ("play", "play_on", "choose") for c in s.calls)]
    result = {
        "single_play_scenarios": len(single),
        "single_play_per_second": round(throughput(single, kb, args.seconds)),
        "all_scenarios": len(grm),
        "all_per_second": round(throughput(grm, kb, args.seconds)),
    }
    cold, warm = ask_times(args.runs, {})
    result["ask_cold_ms"] = round(statistics.median(cold) * 1000)
    result["ask_warm_ms"] = round(statistics.median(warm) * 1000)
    startup = []
    for _ in range(args.runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        startup.append(time.perf_counter() - t)
    result["python_startup_ms"] = round(statistics.median(startup) * 1000)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"GRM scenarios answered per second on one core (goal >= 2,000 for single-play):")
    print(f"  single-play ({result['single_play_scenarios']} scenarios): {result['single_play_per_second']:,}/s")
    print(f"  whole corpus ({result['all_scenarios']} scenarios):       {result['all_per_second']:,}/s")
    print(f"rulesdsl ask on the flagship, end to end (goal <= 200 ms), median of {args.runs}:")
    print(f"  warm (nothing changed since the last ask): {result['ask_warm_ms']} ms")
    print(f"  cold (no cached output; parsed files cached): {result['ask_cold_ms']} ms")
    print(f"  (python -c pass alone: {result['python_startup_ms']} ms)")


if __name__ == "__main__":
    main()
