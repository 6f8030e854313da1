#!/usr/bin/env python3
"""Where a cold `rulesdsl check` spends its time, stage by stage, in one process.

    python benchmarks/profile_stages.py CORPUS_DIR [--no-gc] [--json]

Runs the stages `rulesdsl check` runs (see rulesdsl/kb/knowledge.py `load`, rulesdsl/kb/loader.py
`read_documents`, rulesdsl/kb/lint.py `run_checks`) one after the other and reports the wall and
CPU seconds of each, with the time the cyclic garbage collector took inside it (gc.callbacks):

  discover        rulesdsl.kb.knowledge.discover + resolving every path (as `load` does)
  read            reading and decoding every file
  raw parse       rulesdsl.lang.parser.raw_parser() on every file (the baseline; trees dropped)
  model parse     rulesdsl.lang.parser.parse_text on every file (LALR + the model-building transformer)
  cache write     the parse snapshot of the parsed documents (rulesdsl/lang/snapshot.py), as the loader writes it
  cache read      reading that snapshot back (what a run with a warm parse snapshot pays)
  build           kb._Builder(kb).build(): registering, resolving and validating vocabulary
  lint            rulesdsl.kb.lint.run_checks

--no-gc disables the cyclic collector for the whole run, to show what it costs.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path


class GcTimer:
    def __init__(self) -> None:
        self.total = 0.0
        self.count = [0, 0, 0]
        self._t = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase, info) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._t
            self.count[info["generation"]] += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--no-gc", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    if args.no_gc:
        gc.disable()
    gct = GcTimer()
    from rulesdsl.kb.build import _Builder, discover
    from rulesdsl.kb.knowledge import KnowledgeBase
    from rulesdsl.kb.lint import run_checks
    from rulesdsl.kb.loader import decode, display_path
    from rulesdsl.lang.parser import parse_text, raw_parser
    from rulesdsl.lang.snapshot import dumps, loads

    root = args.corpus.resolve()
    rows: list[tuple[str, float, float, float]] = []
    state: dict = {}

    def stage(name, fn):
        g0, t0, c0 = gct.total, time.perf_counter(), time.process_time()
        out = fn()
        rows.append((name, time.perf_counter() - t0, time.process_time() - c0, gct.total - g0))
        print(f"  {name:<12} {rows[-1][1]:7.1f} s", file=sys.stderr)
        return out

    def discover_all():
        paths = discover(root)
        return paths, {p.resolve() for p in paths}, [display_path(p, root) for p in paths]

    paths, _, shown = stage("discover", discover_all)
    texts = stage("read", lambda: [decode(p.read_bytes(), s) for p, s in zip(paths, shown)])
    rp = raw_parser()
    rp.parse('game x "x" { }\n')
    stage("raw parse", lambda: [rp.parse(t) and None for t in texts])
    parse_text('game x "x" { }\n')
    docs = stage("model parse", lambda: [parse_text(t, s) for t, s in zip(texts, shown)])
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "parsed"
        stage("cache write", lambda: cache.write_bytes(dumps([tuple(map(str, range(len(docs)))), tuple(docs)])))
        state["cache_mb"] = cache.stat().st_size / 1e6
        stage("cache read", lambda: loads(cache.read_bytes()))

    def build():
        kb = KnowledgeBase(root=root)
        kb.documents = docs
        kb.files = shown
        _Builder(kb).build()
        return kb

    kb = stage("build", build)
    findings = stage("lint", lambda: run_checks(kb))
    result = {
        "corpus": str(root), "files": len(paths), "mb": round(sum(map(len, texts)) / 1e6, 1),
        "gc": "off" if args.no_gc else "on", "gc_collections": gct.count,
        "findings": len(kb.diagnostics) + len(findings), "cache_mb": round(state["cache_mb"], 1),
        "stages": [{"stage": n, "wall": round(w, 2), "cpu": round(c, 2), "gc": round(g, 2)}
                   for n, w, c, g in rows],
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['files']} files, {result['mb']} MB, gc {result['gc']}, "
              f"collections by generation {gct.count}, findings {result['findings']}, "
              f"parse cache {result['cache_mb']} MB")
        print(f"{'stage':<12} {'wall s':>8} {'CPU s':>8} {'of it GC s':>11}")
        for n, w, c, g in rows:
            print(f"{n:<12} {w:8.1f} {c:8.1f} {g:11.1f}")
        work = [r for r in rows if r[0] not in ("raw parse", "cache read")]
        print(f"{'check total':<12} {sum(r[1] for r in work):8.1f} {sum(r[2] for r in work):8.1f} "
              f"{sum(r[3] for r in work):11.1f}   (all but raw parse and cache read)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
