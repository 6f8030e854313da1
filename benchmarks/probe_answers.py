"""The wiki's answers stage alone (`wiki/answering.py` `answer_all`, as `Wiki.compute_answers`
calls it): the knowledge base at ROOT loaded as the wiki loads it, then every question answered in
one process, the cyclic collector off for both as in the wiki's `on_config`. Prints its seconds of CPU; `--split` times each step of `answer_one` by game (the
run's answer, the readings tried when it is unsettled, thinning the readings, the boards after,
the words); `--out FILE` writes a digest of every answer (its status, sentences, outcomes' boards
and readings) to compare two codes' answers; `--callgrind` switches callgrind's counting on
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
    if args.callgrind:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
    prof = None
    if args.profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    answers: dict = {}
    t = time.process_time()
    failures = answering.answer_all(kb, answers)
    cpu = time.process_time() - t
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
    if args.callgrind:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)
    print(f"answers {cpu:.2f} s of CPU, {len(answers)} questions, {len(failures)} failures", flush=True)
    for (game, step), s in sorted(split.items()):
        print(f"  {game:12} {step:14} {s:7.2f} s")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for sid, a in answers.items():
                f.write(f"{sid}\t{_digest(a)}\n")


def _time_steps(answering, split: dict) -> None:
    """Wrap each step `answer_one` takes with a timer that adds its CPU to `split[game, step]`."""
    from rulesdsl.engine import readings, runner

    game = [""]

    def timed(owner, name, step, game_of=None):
        f = getattr(owner, name)

        def wrapper(*a, **k):
            if game_of is not None:
                game[0] = game_of(*a)
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                split[game[0], step] += time.process_time() - t
        setattr(owner, name, wrapper)

    timed(runner, "answer", "answer", lambda kb, info: info.game)
    timed(readings, "try_readings", "readings")
    for name, step in (("thin_readings", "thin"), ("draw_afters", "boards"), ("write_words", "words")):
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
