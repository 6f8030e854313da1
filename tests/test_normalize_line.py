"""A source line normalized for quote finding (kb/sources.py `normalize_line`): wiki links and
decorations unwrapped, a list marker or number at its start dropped, every whitespace character
removed — as the regular expressions that once did all of it give it, with each expression run
only on lines it can change."""

from __future__ import annotations

import re
import sys

from conftest import REPO

from rulesdsl.kb.sources import _DECOR, _LINK, _MARKER, normalize_line

SPACE = re.compile(r"[\s\u3000]+")


def by_the_patterns(line: str) -> str:
    if "[[" in line:
        line = _LINK.sub(r"\1", line)
    if "}" in line or "&" in line:
        line = _DECOR.sub("", line)
    line = _MARKER.sub("", line.strip())
    return SPACE.sub("", line)


def test_str_split_removes_exactly_the_whitespace_the_pattern_removes_and_isdecimal_is_backslash_d():
    space, digit = re.compile(r"[\s\u3000]"), re.compile(r"\d")
    for i in range(sys.maxunicode + 1):
        c = chr(i)
        assert bool(space.match(c)) == c.isspace(), hex(i)
        assert bool(digit.match(c)) == c.isdecimal(), hex(i)


WHITESPACE = "".join(chr(i) for i in range(sys.maxunicode + 1) if chr(i).isspace())
LINES = [
    "", " ", "\u3000", WHITESPACE, f"a{WHITESPACE}b", "- 項目", "-項目", "+ 手順", "* 星", "# 見出し", "• 点",
    "・ 中黒", "--- 区切り", "1. 番号", "12.番号", "1 番号", "１．全角", "１２．全角", "١. アラビア数字", "١٢.",
    "٣ 数字だけ", "  - 前に空白", "\t1. タブ", "a - b", "項目 - 途中", "[[リンク>https://example]]の説明",
    "- [[リンク]]", "&color(red){赤い字}の説明", "}だけ", "&だけ", "ＡＢＣ　全角空白", "。", "1", "-", "・",
    "１", "1.", "1.\u3000x",
]


def test_a_line_is_normalized_as_the_patterns_alone_normalize_it():
    for line in LINES:
        assert normalize_line(line) == by_the_patterns(line), repr(line)


def test_every_line_of_the_repositorys_sources_is_normalized_as_the_patterns_alone_normalize_it():
    lines = [x for p in sorted(REPO.glob("rulings/*/sources/*.txt"))
             for x in p.read_text(encoding="utf-8").splitlines()]
    assert len(lines) > 500
    for line in lines + [x.strip() for x in lines]:
        assert normalize_line(line) == by_the_patterns(line), repr(line)
