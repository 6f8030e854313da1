"""Source documents: the texts the knowledge base cites, and the checks that it cites them right.

A game declares its documents (`document "sources/000_….txt" "title"`). A citation names a
document and a heading: `"000_a437c75d0e53c518.txt §バトルの勝敗"`. The checks are that the heading
is a line of that document, and that quoted text (rule text, a confirmed ruling's text, a
`quote`) occurs in the document at or after that heading, so that nothing in the knowledge base
claims to come from a source that does not say it.

Comparison ignores layout: whitespace, wiki link brackets ([[a>b]]), list markers and
numbering at the start of lines, and 【】 around headings.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..base import files

_LINK = re.compile(r"\[\[([^\]>]*)(?:>[^\]]*)?\]\]")
_DECOR = re.compile(r"&\w+(?:\([^)]*\))?\{|\}")
_MARKER = re.compile(r"^(?:[-+*#•・]+|\d+\.|[０-９]+．)\s*")
_SPACE = re.compile(r"[\s\u3000]+")


def normalize_line(line: str) -> str:
    line = _LINK.sub(r"\1", line)
    line = _DECOR.sub("", line)
    line = _MARKER.sub("", line.strip())
    return _SPACE.sub("", line)


def normalize_heading(heading: str) -> str:
    return normalize_line(heading).strip("【】")


def normalize_text(text: str) -> str:
    return "".join(normalize_line(x) for x in text.splitlines())


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


@dataclass
class SourceDocument:
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
    _headings: dict[str, list[int]] = field(default_factory=dict)  # heading -> offsets

    @classmethod
    def load(cls, name: str, title: str, path: Path) -> "SourceDocument":
        # a regular file only, of bounded size (a FIFO or a device named in a game is refused)
        doc = cls(name=name, title=title, path=path, text=files.read_regular(path).decode("utf-8"))
        parts: list[str] = []
        offset = 0
        for raw in doc.text.splitlines():
            norm = normalize_line(raw)
            doc._line_starts.append(offset)
            key = norm.strip("【】")
            if key:
                doc._headings.setdefault(key, []).append(offset)
            parts.append(norm)
            offset += len(norm)
        doc._flat = "".join(parts)
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

    def find(self, text: str, heading: Optional[str] = None) -> bool:
        """Whether text occurs in the document, at or after the heading when one is given.
        Each line of a multi-line text must occur, in order; lines of the source may be
        left out between them (a repeated line, an aside)."""
        position = 0
        if heading is not None:
            starts = self._headings.get(normalize_heading(heading), [])
            if not starts:
                return False
            position = min(starts)
        for line in text.splitlines():
            needle = normalize_line(line)
            if not needle:
                continue
            found = self._flat.find(needle, position)
            if found < 0:
                return False
            position = found + len(needle)
        return True

    def line_of(self, heading: str) -> Optional[int]:
        """1-based line number of the heading's first occurrence (for messages and links)."""
        offsets = self._headings.get(normalize_heading(heading))
        if not offsets:
            return None
        return bisect.bisect_right(self._line_starts, offsets[0])

    def close_headings(self, heading: str, n: int = 3) -> list[str]:
        import difflib
        return difflib.get_close_matches(normalize_heading(heading), self.headings, n=n, cutoff=0.5)
