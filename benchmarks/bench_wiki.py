#!/usr/bin/env python3
"""Time and peak memory of the wiki build (`mkdocs build` with the rulesdsl hook) on synthetic
corpora of two sizes.

    python benchmarks/bench_wiki.py [--cards 10000] [--work DIR] [--runs 2] [--keep-runtime] [--json]

The corpora are those of the foundation benchmark (benchmarks/gen_corpus.py): N cards, 3N ruling
revisions and N scenarios over the repository's four games, and the same at half size. Each is
generated once into --work (default: a temporary folder, removed afterwards unless --keep), then
built in a fresh process:

  cold   with the knowledge base's caches empty (a new cache folder): parsing every file counts;
         the parse snapshot's writer, which the build forks and leaves running, is waited for
         (this process is made the subreaper of what it runs) and its CPU given as
         `left_running_cpu_s`, with the time until it ended as `all_seconds`
  warm   again, with the parse cache filled (the usual case once `rulesdsl check` has run);
         --runs times, alternating between the two sizes, the fastest of each reported (the
         machine's other load only ever adds time)

The browser's interpreter (Pyodide from npm, lark from PyPI, their bytecode compiled under node:
wiki/ask_bundle.py `gather`) does not depend on the knowledge base. By default it lives in the
cache folder, so a cold build fetches and compiles it again and a warm one reads it (each build's
`runtime`: "fetched" or "kept"); with --keep-runtime it is gathered once, untimed, into a folder
of its own ($RULESDSL_ASK_RUNTIME) that every build reads, cold ones too ("kept": the usual case
on a machine after its first build).

The synthetic scenarios' expectations are random, so the builds run with
RULESDSL_WIKI_KEEP_GOING=1 (failures are marked on their pages instead of stopping the build).
Reported per build: wall seconds, the process's own peak RSS (wait4), and the split the hook logs
(knowledge base load, the answers, the history of what each ruling revision changed — with the
count of pairs of a revision and an answer that consulted it, those answered again without the
revision, those of them answered in full, the answers under other readings the tests of what
decides took from the build's own or made —, card/ruling/Q&A pages with
the search index, the rest = mkdocs and the index pages). After the last warm build of each size, the search is tried in Debian's chromium (when it
is installed; --no-search skips it): for bench_search's QUERIES_10K (words and names of the test
set, the synthetic corpus's card codes, Japanese words), each pasted whole and typed key by key
(every prefix in turn, as an input method commits characters), the bytes and files a search
loads (uncompressed, from the page's resource timing) and the time from the key to the results.

Goals: the N-card build, search index included, in ≤ 60 s and ≤ 1 GB; the N-card build ≤ 2.1 × the
N/2-card one; a search shows results within 1 s and downloads ≤ 300 KB typed key by key
(uncompressed, every prefix's files counted).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from rulesdsl.wiki.ask_bundle import ENV_RUNTIME as RUNTIME_ENV  # noqa: E402
from rulesdsl.wiki.testing import build_site  # noqa: E402

TIME_GOAL, MEMORY_GOAL_MB, RATIO_GOAL, TYPED_BYTES_GOAL = 60.0, 1024.0, 2.1, 300_000
SUBREAPER = False
_LOAD = re.compile(r"knowledge base loaded in ([\d.]+) s")
_EFFECTS = re.compile(r"the answers each ruling revision changed found in ([\d.]+) s \((\d+) revisions and answers "
                      r"that consulted them, (\d+) answered again without the revision, (\d+) of them in full; "
                      r"the tests of what decides took (\d+) answers under other readings from the build's and made (\d+)\)")
_ANSWERS = re.compile(r"(\d+) answers computed in ([\d.]+) s")
_ITEMS = re.compile(r"(\d+) card, ruling and Q&A pages and the search index .*? written in ([\d.]+) s")


def generate(out: Path, cards: int) -> Path:
    """The corpus of `cards` cards, whose worked questions are asserted to pass before any build
    is timed (a Q&A page of a failing question shows a quick refusal, not an answer)."""
    if not ((out / ".generated").exists() and (out / ".generated").read_text() == str(cards)):
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), str(out), "--cards", str(cards),
                        "--revisions", str(3 * cards), "--scenarios", str(cards)], check=True)
        (out / ".generated").write_text(str(cards))
    from gen_corpus import assert_scenarios_pass
    assert_scenarios_pass(out, cwd=out)
    return out


def search_figures(site: Path) -> dict:
    """Bytes, files and time of searches on a built site, in chromium (bench_search's meter and
    queries): each query pasted whole, and typed key by key (`typed`: every prefix in turn)."""
    from playwright.sync_api import sync_playwright

    from bench_search import site10k_figures
    from rulesdsl.wiki.testing import CHROMIUM_ARGS, find_chromium, serve
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        with serve(site) as base:
            got = site10k_figures(browser, base)
        browser.close()
    keys = ("median_s", "worst_s", "median_bytes", "worst_bytes", "median_files", "worst_files")
    pasted, typed = got["rdsearch_10k"], got["rdsearch_10k_typed"]
    return {**{k: pasted[k] for k in keys}, "typed": {k: typed[k] for k in keys}}


def one_build(root: Path, site: Path, cache: Path, search: bool = False, runtime: Optional[Path] = None) -> dict:
    """One build; `runtime`: a kept browser runtime's folder (None: the cache folder's)."""
    shutil.rmtree(site, ignore_errors=True)
    kept = runtime is not None or (cache / "ask-runtime" / "compiled-bytecode").is_file()
    t0 = time.perf_counter()
    r = build_site(root, site, keep_going=True,
                   extra_env={"RULESDSL_CACHE": str(cache), RUNTIME_ENV: str(runtime or "")})
    # what the build left running (the parse snapshot's writer), handed to this process as their
    # subreaper (see bench_check.become_subreaper): waited for, and its time counted
    left_cpu, left_peak = 0.0, 0.0
    while SUBREAPER:
        try:
            _, _, u = os.wait4(-1, 0)
        except ChildProcessError:
            break
        left_cpu += u.ru_utime + u.ru_stime
        left_peak = max(left_peak, u.ru_maxrss / 1024)
    all_seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"build of {root} failed:\n{r.output[-3000:]}")
    load = _LOAD.search(r.output)
    items = _ITEMS.search(r.output)
    effects = _EFFECTS.search(r.output)
    answers = _ANSWERS.search(r.output)
    pages = sum(1 for _ in site.rglob("*.html"))
    found = search_figures(site) if search else None
    shutil.rmtree(site, ignore_errors=True)
    return {"seconds": round(r.seconds, 1), "peak_mb": round(r.peak_mb), "pages": pages, "search": found,
            "runtime": "kept" if kept else "fetched",
            "all_seconds": round(all_seconds, 1), "left_running_cpu_s": round(left_cpu, 1),
            "left_running_peak_mb": round(left_peak),
            "kb_load_s": float(load.group(1)) if load else None,
            "item_pages": int(items.group(1)) if items else None,
            "item_pages_s": float(items.group(2)) if items else None,
            "answers_s": float(answers.group(2)) if answers else None,
            # the home page's and changelog's history (regress/impact.py revision_effects)
            "history_s": float(effects.group(1)) if effects else None,
            "history_counts": dict(zip(("pairs", "answered", "in_full", "reused", "readings"),
                                       (int(effects.group(i)) for i in range(2, 7)))) if effects else None}


def keep_runtime(folder: Path, cache: Path) -> Path:
    """`folder` holding the browser's runtime, gathered by this code (untimed)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO), RULESDSL_CACHE=str(cache), **{RUNTIME_ENV: str(folder)})
    subprocess.run([sys.executable, "-c", "from rulesdsl.wiki.ask_bundle import gather; gather()"],
                   env=env, cwd=str(REPO), check=True)
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, default=10000)
    ap.add_argument("--work", type=Path, help="where corpora, caches and sites go (kept)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--runs", type=int, default=2, help="warm builds per size; the fastest is reported")
    ap.add_argument("--no-search", action="store_true", help="do not try the search in chromium")
    ap.add_argument("--keep-runtime", action="store_true",
                    help="gather the browser's runtime once, before the builds, and keep it for all of them")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    global SUBREAPER
    from bench_check import become_subreaper
    SUBREAPER = become_subreaper()
    from rulesdsl.wiki.testing import find_chromium
    search = not args.no_search and find_chromium() is not None
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-wiki-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    try:
        sizes = (args.cards // 2, args.cards)
        roots = {cards: generate(work / f"corpus{cards}", cards) for cards in sizes}
        runtime = keep_runtime(work / "ask-runtime", work / "cache-runtime") if args.keep_runtime else None
        warm_runs: dict[int, list[dict]] = {cards: [] for cards in sizes}
        for cards in sizes:
            cache = work / f"cache{cards}"
            shutil.rmtree(cache, ignore_errors=True)
            results[cards] = {"cold": one_build(roots[cards], work / f"site{cards}", cache, runtime=runtime)}
        # Warm runs alternate between the sizes, so that a slow spell of this shared machine
        # does not fall on one size only and skew the ratio; the fastest of each is kept.
        runs = max(1, args.runs)
        for i in range(runs):
            for cards in sizes:
                warm_runs[cards].append(one_build(roots[cards], work / f"site{cards}", work / f"cache{cards}",
                                                  search=search and i == runs - 1, runtime=runtime))
        for cards in sizes:
            cold = results[cards]["cold"]
            warm = results[cards]["warm"] = min(warm_runs[cards], key=lambda r: r["seconds"])
            results[cards]["search"] = next((r["search"] for r in warm_runs[cards] if r["search"]), None)
            results[cards]["warm_runs"] = [r["seconds"] for r in warm_runs[cards]]
            print(f"{cards:>6} cards: cold {cold['seconds']:.1f} s {cold['peak_mb']} MB (runtime {cold['runtime']}); "
                  f"warm {warm['seconds']:.1f} s {warm['peak_mb']} MB "
                  f"(kb load {warm['kb_load_s']} s, answers {warm['answers_s']} s, history {warm['history_s']} s, "
                  f"{warm['item_pages']} item pages {warm['item_pages_s']} s, "
                  f"{warm['pages']} pages in all; warm runs {', '.join(str(r['seconds']) for r in warm_runs[cards])} s)",
                  file=sys.stderr, flush=True)
    finally:
        if not args.work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    half, full = results[args.cards // 2], results[args.cards]
    ratio = {k: round(full[k]["seconds"] / half[k]["seconds"], 2) for k in ("cold", "warm")}
    found = full.get("search")
    summary = {"results": results, "ratio": ratio,
               "goals": {"time_s": TIME_GOAL, "memory_mb": MEMORY_GOAL_MB, "ratio": RATIO_GOAL},
               "met": {"time": full["warm"]["seconds"] <= TIME_GOAL,
                       "memory": full["warm"]["peak_mb"] <= MEMORY_GOAL_MB,
                       "ratio": ratio["warm"] <= RATIO_GOAL,
                       "search": None if not found else (found["typed"]["worst_bytes"] <= TYPED_BYTES_GOAL
                                                    and found["worst_s"] <= 1.0)}}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print("| cards | build | browser runtime | seconds | peak RSS | knowledge base load | card/ruling/Q&A pages | pages |")
        print("|---:|---|---|---:|---:|---:|---:|---:|")
        for cards, runs in results.items():
            for kind in ("cold", "warm"):
                r = runs[kind]
                print(f"| {cards:,} | {kind} | {r['runtime']} | {r['seconds']:.1f} | {r['peak_mb']} MB | {r['kb_load_s']} s | "
                      f"{r['item_pages']:,} in {r['item_pages_s']} s | {r['pages']:,} |")
        print(f"\nratio {args.cards:,} / {args.cards // 2:,} cards: cold {ratio['cold']}×, warm {ratio['warm']}× "
              f"(goal ≤ {RATIO_GOAL}×); goal for {args.cards:,} cards: ≤ {TIME_GOAL:.0f} s, ≤ {MEMORY_GOAL_MB:.0f} MB")
        for cards, runs in results.items():
            print(f"{cards:,} cards: warm runs {runs['warm_runs']} s")
            if runs.get("search"):
                s = runs["search"]
                t = s["typed"]
                print(f"{cards:,} cards: a search pasted whole downloads {s['median_bytes']:,} bytes in {s['median_files']} "
                      f"files (worst {s['worst_bytes']:,}) and shows results in {s['median_s']} s (worst {s['worst_s']} s); "
                      f"typed key by key {t['median_bytes']:,} bytes in {t['median_files']} files (worst "
                      f"{t['worst_bytes']:,} in {t['worst_files']}; goal ≤ {TYPED_BYTES_GOAL:,}), the last key's "
                      f"results in {t['median_s']} s (worst {t['worst_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
