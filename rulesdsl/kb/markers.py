"""A revision's status and date are the source's own: the words a source puts on a text
(（2026年3月確認済み）, （2026年8月暫定裁定）, ※暫定ルール・非公式, ※未確定, 2026年夏の統一裁定) decide
how a revision that quotes it is recorded.

The markers on a quote are those of the sentence it lies in (a marker written right after the
sentence's 。 belongs to it); a marker without a date (※…) settles the status only. When the
sentence carries none, a dated revision must still take its date from a marker of the cited
section. A revision the knowledge base reads for itself
(`unconfirmed`, with a reason) may quote marked text as evidence; it is not held to the marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

from ..lang.dates import PartialDate
from ..lang.diagnostics import Diagnostic
from ..lang.model import Status
from .checks import check, diag
from .knowledge import KnowledgeBase
from .sources import SourceDocument

SEASON_WORDS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}

_WHEN = r"(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})日)?|(春|夏|秋|冬))?の?"
MARKERS = [
    (re.compile(_WHEN + "確認済み"), Status.confirmed),
    (re.compile(_WHEN + "暫定裁定"), Status.provisional),
    (re.compile(_WHEN + "統一裁定"), Status.confirmed),
    (re.compile(r"※暫定ルール・非公式"), Status.unofficial),
    (re.compile(r"※未確定(?!と)"), Status.unconfirmed),   # 「※未確定と記載されている」 names the marker
]
# the words each pattern's marker must contain: a sentence without them is not scanned by the
# pattern (a substring test is far cheaper than a scan; most sentences carry one or two kinds)
_NEEDLES = ("確認済み", "暫定裁定", "統一裁定", "※暫定ルール・非公式", "※未確定")
_TRAILER = re.compile(r"^(?:（[^（）]*）|\([^()]*\)|※\S+)")


@dataclass(frozen=True)
class Marker:
    words: str
    status: Status
    date: Optional[PartialDate]

    def describe(self) -> str:
        return f"「{self.words}」 ({self.status.value}{' ' + str(self.date) if self.date else ', undated'})"


def markers_in(text: str) -> list[Marker]:
    out = []
    for key, ((pattern, status), needle) in enumerate(zip(MARKERS, _NEEDLES)):
        if needle not in text:
            continue
        for m in pattern.finditer(text):
            words = m.group(0)
            marker = _MADE.get((key, words), _NOT_MADE)
            if marker is _NOT_MADE:
                marker = _MADE[key, words] = _marker(m, status)
            if marker is not None:
                out.append(marker)
    return out


# the marker of each pattern and words found (None: 「2026年13月」 is no date): the same few
# words are found in thousands of sentences, and a match's groups follow from its words alone
_MADE: dict[tuple[int, str], Optional[Marker]] = {}
_NOT_MADE = object()


def _marker(m: re.Match, status: Status) -> Optional[Marker]:
    date = None
    if m.groups():
        year, month, day, season = (m.group(i) for i in (1, 2, 3, 4))
        try:
            date = PartialDate(int(year), season=SEASON_WORDS[season]) if season else \
                PartialDate(int(year), int(month) if month else None, int(day) if day else None)
        except ValueError:
            return None     # 「2026年13月」 is no date
    return Marker(m.group(0), status, date)


def sentence_markers(doc: SourceDocument, text: str, heading: Optional[str]) -> Optional[list[Marker]]:
    """The markers of the sentence(s) the quoted text lies in; None when it is not found."""
    span = doc.locate(text, heading)
    if span is None:
        return None
    flat = doc._flat
    start, end = span
    line = doc.line_at(start)
    line_start = doc._line_starts[line]
    line_end = doc._line_starts[doc.line_at(max(start, end - 1)) + 1]
    begin = flat.rfind("。", line_start, start) + 1 or line_start
    stop = flat.find("。", max(start, end - 1), line_end)
    stop = line_end if stop < 0 else stop + 1
    trailer = _TRAILER.match(flat[stop:line_end])
    if trailer:
        stop += trailer.end()
    return markers_in(flat[begin:stop])


def section_markers(doc: SourceDocument, heading: str) -> list[Marker]:
    return [m for start, end in doc.sections(heading) for m in markers_in(doc._flat[start:end])]


def _d(loc, message, hint=None) -> Diagnostic:
    return diag("status", loc, message, hint)


def _label(status: Status, date: Optional[PartialDate]) -> str:
    return f"{status.value} {date}" if date else f"{status.value}, undated"


@check("status")
def status_words(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    owners = [(r.game, r.id, r.revisions) for r in kb.rulings.values()] + \
             [(s.game, s.id, s.revisions) for s in kb.sections.values()]
    for game, ident, revisions in owners:
        docs = kb.games[game].documents if game in kb.games else {}
        for rev in revisions:
            if rev.status in (Status.unconfirmed, Status.retracted) or rev.source is None \
                    or rev.source.heading is None:
                continue
            doc = docs.get(rev.source.document)
            if doc is None or not doc.has_heading(rev.source.heading):
                continue        # the citation check reports it
            texts = [(q.text, q.loc) for q in rev.quotes]
            if rev.text is not None and rev.text.value:
                texts.insert(0, (rev.text.value, rev.text.loc))
            marked = False
            for text, loc in texts:
                found = sentence_markers(doc, text, rev.source.heading)
                if not found:
                    continue
                marked = True
                # a marker without a date (※暫定ルール・非公式, ※未確定) settles the status only
                if not any(m.status is rev.status and (m.date == rev.date or m.date is None) for m in found):
                    words = " and ".join(m.describe() for m in found)
                    here = _label(rev.status, rev.date)     # (made only for a finding: most have none)
                    yield _d(loc or rev.loc,
                             f"{ident}@{rev.date_label} is recorded {here}, but the source marks this text {words}",
                             "record the revision with the source's own status and date")
            if not marked and rev.date is not None:
                section = section_markers(doc, rev.source.heading)
                if not any(m.date == rev.date and m.status is rev.status for m in section):
                    here = _label(rev.status, rev.date)
                    yield _d(rev.loc,
                             f"{ident}@{rev.date_label} is recorded {here}, but §{rev.source.heading} dates no text "
                             f"{rev.date}" + (f" (its markers: {', '.join(m.describe() for m in section)})"
                                             if section else " (it carries no dated marker)"),
                             "a date comes from the source's marker on the text; undated when it gives none")
