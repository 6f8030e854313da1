"""A source document's outline is made with its lines' normalized forms read back from its own
reading (`SourceDocument._read`), not normalized again: the same headings, levels and sections as
`outline.headings` over `normalize_line` itself, for every source document of the repository and
for documents of plain heading lines, wiki headings and paragraphs with repeated and padded lines."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.kb import outline
from rulesdsl.kb.sources import SourceDocument, normalize_line

REPO = Path(__file__).resolve().parent.parent

TEXTS = [
    "ルール\n  基本  \n【対戦】\nバトルは順に行う。\n基本\n  基本  \n→\n手順\n→\n- 注意\n1. 番号\n",
    "* 見出し\n本文です。\n** 小見出し\n[[リンク>先]]の説明。\n&color(red){赤}の文字\n",
    "段落一\n続き\n\n段落二\n\n　全角の空白　\n",
]


def shape(headings) -> list:
    return [(h.key, h.line, h.level, h.end_line) for h in headings]


def test_the_outline_is_the_one_normalize_line_gives(tmp_path):
    paths = sorted(REPO.glob("rulings/*/sources/*.txt"))
    assert paths
    for i, text in enumerate(TEXTS):
        p = tmp_path / f"doc{i}.txt"
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    for p in paths:
        doc = SourceDocument.load(p.name, "t", p)
        lines = doc.text.splitlines()
        assert shape(doc.outline) == shape(outline.headings(lines, normalize_line)), p
