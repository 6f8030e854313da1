#!/usr/bin/env python3
"""The wiki's search index written again in other layouts, from a built site's own index files:
how many files and bytes each layout makes and the CPU its writing takes, and (with --out) a
light copy of the site per layout for `bench_search.py --site10k` to query.

    python3 benchmarks/search_layouts.py SITE [--layout D:BYTES …] [--out DIR]

A layout is DOCS_PER_SHARD (entries a `d/` file holds) and TARGET_SHARD_BYTES (the size a term
shard aims at). The entries and the postings are read back from SITE's `search/` (every part's
term shards, the entry files and meta.js's ranks) and written by search.py's own `SearchIndex.write`
and `write_meta` with the layout's two sizes, each part as the build writes it (a part after the
first starts at the next multiple of DOCS_PER_SHARD, as plugin.py starts the forked writer's): the
same entries, postings and ranks, so the same results in the same order, only the files cut
elsewhere. (Within a shard the terms come in the order first met in the entries, which the written
files do not keep for terms first met in the same entry: a shard's bytes can be ordered otherwise
than a build's, never sized otherwise.)

With --out DIR, DIR/<D>-<BYTES>/ is the site's every file and folder as a symbolic link but
`search/`, which is the layout's own: `bench_search.py --site10k DIR/<D>-<BYTES> --rdsearch-only`
measures what a query loads from it."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rulesdsl.wiki import search  # noqa: E402
from rulesdsl.wiki.search import Entry, SearchIndex, _unruns, decode, write_meta  # noqa: E402


def _body(path: Path):
    """The value a file of the index hands to `__rdsearch` (after the shard's name, if it has one)."""
    text = path.read_text(encoding="utf-8")
    inner = text[text.index("(") + 1:-3]
    return json.loads(inner if text.startswith("__rdsearch.meta(") else inner.split(",", 1)[1])


def read_index(site: Path) -> list[tuple[list[Entry], dict[str, list[tuple[int, int]]]]]:
    """Each part of SITE's index: its entries (numbered from 0 within the part) and its terms'
    postings (part-relative ids, weights), terms in the order of their first entry."""
    root = site / "search"
    meta = _body(root / "meta.js")
    per, rank = meta["docsPerShard"], _unruns(meta["rank"])
    rows: dict[int, list] = {}
    for f in (root / "d").glob("*.js"):
        n = int(f.stem)
        for i, row in enumerate(_body(f)):
            rows[n * per + i] = row
    parts = []
    for p in range(len(meta["parts"])):
        postings: dict[str, list[tuple[int, int]]] = {}
        for f in sorted((root / "t" / str(p)).glob("*.js"), key=lambda f: int(f.stem)):
            for term, (ids, weights) in _body(f).items():
                postings[term] = decode(ids, weights)
        ids = sorted({i for got in postings.values() for i, _ in got})
        first = ids[0] if ids else 0
        last = ids[-1] if ids else -1
        entries = [Entry(url=r[0], title=r[1], where=r[2], text=r[3], status=r[4] if len(r) > 4 else "",
                         rank=int(rank[i]) % search.PAGE_NEXT)
                   for i in range(first, last + 1) for r in (rows[i],)]
        order = sorted(postings, key=lambda t: postings[t][0][0])
        parts.append((entries, {t: [(i - first, w) for i, w in postings[t]] for t in order}))
    if sum(len(e) for e, _ in parts) != len(rows):
        raise SystemExit("an entry holds no term: the parts' bounds cannot be read from the postings")
    return parts


def write_layout(site_out: Path, parts, docs: int, target: int) -> dict:
    """The index written in the layout (search.py's writer with its two sizes set); files, bytes, and
    each part's writing CPU (user, system)."""
    search.DOCS_PER_SHARD, search.TARGET_SHARD_BYTES = docs, target
    described, first, cpu = [], 0, []
    for p, (entries, postings) in enumerate(parts):
        index = SearchIndex(first)
        index.entries = list(entries)
        index.ids = {t: [first + i for i, _ in got] for t, got in postings.items()}
        index.weights = {t: bytearray(w for _, w in got) for t, got in postings.items()}
        before = resource.getrusage(resource.RUSAGE_SELF)
        described.append(index.write(site_out, p))
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu.append([round(after.ru_utime - before.ru_utime, 2), round(after.ru_stime - before.ru_stime, 2)])
        first = index.end
    stats = write_meta(site_out, described)
    sizes = sorted(f.stat().st_size for f in (site_out / "search").rglob("*.js"))
    return {"layout": f"{docs}:{target}", "files": len(sizes), "bytes": sum(sizes),
            "term_files": sum(p["shards"] for p in described), "entry_files": -(-stats["entries"] // docs),
            "user_system_s": cpu, "median_file_bytes": sizes[len(sizes) // 2], "largest_file_bytes": sizes[-1]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--layout", action="append", help="DOCS_PER_SHARD:TARGET_SHARD_BYTES (repeat)")
    ap.add_argument("--out", type=Path, help="a folder for a light copy of the site per layout")
    args = ap.parse_args()
    layouts = [tuple(map(int, x.split(":"))) for x in args.layout or [f"{search.DOCS_PER_SHARD}:{search.TARGET_SHARD_BYTES}"]]
    parts = read_index(args.site)
    for docs, target in layouts:
        if args.out:
            dest = args.out / f"{docs}-{target}"
            dest.mkdir(parents=True)
            for name in os.listdir(args.site):
                if name != "search":
                    os.symlink(args.site.resolve() / name, dest / name)
            print(json.dumps(write_layout(dest, parts, docs, target)), flush=True)
        else:
            with tempfile.TemporaryDirectory(prefix="search-layout-") as tmp:
                print(json.dumps(write_layout(Path(tmp), parts, docs, target)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
