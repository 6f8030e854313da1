"""The wiki's search index: Japanese-aware, split into small files that a page loads only when a
query needs them, and loadable from a folder (file://) as well as from a server.

Why not Material's lunr search or Pagefind (measured in benchmarks/README.md): lunr downloads the
whole index and builds it in the browser on every page load (54 MB at 10,000 cards), and its
Japanese tokenizer splits 裏向き, 体重 or 未確定 apart; Pagefind loads only the fragments a query
needs, but through `fetch` and ES modules, which a browser refuses for file:// pages.

How it works. Text is normalised (NFKC, lower case) and cut into terms:

* a run of kanji and kana becomes its overlapping character pairs (裏向き → 裏向, 向き): a query
  matches a page holding every pair of the query, whatever a dictionary would make of the words
  around it, so 裏向きになる, 体重 and 未確定 find themselves; a lone character is a term of its own;
* a run of Latin letters and digits (with inner `.`, `-` or `_`) is a term, and so is each of its
  parts: No.018 → `no.018`, `no`, `018`;
* everything else (《》「」・※ spaces …) separates terms.

An entry (a page, or a section of an index page) also has *keys*: its title, heading, card name
and code, squeezed to letters and digits; a query equal to a key ranks that entry first — this is
how 体重 lands on the rule section 体重 and スタック on its glossary entry, the pages that define
them.

Files written under `search/` (all JavaScript that calls `__rdsearch`, so that a `<script>` tag
loads them from a server or from a folder alike):

* `meta.js` — entry count, the parts and their shard counts, each entry's rank (pages that define
  things first; runs of one rank written once, see below);
* `t/<part>/<n>.js` — the postings of the terms that hash to shard n in one part of the index
  (each process that writes pages builds its own part): for each term the entry ids (base-36
  deltas, comma-separated) and a weight per entry (one base-36 digit: 8 per occurrence in the
  title, 1 per occurrence in the text, at most 35). Runs are written once: RUN or more equal
  deltas as `delta.count` (`1.2s`: a hundred entries in a row), RUN or more equal weights as
  `digit.count.` (`1.2s.`). Shards are small (TARGET_SHARD_BYTES): a query loads, per term and
  part, little more than that term's own postings;
* `d/<n>.js` — entries n·D … n·D+D−1 (D = DOCS_PER_SHARD, small: a query loads only the entries
  it shows): URL, title, where it is, the start of its text.

Typed key by key, as with an input method (「体」「体重」, 「No.0」「No.01」「No.018」), every prefix is a
query: the files an earlier prefix loaded are kept, so a longer prefix loads only its new terms'
shards and the entries it newly shows.

The browser side is `site/docs/assets/rdsearch.js`; it tokenizes the same way (`tokenize` here
and there are kept in step by a test that runs both).
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections import Counter
from itertools import chain, groupby
from operator import sub
from pathlib import Path
from typing import Iterable, NamedTuple

from ..base.files import write_whole

# Sizes chosen for a query typed key by key (every prefix is a query of its own, each showing its
# first results): a prefix loads one small file per new term and part, and one small file per entry
# it shows; what an earlier prefix loaded is reused. Each file is also one the build makes, and on
# a disk where making a file after a deletion costs the kernel 0.15-0.6 ms, 4 entries a file and
# ~3 KB term shards halve the 10,000-card index's files (26,389 -> 13,196) for a typed query's
# 91 -> 152 KB (worst 143 -> 205 KB; goal <= 300 KB). benchmarks/README.md, "Twentieth round: search".
DOCS_PER_SHARD = 4
TARGET_SHARD_BYTES = 3_000
RUN = 4                  # a run of this many equal deltas or weights, or more, is written once with its count
TITLE_WEIGHT = 8
MAX_WEIGHT = 35
SNIPPET = 160
PAGE_NEXT = 5            # meta.js's rank digit 5-9: the entry is a further section of the page before it

_CJK = "\u3005\u3006\u3041-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[a-z0-9]+(?:[._\-][a-z0-9]+)*|[{_CJK}]+")
_KEEP = re.compile(rf"[^a-z0-9{_CJK}]+")
_PAIRS = re.compile(r"(?=(..))", re.S)
_TOKEN_CJK = re.compile(rf"[{_CJK}]")
_ASCII_PART = re.compile(r"[a-z0-9]+")
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _compatibles() -> tuple[re.Pattern, dict[str, str]]:
    """The characters of the Basic Multilingual Plane that NFKC changes on their own (full-width
    ASCII, the ideographic space, …, ², ①, half-width katakana …), and what NFKC makes of each."""
    changed = {c: unicodedata.normalize("NFKC", c) for c in map(chr, range(0x80, 0x10000))}
    changed = {c: n for c, n in changed.items() if n != c}
    return re.compile("[" + "".join(re.escape(c) for c in changed) + "]"), changed


# Replacing a character by its own NFKC keeps the whole text's NFKC (both decompose to the same
# characters), so a text that is normalised once they are replaced is the text's NFKC; the rest
# (combining marks, characters outside the BMP) still go through unicodedata.normalize.
_COMPATIBLE, _NFKC_OF = _compatibles()


# katakana read as hiragana, and the long vowel mark dropped: a reader who types すたっく, スタック
# or ｽﾀｯｸ finds the same terms, and ガーディアン with or without its ー
_FOLD = {c: c - 0x60 for c in range(0x30A1, 0x30F7)}
_FOLD[0x30FC] = None
# (only the runs of those characters are translated: `str.translate` looks every other character
# of a text up in the table too, a quarter of the time of `tokenize`)
_FOLDED_RUN = re.compile("[\u30a1-\u30f6\u30fc]+")


def normalize(text: str) -> str:
    """NFKC and lower case (what the browser does with String.normalize("NFKC")), katakana as
    hiragana and no long vowel mark; the characters NFKC changes on their own (full-width ASCII,
    the `…` every cut text ends with) are mapped first, since NFKC itself is slow on long texts."""
    if not unicodedata.is_normalized("NFKC", text):
        text = _COMPATIBLE.sub(lambda m: _NFKC_OF[m.group()], text)
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
    return _FOLDED_RUN.sub(_fold, text.lower())


def _fold(run: re.Match) -> str:
    return run.group().translate(_FOLD)


def tokenize(text: str) -> list[str]:
    """The terms of a text, in order, repeats kept (see the module's docstring)."""
    out: list[str] = []
    s = normalize(text)
    for m in _TOKEN.finditer(s):
        run = m.group()
        if run[0] < "\u3000":                       # Latin letters and digits
            out.append(run)
            if len(run) > 1 and not run.isalnum():
                out.extend(_ASCII_PART.findall(run))
            # a number and its unit, one term: 30点 (so that 「30点」 finds 「30点以上」), 2026年
            if run.isdigit() and m.end() < len(s) and _TOKEN_CJK.match(s, m.end()):
                out.append(run + s[m.end()])
        elif len(run) == 1:
            if not (m.start() and s[m.start() - 1].isdigit()):     # 点 of 30点 is in the term 30点
                out.append(run)
        else:
            out.extend(_PAIRS.findall(run))
    return out


def key(text: str) -> str:
    """A title or name squeezed to letters and digits: what an exact-match query is compared with."""
    return _KEEP.sub("", normalize(text))


def term_hash(term: str) -> int:
    """FNV-1a over the term's UTF-16 code units (what the browser side computes)."""
    h = 0x811C9DC5
    data = term.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


class Entry(NamedTuple):
    """One search result: a page or a section of one. Texts are plain (the browser shows them as
    text, never as HTML)."""

    url: str            # site-relative, with #anchor for a section
    title: str
    text: str
    where: str = ""     # a breadcrumb: "GRMカード ＞ カード"
    keys: tuple = ()    # extra exact-match names (a card's name, its code)
    rank: int = 1       # 0 pages that define things (rules, glossary, statuses), 1 cards and others, 2 Q&A
    status: str = ""    # the page's status badge as "class word" (「provisional 暫定」), shown with the result


UNDEFINED = "資料に定義なし"   # a glossary entry the sources do not define: no exact match, ranked like others


def postings(entry: Entry) -> Counter:
    """An entry's terms with their weights (title occurrences count TITLE_WEIGHT times; capped at
    MAX_WEIGHT when written), and its exact-match keys as `=key` terms."""
    weights: Counter = Counter(tokenize(entry.text))
    for t in tokenize(entry.title):
        weights[t] += TITLE_WEIGHT
    if entry.text.startswith(UNDEFINED):
        return weights
    for k in (entry.title, *entry.keys):
        k = key(k)
        if k:
            weights["=" + k] = MAX_WEIGHT
    return weights


class SearchIndex:
    """One part of the index: entries numbered from `first` (a multiple of DOCS_PER_SHARD) in the
    order they are added. A build writes one part per process that renders pages (each its own
    files under t/<part>/ and its own range of d/), then `write_meta` lists the parts."""

    def __init__(self, first: int = 0) -> None:
        if first % DOCS_PER_SHARD:
            raise ValueError("a part of the search index starts at a multiple of DOCS_PER_SHARD")
        self.first = first
        self.entries: list[Entry] = []
        self.ids: dict[str, list[int]] = {}          # term -> entry ids (increasing)
        self.weights: dict[str, bytearray] = {}      # term -> one weight per id
        self.seconds = 0.0                           # spent indexing and writing (for the build's log)

    def add(self, entry: Entry) -> int:
        started = time.perf_counter()
        ident = self.first + len(self.entries)
        if entry.rank < 1 and entry.text.startswith(UNDEFINED):
            entry = entry._replace(rank=1)
        self.entries.append(entry)
        ids, weights, get = self.ids, self.weights, self.ids.get
        for t, w in postings(entry).items():
            if w > MAX_WEIGHT:
                w = MAX_WEIGHT
            got = get(t)
            if got is None:
                ids[t] = [ident]
                weights[t] = bytearray((w,))
            else:
                got.append(ident)
                weights[t].append(w)
        self.seconds += time.perf_counter() - started
        return ident

    def extend(self, entries: Iterable[Entry]) -> None:
        for e in entries:
            self.add(e)

    @property
    def end(self) -> int:
        """The first id after this part, rounded up to a whole doc shard (where the next part starts)."""
        n = self.first + len(self.entries)
        return -(-n // DOCS_PER_SHARD) * DOCS_PER_SHARD

    def write(self, site: Path, part: int) -> dict:
        """Write this part's files under `site`/search; its description for `write_meta`."""
        started = time.perf_counter()
        out = Path(site) / "search"
        (out / "t" / str(part)).mkdir(parents=True, exist_ok=True)
        (out / "d").mkdir(parents=True, exist_ok=True)
        encoded = {t: _encode(self.ids[t], self.weights[t]) for t in self.ids}
        total = sum(len(t) + len(a) + len(b) + 8 for t, (a, b) in encoded.items())
        shards = 1
        while total / shards > TARGET_SHARD_BYTES:
            shards *= 2
        buckets: list[dict[str, list[str]]] = [{} for _ in range(shards)]
        for t, pair in encoded.items():
            buckets[term_hash(t) % shards][t] = list(pair)

        def terms() -> int:
            return sum(_write_js(out / "t" / str(part) / f"{n}.js", f'__rdsearch.t("{part}/{n}",', bucket)
                       for n, bucket in enumerate(buckets))

        def docs() -> int:
            written = 0
            for n in range(self.first // DOCS_PER_SHARD, self.end // DOCS_PER_SHARD):
                lo = n * DOCS_PER_SHARD - self.first
                rows = [[e.url, e.title, e.where, _snippet(e.text), *([e.status] if e.status else [])]
                        for e in self.entries[lo:lo + DOCS_PER_SHARD]]
                written += _write_js(out / "d" / f"{n}.js", f"__rdsearch.d({n},", rows)
            return written
        # the parts are written at the same time by two processes: an odd part starts with the
        # entries' folder (d) and an even one with its own terms' folder, so that they are less
        # often making files in the same folder, where each waits for the other's
        written = docs() + terms() if part % 2 else terms() + docs()
        self.seconds += time.perf_counter() - started
        return {"first": self.first, "count": len(self.entries), "shards": shards, "terms": len(encoded),
                "bytes": written, "seconds": round(self.seconds, 2),
                "rank": _ranks(self.entries)}


def _ranks(entries: list[Entry]) -> str:
    """Each entry's rank as a digit, plus PAGE_NEXT for a section of the same page as the entry
    before it (the browser shows one result per page)."""
    out, last = [], None
    for e in entries:
        page = e.url.split("#", 1)[0]
        out.append(str(min(max(e.rank, 0), PAGE_NEXT - 1) + (PAGE_NEXT if page == last else 0)))
        last = page
    return "".join(out)


def write_meta(site: Path, parts: list[dict]) -> dict:
    """search/meta.js: the parts, and every entry's rank (gaps between parts rank like cards)."""
    docs = max((p["first"] + p["count"] for p in parts), default=0)
    rank = ["1"] * docs
    for p in parts:
        rank[p["first"]:p["first"] + p["count"]] = p["rank"]
    meta = {"docs": docs, "docsPerShard": DOCS_PER_SHARD, "parts": [{"shards": p["shards"]} for p in parts],
            "rank": _runs("".join(rank))}
    written = _write_js(Path(site) / "search" / "meta.js", "__rdsearch.meta(", meta)
    return {"entries": sum(p["count"] for p in parts), "terms": sum(p["terms"] for p in parts),
            "files": sum(p["shards"] for p in parts) + -(-docs // DOCS_PER_SHARD) + 1,
            "bytes": written + sum(p["bytes"] for p in parts),
            "seconds": "+".join(str(p.get("seconds", 0)) for p in parts)}


def write_index(site: Path, entries: Iterable[Entry]) -> dict:
    """The whole index in one part (tests, small sites)."""
    index = SearchIndex()
    index.extend(entries)
    return write_meta(site, [index.write(site, 0)])


def _encode(ids: list[int], weights: bytearray) -> tuple[str, str]:
    """A term's postings as written (see the module's docstring): base-36 deltas and weight digits,
    runs of RUN or more written once with their count. (Runs found by `groupby`, numerals read
    from a table: the index's ~65,000 terms hold millions of postings at 10,000 cards.)"""
    deltas: list[str] = []
    add, more = deltas.append, deltas.extend
    for gap, run in groupby(map(sub, ids, chain((0,), ids))):
        k = len(list(run))
        g = _B36_OF[gap] if gap < _TABLE else _b36(gap)
        if k >= RUN:
            add(f"{g}.{_b36(k)}")
        elif k == 1:
            add(g)
        else:
            more((g,) * k)
    return ",".join(deltas), _runs(weights.translate(_WEIGHT_CHARS).decode("ascii"))


_RUN_OF_DIGITS = re.compile(r"(.)\1{%d,}" % (RUN - 1))


def _runs(digits: str) -> str:
    """A string of digits with each run of RUN or more equal ones written `digit.count.`."""
    return _RUN_OF_DIGITS.sub(lambda m: f"{m.group(1)}.{_b36(m.end() - m.start())}.", digits)


def _unruns(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if i + 1 < len(text) and text[i + 1] == ".":
            end = text.index(".", i + 2)
            out.append(text[i] * int(text[i + 2:end], 36))
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def decode(ids: str, weights: str) -> list[tuple[int, int]]:
    """A term's postings as written in a shard: (entry id, weight), what the browser side reads."""
    out_ids, last = [], 0
    for token in ids.split(",") if ids else ():
        delta, _, count = token.partition(".")
        for _ in range(int(count, 36) if count else 1):
            last += int(delta, 36)
            out_ids.append(last)
    return [(i, int(w, 36)) for i, w in zip(out_ids, _unruns(weights), strict=True)]


_WEIGHT_CHARS = bytes((ord(_B36[min(i, MAX_WEIGHT)]) for i in range(256)))
_SMALL = [_B36[i] for i in range(36)]


def _b36(n: int) -> str:
    if n < 36:
        return _SMALL[n]
    digits = []
    while n:
        n, r = divmod(n, 36)
        digits.append(_B36[r])
    return "".join(reversed(digits))


_TABLE = 36 * 36
_B36_OF = [_b36(n) for n in range(_TABLE)]      # the numerals of the gaps most postings have


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[:SNIPPET] + "…"


def _write_js(path: Path, head: str, value) -> int:
    # `</` can never occur in the file's text: it is loaded as a script
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    data = (head + body + ");\n").encode("utf-8")
    write_whole(path, data)
    return len(data)
