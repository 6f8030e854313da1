"""Where a quote lies in a source document (kb/sources.py `SourceDocument.locate`): the leftmost
occurrence, as `str.find` over the section from its beginning gives it, whatever was asked of the
document before — the first occurrences of quotes' beginnings that `_find` keeps and shares
between quotes change how far each search looks, never what it finds."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from rulesdsl.kb import sources
from rulesdsl.kb.lint import run_checks
from rulesdsl.kb.sources import OMISSION, SourceDocument, normalize_text


def by_str_find(doc: SourceDocument, text: str, heading: Optional[str]) -> Optional[tuple[int, int]]:
    """The answer as written before `_find`: every piece searched with `str.find`, the first from
    the section's beginning, each later one from where the one before it ended."""
    spans = doc.sections(heading) if heading is not None else [(0, len(doc._flat))]
    pieces = [p for p in (normalize_text(p) for p in OMISSION.split(text)) if p]
    if not pieces:
        return None
    if len(pieces) == 1 and pieces[0] in doc._lines:
        for at in doc._lines[pieces[0]]:
            if any(begin <= at and at + len(pieces[0]) <= end for begin, end in spans):
                return (at, at + len(pieces[0]))
    flat = doc._flat
    for begin, end in spans:
        offsets, position, k = [], begin, 0
        while k < len(pieces) and position >= 0:
            position = flat.find(pieces[k], position, end)
            if position >= 0:
                offsets.append(position)
                position += len(pieces[k])
            k += 1
        if len(offsets) == len(pieces):
            return (offsets[0], offsets[-1] + len(pieces[-1]))
    return None


SOURCE = """\
【はじめに】
abcdefgh abcdXYZ abcdefgh
ababab 1234567
カードＡ《能力》がある。
カードＡ《能力》がある。
カードＢ《能力》がある。
【裁定】
abcdefgh の裁定は「先に解決する」による。
abcdZZZ と abcdXYZ。
ababababab
カードＢ《能力》がある。カードＣ《能力》
【裁定】
abcdQQQ 二つ目の同じ見出し。
カードＣ《能力》がある。
"""

QUOTES = [
    "abcdefgh", "abcdXYZ", "abcdZZZ", "abcdQQQ", "abcdNONE", "abcd", "abc", "ab", "ababab", "abababab",
    "bababa", "カードＡ《能力》", "カードＢ《能力》", "カードＣ《能力》", "カードＤ《能力》",
    "カードＢ《能力》がある。", "カードＢ《能力》がある。カードＣ《能力》", "がある。カードＢ",
    "abcd…XYZ", "abcdefgh…先に解決する", "abcd…QQQ", "abcd...ZZZ…abcdXYZ", "…", "",
    "abcdefgh の 裁定は", "1234567", "7カードＡ", "二つ目の同じ見出し。", "ZZZ と abcdXYZ。ababab",
]


def document(tmp_path: Path) -> SourceDocument:
    path = tmp_path / "source.txt"
    path.write_text(SOURCE, encoding="utf-8")
    return SourceDocument.load("source.txt", "a source", path)


@pytest.mark.parametrize("order", ["as written", "reversed", "longest first"])
def test_a_quote_is_found_where_str_find_from_its_sections_beginning_finds_it_whatever_was_asked_before(tmp_path, order):
    doc = document(tmp_path)
    asked = [(q, h) for h in (None, "はじめに", "裁定", "【裁定】", "ない見出し") for q in QUOTES]
    if order == "reversed":
        asked.reverse()
    elif order == "longest first":
        asked.sort(key=lambda qh: -len(qh[0]))
    found = {(q, h): doc.locate(q, h) for q, h in asked}
    for (q, h), where in found.items():
        assert where == by_str_find(document(tmp_path), q, h), (q, h)
    # overlapping, repeated and absent quotes among them, and quotes sharing their first characters
    assert found[("ababab", None)] is not None and found[("bababa", None)] is not None
    assert found[("abcdNONE", None)] is None and found[("カードＤ《能力》", "裁定")] is None
    assert found[("abcdQQQ", "裁定")] is not None and found[("abcdQQQ", "はじめに")] is None


def test_every_quote_the_repositorys_checks_ask_is_found_where_str_find_finds_it(monkeypatch):
    from conftest import REPO
    from rulesdsl.kb.build import load
    kb = load(REPO)
    asked = []
    locate = SourceDocument._locate

    def noted(doc, text, heading):
        asked.append((doc, text, heading))
        return locate(doc, text, heading)

    monkeypatch.setattr(SourceDocument, "_locate", noted)
    run_checks(kb)
    assert len(asked) > 100
    for doc, text, heading in asked:
        assert locate(doc, text, heading) == by_str_find(doc, text, heading), (doc.name, text, heading)


def test_a_quote_longer_than_its_kept_beginning_is_found_from_that_beginnings_first_occurrence(tmp_path):
    doc = document(tmp_path)
    assert len("abcdXYZ") > sources.PREFIX
    assert doc.locate("abcdXYZ") == by_str_find(doc, "abcdXYZ", None)
    assert doc._firsts[("abcd", 0)] == doc._flat.find("abcd")
