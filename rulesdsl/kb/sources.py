"""Source documents: the texts the knowledge base cites, and the checks that it cites them right.

A game declares its documents (`document "sources/000_….txt" "title"`). A citation names a
document and a heading: `"000_a437c75d0e53c518.txt §バトルの勝敗"`. The checks are that the heading
stands in that document as a heading (outline.py finds the headings from the text, once), and
that quoted text (rule text, a confirmed ruling's text, a `quote`) lies in that heading's
section: contiguous in the source, or with each omission marked 「…」 and every piece found in
order inside the section — so that nothing in the knowledge base claims to come from a source,
or a part of it, that does not say it.

Comparison ignores layout: whitespace, wiki link brackets ([[a>b]]), list markers and
numbering at the start of lines, and 【】 around headings.
"""

from __future__ import annotations

import bisect
import copy
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

from ..base.patterns import LazyPattern
from ..base import files
from . import outline
from ..base.record import Record, field

_LINK = re.compile(r"\[\[([^\]>]*)(?:>[^\]]*)?\]\]")
_DECOR = re.compile(r"&\w+(?:\([^)]*\))?\{|\}")
_MARKER = re.compile(r"^(?:[-+*#•・]+|\d+\.|[０-９]+．)\s*")
OMISSION = LazyPattern(r"…+|\.\.\.+")


_MARKER_FIRST = "-+*#•・"   # a list marker's first character, when not a digit (\d: str.isdecimal)


def normalize_line(line: str) -> str:
    if "[[" in line:    # (the patterns match nothing in a line without their marks: most lines)
        line = _LINK.sub(r"\1", line)
    if "}" in line or "&" in line:
        line = _DECOR.sub("", line)
    line = line.strip()
    first = line[:1]
    if first and (first in _MARKER_FIRST or first.isdecimal()):   # (else _MARKER matches nothing)
        line = _MARKER.sub("", line)
    # _SPACE.sub("", line): str.split's whitespace is re's \s, with U+3000 among it
    return "".join(line.split())


@lru_cache(maxsize=8192)    # the checks ask for the same few hundred headings for every card and ruling
def normalize_heading(heading: str) -> str:
    return normalize_line(heading).strip("【】")


def normalize_text(text: str) -> str:
    """Lines normalized and joined; a line repeated right after itself counts once (as the
    documents' copy artefacts are matched once)."""
    out: list[str] = []
    for x in text.splitlines():
        n = normalize_line(x)
        if n and (not out or out[-1] != n):
            out.append(n)
    return "".join(out)


# What a source document is, in the wiki's and the answers' words. A game declares it with the
# document: `document "sources/….txt" "title" { kind fan_summary; says "公式ルールではない";
# quote "…the document's own words about its standing…"; dated "2011-04-09" }`.
AUTHORITY_KINDS = {
    "official_rules": "公式ルール",
    "fan_summary": "ファンwikiのまとめ",
    "wiki_backup": "wikiページのバックアップ",
    "rules_text": "ルール説明の本文",
    "unknown": "出所不明の資料",
}


PREFIX = 4      # the first characters of a quote whose first occurrence is kept (SourceDocument._find)
KEEP_DOCUMENTS = 64     # source documents a resident process keeps read (see SourceDocument.load)
_KEPT: dict = {}


class SourceDocument(Record):
    name: str                       # the file name citations use
    title: str
    path: Path
    text: str = ""
    kind: str = "unknown"           # one of AUTHORITY_KINDS
    says: Optional[str] = None      # its standing in a few words (from `quote`)
    quote: Optional[str] = None     # the document's own words about its standing
    dated: Optional[str] = None     # when the document was written or saved, as it says
    quote_loc: Optional[object] = None
    _flat: str = ""
    _line_starts: list[int] = field(default_factory=list)   # offsets in _flat of each line
    _headings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # heading -> sections
    outline: list = field(default_factory=list)   # outline.Heading, in order
    _lines: dict[str, list[int]] = field(default_factory=dict)    # a whole normalized line -> offsets
    _located: dict = field(default_factory=dict)                 # (text, heading) -> locate's answer
    _firsts: dict = field(default_factory=dict)     # (a quote's first PREFIX characters, start) -> see _find

    @classmethod
    def load(cls, name: str, title: str, path: Path) -> "SourceDocument":
        # a regular file only, of bounded size (a FIFO or a device named in a game is refused)
        text = files.read_regular(path).decode("utf-8")
        from . import loader
        if not loader.RESIDENT:
            return cls._read(name, title, path, text)
        # A resident process (`rulesdsl serve`, the editor's server) builds the knowledge base
        # again for each judge's file; a document whose text is the same is not normalized and
        # outlined again. Each load gets its own copy (`authority` sets what the game says of the
        # document); the normalized text, its outline and the places quotes were found in it are
        # shared, being functions of the text alone.
        key = (name, title, str(path), text)
        doc = _KEPT.get(key)
        if doc is None:
            doc = _KEPT[key] = cls._read(name, title, path, text)
            while len(_KEPT) > KEEP_DOCUMENTS:
                del _KEPT[next(iter(_KEPT))]
        return copy.copy(doc)

    @classmethod
    def _read(cls, name: str, title: str, path: Path, text: str) -> "SourceDocument":
        doc = cls(name=name, title=title, path=path, text=text)
        parts: list[str] = []
        offset = 0
        lines = doc.text.splitlines()
        previous = None
        normed: dict[str, str] = {}     # each line's normalized form, which the outline asks again
        for raw in lines:
            norm = normed[raw] = normalize_line(raw)
            doc._line_starts.append(offset)
            if not norm:
                continue
            if norm == previous:
                continue    # a line repeated right after itself: a copy artefact, matched once
            previous = norm
            doc._lines.setdefault(norm, []).append(offset)
            parts.append(norm)
            offset += len(norm)
        doc._line_starts.append(offset)
        doc._flat = "".join(parts)
        known = normed.get

        def normalize(line: str) -> str:    # normalize_line, read back for the document's own lines
            norm = known(line)
            return norm if norm is not None else normalize_line(line)
        doc.outline = outline.headings(lines, normalize)
        for h in doc.outline:
            doc._headings.setdefault(h.key, []).append((doc._line_starts[h.line], doc._line_starts[h.end_line]))
        return doc

    @property
    def authority(self) -> str:
        """What the document is, for qualifying a status: 「ファンwikiのまとめ。公式ルールではない」."""
        words = AUTHORITY_KINDS.get(self.kind, AUTHORITY_KINDS["unknown"])
        if self.says:
            words += "。" + self.says.rstrip("。")
        if self.dated:
            words += f"（{self.dated}）"
        return words

    @property
    def headings(self) -> list[str]:
        return list(self._headings)

    def has_heading(self, heading: str) -> bool:
        return normalize_heading(heading) in self._headings

    def sections(self, heading: str) -> list[tuple[int, int]]:
        """The (start, end) offsets in the flattened text of each section the heading heads."""
        return self._headings.get(normalize_heading(heading), [])

    def locate(self, text: str, heading: Optional[str] = None) -> Optional[tuple[int, int]]:
        """Where text lies — within the heading's section when one is given — as (start, end)
        offsets in the flattened text, or None. The text is contiguous in the source, lines
        joined as the source joins them; an omission marked 「…」 lets the pieces around it
        stand apart, each found after the one before."""
        key = (text, heading)
        if key not in self._located:    # check asks for the same quote again (citation, then status)
            self._located[key] = self._locate(text, heading)
        return self._located[key]

    def _locate(self, text: str, heading: Optional[str]) -> Optional[tuple[int, int]]:
        spans = self.sections(heading) if heading is not None else [(0, len(self._flat))]
        if "…" in text or "..." in text:    # (OMISSION splits nothing else: most quotes are one piece)
            pieces = [p for p in map(normalize_text, OMISSION.split(text)) if p]
            if not pieces:
                return None
        else:
            piece = normalize_text(text)
            if not piece:
                return None
            pieces = [piece]
        if len(pieces) == 1:
            lines = self._lines.get(pieces[0])
            if lines is not None:     # a whole line: found without a scan
                size = len(pieces[0])
                for at in lines:
                    for begin, end in spans:
                        if begin <= at and at + size <= end:
                            return (at, at + size)
        for begin, end in spans:
            position, first = begin, None
            for piece in pieces:
                found = self._find(piece, begin, end) if first is None else self._flat.find(piece, position, end)
                if found < 0:
                    break
                first = found if first is None else first
                position = found + len(piece)
            else:
                return (first, position)
        return None

    def _find(self, piece: str, start: int, end: int) -> int:
        """`self._flat.find(piece, start, end)`, the same offset (the leftmost), for a first piece:
        an occurrence of the piece begins with an occurrence of its first PREFIX characters, so
        none begins before their first occurrence from `start` — found once for all the quotes
        that begin with them (a section's thousands of quotes begin in a few hundred ways), and
        when there is none, neither is there the piece. `start` is a section's beginning, which
        the quotes of a section share."""
        if len(piece) <= PREFIX:
            return self._flat.find(piece, start, end)
        key = (piece[:PREFIX], start)
        at = self._firsts.get(key)
        if at is None:
            at = self._firsts[key] = self._flat.find(key[0], start)
        return self._flat.find(piece, at, end) if at >= 0 else -1

    def find(self, text: str, heading: Optional[str] = None) -> bool:
        """Whether text lies in the document (in the heading's section when one is given)."""
        return self.locate(text, heading) is not None

    def heading_of(self, text: str) -> Optional[str]:
        """The innermost heading whose section holds the text, or None when it lies in none."""
        best = None
        for h in self.outline:
            start, end = self._line_starts[h.line], self._line_starts[h.end_line]
            if self.locate(text, h.key) is not None and (best is None or end - start < best[0]):
                best = (end - start, h.key)
        return best[1] if best else None

    def line_at(self, offset: int) -> int:
        """0-based line index of an offset in the flattened text."""
        return max(0, bisect.bisect_right(self._line_starts, offset) - 1)

    def line_of(self, heading: str) -> Optional[int]:
        """1-based line number of the heading's first occurrence (for messages and links)."""
        spans = self.sections(heading)
        if not spans:
            return None
        return self.line_at(spans[0][0]) + 1

    def is_line(self, heading: str) -> bool:
        """Whether the heading is a whole line of the document (though perhaps not a heading)."""
        key = normalize_heading(heading)
        return any(normalize_line(x).strip("【】") == key for x in self.text.splitlines())

    def close_headings(self, heading: str, n: int = 3) -> list[str]:
        import difflib
        return difflib.get_close_matches(normalize_heading(heading), self.headings, n=n, cutoff=0.5)
