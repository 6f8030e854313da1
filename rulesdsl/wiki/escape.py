"""Escaping and naming: every value from the knowledge base reaches a page through here.

The wiki writes HTML, never Markdown, for anything that comes from the data: names, texts,
citations and ids are HTML-escaped (`esc`), so `<script>`, Markdown (`**x**`, `[x](javascript:…)`)
and Jinja (`{{ x }}`, `{% x %}`) syntax are shown as the characters they are. No URL is ever built
from data text: page paths come from `path_slug`, which keeps only `[A-Za-z0-9._-]`.
"""

from __future__ import annotations

import hashlib
import html
import re
from functools import lru_cache
from typing import Callable
from urllib.parse import quote



_SPECIAL = re.compile("[&<>\"']").search


def esc(value: object) -> str:
    """HTML-escape text for element content and (double-quoted) attribute values: what
    `html.escape(str(value), quote=True)` gives. Most texts have nothing to escape, and one scan
    finds that (a page's text passes here millions of times in a build)."""
    text = value if type(value) is str else str(value)
    if _SPECIAL(text) is None:
        return text
    return html.escape(text, quote=True)


def esc_lines(value: object) -> str:
    """Escaped text whose line breaks are kept (`<br>`)."""
    return esc(value).replace("\r\n", "\n").replace("\n", "<br>\n")


@lru_cache(maxsize=256)        # a chapter's slug is asked for by every link to one of its sections (few: ~64 kB)
def path_slug(text: str, reserved: frozenset[str] = frozenset({"index"})) -> str:
    """A file-name-safe slug for one path segment: letters and digits (Japanese too), `.`, `_`
    and `-`. Text that is already safe is kept as it is (`No.018`, `PROMO015`, `zero-weight`,
    `魂魄妖夢`); anything else is reduced to its safe characters and given a short hash of the
    original, so that different texts never share a slug."""
    cleaned = "".join(ch for ch in text if ch.isalnum() or ch in "._-")[:80].lstrip(".-")
    if cleaned == text and cleaned and cleaned.lower() not in reserved:
        return cleaned
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[:40]}-{digest}" if cleaned else f"x-{digest}"


def url_quote(url: str) -> str:
    """Percent-encode a site-relative URL (non-ASCII path segments), as mkdocs does."""
    return quote(url, safe="/#-._~")


def strip_tags(html_text: str) -> str:
    """The text of an HTML fragment (still entity-escaped), whitespace collapsed."""
    return " ".join(_TAG.sub(" ", html_text).split())


_TAG = re.compile(r"<[^>]*>")


class Anchors:
    """Heading ids for one page, made like Python-Markdown's toc extension makes them:
    `pymdownx.slugs.slugify(case="lower")` (Japanese kept), then `_1`, `_2` … for repeats."""

    _slugify: Callable[[str, str], str] | None = None
    _slugs: dict[str, str] = {}     # text -> slug: the same headings recur on thousands of pages

    def __init__(self) -> None:
        self.used: set[str] = set()

    @classmethod
    def slugify(cls, text: str) -> str:
        got = cls._slugs.get(text)
        if got is not None:
            return got
        if len(cls._slugs) > 100_000:
            cls._slugs.clear()
        got = cls._slugs[text] = cls._slugify_once(text)
        return got

    @classmethod
    def _slugify_once(cls, text: str) -> str:
        if cls._slugify is None:
            try:
                from pymdownx.slugs import slugify
                cls._slugify = slugify(case="lower")
            except ImportError:  # pragma: no cover - pymdown-extensions is a wiki dependency
                cls._slugify = lambda t, sep: re.sub(r"[^\w\-]+", "", re.sub(r"\s+", sep, t.strip().lower()))
        return cls._slugify(text, "-")

    def new(self, text: str) -> str:
        base = self.slugify(text) or "_"
        return self.take(base)

    def take(self, wanted: str) -> str:
        ident, n = wanted, 0
        while ident in self.used:
            n += 1
            ident = f"{wanted}_{n}"
        self.used.add(ident)
        return ident
