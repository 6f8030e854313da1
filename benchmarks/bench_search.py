#!/usr/bin/env python3
"""The wiki's search against the two alternatives the issue names, measured in Debian's chromium:

  rdsearch  the wiki's own index (rulesdsl/wiki/search.py, site/docs/assets/rdsearch.js)
  pagefind  Pagefind's extended build (PyPI `pagefind[extended]`: it segments Japanese), run over
            the same built site (`--root-selector article`), driven through its JavaScript API
  lunr      mkdocs-material's own search plugin with `lang: ja` (lunr with lunr-languages'
            TinySegmenter), the item pages' text added to its index as Material would index them

    python benchmarks/bench_search.py [--site10k DIR [--rdsearch-only]] [--json]

For each: how many of the test set's queries (rulesdsl.wiki.testing.SEARCHES, 32 queries over the
four games) have the expected page among the first five results, the time from typing the query to
the results shown (median and worst), the bytes a query downloads, and whether it works opened
from a folder (file://). With --site10k (a wiki built from the 10,000-card synthetic corpus, see
bench_wiki.py --keep), also rdsearch's bytes and time per query there, and Pagefind's indexing
time, peak memory and size on it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from rulesdsl.wiki.testing import (CHROMIUM_ARGS, MKDOCS_YML, SEARCHES, build_site, find_chromium,  # noqa: E402
                                   serve)


def run_pagefind(site: Path) -> dict:
    """Index `site` with Pagefind's extended binary; time, peak memory, size."""
    shutil.rmtree(site / "pagefind", ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pagefind", "--site", str(site), "--root-selector", "article",
                             "--output-subdir", "pagefind", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read().decode("utf-8", "replace") if proc.stdout else ""
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"pagefind failed:\n{out}")
    size = sum(f.stat().st_size for f in (site / "pagefind").rglob("*") if f.is_file())
    return {"seconds": round(seconds, 1), "peak_mb": round(usage.ru_maxrss / 1024), "bytes": size}


def lunr_site(out: Path) -> Path:
    """The bundled wiki built with Material's search plugin (lang: ja) instead of rdsearch, the item
    pages' article text added to its index."""
    work = Path(tempfile.mkdtemp(prefix="bench-lunr-"))
    overrides = work / "overrides"
    overrides.mkdir()
    shutil.copy(REPO / "site" / "overrides" / "main.html", overrides / "main.html")
    text = MKDOCS_YML.read_text(encoding="utf-8")
    text = text.replace("custom_dir: site/overrides", f"custom_dir: {overrides}")
    text = text.replace("plugins: []", "plugins:\n  - search:\n      lang: ja")
    text = text.replace("extra_javascript:\n  - assets/rdsearch.js\n", "")
    text = text.replace("docs_dir: site/docs", f"docs_dir: {REPO / 'site' / 'docs'}")
    text = text.replace("  - rulesdsl/wiki/hook.py", f"  - {REPO / 'rulesdsl' / 'wiki' / 'hook.py'}")
    config = work / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    r = build_site(REPO, out, config=config, keep_going=True)
    if r.returncode != 0:
        raise SystemExit(f"lunr build failed:\n{r.output[-2000:]}")
    index_path = out / "search" / "search_index.json"
    data = json.loads(index_path.read_text(encoding="utf-8"))
    have = {d["location"].split("#")[0] for d in data["docs"]}
    import html as _html
    import re
    for f in out.rglob("*.html"):
        loc = f.relative_to(out).as_posix()
        if loc in have or loc == "404.html":
            continue
        page = f.read_text(encoding="utf-8")
        if "<article" not in page:
            continue
        article = page.split("<article", 1)[1].split("</article>", 1)[0]
        title = _html.unescape(re.sub(r"<[^>]+>", "", article.split("<h1", 1)[1].split("</h1>", 1)[0].split(">", 1)[1])) \
            if "<h1" in article else loc
        body = " ".join(re.sub(r"<[^>]+>", " ", article).split())
        data["docs"].append({"location": loc, "title": title, "text": body[:1500]})
    index_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return out


# ----------------------------------------------------------------------------- in the browser

class Meter:
    def __init__(self, browser) -> None:
        self.browser = browser
        self.context = browser.new_context(viewport={"width": 1366, "height": 900})
        self.page = self.context.new_page()
        self.bytes = 0
        self.files = 0
        self.split = [0, 0]      # of the bytes: the term shards', the entries' (rdsearch)
        self.page.on("response", self._count)

    def _count(self, response) -> None:
        try:
            self.bytes += len(response.body())
            self.files += 1
        except Exception:   # noqa: BLE001 - a redirect or an aborted load has no body
            pass

    def fresh(self, base: str) -> None:
        """A new browser context (nothing cached) on the site's home page, and the mark from which
        `loaded` counts what the page loads."""
        self.context.close()
        self.context = self.browser.new_context(viewport={"width": 1366, "height": 900})
        self.page = self.context.new_page()
        self.page.goto(base + "index.html")
        self.page.wait_for_load_state("networkidle")
        self.mark = self.page.evaluate("() => { performance.setResourceTimingBufferSize(100000); return performance.now(); }")

    def loaded(self) -> None:
        """Bytes (uncompressed: the body as served) and files the page loaded since `fresh`, from the
        page's own resource timing — every file counted once it is loaded, none missed by an event
        still in flight."""
        self.files, self.bytes, self.split = self.page.evaluate(
            "t0 => { const xs = performance.getEntriesByType('resource').filter(e => e.startTime >= t0);"
            " const of = s => xs.filter(e => e.name.includes(s)).reduce((n, e) => n + e.decodedBodySize, 0);"
            " return [xs.length, xs.reduce((n, e) => n + e.decodedBodySize, 0),"
            " [of('/search/t/'), of('/search/d/')]]; }", self.mark)

    def close(self) -> None:
        self.context.close()


def rd_query(m: Meter, base: str, query: str) -> tuple[list[str], float, int]:
    m.fresh(base)
    pg = m.page
    start = time.perf_counter()
    pg.fill("input.md-search__input", query)
    pg.wait_for_selector(f".md-search-result[data-rd-query={json.dumps(query, ensure_ascii=False)}]", state="attached")
    seconds = time.perf_counter() - start
    hrefs = pg.eval_on_selector_all(".md-search-result__item > a", "els => els.slice(0, 5).map(e => e.href)")
    m.loaded()
    return [unquote(h.removeprefix(base)) for h in hrefs], seconds, m.bytes


def typed(query: str) -> list[str]:
    """The queries a reader's typing puts in the box one after the other: every prefix, as an input
    method commits characters (「No.0」「No.01」「No.018」, 「体」「体重」), the box's value trimmed as
    the search trims it."""
    out: list[str] = []
    for i in range(1, len(query) + 1):
        p = query[:i].strip()
        if p and (not out or out[-1] != p):
            out.append(p)
    return out


def rd_typed(m: Meter, base: str, query: str) -> tuple[list[str], float, int]:
    """The query typed key by key: each prefix's results waited for (the worst case: a reader who
    pauses at every key), the bytes of all of them counted; the time is the last key's, from the key
    to its results."""
    m.fresh(base)
    pg = m.page
    seconds = 0.0
    for prefix in typed(query):
        start = time.perf_counter()
        pg.fill("input.md-search__input", prefix)
        pg.wait_for_selector(f".md-search-result[data-rd-query={json.dumps(prefix, ensure_ascii=False)}]",
                             state="attached")
        seconds = time.perf_counter() - start
    hrefs = pg.eval_on_selector_all(".md-search-result__item > a", "els => els.slice(0, 5).map(e => e.href)")
    m.loaded()
    return [unquote(h.removeprefix(base)) for h in hrefs], seconds, m.bytes


PAGEFIND_JS = """async (q) => {
  const t0 = performance.now();
  if (!window.__pf) { window.__pf = await import(%s); await window.__pf.init(); }
  const r = await window.__pf.search(q);
  const data = await Promise.all(r.results.slice(0, 5).map(x => x.data()));
  return [data.map(d => d.url), (performance.now() - t0) / 1000];
}"""


def pagefind_query(m: Meter, base: str, query: str) -> tuple[list[str], float, int]:
    pg = m.page
    pg.goto(base + "index.html")
    pg.wait_for_load_state("networkidle")
    m.bytes = 0
    urls, seconds = pg.evaluate(PAGEFIND_JS % json.dumps(base + "pagefind/pagefind.js"), query)
    root = "/" + base.split("/", 3)[3] if base.startswith("http") else base
    return [unquote(u.removeprefix(root).lstrip("/")) for u in urls], seconds, m.bytes


def lunr_query(m: Meter, base: str, query: str) -> tuple[list[str], float, int]:
    """Material's search: from loading the page (the index is downloaded and built then) to the
    result list settling on the query."""
    pg = m.page
    m.bytes = 0
    start = time.perf_counter()
    pg.goto(base + "index.html")
    pg.fill("input.md-search__input", query)
    pg.keyboard.press("End")
    last, same = None, 0
    while time.perf_counter() - start < 60:
        meta = pg.inner_text(".md-search-result__meta")
        items = pg.eval_on_selector_all(".md-search-result__item > a", "els => els.slice(0, 5).map(e => e.href)")
        state = (meta, tuple(items))
        ready = "初期化" not in meta and "入力" not in meta
        same = same + 1 if ready and state == last else 0
        last = state
        if same >= 3:
            break
        pg.wait_for_timeout(100)
    seconds = time.perf_counter() - start - 0.3      # the three polls that saw it settle
    return [unquote(h.removeprefix(base)) for h in last[1]], seconds, m.bytes


def matches(expected: str, got: list[str]) -> bool:
    """Whether `expected` is among the results; an engine that finds the page but not the section
    (Pagefind and lunr link whole pages here) counts when the page matches."""
    page = expected.split("#")[0]
    return any(g == expected or g.split("#")[0] == page or g.split("#")[0] == page.removesuffix(".html")
               for g in got)


def measure(engine: str, query_fn, browser, base: str, queries=SEARCHES) -> dict:
    m = Meter(browser)
    found, times, sizes, files, misses, each = 0, [], [], [], [], {}
    try:
        for query, expected in queries:
            got, seconds, size = query_fn(m, base, query)
            times.append(seconds)
            sizes.append(size)
            files.append(m.files)
            each[query] = [size, m.files, round(seconds, 3), *m.split, got[:5]]
            if expected is None or matches(expected, got):
                found += 1
            else:
                misses.append([query, got[:5]])
    finally:
        m.close()
    return {"engine": engine, "found": found, "queries": len(queries), "misses": misses,
            "median_s": round(statistics.median(times), 3), "worst_s": round(max(times), 3),
            "median_bytes": int(statistics.median(sizes)), "worst_bytes": max(sizes),
            "median_files": int(statistics.median(files)), "worst_files": max(files), "each": each}


# The queries tried on the 10,000-card site (its pages are synthetic: no expected page, the bytes and
# the time are what is measured): the test set's words and names, the synthetic corpus's card codes
# (No.0001 …, PROMO001 …, TH01-001 …) and Japanese words typed key by key.
QUERIES_10K = ("体重", "No.018", "未確定", "スタック", "《火野 アラシ》", "裏向きになる",
               "No.0018", "PROMO015", "TH05-042", "振りなおし", "特殊防御力", "ポイント置き場")


def site10k_figures(browser, base: str, queries=QUERIES_10K) -> dict:
    """rdsearch on a big site: each query pasted whole, and typed key by key (every prefix)."""
    few = [(q, None) for q in queries]
    return {"rdsearch_10k": measure("rdsearch", rd_query, browser, base, few),
            "rdsearch_10k_typed": measure("rdsearch", rd_typed, browser, base, few)}


def file_works(engine: str, query_fn, browser, site: Path) -> str:
    m = Meter(browser)
    try:
        got, _, _ = query_fn(m, site.resolve().as_uri() + "/", SEARCHES[0][0])
        return "yes" if got else "no results"
    except Exception as e:  # noqa: BLE001 - the failure is the finding
        return f"no ({type(e).__name__}: {str(e).splitlines()[0][:120]})"
    finally:
        m.close()


def rdsearch_10k_only(args) -> int:
    from playwright.sync_api import sync_playwright
    if not args.site10k:
        raise SystemExit("--rdsearch-only needs --site10k")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        with serve(args.site10k) as base:
            results = site10k_figures(browser, base)
        browser.close()
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print_10k(results)
    return 0


def print_10k(results: dict) -> None:
    for name, how in (("rdsearch_10k", "pasted whole"), ("rdsearch_10k_typed", "typed key by key")):
        if name not in results:
            continue
        x = results[name]
        print(f"\nrdsearch at 10,000 cards, each query {how}: {x['median_bytes']:,} bytes in {x['median_files']} files "
              f"(worst {x['worst_bytes']:,} in {x['worst_files']}), results in {x['median_s']} s (worst {x['worst_s']} s)")
        print("| query | bytes | files | seconds | of them terms' / entries' bytes |\n|---|---:|---:|---:|---:|")
        for q, (size, files, seconds, term_bytes, entry_bytes, _) in x["each"].items():
            print(f"| {q} | {size:,} | {files} | {seconds} | {term_bytes:,} / {entry_bytes:,} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site10k", type=Path, help="a wiki built from the 10,000-card synthetic corpus")
    ap.add_argument("--rdsearch-only", action="store_true",
                    help="with --site10k: only rdsearch on that site (no bundled site, Pagefind or lunr)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.rdsearch_only:
        return rdsearch_10k_only(args)
    from playwright.sync_api import sync_playwright

    exe = find_chromium()
    if exe is None:
        raise SystemExit("Debian's chromium is needed (apt-get install -y chromium)")
    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    results: dict = {}
    try:
        site = work / "site"
        r = build_site(REPO, site, keep_going=True)
        if r.returncode != 0:
            raise SystemExit(r.output[-2000:])
        results["pagefind_index_bundled"] = run_pagefind(site)
        lunr = lunr_site(work / "lunr")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            with serve(site) as base:
                results["rdsearch"] = measure("rdsearch", rd_query, browser, base)
                results["pagefind"] = measure("pagefind", pagefind_query, browser, base)
            with serve(lunr) as base:
                results["lunr"] = measure("lunr", lunr_query, browser, base)
            results["file"] = {"rdsearch": file_works("rdsearch", rd_query, browser, site),
                               "pagefind": file_works("pagefind", pagefind_query, browser, site),
                               "lunr": file_works("lunr", lunr_query, browser, lunr)}
            if args.site10k:
                with serve(args.site10k) as base:
                    results.update(site10k_figures(browser, base))
                if not args.rdsearch_only:
                    few = [(q, None) for q in QUERIES_10K[:6]]
                    results["pagefind_index_10k"] = run_pagefind(args.site10k)
                    with serve(args.site10k) as base:
                        results["pagefind_10k"] = measure("pagefind", pagefind_query, browser, base, few)
                    shutil.rmtree(args.site10k / "pagefind", ignore_errors=True)
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    print("| engine | top 5 found | time to results (median / worst) | bytes a query loads (median / worst) | from a folder |")
    print("|---|---:|---:|---:|---|")
    for name in ("rdsearch", "pagefind", "lunr"):
        x = results[name]
        print(f"| {name} | {x['found']}/{x['queries']} | {x['median_s']} / {x['worst_s']} s | "
              f"{x['median_bytes']:,} / {x['worst_bytes']:,} | {results['file'][name]} |")
    for name in ("rdsearch", "pagefind", "lunr"):
        if results[name]["misses"]:
            print(f"\n{name} misses: " + "; ".join(f"{q} → {', '.join(g[:3]) or '—'}" for q, g in results[name]["misses"]))
    print(f"\npagefind indexing of the bundled site: {results['pagefind_index_bundled']}")
    print_10k(results)
    for key in ("pagefind_10k", "pagefind_index_10k"):
        if key in results:
            print(f"{key}: {json.dumps(results[key], ensure_ascii=False)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
