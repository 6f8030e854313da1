"""The engines' work counted in machine instructions (valgrind's callgrind), not timed: on a machine
shared with other work, where two timed runs minutes apart differ by ±15 %, a change of a few per
cent shows only in a count that the load does not touch.

Each game's questions of `bench_engine.py` (GRM's whole corpus, 東方グランドメレー's fixed dice,
royal, プレシャスメモリーズ) are answered in a child process run under callgrind with its counting
off; it is switched on (`callgrind_control -i on`) only around three passes of the questions: the
engine's run alone with every question new (`bench_engine.forget_questions` before each pass,
outside the count), or with `--ask` as `ask` answers them (with the test of what decides,
questions repeated, as `bench_engine.throughput`). Printed: instructions per question. The
count is a proxy for time, not a time: it weighs an instruction of a dict lookup as one of a
cache miss. Needs valgrind (the count of one game takes 20–60 s).

    python benchmarks/bench_instructions.py [--ask] [--code DIR] [--json] [GAME ...]

`--code DIR` counts another checkout's code (an export of main, say) with its own knowledge base.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GAMES = ("grm", "thgm", "royal", "pm")
PASSES = 3


def child(repo: Path, game: str, ask: bool) -> None:
    """Under callgrind: load, answer every question once (caches filled), then count three passes."""
    sys.path[:0] = [str(repo), str(repo / "benchmarks")]
    import bench_engine as be
    from rulesdsl.kb import loader
    from rulesdsl.kb.build import load
    loader.FREEZE_AFTER_LOAD = True
    kb = load(repo)
    loader.FREEZE_AFTER_LOAD = False
    infos = [s for s in kb.scenarios.values() if s.game == game and s.expects]
    if game == "thgm":
        infos = [s for s in infos if be.fixed_dice(s)]
    cache: dict = {}
    for info in infos:
        be.answer(kb, info, point_cache=cache, settled=ask)
    me = str(os.getpid())
    for _ in range(PASSES):
        if not ask:
            be.forget_questions(kb)
        subprocess.run(["callgrind_control", "-i", "on", me], capture_output=True, check=True)
        for info in infos:
            be.answer(kb, info, point_cache=cache, settled=ask)
        subprocess.run(["callgrind_control", "-i", "off", me], capture_output=True, check=True)
    print(len(infos))


def count(repo: Path, game: str, ask: bool) -> dict:
    """Instructions per question of `game` answered by the code in `repo`."""
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-instructions-"))
    try:
        out = work / "callgrind.out"
        env = dict(os.environ, PYTHONPATH=str(repo), RULESDSL_CACHE=str(work / "cache"))
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--child", game, "--code", str(repo)] + (["--ask"] if ask else [])
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        questions = int(done.stdout.split()[-1])
        total = next(int(line.split()[1]) for line in out.read_text().splitlines()
                     if line.startswith("totals:"))
        return {"questions": questions, "per_question": round(total / (PASSES * questions))}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", default=list(GAMES))
    p.add_argument("--ask", action="store_true", help="as `ask` answers (with the test of what decides)")
    p.add_argument("--code", type=Path, default=REPO,
                   help="the checkout whose code and knowledge base to count")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.code.resolve(), args.child, args.ask)
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench_instructions needs valgrind")
    result = {g: count(args.code.resolve(), g, args.ask) for g in args.games}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    how = "as ask answers them, questions repeated" if args.ask else "the run alone, every question new"
    print(f"instructions per question ({how}; {PASSES} passes counted, {args.code.resolve()}):")
    for g, row in result.items():
        print(f"  {g} ({row['questions']} questions): {row['per_question']:,}")


if __name__ == "__main__":
    main()
