#!/usr/bin/env python3
"""`fmt --check` and `show` on one large file: 100,000 rulings in 9.8 MB, against a raw Lark parse
of the same file in the same run.

    python benchmarks/bench_bigfile.py [--rulings 100000] [--runs 3] [--json]

The file (`rulings/grm/bulk.rules`, one ruling per line, each with one dated, confirmed revision
and its text: about 100 bytes a ruling) is written into a copy of this repository's knowledge
base, and at half its size beside it, so that linearity shows as the ratio of the two. Measured
in fresh subprocesses, alternating, --runs times (medians reported, every run kept):

  raw    the file read and parsed with `rulesdsl.lang.parser.raw_parser()` (plain tree, no
         transformer): the loop's CPU and wall time, without start-up — the anchor
  fmt    `rulesdsl fmt --check FILE` (the file is not in the canonical layout: a blank line goes
         between top-level declarations, so the formatted text is checked too)
  show   `rulesdsl --root KB show ID` with an empty cache folder (every process it starts counted,
         see bench_check.py), then again with the cache it filled (another id)

Every figure is given as a ratio to the raw parse of its own run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import bench_check  # noqa: E402
from bench_check import become_subreaper, run  # noqa: E402


def write_bulk(path: Path, n: int) -> int:
    lines = [f'ruling grm/bulk/r{i:06d} "裁定{i}" {{ revision 2024-{i % 12 + 1:02d} confirmed '
             f'{{ text "裏向きになる。" }} }}\n' for i in range(n)]
    data = "".join(lines).encode("utf-8")
    path.write_bytes(data)
    return len(data)


RAW = """
import json, sys, time
from rulesdsl.lang.parser import raw_parser
p = raw_parser(); p.parse('game x "x" { }\\n')
t, c = time.perf_counter(), time.process_time()
p.parse(open(sys.argv[1], encoding="utf-8").read())
print(json.dumps({"seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - c}))
"""


def one_round(kb: Path, bulk: Path, n: int, env: dict, work: Path, cache: Path) -> dict:
    raw_run = run([sys.executable, "-c", RAW, str(bulk)], env, work)
    if raw_run["exit"] != 0:
        raise SystemExit(raw_run["stderr"])
    raw = json.loads(raw_run["stdout"])
    fmt = run([sys.executable, "-m", "rulesdsl", "fmt", "--check", str(bulk)], env, work)
    if fmt["exit"] != 1 or "would be reformatted" not in fmt["stdout"] + fmt["stderr"]:
        raise SystemExit(f"fmt --check: exit {fmt['exit']}\n{fmt['stdout'][-1500:]}{fmt['stderr'][-1500:]}")
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(mode=0o700)
    env = dict(env, RULESDSL_CACHE=str(cache))
    cold = run([sys.executable, "-m", "rulesdsl", "--root", str(kb), "show", f"grm/bulk/r{n // 2:06d}"], env, work)
    warm = run([sys.executable, "-m", "rulesdsl", "--root", str(kb), "show", f"grm/bulk/r{n // 3:06d}"], env, work)
    for name, r in (("show", cold), ("show again", warm)):
        if r["exit"] != 0 or "裏向きになる。" not in r["stdout"]:
            raise SystemExit(f"{name}: exit {r['exit']}\n{r['stdout'][-1500:]}{r['stderr'][-1500:]}")
    base, base_cpu = raw["seconds"], raw["cpu_seconds"]
    return {
        "raw_s": round(base, 2), "raw_cpu_s": round(base_cpu, 2),
        "fmt_s": round(fmt["seconds"], 2), "fmt_cpu_s": round(fmt["cpu_seconds"], 2),
        "fmt_peak_mb": round(fmt["peak_mb"]),
        "show_cold_s": round(cold["all_seconds"], 2), "show_cold_cpu_s": round(cold["all_cpu_seconds"], 2),
        "show_cold_peak_mb": round(max(cold["peak_mb"], cold["left_peak_mb"])),
        "show_warm_s": round(warm["seconds"], 2), "show_warm_cpu_s": round(warm["cpu_seconds"], 2),
        "show_warm_peak_mb": round(warm["peak_mb"]),
        "fmt_over_raw_cpu": round(fmt["cpu_seconds"] / base_cpu, 2),
        "show_cold_over_raw_cpu": round(cold["all_cpu_seconds"] / base_cpu, 2),
        "show_warm_over_raw_cpu": round(warm["cpu_seconds"] / base_cpu, 2),
        "fmt_over_raw": round(fmt["seconds"] / base, 2),
        "show_cold_over_raw": round(cold["all_seconds"] / base, 2),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rulings", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    bench_check.SUBREAPER = become_subreaper()
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    tmp = Path(tempfile.mkdtemp(prefix="bench-bigfile-"))
    try:
        work = tmp / "cwd"
        work.mkdir()
        env = dict(os.environ)
        env.pop("RULESDSL_ROOT", None)
        sizes = (args.rulings // 2, args.rulings)
        kbs, mbs = {}, {}
        for n in sizes:
            kb = kbs[n] = tmp / f"kb{n}"
            for d in ("cards", "rulings"):
                shutil.copytree(REPO / d, kb / d)
            mbs[n] = write_bulk(kb / "rulings/grm/bulk.rules", n) / 1e6
        rounds: dict[int, list[dict]] = {n: [] for n in sizes}
        for i in range(max(1, args.runs)):
            for n in sizes:
                log(f"run {i + 1}/{args.runs}: {n:,} rulings ({mbs[n]:.1f} MB) …")
                r = one_round(kbs[n], kbs[n] / "rulings/grm/bulk.rules", n, env, work, tmp / "cache")
                log("  " + ", ".join(f"{k} {v}" for k, v in r.items()))
                rounds[n].append(r)
        med = {n: {k: statistics.median(r[k] for r in rounds[n]) for k in rounds[n][0]} for n in sizes}
        small, big = sizes
        result = {"rulings": args.rulings, "mb": round(mbs[big], 2), "runs": args.runs,
                  "load_average": os.getloadavg(), "median": {str(n): med[n] for n in sizes},
                  "growth_half_to_full_cpu": {k: round(med[big][k] / med[small][k], 2) for k in
                                              ("raw_cpu_s", "fmt_cpu_s", "show_cold_cpu_s", "show_warm_cpu_s")},
                  "every_run": {str(n): rounds[n] for n in sizes}}
        if args.json:
            print(json.dumps(result, indent=2))
            return 0
        m = med[big]
        print(f"\n{args.rulings:,} rulings, {mbs[big]:.1f} MB, medians of {args.runs} runs (CPU seconds; wall in brackets):")
        print(f"  raw Lark parse      {m['raw_cpu_s']:6.1f} s ({m['raw_s']:.1f} s)")
        print(f"  fmt --check         {m['fmt_cpu_s']:6.1f} s ({m['fmt_s']:.1f} s)  {m['fmt_over_raw_cpu']:.2f}× raw, "
              f"peak {m['fmt_peak_mb']} MB")
        print(f"  show, empty cache   {m['show_cold_cpu_s']:6.1f} s ({m['show_cold_s']:.1f} s)  "
              f"{m['show_cold_over_raw_cpu']:.2f}× raw, peak {m['show_cold_peak_mb']} MB")
        print(f"  show again          {m['show_warm_cpu_s']:6.1f} s ({m['show_warm_s']:.1f} s)  "
              f"{m['show_warm_over_raw_cpu']:.2f}× raw, peak {m['show_warm_peak_mb']} MB")
        g = result["growth_half_to_full_cpu"]
        print(f"  {small:,} → {args.rulings:,} rulings (CPU): raw {g['raw_cpu_s']}×, fmt {g['fmt_cpu_s']}×, "
              f"show {g['show_cold_cpu_s']}×, show again {g['show_warm_cpu_s']}×")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
