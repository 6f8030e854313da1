"""A judge's new question, end to end, as a ratio to Python's own start measured in the same run.

Issue 25's goal: `rulesdsl ask FILE` for a question file outside the knowledge base (a new one
each time, so no kept output answers it) at most 3x `python -c pass` without a server, at most
1.5x with `rulesdsl serve` running. On a shared machine seconds mean little, so each run times,
one after the other in rounds (interleaved), `python -c pass` (the anchor), the new question
on the command line's answer path (plain models, rulesdsl/base/declared.py), the same with
pydantic's models (RULESDSL_PYDANTIC=1: what the path cost before) and, in a second phase with
a server running, the anchor again and the served question. Figures are medians of the rounds;
wall time and, for the processes run here, CPU time (user + system, which a loaded machine
disturbs less). The interpreter is this one (run it from a fresh virtualenv: this sandbox's own
python3 has site hooks that make its start about 50 ms). The package's bytecode is compiled
first, as an installed package has it. The parse caches are filled before timing, as after any
earlier command.

    python benchmarks/bench_startup.py [--runs 15] [--code DIR] [--json]

--code DIR runs the commands in another checkout (e.g. an export of the main branch, for a
before/after in the same minutes): its package, on its own copy of the knowledge base.
Last, the server's own work per new question is timed apart, in one resident process (as
`rulesdsl serve` runs it, without the socket): the CPU of each answer, median of 2 x runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
JUDGE = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")


def timed(cmd: list[str], env: dict, cwd: Path = REPO) -> tuple[float, float, str]:
    """Wall and CPU seconds of one process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, check=False, cwd=cwd, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr}")
    return wall, cpu, r.stdout


@contextlib.contextmanager
def serving(base: list[str], env: dict, cwd: Path = REPO):
    """A `rulesdsl serve` of the knowledge base, loaded and listening, stopped on the way out."""
    server = subprocess.Popen(base + ["serve", "--idle", "300"], env=env, cwd=cwd,
                              stderr=subprocess.PIPE, text=True)
    try:
        if not any("answering" in line for line in server.stderr):     # its log says when it listens
            raise SystemExit(f"rulesdsl serve ended before answering (exit {server.wait()})")
        yield server
    finally:
        server.terminate()
        server.wait(timeout=60)


# The server's side of a served question, in one process of the checkout's own package: what
# `Server.answer` costs per new question once the knowledge base is loaded (its process CPU).
SERVER_WORK = r"""
import gc, json, os, re, sys, time
from pathlib import Path
from rulesdsl.cli.server import Server
from rulesdsl.kb import build, loader
from rulesdsl.lang.parser import parse_text
runs, work, judge = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]).read_text(encoding="utf-8")
loader.RESIDENT = True
server = Server(Path.cwd().resolve(), log=open(os.devnull, "w"))
build.load(server.root); parse_text("", "<start>"); gc.collect(); gc.freeze()
times = []
for n in range(runs + 3):                   # the first three warm the process up
    path = work / f"s{n}.rules"
    text = judge.replace("grm/judge/stack", f"grm/judge/s{n}")
    path.write_text(re.sub(r'(card "重い" \{\s*weight )60kg', rf"\g<1>{50 + n % 40}kg", text), encoding="utf-8")
    t = time.process_time()
    reply = server.answer({"argv": ["ask", str(path)], "cwd": os.getcwd(), "env": {}, "code": server.code})
    if n >= 3:
        times.append(time.process_time() - t)
    assert reply.get("stdout", "").startswith("答え: "), reply
print(json.dumps(sorted(times)))
"""


def server_work(runs: int, code: Path, env: dict, work: Path) -> list[float]:
    """CPU seconds of each new question's answer inside a resident process (SERVER_WORK)."""
    r = subprocess.run([sys.executable, "-c", SERVER_WORK, str(runs), str(work), str(REPO / "examples/judge-question.rules")],
                       env=dict(env, PYTHONPATH=str(code)), cwd=code, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"the server's work could not be timed: {r.stderr}")
    return json.loads(r.stdout)


def measure(runs: int, code: Path = REPO) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="rs-"))      # short: it holds the server's socket
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-judge-"))
    env = dict(os.environ, RULESDSL_CACHE=str(cache))
    for k in ("RULESDSL_NO_CACHE", "RULESDSL_PYDANTIC", "RULESDSL_VERBOSE"):
        env.pop(k, None)
    pyd_env = dict(env, RULESDSL_PYDANTIC="1")
    py = sys.executable
    base = [py, "-m", "rulesdsl"]
    subprocess.run([py, "-m", "compileall", "-q", str(code / "rulesdsl")],
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""), capture_output=True, check=True)
    counter = iter(range(10 ** 6))

    def question() -> list[str]:
        n = next(counter)
        path = work / f"q{n}.rules"
        text = JUDGE.replace("grm/judge/stack", f"grm/judge/q{n}")
        text = re.sub(r'(card "重い" \{\s*weight )60kg', rf"\g<1>{50 + n % 40}kg", text)
        path.write_text(text, encoding="utf-8")
        return base + ["ask", str(path)]

    anchor = [py, "-c", "pass"]
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in ("pass", "new", "new_pydantic", "pass_served", "served")}
    try:
        out = timed(question(), env, code)[2]                   # fills the parse and grammar caches
        assert out.startswith("答え: "), out
        timed(question(), pyd_env, code)
        for _ in range(runs):
            times["pass"].append(timed(anchor, env, code)[:2])
            times["new"].append(timed(question(), env, code)[:2])
            times["new_pydantic"].append(timed(question(), pyd_env, code)[:2])
        with serving(base, env, code):
            for _ in range(runs):
                times["pass_served"].append(timed(anchor, env, code)[:2])
                times["served"].append(timed(question(), env, code)[:2])
        work_cpu = server_work(2 * runs, code, env, work)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    def med(name: str, i: int) -> float:
        return statistics.median(t[i] for t in times[name])

    result = {"runs": runs, "python": py, "code": str(code), "load": os.getloadavg()[0],
              "server_work_cpu_ms": round(statistics.median(work_cpu) * 1000, 1)}
    for name in times:
        result[f"{name}_ms"] = round(med(name, 0) * 1000, 1)
        result[f"{name}_cpu_ms"] = round(med(name, 1) * 1000, 1)
    for name, anchor_name in (("new", "pass"), ("new_pydantic", "pass"), ("served", "pass_served")):
        result[f"{name}_ratio"] = round(med(name, 0) / med(anchor_name, 0), 2)
        result[f"{name}_cpu_ratio"] = round(med(name, 1) / med(anchor_name, 1), 2)
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--code", type=Path, default=REPO, help="the checkout whose package runs the commands")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    r = measure(args.runs, args.code.resolve())
    if args.json:
        print(json.dumps(r, indent=2))
        return
    print(f"medians of {r['runs']} interleaved rounds, load {r['load']:.1f}, {r['python']}, code of {r['code']}")
    print(f"  python -c pass (anchor)                         {r['pass_ms']:7.1f} ms wall  {r['pass_cpu_ms']:6.1f} ms CPU")
    print(f"  new question, no server (goal <= 3x)            {r['new_ms']:7.1f} ms wall  {r['new_ratio']:5.2f}x   "
          f"CPU {r['new_cpu_ms']:.1f} ms {r['new_cpu_ratio']:.2f}x")
    print(f"  the same on pydantic's models (before)          {r['new_pydantic_ms']:7.1f} ms wall  "
          f"{r['new_pydantic_ratio']:5.2f}x   CPU {r['new_pydantic_cpu_ms']:.1f} ms {r['new_pydantic_cpu_ratio']:.2f}x")
    print(f"  python -c pass, server phase (anchor)           {r['pass_served_ms']:7.1f} ms wall")
    print(f"  new question, `rulesdsl serve` running (<=1.5x) {r['served_ms']:7.1f} ms wall  {r['served_ratio']:5.2f}x   "
          f"CPU {r['served_cpu_ms']:.1f} ms {r['served_cpu_ratio']:.2f}x")
    print(f"  the server's own work per new question          {r['server_work_cpu_ms']:7.1f} ms CPU (in its process)")


if __name__ == "__main__":
    main()
