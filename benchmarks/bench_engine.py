"""Interpreter benchmarks.

1. Scenarios answered per second on one core, per game, in-process with the knowledge base
   loaded once (and frozen out of the garbage collector's sight, as the command line does):
   every GRM scenario with a single play action, and all of them; every 東方グランドメレー
   scenario whose dice are fixed; every royal and every プレシャスメモリーズ (pm) scenario. Each
   is measured twice: answered as `ask` answers (with the test of what decides the answer,
   engine.deciding: the answer again under each other value of the points it consulted that are
   not confirmed; `answers each` says how many answers a question then costs, `runs each` how many
   runs of the engine it makes per run of the answer alone, a reading that repeats the runs of
   another costing none, and how many of those runs resumed from the state before a later action,
   engine.resume), and the engine's
   run alone (`settled=False`). Goal (issue 25): >= 5,000 per second. Each figure is also given
   per anchor: the scenarios answered in the time of a fixed pure-Python loop (the anchor,
   `anchor_once`), which survives the machine's load; divide by the anchor's seconds on a quiet
   machine to infer that machine's figure. The ratio is taken slice by slice (`paced`): one run
   of the anchor, one pass over the questions, one run of the anchor, and so on for the time
   given; each pass's rate (process time) times the mean of the two anchor runs either side of
   it is one ratio, and the figure is the median of those ratios, their quartiles beside it as
   the spread. The machine's speed, which moves by 2x within minutes on a shared machine, is
   then the same for a pass and its anchors, and one slow spike makes one ratio of many an
   outlier instead of making the whole figure look fast or slow (as an anchor timed once per
   figure did). The per-second figure is all passes' questions over all passes' time. 5,000
   per second on 12-04's quiet machine (anchor 39 ms) is ~195 per anchor.
1b. Exact odds: the full outcome distribution of one 東方グランドメレー attack of 2D, 3D, 4D, 5D
   and 6D against every base defense 2–12 (55 answers, each with every die left open), in-process.
   Goal: <= 50 ms in total. Reported: the first pass (the dice distributions not yet computed)
   and the best of several passes.
2. `rulesdsl ask` end to end on the bundled knowledge base, as a subprocess (parsed files
   cached, as after any earlier command): the flagship asked again with nothing changed (its
   output cached); the flagship with the cached outputs forgotten; a judge's new question (a
   file outside the knowledge base, different each time); and that again with `rulesdsl serve`
   running. Goal: <= 200 ms. The package's bytecode is compiled first, as an installed package
   has it (this sandbox sets PYTHONDONTWRITEBYTECODE, which would otherwise make every run
   compile every module afresh).
3. A chain of ten royal links (royal/qa/chain-ten-links) answered in-process, median of 200
   (goal <= 5 ms).

Figures 1b and 3 are each one short piece of work timed many times in one process, and a
process's draw decides them: the same code gives ~4.2 or ~6.5 ms for the chain, one or the other
for every run of a process (the string hash seed orders the sets and dicts a run walks, and with
them which objects it meets where). So they are taken in several fresh processes (`--processes`,
5 by default), each with its own fixed PYTHONHASHSEED (0, 1, 2…: the same draws on every run of
the benchmark, and on both sides of a comparison made with it), and the figure printed is the
median across the processes, with their range beside it; the JSON gives each process's figure.

    python benchmarks/bench_engine.py [--seconds 3] [--runs 7] [--processes 5] [--json] [--no-ask]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.base.cache import kb_dir  # noqa: E402
from rulesdsl.engine.runner import answer  # noqa: E402
from rulesdsl.kb import loader  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402

FLAGSHIP = REPO / "rulings/grm/qa/stack.rules"

ODDS = """\
scenario thgm/bench/d{n}v{d} "{n}D vs {d}" {{
  as of 2026-11-30
  card "攻撃キャラ" {{ attack_means "物理" {n}d 1 }}
  card "防御キャラ" {{ score 3; base_defense {d}; special_defense none }}
  turn P1 attack
  character P1 front 1 down "攻撃キャラ"
  character P2 front 1 down "防御キャラ"
  character P2 front 2 down
  declare_attack P1 front 1 "物理" {n}d P2 front 1
  roll any
  expect possible result failed
}}
"""


def fixed_dice(info) -> bool:
    """A thgm scenario with every die fixed (no roll left to chance, no seats drawn)."""
    for c in info.calls:
        if c.kind == "action" and (c.name == "decide_seats" or
                                   (c.name in ("roll", "reroll", "may_reroll") and
                                    (not c.params.get("faces") or "any" in c.params["faces"]))):
            return False
    return True


def odds_times(passes: int) -> dict[str, float]:
    """Milliseconds (process time) to answer the 55 odds questions: first pass and best pass."""
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-odds-"))
    try:
        f = work / "odds.rules"
        f.write_text("\n".join(ODDS.format(n=n, d=d) for n in range(2, 7) for d in range(2, 13)), encoding="utf-8")
        kb = load(REPO, extra=[f], use_cache=False)
        infos = [s for s in kb.scenarios.values() if s.id.startswith("thgm/bench/")]
        answer(kb, kb.scenarios["thgm/qa/attack-value-6-2-3"])     # the interpreter imported
        gc.collect()                                  # not the loaded knowledge base's first collection
        cache: dict = {}
        times = []
        for _ in range(passes):
            t = time.process_time()
            for info in infos:
                a = answer(kb, info, point_cache=cache)
                assert a.odds is None or sum(p for _, p in a.odds.plans[0].outcomes) == 1
            times.append((time.process_time() - t) * 1000)
        return {"questions": len(infos), "first_ms": round(times[0], 1), "best_ms": round(min(times), 1)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


ANCHOR_STORES = 300_000


def anchor_once() -> float:
    """The anchor: a fixed pure-Python loop (300,000 dict stores of a new string), once, in process
    time. 39 ms on 12-04's quiet machine."""
    t = time.process_time()
    d: dict = {}
    for i in range(ANCHOR_STORES):
        d[i % 1000] = str(i) + "x"
    return time.process_time() - t


def anchor_seconds(runs: int = 5) -> float:
    """The anchor's best of `runs` (the figure printed as the run's anchor)."""
    return min(anchor_once() for _ in range(runs))


def paced(one_pass, seconds: float) -> dict:
    """Passes of `one_pass()` (which answers some questions and returns how many and the process
    time they took, anything it does outside that time not counted) interleaved with runs of the
    anchor, anchor first and last, until the passes have taken `seconds`. Returned: per second
    (all passes' questions over their time), per anchor (the median over the passes of the
    pass's rate times the mean of the anchor runs either side of it), the quartiles of those
    ratios, and how many passes."""
    ratios: list[float] = []
    n, spent = 0, 0.0
    before = anchor_once()
    while spent < seconds or len(ratios) < 3:
        k, t = one_pass()
        after = anchor_once()
        ratios.append(k / t * (before + after) / 2)
        n, spent, before = n + k, spent + t, after
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return {"per_second": round(n / spent), "per_anchor": round(statistics.median(ratios), 1),
            "spread": [round(q1, 1), round(q3, 1)], "passes": len(ratios)}


def timed_pass(infos, kb, cache: dict, settled: bool, forget: bool = False):
    """One pass over `infos` (every question new first, outside the time, if `forget`): how many
    questions and the process time they took."""
    if forget:
        forget_questions(kb)
    start = time.process_time()
    for info in infos:
        answer(kb, info, point_cache=cache, settled=settled)
    return len(infos), time.process_time() - start


def throughput(infos, kb, seconds: float, settled: bool = True) -> dict:
    """Scenarios answered per second (process time) and per anchor (`paced`), each answered as
    `ask` answers it: with the test of what decides it (engine.deciding: the answer again under
    the other values of the points it consulted that are not confirmed) unless `settled` is
    false."""
    cache: dict = {}
    for info in infos:          # the point cache and the knowledge base's memos filled
        answer(kb, info, point_cache=cache, settled=settled)
    return paced(lambda: timed_pass(infos, kb, cache, settled), seconds)


def forget_questions(kb) -> None:
    """Drop what the engines keep per question between answers (set-ups, boards before the
    actions, expectations' words, per-scenario work, the cards an action names, sentence and
    verdict caches), keeping what is kept per knowledge base (rule points' values by day,
    sections' citations, sources' authority): as if every question were asked for the first time."""
    from rulesdsl.engine import registry, sentences, verdicts
    from rulesdsl.kb.knowledge import ScenarioInfo
    from rulesdsl.lang.vocab import Call
    for key in [k for k, v in kb.memo.items() if isinstance(v, tuple) and v and isinstance(v[0], (ScenarioInfo, Call))]:
        del kb.memo[key]
    for game in kb.games:
        engine = registry.engine_for(game)
        if engine is not None:
            engine.__dict__.pop("_per_scenario", None)
    registry._SUBJECTS.clear()
    for module in (sentences, verdicts):
        for f in vars(module).values():
            if callable(getattr(f, "cache_clear", None)):
                f.cache_clear()


def first_asked(infos, kb, seconds: float) -> dict:
    """The engine's run alone, per second and per anchor (`paced`), every question new to the
    engines (`forget_questions` before each pass, outside the time): what `rulesdsl test` or a
    judge's new question gets; the knowledge base's own caches filled by an earlier pass."""
    cache: dict = {}
    for info in infos:
        answer(kb, info, point_cache=cache, settled=False)
    return paced(lambda: timed_pass(infos, kb, cache, False, forget=True), seconds)


def answers_per_question(infos, kb) -> float:
    """How many answers one question costs with the test of what decides it (1 + the readings tried)."""
    total = 0
    for info in infos:
        a = answer(kb, info)
        total += len(a.readings.answers) + len(a.readings.errors) if a.readings is not None else 1
    return total / len(infos)


def runs_per_question(infos, kb) -> tuple[float, float]:
    """How many runs of the engine (one per branch of choices and chance) a question costs with the
    test of what decides it, per run of the answer alone: the readings whose runs repeat one made
    before (engine.deciding.RunMemo) cost none; and the share of those runs that started from the
    state before a later action instead of the set-up (engine.resume: only the tail is run)."""
    from rulesdsl.engine.deciding import RunMemo
    made = alone = resumed = 0
    for info in infos:
        memo = RunMemo()
        answer(kb, info, run_memo=memo)
        made += sum(len(v) for v in memo.runs.values())
        resumed += getattr(getattr(memo, "resumes", None), "resumed", 0)
        alone += len(answer(kb, info, settled=False).branches)
    return made / alone, resumed / made


def engine_figures(kb, seconds: float) -> dict:
    """Per game: scenarios answered per second on one core, with and without the test of what
    decides them, and their ratios to the anchor measured just before each (scenarios per anchor
    loop: divide by the anchor's seconds on a quiet machine to infer that machine's figure)."""
    grm = [s for s in kb.scenarios.values() if s.game == "grm" and s.expects]
    single = [s for s in grm if sum(1 for c in s.calls if c.kind == "action" and c.name in ("play", "play_on")) == 1
              and not any(c.kind == "action" and c.name not in ("play", "play_on", "choose") for c in s.calls)]
    sets = {"grm_single_play": single, "grm": grm,
            "thgm_fixed_dice": [s for s in kb.scenarios.values() if s.game == "thgm" and s.expects and fixed_dice(s)],
            "royal": [s for s in kb.scenarios.values() if s.game == "royal" and s.expects],
            "pm": [s for s in kb.scenarios.values() if s.game == "pm" and s.expects]}
    out: dict = {}
    for name, infos in sets.items():
        runs, resumed = runs_per_question(infos, kb)
        row: dict = {"scenarios": len(infos), "answers_per_question": round(answers_per_question(infos, kb), 2),
                     "runs_per_question": round(runs, 2), "runs_resumed": round(resumed, 2),
                     "anchor_ms": round(anchor_seconds() * 1000, 1)}
        for key, figures in (("settled", throughput(infos, kb, seconds, True)),
                             ("engine", throughput(infos, kb, seconds, False)),
                             ("engine_first", first_asked(infos, kb, seconds))):
            row[f"{key}_per_second"] = figures["per_second"]
            row[f"{key}_per_anchor"] = figures["per_anchor"]
            row[f"{key}_per_anchor_spread"] = figures["spread"]
            row[f"{key}_passes"] = figures["passes"]
        out[name] = row
    return out


def royal_figures(kb, runs: int = 200) -> dict:
    """The ten-link royal chain's answer time (see the docstring)."""
    ten = kb.scenarios["royal/qa/chain-ten-links"]
    cache: dict = {}
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        answer(kb, ten, point_cache=cache)
        times.append(time.perf_counter() - t)
    return {"royal_ten_link_chain_ms": round(statistics.median(times) * 1000, 2)}


JUDGE = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")


def ask_times(runs: int) -> dict[str, list[float]]:
    """Wall times of `rulesdsl ask` as a subprocess, in four situations (see the docstring)."""
    cache = Path(tempfile.mkdtemp(prefix="rs-"))     # short: it holds the server's socket
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-judge-"))
    env = dict(os.environ, RULESDSL_CACHE=str(cache))
    env.pop("RULESDSL_NO_CACHE", None)
    os.environ["RULESDSL_CACHE"] = str(cache)
    outputs = kb_dir(REPO) / "out"                   # the kept outputs of the bundled knowledge base
    base = [sys.executable, "-m", "rulesdsl"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "rulesdsl")],
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""), capture_output=True, check=True)
    subprocess.run(base + ["ask", str(FLAGSHIP)], env=env, capture_output=True, check=True)  # fills the parse cache
    counter = iter(range(10 ** 6))

    def timed(cmd: list[str]) -> float:
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=False, cwd=REPO)
        return time.perf_counter() - t

    def new_question() -> list[str]:
        n = next(counter)
        path = work / f"q{n}.rules"
        text = JUDGE.replace("grm/judge/stack", f"grm/judge/q{n}")        # a new question each time
        text = re.sub(r'(card "重い" \{\s*weight )60kg', rf"\g<1>{50 + n % 40}kg", text)
        path.write_text(text, encoding="utf-8")
        return base + ["ask", str(path)]

    times: dict[str, list[float]] = {"repeat": [], "flagship": [], "new": [], "served": []}
    for _ in range(runs):
        shutil.rmtree(outputs, ignore_errors=True)                      # forget outputs only
        times["flagship"].append(timed(base + ["ask", str(FLAGSHIP)]))
        times["repeat"].append(timed(base + ["ask", str(FLAGSHIP)]))
        times["new"].append(timed(new_question()))
    server = subprocess.Popen(base + ["serve", "--idle", "120"], env=env, cwd=REPO,
                              stderr=subprocess.PIPE, text=True)
    try:
        for line in server.stderr:                   # loaded and listening
            if "answering" in line:
                break
        for _ in range(runs):
            times["served"].append(timed(new_question()))
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return times


def load_frozen():
    """The repository's knowledge base loaded as the command line loads it: the loaded objects out
    of the collector's sight."""
    loader.FREEZE_AFTER_LOAD = True
    try:
        return load(REPO)
    finally:
        loader.FREEZE_AFTER_LOAD = False


def drawn_figures() -> dict:
    """In a child process (a fixed PYTHONHASHSEED): figures 1b and 3, as JSON on stdout."""
    kb = load_frozen()
    odds = odds_times(10)
    return {"thgm_odds_questions": odds["questions"], "thgm_odds_first_ms": odds["first_ms"],
            "thgm_odds_best_ms": odds["best_ms"], **royal_figures(kb)}


def across_processes(processes: int) -> dict:
    """Figures 1b and 3 in `processes` fresh processes, seeds 0, 1, 2…: each figure's median across
    them, its range, and each process's figure (see the docstring: one process's figure is a draw)."""
    runs = []
    for seed in range(processes):
        done = subprocess.run([sys.executable, __file__, "--drawn-child"], capture_output=True, text=True,
                              check=True, env=dict(os.environ, PYTHONHASHSEED=str(seed)))
        runs.append(json.loads(done.stdout))
    out: dict = {"thgm_odds_questions": runs[0]["thgm_odds_questions"], "hash_seeds": list(range(processes))}
    for key in ("thgm_odds_first_ms", "thgm_odds_best_ms", "royal_ten_link_chain_ms"):
        values = [r[key] for r in runs]
        out[key] = round(statistics.median(values), 2)
        out[f"{key}_range"] = [min(values), max(values)]
        out[f"{key}_per_process"] = values
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0, help="time per throughput measurement")
    p.add_argument("--runs", type=int, default=7, help="subprocess runs of rulesdsl ask")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-ask", action="store_true", help="only the in-process figures (no `rulesdsl ask` subprocesses)")
    p.add_argument("--processes", type=int, default=5,
                   help="fresh processes (hash seeds 0, 1, …) for the exact odds and the ten-link chain")
    p.add_argument("--drawn-child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.drawn_child:
        print(json.dumps(drawn_figures()))
        return

    kb = load_frozen()
    engines = engine_figures(kb, args.seconds)
    result: dict = {"engines": engines, **across_processes(max(1, args.processes))}
    if not args.no_ask:
        for name, values in ask_times(args.runs).items():
            result[f"ask_{name}_ms"] = round(statistics.median(values) * 1000)
        startup = []
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            startup.append(time.perf_counter() - t)
        result["python_startup_ms"] = round(statistics.median(startup) * 1000)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    labels = {"grm_single_play": "GRM, single play", "grm": "GRM, whole corpus", "thgm_fixed_dice": "東方グランドメレー, fixed dice",
              "royal": "royal", "pm": "プレシャスメモリーズ"}
    print("scenarios answered per second on one core (goal >= 5,000), process time; per anchor = scenarios in the")
    print(f"time of the anchor loop (a fixed pure-Python loop, best {engines['grm']['anchor_ms']} ms in this run; 39 ms on")
    print("12-04's quiet machine, where 5,000/s is ~195 per anchor), the median over the passes of each pass against")
    print("the anchor runs either side of it [its quartiles]:")
    print("  as ask answers (with the test of what decides) | the engine's run alone (no decides test) | the run alone,")
    print("  every question new to the engines (what it keeps per question forgotten before each pass)")

    def fig(row: dict, key: str) -> str:
        lo, hi = row[f"{key}_per_anchor_spread"]
        return f"{row[f'{key}_per_second']:,}/s ({row[f'{key}_per_anchor']} per anchor [{lo}–{hi}])"
    for name, row in engines.items():
        print(f"  {labels[name]} ({row['scenarios']}, {row['answers_per_question']} answers each, "
              f"{row['runs_per_question']} runs each, {row['runs_resumed']:.0%} of them resumed): "
              f"{fig(row, 'settled')} | {fig(row, 'engine')} | {fig(row, 'engine_first')}")
    def drawn(key: str) -> str:
        lo, hi = result[f"{key}_range"]
        return f"{result[key]} ms [{lo}–{hi}]"
    print(f"median across {len(result['hash_seeds'])} fresh processes (hash seeds 0–{len(result['hash_seeds']) - 1}) "
          "[their range]:")
    print(f"exact odds of one attack, 2D–6D against every defense 2–12 ({result['thgm_odds_questions']} answers, goal <= 50 ms):")
    print(f"  first pass {drawn('thgm_odds_first_ms')}, best pass {drawn('thgm_odds_best_ms')} (process time)")
    print(f"a ten-link royal chain answered in-process, each process's median of 200 (goal <= 5 ms): "
          f"{drawn('royal_ten_link_chain_ms')}")
    if args.no_ask:
        return
    print(f"rulesdsl ask end to end (goal <= 200 ms), median of {args.runs}:")
    print(f"  the flagship again, nothing changed (cached output):   {result['ask_repeat_ms']} ms")
    print(f"  the flagship, outputs forgotten, no server:            {result['ask_flagship_ms']} ms")
    print(f"  a judge's new question file, no server:                {result['ask_new_ms']} ms")
    print(f"  a judge's new question file, `rulesdsl serve` running: {result['ask_served_ms']} ms")
    print(f"  (python -c pass alone: {result['python_startup_ms']} ms)")


if __name__ == "__main__":
    main()
