#!/usr/bin/env python3
"""Time `rulesdsl check` on a synthetic corpus against a raw Lark parse of the same text.

    python benchmarks/bench_check.py [--corpus DIR] [--json] [--cards N --revisions N --scenarios N]

Without --corpus, a corpus is generated with gen_corpus.py (default scale: 10,000 cards, 30,000
ruling revisions, 10,000 scenarios) into a temporary folder, removed afterwards unless --keep.

Measured, each in a fresh subprocess (so that interpreter start-up and imports count, and each
run's peak memory is its own, from os.wait4):

  raw    every .rules file `check` would read, read, decoded and parsed with
         `rulesdsl.lang.parser.raw_parser()` (plain parse tree, no transformer); the time is that of
         the loop alone, without start-up (the baseline the goal is stated against)
  cold   `rulesdsl --root DIR check` with RULESDSL_CACHE pointing at an empty folder: the first
         run, which parses everything and also fills the cache; timed until the command exits
         and until every process it started has ended (this process is made their subreaper, so
         the parse snapshot's writer, which the command forks and leaves running, is waited for
         and its CPU time counted); raw and cold alternate --runs times, the median pair is kept
  warm   the same command again with nothing changed, once nothing of the cold run is left
         running (median of --warm-runs, default 3)

Before anything is timed, `rulesdsl test` must pass every worked question of the corpus.

Goals (issue 25): cold, counting every process it starts, ≤ 1.5 × raw; warm ≤ 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
COLD_GOAL = 1.5
WARM_GOAL = 0.3


def become_subreaper() -> bool:
    """Make this process the one that a finished command's orphans are handed to (Linux's
    PR_SET_CHILD_SUBREAPER), so that a process a command forks into the background and does not
    wait for — the parse snapshot's writer — is waited for here and its time counted."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


SUBREAPER = False


def run(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> dict:
    """Run a command; its wall time, exit code, output and own peak RSS (MB) — and, as every
    process it started counts, the same for everything it left running: `all_seconds` is the
    time until the last of them ended, `all_cpu_seconds` their CPU time together (a child the
    command waited for is in its own figures already; one it left behind is added here)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        all_cpu, left, peak_left = cpu, 0, 0.0
        while SUBREAPER:  # the orphans handed to this process: wait for every one
            try:
                _, _, u = os.wait4(-1, 0)
            except ChildProcessError:
                break
            left += 1
            all_cpu += u.ru_utime + u.ru_stime
            peak_left = max(peak_left, u.ru_maxrss / 1024)
        out.seek(0)
        err.seek(0)
        return {"seconds": wall, "exit": proc.returncode, "peak_mb": usage.ru_maxrss / 1024,
                "load": round(os.getloadavg()[0], 1),
                "cpu_seconds": cpu, "all_seconds": time.perf_counter() - t0, "all_cpu_seconds": all_cpu,
                "left_running": left, "left_peak_mb": peak_left,
                "stdout": out.read().decode("utf-8", "replace"),
                "stderr": err.read().decode("utf-8", "replace")}


def raw_parse(root: Path) -> dict:
    """(in the child) read and parse every file `check` reads, with the raw parser."""
    from rulesdsl.kb.build import discover
    from rulesdsl.lang.parser import raw_parser

    parser = raw_parser()
    parser.parse('game x "x" { }\n')  # build everything lazily built before timing
    files = discover(root)
    t0, c0 = time.perf_counter(), time.process_time()
    size = 0
    for f in files:
        data = f.read_bytes()
        size += len(data)
        parser.parse(data.decode("utf-8"))
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "files": len(files), "bytes": size}


def manifest(*bases: Path) -> dict:
    """path -> (size, mtime_ns) of every file under the given folders."""
    out = {}
    for base in bases:
        for dirpath, _, filenames in os.walk(base):
            for name in filenames:
                p = os.path.join(dirpath, name)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                out[p] = (st.st_size, st.st_mtime_ns)
    return out


def kept_outputs(cache: Path) -> list[str]:
    """The outputs kept under the cache folder (one folder per knowledge base, each with out/)."""
    return sorted(str(p.relative_to(cache)) for p in cache.glob("*/out/*"))


def diff(a: dict, b: dict) -> list[str]:
    changed = [p for p in b if a.get(p) != b[p] and "__pycache__" not in p]
    removed = [p for p in a if p not in b and "__pycache__" not in p]
    return sorted(changed) + [f"{p} (removed)" for p in sorted(removed)]


def corpus_size(root: Path) -> dict:
    n = size = 0
    for d in ("cards", "rulings"):
        for f in (root / d).rglob("*.rules"):
            n += 1
            size += f.stat().st_size
    docs = sum(f.stat().st_size for f in (root / "rulings").glob("*/sources/*") if f.is_file())
    return {"files": n, "mb": size / 1e6, "source_docs_mb": docs / 1e6}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="an existing corpus root (default: generate one)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the generated corpus, the cache and the code snapshot (paths are printed)")
    ap.add_argument("--cards", type=int, default=10000)
    ap.add_argument("--revisions", type=int, default=30000)
    ap.add_argument("--scenarios", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warm-runs", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3, help="raw parse and cold check pairs (the median is reported)")
    ap.add_argument("--live-code", action="store_true",
                    help="run the installed rulesdsl as it is; by default the runs use a snapshot of "
                         "rulesdsl/ taken at the start, so that edits made meanwhile (which rightly "
                         "invalidate the check cache) do not disturb the measurement")
    ap.add_argument("--code", type=Path, metavar="DIR",
                    help="also time another checkout's rulesdsl/ (e.g. an export of main: `git archive main | tar -x -C DIR`) "
                         "in the same run: each pair is then a raw parse and a cold check of each code, alternating")
    ap.add_argument("--no-assert", action="store_true",
                    help="skip `rulesdsl test` on the corpus (only for a corpus an earlier run asserted; the result says so)")
    ap.add_argument("--raw-only", type=Path, help=argparse.SUPPRESS)   # the raw-parse child
    args = ap.parse_args(argv)

    if args.raw_only:
        print(json.dumps(raw_parse(args.raw_only)))
        return 0

    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    global SUBREAPER
    SUBREAPER = become_subreaper()
    if not SUBREAPER:
        log("note: cannot become a subreaper here; what a command leaves running is not counted")
    tmp = None
    generated = None
    other = None
    if args.corpus:
        root = args.corpus.resolve()
    else:
        tmp = Path(tempfile.mkdtemp(prefix="rulesdsl-corpus-"))
        root = tmp / "kb"
        log(f"generating the corpus in {root} …")
        # in a child process, so that this one stays small: a child's peak RSS (wait4) counts
        # the memory of the parent it was forked from
        gen = subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), str(root), "--json",
                              "--cards", str(args.cards), "--revisions", str(args.revisions),
                              "--scenarios", str(args.scenarios), "--seed", str(args.seed)],
                             stdout=subprocess.PIPE, text=True)
        if gen.returncode != 0:
            return 1
        generated = json.loads(gen.stdout)
        log(f"  done in {generated['seconds']} s")
    cache = Path(tempfile.mkdtemp(prefix="rulesdsl-cache-"))
    snap = Path(tempfile.mkdtemp(prefix="rulesdsl-code-"))
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-cwd-"))
    try:
        if args.no_assert:
            passing = {"passed": "not asserted in this run (--no-assert)"}
        else:
            log("asserting that every worked question of the corpus passes …")
            sys.path.insert(0, str(HERE))
            from gen_corpus import assert_scenarios_pass
            passing = assert_scenarios_pass(root, cwd=work)
            log(f"  {passing['passed']} passed")
        size = corpus_size(root)
        log(f"corpus: {size['files']} files, {size['mb']:.1f} MB")

        env = dict(os.environ, RULESDSL_CACHE=str(cache))
        env.pop("RULESDSL_ROOT", None)
        if not args.live_code:
            shutil.copytree(REPO / "rulesdsl", snap / "rulesdsl",
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(snap), env.get("PYTHONPATH"))))
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # a normal install has its bytecode compiled
            # compile the snapshot's bytecode once, as an install does
            run([sys.executable, "-m", "compileall", "-q", str(snap / "rulesdsl")], env, work)
        # the children run in an empty folder: `python -m` puts the working directory first on
        # sys.path, which from the repository root would import the live rulesdsl/
        code_path = run([sys.executable, "-c", "import rulesdsl; print(rulesdsl.__file__)"], env, work)
        code_path = code_path["stdout"].strip()
        log(f"rulesdsl imported from {code_path}")
        check = [sys.executable, "-m", "rulesdsl", "--root", str(root), "check"]
        if args.code:       # another checkout, its own snapshot of rulesdsl/ and its own cache
            other_snap = snap / "other"
            other_cache = Path(tempfile.mkdtemp(prefix="rulesdsl-cache-other-"))
            shutil.copytree(args.code.resolve() / "rulesdsl", other_snap / "rulesdsl",
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            other_env = dict(env, RULESDSL_CACHE=str(other_cache),
                             PYTHONPATH=os.pathsep.join(filter(None, (str(other_snap), os.environ.get("PYTHONPATH")))))
            other_env.pop("PYTHONDONTWRITEBYTECODE", None)
            run([sys.executable, "-m", "compileall", "-q", str(other_snap / "rulesdsl")], other_env, work)
            other = {"code": str(args.code), "env": other_env, "cache": other_cache, "pairs": []}
        watched = (root, snap) if not args.live_code else (root, REPO / "rulesdsl")
        # raw parse and cold check alternate, so that a slow spell of this shared machine falls
        # on both; the median pair (by the ratio) is reported, with every run's figures
        pairs = []
        for i in range(max(1, args.runs)):
            log(f"raw Lark parse {i + 1}/{args.runs} …")
            raw_run = run([sys.executable, str(Path(__file__).resolve()), "--raw-only", str(root)], env, work)
            if raw_run["exit"] != 0:
                sys.stderr.write(raw_run["stderr"])
                return 1
            raw = json.loads(raw_run["stdout"])
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir(mode=0o700)
            before = manifest(*watched)
            log(f"cold check (empty cache) {i + 1}/{args.runs} …")
            cold = run(check, env, work)
            if cold["exit"] not in (0, 1):
                sys.stderr.write(cold["stdout"][-2000:] + cold["stderr"][-2000:])
                return 1
            log(f"  raw {raw['seconds']:.1f} s; cold {cold['seconds']:.1f} s, every process "
                f"{cold['all_seconds']:.1f} s ({cold['all_cpu_seconds']:.1f} s CPU)")
            pairs.append((cold["all_seconds"] / raw["seconds"], raw_run, raw, cold))
            if other is not None:
                shutil.rmtree(other["cache"], ignore_errors=True)
                other["cache"].mkdir(mode=0o700)
                log(f"cold check of {args.code} {i + 1}/{args.runs} …")
                ocold = run(check, other["env"], work)
                log(f"  {args.code}: cold {ocold['seconds']:.1f} s, every process {ocold['all_seconds']:.1f} s "
                    f"({ocold['all_cpu_seconds']:.1f} s CPU); load {os.getloadavg()[0]:.1f}")
                other["pairs"].append((ocold["all_seconds"] / raw["seconds"], raw, ocold))
        pairs.sort(key=lambda p: p[0])
        _, raw_run, raw, cold = pairs[len(pairs) // 2]
        summary = cold["stdout"].strip().splitlines()[-1] if cold["stdout"].strip() else ""
        log(f"  {summary}")
        warm_runs = []
        notes: list[str] = []
        changed = diff(before, manifest(*watched))
        if changed:
            notes.append("files changed during the cold run: " + ", ".join(changed[:5]))
        before = manifest(*watched)
        for i in range(args.warm_runs):
            log(f"warm check {i + 1}/{args.warm_runs} …")
            outs = kept_outputs(cache)
            warm_runs.append(run(check, env, work))
            outs_after = kept_outputs(cache)
            if outs_after != outs:
                notes.append(f"warm run {i + 1} missed the output cache: {outs} -> {outs_after}")
            after = manifest(*watched)
            changed = diff(before, after)
            if changed:  # the output cache is keyed by these files: the next run is not warm
                notes.append(f"files changed before warm run {i + 2}: " + ", ".join(changed[:5])
                             + (f" and {len(changed) - 5} more" if len(changed) > 5 else ""))
            before = after
        warm = statistics.median(r["seconds"] for r in warm_runs)
        other_result = None
        if other is not None:
            owarm = [run(check, other["env"], work) for _ in range(args.warm_runs)]
            ops = sorted(other["pairs"], key=lambda p: p[0])
            other_result = {
                "code": other["code"],
                "cold_all_over_raw": round(ops[len(ops) // 2][0], 2),
                "cold_all_over_raw_cpu": round(statistics.median(c["all_cpu_seconds"] / r["cpu_seconds"] for _, r, c in ops), 2),
                "pairs": [{"raw_s": round(r["seconds"], 2), "raw_cpu_s": round(r["cpu_seconds"], 2),
                           "cold_s": round(c["seconds"], 2), "cold_all_s": round(c["all_seconds"], 2),
                           "cold_all_cpu_s": round(c["all_cpu_seconds"], 2),
                           "over_raw": round(c["all_seconds"] / r["seconds"], 2),
                           "over_raw_cpu": round(c["all_cpu_seconds"] / r["cpu_seconds"], 2),
                           "left_running": c["left_running"]} for _, r, c in other["pairs"]],
                "warm_check_seconds": round(statistics.median(r["seconds"] for r in owarm), 3),
                "warm_check_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in owarm), 3),
                "check_summary": ops[0][2]["stdout"].strip().splitlines()[-1] if ops[0][2]["stdout"].strip() else "",
            }
        # what any run pays before reading a file: the interpreter, rulesdsl, lark and pydantic
        startup = run([sys.executable, "-c", "import rulesdsl.cli.main, rulesdsl.cli.check"], env, work)
        children_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

        result = {
            "corpus": str(root), "generated": generated,
            "code": "installed rulesdsl (live)" if args.live_code else "snapshot of rulesdsl/ at start",
            "code_path": code_path,
            "files": size["files"], "mb": round(size["mb"], 2),
            "raw_parse_seconds": round(raw["seconds"], 2),
            "raw_parse_cpu_seconds": round(raw["cpu_seconds"], 2),
            "raw_parse_process_seconds": round(raw_run["seconds"], 2),
            "raw_parse_peak_mb": round(raw_run["peak_mb"]),
            "cold_check_seconds": round(cold["seconds"], 2),
            "cold_check_cpu_seconds": round(cold["cpu_seconds"], 2),
            "cold_check_peak_mb": round(cold["peak_mb"]),
            "cold_over_raw": round(cold["seconds"] / raw["seconds"], 2),
            "cold_over_raw_cpu": round(cold["cpu_seconds"] / raw["cpu_seconds"], 2),
            # every process the cold check started, the background snapshot writer included
            "cold_all_seconds": round(cold["all_seconds"], 2),
            "cold_all_cpu_seconds": round(cold["all_cpu_seconds"], 2),
            "cold_left_running": cold["left_running"], "cold_left_peak_mb": round(cold["left_peak_mb"]),
            "cold_all_over_raw": round(cold["all_seconds"] / raw["seconds"], 2),
            "cold_all_over_raw_cpu": round(cold["all_cpu_seconds"] / raw["cpu_seconds"], 2),
            "counted_left_running": SUBREAPER,
            "cold_goal": COLD_GOAL, "cold_ok": cold["all_seconds"] <= COLD_GOAL * raw["seconds"],
            "check_exit": cold["exit"], "check_summary": summary,
            "warm_check_seconds": round(warm, 3),
            "warm_check_runs": [round(r["seconds"], 3) for r in warm_runs],
            "warm_check_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in warm_runs), 3),
            "warm_check_peak_mb": round(max(r["peak_mb"] for r in warm_runs)),
            "startup_seconds": round(startup["seconds"], 2),
            "warm_goal": WARM_GOAL, "warm_ok": warm <= WARM_GOAL,
            "children_peak_mb": round(children_peak),
            "notes": notes,
            "pairs": [{"raw_s": round(r["seconds"], 2), "raw_cpu_s": round(r["cpu_seconds"], 2),
                       "cold_s": round(c["seconds"], 2), "cold_all_s": round(c["all_seconds"], 2),
                       "cold_all_cpu_s": round(c["all_cpu_seconds"], 2),
                       "over_raw": round(c["all_seconds"] / r["seconds"], 2),
                       "over_raw_cpu": round(c["all_cpu_seconds"] / r["cpu_seconds"], 2),
                       "load": c.get("load")} for _, _, r, c in pairs],
            "other_code": other_result,
            "load_average": os.getloadavg(),
            "scenarios_passing": passing["passed"],
            "cache_mb": round(sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 1e6, 1),
        }
        for n in notes:
            log("note: " + n)
        if args.json:
            print(json.dumps(result, indent=2, ensure_ascii=False))
        else:
            ok = lambda b: "ok" if b else "MISSED"  # noqa: E731
            rows = [
                ("corpus", f"{result['files']} files, {result['mb']} MB", ""),
                ("raw Lark parse", f"{result['raw_parse_seconds']:.1f} s",
                 f"peak {result['raw_parse_peak_mb']} MB, CPU {result['raw_parse_cpu_seconds']:.1f} s"),
                ("cold check", f"{result['cold_check_seconds']:.1f} s",
                 f"peak {result['cold_check_peak_mb']} MB, CPU {result['cold_check_cpu_seconds']:.1f} s"),
                ("cold / raw", f"{result['cold_over_raw']:.2f}×",
                 f"until the command exits (CPU time: {result['cold_over_raw_cpu']:.2f}×)"),
                ("… every process", f"{result['cold_all_seconds']:.1f} s",
                 f"until the last process it started ends ({result['cold_left_running']} left running; "
                 f"CPU {result['cold_all_cpu_seconds']:.1f} s)"),
                ("… / raw", f"{result['cold_all_over_raw']:.2f}×",
                 f"goal ≤ {COLD_GOAL}×: {ok(result['cold_ok'])} (CPU time: {result['cold_all_over_raw_cpu']:.2f}×)"),
                ("warm check", f"{result['warm_check_seconds']:.2f} s",
                 f"goal ≤ {WARM_GOAL:g} s: {ok(result['warm_ok'])} (runs {', '.join(map(str, result['warm_check_runs']))}; "
                 f"CPU {result['warm_check_cpu_seconds']:.2f} s; peak {result['warm_check_peak_mb']} MB)"),
                ("start-up", f"{result['startup_seconds']:.2f} s", "python -c 'import rulesdsl.cli.main, rulesdsl.cli.check'"),
                ("check result", result["check_summary"], f"exit {result['check_exit']}"),
            ]
            w = max(len(r[0]) for r in rows)
            v = max(len(r[1]) for r in rows)
            print()
            for name, value, note in rows:
                print(f"{name:<{w}}  {value:>{v}}  {note}")
            if other_result is not None:
                o = other_result
                print(f"\n{o['code']}, the same run: cold counting every process {o['cold_all_over_raw']:.2f}× "
                      f"the raw parse (CPU {o['cold_all_over_raw_cpu']:.2f}×); warm {o['warm_check_seconds']:.2f} s "
                      f"(CPU {o['warm_check_cpu_seconds']:.2f} s); {o['check_summary']}")
        return 0
    finally:
        if args.keep:
            log(f"cache kept in {cache}, code snapshot in {snap}")
        else:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(snap, ignore_errors=True)
            if other is not None:       # the other checkout's cache (its code is inside `snap`)
                shutil.rmtree(other["cache"], ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
        if tmp is not None:
            if args.keep:
                log(f"corpus kept in {root}")
            else:
                shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
