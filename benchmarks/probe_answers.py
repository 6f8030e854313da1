"""The wiki's answers stage alone (`wiki/answering.py` `answer_all`, as `Wiki.compute_answers`
calls it): the knowledge base at ROOT loaded as the wiki loads it, then every question answered in
one process, the cyclic collector off for both as in the wiki's `on_config`. Prints its seconds of
CPU; `--split` each step's by game (`_time_steps`); `--out FILE` writes a digest of every answer
(its JSON and boards after, and its readings') to compare two codes' answers; `--callgrind` switches callgrind's counting on
around the answers alone (run under `valgrind --tool=callgrind --instr-atstart=no` on the
interpreter's binary itself); `--sample N` answers one question in N (by a hash of its id);
`--profile FILE` writes cProfile's statistics of the answers.

    PYTHONPATH=CODE python CODE/benchmarks/probe_answers.py ROOT [--sample N] [--split] [--out FILE]
        [--callgrind] [--profile FILE]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import subprocess
import time
import zlib
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator, Optional


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--sample", type=int, default=1, help="answer one question in N (by a hash of its id)")
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--profile", help="cProfile the answers into this file")
    args = ap.parse_args()
    from rulesdsl.kb.build import load
    from rulesdsl.wiki import answering

    gc.disable()        # as the wiki loads and answers: the collector off (plugin.py `on_config`)
    t = time.process_time()
    kb = load(args.root)
    print(f"load {time.process_time() - t:.1f} s of CPU, {len(kb.scenarios)} scenarios", flush=True)
    if args.sample > 1:
        keep = {sid for sid in kb.scenarios if zlib.crc32(sid.encode()) % args.sample == 0}
        for sid in [s for s in kb.scenarios if s not in keep]:
            del kb.scenarios[sid]
    split: dict = defaultdict(float)
    if args.split:
        _time_steps(answering, split)
    answers: dict = {}
    with counted(args.callgrind, args.profile):
        t = time.process_time()
        failures = answering.answer_all(kb, answers)
        cpu = time.process_time() - t
    print(f"answers {cpu:.2f} s of CPU, {len(answers)} questions, {len(failures)} failures", flush=True)
    for game in sorted({g for g, _ in split}):
        print(f"  {game:6} " + "  ".join(f"{step} {s:.2f}" for (g, step), s in sorted(split.items()) if g == game))
    steps = sorted({step for _, step in split})
    if steps:
        print("  all    " + "  ".join(f"{step} {sum(s for (_, x), s in split.items() if x == step):.2f}" for step in steps))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for sid, a in answers.items():
                f.write(f"{sid}\t{_digest(a)}\n")


@contextmanager
def counted(callgrind: bool, profile: Optional[str]) -> Iterator[None]:
    """What it encloses counted: callgrind's instrumentation switched on for this process around it
    (`callgrind`), cProfile's statistics of it written to the file `profile` (if given)."""
    def instrument(state: str) -> None:
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], capture_output=True, check=True)

    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
    if callgrind:
        instrument("on")
    if prof is not None:
        prof.enable()
    yield
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
    if callgrind:
        instrument("off")


def _time_steps(answering, split: dict) -> None:
    """Wrap each step of an answer with a timer that adds its CPU, less that of the steps it
    encloses, to `split[game, step]`: the run of the question (`answer`), the test of what
    decides it (`readings`: `deciding.settle`, the runs under other readings it makes included),
    the readings `try_readings` adds, the odds summed up (`chance.summarize`), the words
    (`runner._sentences`, at once under another reading, else when `write_words` reads them), a
    rule point's value worked out (`KnowledgeBase._value`: the look-ups the point caches miss),
    and `answer_one`'s own steps after the answer."""
    from rulesdsl.engine import readings, runner
    from rulesdsl.kb.knowledge import KnowledgeBase

    game = [""]
    stack: list = []     # per step entered: [its start, the CPU of the steps it enclosed]

    def timed(owner, name, step, top=False):
        f = getattr(owner, name)

        def wrapper(*a, **k):
            if top:
                if stack:               # a run under another reading: the test's own
                    return f(*a, **k)
                game[0] = a[1].game
            t = time.process_time()
            stack.append([t, 0.0])
            try:
                return f(*a, **k)
            finally:
                _, inner = stack.pop()
                spent = time.process_time() - t
                split[game[0], step] += spent - inner
                if stack:
                    stack[-1][1] += spent
        setattr(owner, name, wrapper)

    timed(runner, "answer", "answer", top=True)
    timed(runner, "settle", "readings")
    timed(runner, "summarize", "odds")
    timed(runner, "_sentences", "words")
    timed(KnowledgeBase, "_value", "point values")
    timed(readings, "try_readings", "try_readings")
    for name, step in (("thin_readings", "thin"), ("draw_afters", "boards"), ("write_words", "write_words")):
        timed(answering, name, step)


def _digest(a) -> str:
    """What the pages read of an answer, hashed: its JSON (`ask --json`'s) and its boards after,
    and its readings' (or a failure's text)."""
    from rulesdsl.engine.answer import Answer
    if not isinstance(a, Answer):
        return hashlib.sha1(str(a).encode()).hexdigest()
    parts = [_one(a)]
    if a.readings is not None:
        for r, x in a.readings.answers:
            parts.append(repr(r) + _one(x))
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def _one(a) -> str:
    return json.dumps(a.to_json(), sort_keys=True, ensure_ascii=False, default=repr) + repr(
        {k: (len(bs), repr(bs[0].after)) for k, bs in a.outcomes.items()})


if __name__ == "__main__":
    main()
