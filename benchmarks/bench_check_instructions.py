"""The checks of `rulesdsl check` counted in machine instructions (valgrind's callgrind), not timed:
on a machine shared with other work a change of a few per cent of a check's time shows only in a
count that the load does not touch (see bench_instructions.py, which counts the engines so).

A knowledge base is loaded in a child process run under callgrind with its counting off (from the
parse snapshot, which a plain load fills first: a cold load under valgrind would take many minutes);
counting is switched on (`callgrind_control -i on`) around one call of
`rulesdsl.kb.lint.run_checks`, every check as `check` runs them, the first call (so the citations'
located quotes are found as a cold check finds them). Printed: the instructions of that call. The
count is a proxy for time, not a time. Needs valgrind.

With `--encoding`, what is counted instead is encoding the parse snapshot's parts of the loaded
documents as a cold load encodes them (`_Plan.write`: each part's outline and documents from one
`snapshot.dumps_nested`, the outlines made by `loader.outline`), without writing them: the work
of the processes that write the parts beside the check.

With `--parse`, what is counted is parsing every EVERY-th .rules file of the corpus (`--every`,
default 20) to the model, as `rulesdsl check` parses a file (`parser.parse_text`: the LALR driver
of lang/lalr.py and the builder), and, as the anchor, Lark's raw parse of the same files
(`parser.raw_parser()`, the baseline of bench_check.py), each in its own process; before the
count, every seventh other file is parsed the same way, so that the tables are loaded and the
lexers compiled as they are early in a check's parse.

    python benchmarks/bench_check_instructions.py CORPUS [--code DIR ...] [--encoding | --parse [--every N]]

Each `--code DIR` (default: this checkout) is counted with its own private cache folder, kept
between runs of this script in the folder named by RULESDSL_CACHE, if set, else a temporary one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def child(repo: Path, corpus: Path, encoding: bool = False, parse: str = "", every: int = 20) -> None:
    """Under callgrind: load the knowledge base, count one call of every check (or the encoding
    of every part of its parse snapshot, or parsing files: `parse` "model" or "raw")."""
    sys.path.insert(0, str(repo))
    me = str(os.getpid())
    if parse:
        from rulesdsl.lang import parser
        files = sorted(corpus.rglob("*.rules"))
        texts = [(str(p), p.read_text(encoding="utf-8")) for p in files[::every]]
        warm = [(str(p), p.read_text(encoding="utf-8")) for p in files[1::7]]
        raw = parser.raw_parser()
        for file, text in warm:
            parser.parse_text(text, file) if parse == "model" else raw.parse(text)
        subprocess.run(["callgrind_control", "-i", "on", me], capture_output=True, check=True)
        if parse == "model":
            for file, text in texts:
                parser.parse_text(text, file)
        else:
            for file, text in texts:
                raw.parse(text)
        subprocess.run(["callgrind_control", "-i", "off", me], capture_output=True, check=True)
        print(len(texts))
        return
    from rulesdsl.kb import loader
    from rulesdsl.kb.build import load
    from rulesdsl.kb.lint import run_checks
    loader.FREEZE_AFTER_LOAD = True     # as the command line loads
    kb = load(corpus)
    if encoding:
        import gc
        from rulesdsl.lang.snapshot import dumps_nested
        gc.disable()                    # as the processes that write the parts run
        count = loader.shard_count(len(kb.documents))
        parts: dict[int, list] = {}
        for doc in kb.documents:
            parts.setdefault(loader.shard_of(doc.path, count), []).append((doc.digest, doc))
        subprocess.run(["callgrind_control", "-i", "on", me], capture_output=True, check=True)
        size = 0
        for shard in sorted(parts):
            keys, values = zip(*parts[shard])
            size += sum(map(len, dumps_nested([keys, tuple(map(loader.outline, values))], [keys, values])))
        subprocess.run(["callgrind_control", "-i", "off", me], capture_output=True, check=True)
        print(size)
        return
    subprocess.run(["callgrind_control", "-i", "on", me], capture_output=True, check=True)
    found = run_checks(kb)
    subprocess.run(["callgrind_control", "-i", "off", me], capture_output=True, check=True)
    print(len(found))


def count(repo: Path, corpus: Path, cache: Path, encoding: bool = False, parse: str = "", every: int = 20) -> dict:
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-check-instructions-"))
    try:
        env = dict(os.environ, PYTHONPATH=str(repo), RULESDSL_CACHE=str(cache))
        first = ("import sys; from rulesdsl.lang.parser import parse_text; parse_text('', 'x.rules')" if parse  # the tables
                 else "import sys; from rulesdsl.kb.build import load; load(sys.argv[1])")     # the parse snapshot
        subprocess.run([sys.executable, "-c", first, str(corpus)], env=env, cwd=work, check=True)
        # every process the load forks writes its own file (%p): the count is the one that ran the checks
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={work}/out.%p",
               sys.executable, __file__, str(corpus), "--child", "--code", str(repo)] + ["--encoding"] * encoding \
            + (["--parse-as", parse, "--every", str(every)] if parse else [])
        done = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, check=True)
        totals = [int(line.split()[1]) for f in work.glob("out.*") for line in f.read_text().splitlines()
                  if line.startswith("totals:")]
        return {"out": int(done.stdout.split()[-1]), "instructions": max(totals)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("--code", type=Path, action="append", help="a checkout whose code to count (repeatable)")
    p.add_argument("--encoding", action="store_true",
                   help="count encoding the parse snapshot's parts instead of the checks")
    p.add_argument("--parse", action="store_true",
                   help="count parsing files to the model, and Lark's raw parse of them (the anchor)")
    p.add_argument("--every", type=int, default=20, help="with --parse: every EVERY-th file")
    p.add_argument("--parse-as", default="", help=argparse.SUPPRESS)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    codes = [c.resolve() for c in args.code or [REPO]]
    if args.child:
        child(codes[0], args.corpus.resolve(), args.encoding, args.parse_as, args.every)
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench_check_instructions needs valgrind")
    made = None if os.environ.get("RULESDSL_CACHE") else Path(tempfile.mkdtemp(prefix="rulesdsl-cache-"))
    base = made or Path(os.environ["RULESDSL_CACHE"])
    try:
        each_code(args, codes, base)
    finally:
        if made is not None:        # (one the user named is theirs)
            shutil.rmtree(made, ignore_errors=True)


def each_code(args, codes: list, base: Path) -> None:
    for i, code in enumerate(codes):
        if args.parse:
            model = count(code, args.corpus.resolve(), base / f"code{i}", parse="model", every=args.every)
            raw = count(code, args.corpus.resolve(), base / f"code{i}", parse="raw", every=args.every)
            print(f"{code}: parsing {model['out']} files {model['instructions']:,} instructions, "
                  f"Lark's raw parse of them {raw['instructions']:,} ({model['instructions'] / raw['instructions']:.3f}x)")
            continue
        row = count(code, args.corpus.resolve(), base / f"code{i}", args.encoding)
        if args.encoding:
            print(f"{code}: encoding the parts {row['instructions']:,} instructions, {row['out']:,} bytes")
        else:
            print(f"{code}: run_checks {row['instructions']:,} instructions, {row['out']} findings")


if __name__ == "__main__":
    main()
