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
