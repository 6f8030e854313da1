#!/usr/bin/env python3
"""Asking in the reader's browser (rulesdsl/wiki/browser.py, ask_bundle.py): what it adds to the
site and how long a reader waits.

    python benchmarks/bench_ask_browser.py [--work DIR] [--runs 3] [--json] [--site BUILT_SITE]

Measured in one run, on the bundled knowledge base:

  download  the bytes the feature adds to the site, and what a reader asking about one game
            downloads (the runtime, the wheels, that game's snapshot and sources), raw and
            gzip-compressed (as a server that compresses sends them); of it, what a first answer
            needs and what only a syntax error fetches (lark: manifest.onDemand)
  answer    in Debian's chromium over http (python -m http.server), from the click on 「答える」 on
            a Q&A page with a changed weight to the answer shown: the first question (the runtime
            loaded, nothing in the browser's caches, pressed as the editor opens), the next one,
            a second visit (the runtime from the browser's copy: rdask-sw.js) pressed at once and
            pressed once the runtime is ready; the worker's own account of where its start went
            (Pyodide up, the files fetched, the wheels unpacked, rulesdsl imported, the game made
            ready); on the desktop and with two 4x CPU throttles: CDP's (Emulation.
            setCPUThrottlingRate), which slows only the page's thread — chromium refuses it for a
            worker, where the interpreter runs — and the kernel's (cpu_throttle.py: every thread of
            chromium, the worker's included, held to a cgroup-v1 CPU quota of its own, set so that
            a busy loop timed inside a worker runs 4x slower than on the desktop: measured, not
            assumed); each with the anchor and the load average of its own run
  build     `mkdocs build` of the site with the feature (runtime already gathered) and without
            (RULESDSL_WIKI_NO_ASK=1); the best of --runs each
  anchor    `rulesdsl ask ID --no-cache` in a fresh process on the same machine, just before each
            browser's run: the ratios say how the browser compares with the command line on this
            machine, whatever its load

Goals (issue 22): download ≤ 15 MB, one game's snapshot ≤ 1 MB; first answer ≤ 10 s with the 4x
throttle; next answer ≤ 1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
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

import cpu_throttle  # noqa: E402  (beside this file)
from rulesdsl.wiki import ask_bundle  # noqa: E402
from rulesdsl.wiki.testing import CHROMIUM_ARGS, build_site, find_chromium, serve  # noqa: E402

PAGE = "grm/qa/stack-flips-top-only.html"
SID = "grm/qa/stack-flips-top-only"
DOWNLOAD_GOAL, SNAPSHOT_GOAL, FIRST_GOAL, NEXT_GOAL = 15e6, 1e6, 10.0, 1.0


def sizes(site: Path, game: str = "grm") -> dict:
    top = site / ask_bundle.ASSETS
    manifest = json.loads((top / "manifest.json").read_text(encoding="utf-8"))
    raw = gz = one = one_gz = later = 0
    snap = 0
    for name, meta in manifest["files"].items():
        data = (top / name).read_bytes()
        z = len(gzip.compress(data, 6))
        raw, gz = raw + len(data), gz + z
        if not name.startswith("games/") or name.startswith(f"games/{game}/"):
            one, one_gz = one + len(data), one_gz + z
        if name in manifest.get("onDemand", ()):
            later += len(data)            # fetched only when a syntax error needs lark
        if name == f"games/{game}/snapshot.json":
            snap = len(data)
    scripts = sum((site / "assets" / n).stat().st_size for n in ("rdask.js", "rdask-worker.mjs", "rdask-runtime.mjs", "rdask.css"))
    scripts += (site / "rdask-sw.js").stat().st_size + (top / "manifest.json").stat().st_size
    return {"site_bytes": raw, "site_gzip": gz, "one_game_bytes": one + scripts, "one_game_gzip": one_gz,
            "first_answer_bytes": one + scripts - later, "on_demand_bytes": later, "snapshot_bytes": snap}


def _ask(page, text: str, weight: str, wait_warm: bool = False) -> float:
    """Seconds from the click on 「答える」 to the answer on the page (after the runtime is warm
    if `wait_warm`: a reader who reads before asking)."""
    area = page.locator(".rd-editor-text")
    if wait_warm:
        page.locator(".rd-ask[data-runtime=warm]").wait_for(state="attached", timeout=600_000)
    area.fill(text.replace("weight 60kg", f"weight {weight}"))
    page.evaluate("document.querySelector('.rd-ask').dataset.state = ''")
    started = time.perf_counter()
    page.locator(".rd-ask-go").click()
    page.locator(".rd-ask[data-state=done]").wait_for(state="attached", timeout=600_000)
    seconds = time.perf_counter() - started
    assert page.locator(".rd-ask-answer .rd-answer").count() >= 1, page.locator(".rd-ask-errors").inner_text()
    return seconds


def browser_times(base: str, mode: str = "desktop", rate: float = 4.0, desktop_loop_ms: Optional[float] = None) -> dict:
    """first: a fresh profile, 「答える」 pressed as soon as the editor opens (nothing kept);
    next: the next question; revisit: a new page of the same profile (the runtime from the
    browser's own copy, rdask-sw.js), pressed at once; warm_revisit: pressed once the runtime is
    ready (a reader who reads first); start: the worker's own account of its first start; loop:
    the busy loop timed in a dedicated worker and on the page's thread (cpu_throttle.py).

    mode: "desktop"; "page" (CDP's throttle: the page's thread only, not the interpreter's
    worker); "all" (every thread of chromium, the worker's included, held to 1/rate of a CPU by
    the kernel, the quota set so that the worker's busy loop runs `rate` times slower than
    `desktop_loop_ms`)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw, contextlib.ExitStack() as stack:
        exe = find_chromium()
        quota = None
        if mode == "all":
            quota = stack.enter_context(cpu_throttle.PerThreadQuota(rate))
            exe = quota.wrapper(exe, Path(stack.enter_context(tempfile.TemporaryDirectory())))
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        stack.callback(b.close)
        out: dict = {"mode": mode, "load_before": os.getloadavg()[0]}

        def throttled(page):
            if mode == "page":
                context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
            return page

        context = b.new_context()                  # the probe's profile, apart from the reader's
        probe = throttled(context.new_page())
        probe.goto(base + "index.html")
        if mode == "desktop":
            out["cdp_worker_throttle"] = cpu_throttle.cdp_worker_throttle_refused(b, probe) or "accepted"
        out["loop"] = (quota.calibrate(probe, desktop_loop_ms, rate) if quota and desktop_loop_ms
                       else cpu_throttle.busy_loop_ms(probe))
        context.close()
        context = b.new_context()                  # a fresh profile: nothing cached

        def opened():
            page = throttled(context.new_page())
            page.goto(base + PAGE)
            page.locator(".rd-ask-open summary").click()
            return page, page.locator(".rd-editor-text").input_value()

        page, text = opened()
        out["first"] = _ask(page, text, "40kg")
        out["next"] = _ask(page, text, "50kg")
        page.locator(".rd-ask[data-runtime=warm]").wait_for(state="attached", timeout=600_000)
        out["start"] = json.loads(page.locator(".rd-ask").first.get_attribute("data-timings"))
        page.close()
        page, text = opened()
        out["revisit"] = _ask(page, text, "40kg")
        page.close()
        page, text = opened()
        out["warm_revisit"] = _ask(page, text, "40kg", wait_warm=True)
        if quota:
            out["threads_throttled"] = quota.threads_moved
        out["load_after"] = os.getloadavg()[0]
        return out


def anchor() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rulesdsl", "--root", str(REPO), "--no-cache", "ask", SID, "--json"],
                   capture_output=True, check=True, cwd=str(REPO))
    return time.perf_counter() - started


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, help="where to build the sites (default: a temporary folder)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--json", action="store_true")
    p.add_argument("--site", type=Path, help="a site already built from this code: measure it, without the builds")
    args = p.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="rulesdsl-bench-ask-"))
    site = args.site or work / "with"
    if not args.site:
        first = build_site(REPO, site)              # gathers the runtime if it is not kept yet
        if first.returncode != 0:
            print(first.output[-3000:], file=sys.stderr)
            return 1
    if not (site / ask_bundle.ASSETS / "manifest.json").exists():
        print(f"{site} has no {ask_bundle.ASSETS}/manifest.json", file=sys.stderr)
        return 1
    result = {"sizes": sizes(site)}
    if not args.site:
        build_with, build_without = [], []
        for _ in range(args.runs):
            build_with.append(build_site(REPO, site).seconds)
            build_without.append(build_site(REPO, work / "without", extra_env={ask_bundle.ENV_OFF: "1"}).seconds)
        result.update(build_with=min(build_with), build_without=min(build_without))
    result["load_average"] = os.getloadavg()
    if find_chromium():
        modes = [("desktop", "desktop"), ("throttled_4x_page", "page"), ("throttled_4x_all", "all")]
        with serve(site) as base:
            for key, mode in modes:
                if mode == "all" and cpu_throttle.unavailable():
                    result[key] = {"skipped": cpu_throttle.unavailable()}
                    continue
                a = min(anchor() for _ in range(args.runs))      # in the same run, under the same load
                loop = result.get("desktop", {}).get("loop", {}).get("worker_ms")
                result[key] = {"anchor_cli_ask": a, **browser_times(base, mode, 4.0, loop)}
    else:
        result["anchor_cli_ask"] = min(anchor() for _ in range(args.runs))
    s = result["sizes"]
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"download for one game: {s['one_game_bytes'] / 1e6:.1f} MB raw, {s['one_game_gzip'] / 1e6:.1f} MB gzip "
          f"(goal ≤ {DOWNLOAD_GOAL / 1e6:.0f} MB: {'met' if s['one_game_bytes'] <= DOWNLOAD_GOAL else 'not met raw'}"
          f"{', met compressed' if s['one_game_gzip'] <= DOWNLOAD_GOAL else ''}); all games {s['site_bytes'] / 1e6:.1f} MB; "
          f"for an answer {s['first_answer_bytes'] / 1e6:.2f} MB, and {s['on_demand_bytes'] / 1e3:.0f} kB more "
          f"the first time a syntax error needs lark")
    print(f"snapshot of grm: {s['snapshot_bytes'] / 1e3:.0f} kB (goal ≤ 1 MB: {'met' if s['snapshot_bytes'] <= SNAPSHOT_GOAL else 'not met'})")
    if "build_with" in result:
        print(f"build: {result['build_with']:.1f} s with, {result['build_without']:.1f} s without "
              f"({result['build_with'] / result['build_without']:.2f}x)")
    for key in ("desktop", "throttled_4x_page", "throttled_4x_all"):
        t = result.get(key)
        if not t:
            continue
        if "skipped" in t:
            print(f"{key}: not measured: {t['skipped']}")
            continue
        a = t["anchor_cli_ask"]
        loop = t["loop"]
        print(f"{key} (load {t['load_before']:.1f}–{t['load_after']:.1f}; anchor `rulesdsl ask --no-cache` {a:.2f} s): "
              f"first answer {t['first']:.1f} s ({t['first'] / a:.1f}x the anchor), next {t['next']:.2f} s "
              f"({t['next'] / a:.2f}x); second visit {t['revisit']:.1f} s ({t['revisit'] / a:.1f}x), "
              f"{t['warm_revisit']:.2f} s once ready ({t['warm_revisit'] / a:.2f}x)"
              + (f"; goals first ≤ {FIRST_GOAL:.0f} s: {'met' if t['first'] <= FIRST_GOAL else 'not met'}, "
                 f"next ≤ 1 s: {'met' if t['next'] <= NEXT_GOAL else 'not met'}" if key != "desktop" else ""))
        base_loop = result["desktop"]["loop"]
        print(f"  busy loop: worker {loop['worker_ms']:.0f} ms ({loop['worker_ms'] / base_loop['worker_ms']:.1f}x the desktop's), "
              f"page {loop['page_ms']:.0f} ms ({loop['page_ms'] / base_loop['page_ms']:.1f}x)"
              + (f"; CDP asked to throttle a worker: {t['cdp_worker_throttle']}" if "cdp_worker_throttle" in t else "")
              + (f"; {t['threads_throttled']} threads each held to {loop['quota_of_a_cpu']:.2f} of a CPU" if "threads_throttled" in t else ""))
        print("  the worker's start (s since it began): " + ", ".join(f"{k} {v:.1f}" for k, v in t["start"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
