#!/usr/bin/env python3
"""The long fuzz run: 10,000 mutated corpus files through the command line, and the formatter
on large files.

    python benchmarks/bench_fuzz.py [--cases 10000] [--kb-every 10] [--big 1,2,5,10] [--json]

1. Mutations (rulesdsl/regress/fuzzing.py: the same kinds and seeds as tests/test_fuzz_cli.py, with
   later seeds): every case runs `fmt --check` on the mutated file alone; every --kb-every-th
   case also runs `check`, `check PATH`, `check` from outside, `show` or `ask` with the file in a
   copy of its knowledge base. All in this process, as the test does. Reported: runs, and the
   three counts that must be 0 — tracebacks (an escaping exception, a traceback or an internal
   error), exits other than 0/1/2, and failures without a location inside the file — with
   the exit codes seen and the first few problems of each sort.
2. Large files: `rulesdsl fmt --check` as a subprocess on files of --big megabytes (the corpus
   repeated), wall and CPU time, and seconds per megabyte (linear time: the rate stays flat).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.cli.main import main  # noqa: E402
from rulesdsl.regress.fuzzing import KINDS, cases, classify, copy_knowledge_bases, runner, show_id  # noqa: E402

run = runner(main)

KB_DIRS = ("cards", "rulings")
KB_COMMANDS = ("check", "check PATH", "check OUTSIDE", "show ID", "show ID --as-of")


def fuzz(count: int, kb_every: int, work: Path, log) -> dict:
    corpus = sorted(p for d in (*KB_DIRS, "examples") for p in (REPO / d).rglob("*.rules"))
    all_cases = cases(corpus, REPO, count, first_seed=100)     # other seeds than the test's
    roots = copy_knowledge_bases((c.game for c in all_cases), REPO, work)
    ids = {f: show_id(f) for f in corpus}
    questions = {f for f in corpus if "\nscenario " in "\n" + f.read_text(encoding="utf-8")}
    os.environ["NO_COLOR"] = "1"
    os.environ.pop("RULESDSL_DEBUG", None)
    os.environ.pop("RULESDSL_ROOT", None)
    counts: collections.Counter = collections.Counter()
    exits: collections.Counter = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    runs = 0
    started = time.perf_counter()
    alone = work / "alone"
    alone.mkdir()
    for n, case in enumerate(all_cases):
        data = case.mutated()
        f = alone / f"{n}.rules"
        f.write_bytes(data)
        jobs = [(["fmt", "--check", f], f, work / "cache")]
        if n % kb_every == 0:
            root = roots[case.game]
            command = KB_COMMANDS[(n // kb_every) % len(KB_COMMANDS)] if case.game else \
                ("ask OUTSIDE" if case.file in questions else "check OUTSIDE")
            args = {"check": ["check"], "check PATH": ["check", "INSIDE"], "check OUTSIDE": ["check", f],
                    "ask OUTSIDE": ["ask", f], "show ID": ["show", ids[case.file]],
                    "show ID --as-of": ["show", ids[case.file], "--as-of", "2026-09-01"]}[command]
            jobs.append((["--root", root, *args], f if "OUTSIDE" in command else None, work / f"cache-{case.game}"))
        for argv, file, cache_dir in jobs:
            os.environ["RULESDSL_CACHE"] = str(cache_dir)
            inside = None
            if file is None:
                inside = roots[case.game] / case.file.relative_to(REPO)
                original = inside.read_bytes()
                inside.write_bytes(data)
                argv = [inside if a == "INSIDE" else a for a in argv]
                file = inside
            try:
                code, out = run(argv)
            finally:
                if inside is not None:
                    inside.write_bytes(original)
            runs += 1
            exits[str(code)] += 1
            for kind, text in classify(" ".join(map(str, argv[2:] if argv[0] == "--root" else argv)),
                                       code, out, file, data):
                counts[kind] += 1
                if len(examples[kind]) < 3:
                    examples[kind].append(f"{case}: {text}")
        f.unlink()
        if (n + 1) % 1000 == 0:
            log(f"  {n + 1:,} cases, {runs:,} runs, {time.perf_counter() - started:.0f} s; "
                f"problems so far: {dict(counts) or 0}")
    return {"cases": len(all_cases), "runs": runs, "kinds": list(KINDS),
            "tracebacks": counts["traceback"], "bad_exits": counts["exit"], "unlocated": counts["unlocated"],
            "exit_codes": dict(sorted(exits.items())), "seconds": round(time.perf_counter() - started, 1),
            "examples": examples}


def big_files(sizes: list[float], work: Path, log) -> list[dict]:
    corpus = sorted(p for d in KB_DIRS for p in (REPO / d).rglob("*.rules"))
    unit = "\n".join(p.read_text(encoding="utf-8") for p in corpus) + "\n"
    out = []
    env = dict(os.environ, RULESDSL_CACHE=str(work / "cache-big"))
    for mb in sizes:
        f = work / f"big-{mb:g}MB.rules"
        f.write_text(unit * max(1, round(mb * 1_000_000 / len(unit.encode()))), encoding="utf-8")
        size = f.stat().st_size / 1e6
        log(f"  fmt --check on {size:.1f} MB …")
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "rulesdsl", "fmt", "--check", str(f)], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        cpu = usage.ru_utime + usage.ru_stime
        out.append({"mb": round(size, 2), "exit": os.waitstatus_to_exitcode(status), "seconds": round(wall, 2),
                    "cpu_seconds": round(cpu, 2), "cpu_seconds_per_mb": round(cpu / size, 2),
                    "peak_mb": round(usage.ru_maxrss / 1024), "traceback": "Traceback" in err})
        f.unlink()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--kb-every", type=int, default=10, help="every Nth case also runs against its knowledge base")
    ap.add_argument("--big", default="1,2,5,10", help="sizes in MB of the large files for fmt (empty: none)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-fuzz-"))
    try:
        sizes = [float(x) for x in args.big.split(",") if x.strip()]
        # first, while this process is small: a child's peak memory counts its parent's before exec
        big = big_files(sizes, work, log) if sizes else []
        log(f"fuzzing {args.cases:,} cases …")
        result = {"fuzz": fuzz(args.cases, args.kb_every, work, log), "big": big}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    f = result["fuzz"]
    print(f"\n{f['cases']:,} mutated files, {f['runs']:,} command runs in {f['seconds']} s")
    print(f"  tracebacks: {f['tracebacks']}   exits other than 0/1/2: {f['bad_exits']}   "
          f"errors without file:line:column: {f['unlocated']}")
    print(f"  exit codes: {f['exit_codes']}")
    for kind, texts in f["examples"].items():
        print(f"\nfirst {kind} problems:")
        for t in texts:
            print("  " + t.replace("\n", "\n  "))
    if result["big"]:
        print("\nfmt --check on large files:")
        for b in result["big"]:
            print(f"  {b['mb']:>6.1f} MB: {b['seconds']:6.1f} s wall, {b['cpu_seconds']:6.1f} s CPU "
                  f"({b['cpu_seconds_per_mb']:.2f} s/MB), peak {b['peak_mb']} MB, exit {b['exit']}"
                  + (", TRACEBACK" if b["traceback"] else ""))
    bad = f["tracebacks"] + f["bad_exits"] + f["unlocated"] + sum(b["traceback"] for b in result["big"])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
