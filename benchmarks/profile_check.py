#!/usr/bin/env python3
"""Where a real cold `rulesdsl check` spends its CPU, per process (the parent and the forked child).

    RULESDSL_CACHE=$(mktemp -d) python benchmarks/profile_check.py CORPUS_DIR

Runs `rulesdsl --root CORPUS_DIR check` through the command line's own entry (rulesdsl/cli/fastpath.py)
with timers around its stages, and prints, per process, its CPU (user and system), minor page faults
and peak memory, and the CPU and wall seconds and page faults of each stage:
the output key (hashing the files), parsing (`loader.parse_one`), encoding and writing the parse
snapshot's parts (`_Plan.write`), taking in the child's documents (reading back the parts it wrote, and
unpickling what they do not hold), all of `parse_all` (in the parent: its own share, its parts,
waiting for the child and taking in its documents), building the knowledge base, the checks
(`run_checks`) and the answers (`answer_findings`).
Point RULESDSL_CACHE at an empty folder for a cold run; profile_stages.py runs the stages one by one
in one process instead.
"""

from __future__ import annotations

import atexit
import functools
import os
import sys
import time

TIMES: dict[str, list] = {}
PARENT = os.getpid()


def _faults() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(owner, name: str, label: str | None = None) -> None:
    f = getattr(owner, name)

    @functools.wraps(f)
    def wrapper(*a, **k):
        c, t, m = time.process_time(), time.perf_counter(), _faults()
        try:
            return f(*a, **k)
        finally:
            row = TIMES.setdefault(label or name, [0.0, 0.0, 0, 0])
            row[0] += time.process_time() - c
            row[1] += time.perf_counter() - t
            row[2] += 1
            row[3] += _faults() - m
    setattr(owner, name, wrapper)


def report() -> None:
    who = "parent" if os.getpid() == PARENT else f"child {os.getpid()}"
    import resource
    ru = resource.getrusage(resource.RUSAGE_SELF)
    lines = [f"[{who}] CPU {time.process_time():.2f} s in all (user {ru.ru_utime:.2f}, system {ru.ru_stime:.2f}; "
             f"{ru.ru_minflt:,} minor page faults, peak {ru.ru_maxrss / 1024:.0f} MB)"]
    lines += [f"[{who}] {k:<18} CPU {c:7.2f} s  wall {w:7.2f} s  ×{n:<5} faults {m:9,}"
              for k, (c, w, n, m) in TIMES.items()]
    os.write(2, ("\n".join(lines) + "\n").encode())   # fd 2: the command captures sys.stderr


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    import pickle
    from rulesdsl.base import cache
    from rulesdsl.cli import check
    from rulesdsl.kb import build, loader
    timed(cache, "code_digest")
    timed(cache, "output_key")
    timed(loader, "read_file", "read (loader)")
    timed(loader, "read_documents", "read_documents")
    timed(loader, "parse_one", "parse")
    timed(loader._Plan, "write", "snapshot parts")
    timed(loader, "parse_all", "parse_all")     # the parent's: its parse, its parts, the wait and the child's documents
    timed(pickle, "dumps", "send (pickle)")     # what the child's parts do not hold (parse_all imports pickle there)
    timed(pickle, "loads", "take in (unpickle)")
    if hasattr(loader, "_take_in"):             # the child's parts read back (with the unpickling)
        timed(loader, "_take_in", "take in (all)")
    timed(build._Builder, "build", "build")
    timed(check, "run_checks", "checks")
    timed(check, "answer_findings", "answers")
    leave = os._exit

    def exit_child(code: int) -> None:     # the forked children and the command leave by os._exit
        report()
        leave(code)
    os._exit = exit_child
    os.register_at_fork(after_in_child=TIMES.clear)     # the child's own stages only
    atexit.register(report)
    from rulesdsl.cli.fastpath import entry
    sys.argv[1:] = ["--root", sys.argv[1], "check"]
    entry()             # as the installed command: it ends by os._exit (reporting first, above)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
