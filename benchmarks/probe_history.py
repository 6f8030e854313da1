"""The wiki's history stage alone (`regress/impact.py` `revision_effects`), as the wiki builds it:
the knowledge base at ROOT loaded, every question answered (`Wiki.compute_answers`), the runs the
Q&A pages read let go of (`Wiki.release_runs`), then the history of every ruling revision in one
process. Prints its seconds of CPU and its counts; `--out FILE` writes its changes (JSON) to
compare two codes' histories; `--callgrind` switches callgrind's counting on around the history
alone (run under `valgrind --tool=callgrind --instr-atstart=no`, on the interpreter's binary itself,
not a launcher script such as pyenv's shim, which callgrind would count instead); `--game G` keeps G's answers only
(the history of G's questions: the same pairs as in the whole, fewer of them); `--sample N` one
question in N.

    PYTHONPATH=CODE python CODE/benchmarks/probe_history.py ROOT [--game G] [--sample N] [--out FILE]
        [--callgrind] [--profile FILE]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import subprocess
import time
import zlib


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--game", action="append")
    ap.add_argument("--sample", type=int, default=1, help="keep one question in N (by a hash of its id)")
    ap.add_argument("--out")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--profile", help="cProfile the history into this file")
    args = ap.parse_args()
    from rulesdsl.engine.answer import Answer
    from rulesdsl.kb.build import load
    from rulesdsl.regress.impact import revision_effects
    from rulesdsl.wiki.site import Wiki

    gc.disable()
    t = time.process_time()
    kb = load(args.root)
    gc.enable()
    gc.freeze()
    wiki = Wiki(kb, keep_going=True, today=_dt.date(2026, 11, 30))
    wiki.compute_answers()
    wiki.release_runs(list(wiki.answers))
    answered = {sid: a for sid, a in wiki.answers.items() if isinstance(a, Answer)
                and (not args.game or kb.scenarios[sid].game in args.game)
                and zlib.crc32(sid.encode()) % args.sample == 0}
    print(f"load and answers {time.process_time() - t:.1f} s of CPU, {len(answered)} answers", flush=True)
    stats: dict = {}
    if args.callgrind:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
    prof = None
    if args.profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t = time.process_time()
    changed = revision_effects(kb, answered, stats, processes=1)
    cpu = time.process_time() - t
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
    if args.callgrind:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)
    print(f"history {cpu:.1f} s of CPU; {stats}; {len(changed)} revisions, "
          f"{sum(len(c) for c in changed.values())} changes", flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"stats": stats, "changed": {k: [c.as_dict() for c in v] for k, v in changed.items()}},
                      f, ensure_ascii=False, sort_keys=True, indent=0)


if __name__ == "__main__":
    main()
