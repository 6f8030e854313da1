"""Dependency benchmark: every worked question answered under every other value of every rule
point of its game (rulesdsl/regress/dependencies.py), the whole corpus, in-process.

Anchor, measured in the same run: every worked question answered once, unsettled (no decides
test), so the figure is a ratio that survives the machine's load. Also the time of answering the
corpus as the suite and the wiki do (each answer with its decides test), against the same anchor.

    python benchmarks/bench_dependencies.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rulesdsl.engine.context import EngineError  # noqa: E402
from rulesdsl.engine.registry import engine_for  # noqa: E402
from rulesdsl.engine.runner import answer  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402
from rulesdsl.regress.dependencies import dependency_violations  # noqa: E402


def _all(kb, infos, settled: bool) -> float:
    t = time.perf_counter()
    for info in infos:
        try:
            answer(kb, info, settled=settled)
        except EngineError:
            pass
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    kb = load(REPO)
    infos = [i for _, i in sorted(kb.scenarios.items()) if engine_for(i.game) is not None]
    _all(kb, infos, False)                      # warm the point caches
    anchor = _all(kb, infos, False)
    settled = _all(kb, infos, True)
    counts: list[int] = []
    t = time.perf_counter()
    found = [v for info in infos for v in dependency_violations(kb, info, counts)]
    cross = time.perf_counter() - t
    out = {"scenarios": len(infos), "answers": sum(counts) + len(infos), "violations": len(found),
           "anchor_s": round(anchor, 3), "settled_s": round(settled, 3), "settled_ratio": round(settled / anchor, 2),
           "cross_product_s": round(cross, 2), "cross_product_ratio": round(cross / anchor, 1)}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{out['scenarios']} worked questions; anchor (each answered once, no decides test): {anchor:.3f} s")
    print(f"answered with the decides test: {settled:.3f} s = {settled / anchor:.2f}x the anchor")
    print(f"every other value of every rule point: {out['answers']:,} answers in {cross:.1f} s "
          f"= {cross / anchor:.1f}x the anchor; violations: {len(found)}")
    for v in found[:20]:
        print("  " + v)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
