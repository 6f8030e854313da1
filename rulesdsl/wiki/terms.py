"""Glossary definitions quoted from the sources: for a term, the passage of a game's source
documents that defines it — the paragraph under a heading that is the term itself, or a sentence
that says what the term is (「…とは」「…と呼ぶ」「…という」) — with the line it is on. Nothing is
written by the wiki: a term the sources do not define gets no quote (the page says 資料に定義なし)."""

from __future__ import annotations

import re
from itertools import compress
from typing import Iterator, NamedTuple, Optional

from ..kb.sources import normalize_heading, normalize_line

_PAREN = re.compile(r"[（(][^）)]*[）)]")
_SPLIT = re.compile(r"\s*[/／]\s*")
_SENTENCE = re.compile(r"[^。]*。?")
# 「Xとは…」 (but not 「Xとは別に」「Xとは異なる」), 「…をXと呼ぶ」, 「…をXという」
_DEFINES = re.compile(r"^(?:」)?(?:とは(?![別異違])|と呼ぶ|と呼ばれ|という[。、]|をいう)")
QUOTE_MAX = 240


class Definition(NamedTuple):
    document: str       # the document's file name
    line: int           # 1-based
    heading: Optional[str]
    text: str


def names(term: str) -> list[str]:
    """The forms a glossary term is written in: 「表向き (オモテ) / 裏向き (ウラ)」 → the whole, 表向き, 裏向き."""
    whole = _PAREN.sub("", term).strip()
    parts = [p for p in _SPLIT.split(whole) if p]
    return list(dict.fromkeys([whole, *parts]))


def define(term: str, documents: dict, index: Optional[dict] = None) -> Optional[Definition]:
    """The passage that defines `term` in `documents` ({file name: SourceDocument}); `index`:
    their `heading_index`, for a caller that looks up many terms."""
    forms = [f for f in names(term) if f]
    keys = {normalize_heading(f) for f in forms}
    index = heading_index(documents) if index is None else index
    for name, d in documents.items():
        lines, headings = index[name]
        for i in sorted(i for k in keys for i in headings.get(k, ())):
            body = next(((j, x) for j, x in enumerate(lines[i + 1:i + 4], i + 2) if x.strip()), None)
            if body and len(normalize_line(body[1])) >= 8 and normalize_heading(body[1]) not in keys:
                return Definition(name, body[0], lines[i].strip(), _quote(body[1]))
    for name, d in documents.items():
        lines = index[name][0]
        for i in _naming(lines, forms):     # (a sentence of a line names a form only if the line does)
            for sentence in _SENTENCE.findall(lines[i - 1]):
                s = sentence.strip()
                if s and any(_DEFINES.match(s[m.end():]) for f in forms for m in re.finditer(re.escape(f), s)):
                    return Definition(name, i, None, _quote(s))
    return None


def heading_index(documents: dict) -> dict[str, tuple[list[str], dict[str, list[int]]]]:
    """Each document's lines, and for each line read as a heading (normalize_heading) the lines
    that read so, in order: made once for a glossary's terms, not once per term."""
    out = {}
    for name, d in documents.items():
        lines = d.text.splitlines()
        found: dict[str, list[int]] = {}
        for i, raw in enumerate(lines):
            found.setdefault(normalize_heading.__wrapped__(raw), []).append(i)    # (uncached: read once)
        out[name] = (lines, found)
    return out


def _naming(lines: list[str], forms: list[str]) -> Iterator[int]:
    """The numbers (1-based) of the lines that hold one of `forms` (non-empty texts), in order:
    each line searched in C (a glossary's terms each read every line of the game's sources)."""
    if not forms:
        return iter(())
    holds = re.compile("|".join(map(re.escape, forms))).search
    return compress(range(1, len(lines) + 1), map(holds, lines))


def _quote(text: str) -> str:
    text = text.strip()
    if len(text) <= QUOTE_MAX:
        return text
    cut = text.rfind("。", 0, QUOTE_MAX)
    return text[:cut + 1] if cut > QUOTE_MAX // 3 else text[:QUOTE_MAX] + "…"


def first_use(term: str, documents: dict) -> Optional[Definition]:
    """The first sentence of the sources that uses the term (shown as a use, not a definition)."""
    forms = [f for f in names(term) if f]
    for name, d in documents.items():
        lines = d.text.splitlines()
        for i in _naming(lines, forms):
            for sentence in _SENTENCE.findall(lines[i - 1]):
                if any(f in sentence for f in forms):
                    return Definition(name, i, None, _quote(sentence))
    return None


OVERVIEW_HEADINGS = ("ゲームの概要", "概要", "ゲームの目的", "ゲームの勝利条件", "勝利条件")


def overview(documents: dict) -> Optional[Definition]:
    """What the sources say the game is: the paragraph under an overview or victory heading, else
    the document's opening sentences when they are prose."""
    index = heading_index(documents)
    for heading in OVERVIEW_HEADINGS:
        found = define(heading, documents, index)
        if found and found.heading:
            return found
    for name, d in documents.items():
        lines = [(i, x.strip()) for i, x in enumerate(d.text.splitlines(), 1) if x.strip()][:3]
        prose = [(i, x) for i, x in lines if x.endswith(("。", "…"))]
        if prose and prose[0][0] == lines[0][0]:
            text = "".join(x for _, x in prose[:2] if x)
            return Definition(name, prose[0][0], None, _quote(text))
    return None
