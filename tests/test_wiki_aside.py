"""The wiki build's `Aside` file (rulesdsl/wiki/aside.py): the drawn Q&A pages' contents kept on
disk until they are written give back exactly the bytes put, in any order, read by offset."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("mkdocs")

from rulesdsl.wiki.aside import Aside  # noqa: E402


def test_aside_gives_back_each_put_in_any_order():
    aside = Aside()
    try:
        pieces = [os.urandom(n) for n in (0, 1, 4096, 70_000, 3)]
        kept = [aside.put(p) for p in pieces]
        for i in (3, 0, 4, 1, 2, 3):
            assert aside.get(kept[i]) == pieces[i]
    finally:
        aside.close()


def test_aside_reads_between_puts_do_not_move_where_the_next_put_goes():
    aside = Aside()
    try:
        first = aside.put(b"first")
        assert aside.get(first) == b"first"
        second = aside.put(b"second")
        assert (aside.get(second), aside.get(first)) == (b"second", b"first")
    finally:
        aside.close()


def test_a_drawn_page_packed_comes_back_equal_with_its_entries_keys_a_tuple():
    from rulesdsl.wiki.aside import Drawn, packed, unpacked
    from rulesdsl.wiki.search import Entry
    toc = [{"level": 2, "id": "答え", "name": "答え &amp; 根拠", "children": [{"level": 3, "id": "x", "name": "x", "children": []}]}]
    entries = [Entry("grm/qa/x.html", "問「a」", "本文\x00と\ud800半端な文字", "GRM ＞ Q&A", ("A-01", "カード名"), 2, "provisional 暫定"),
               Entry("grm/qa/x.html#y", "y", "")]
    d = Drawn("問「a」<b>", '<p class="rd">答え\n\x00</p>', toc, "答え", entries)
    back = unpacked(packed(d))
    assert back == d and type(back.entries[0]) is Entry and back.entries[0].keys == ("A-01", "カード名")
