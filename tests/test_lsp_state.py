"""The language server's view of a knowledge base (rulesdsl/cli/lsp_state.py), in-process: the
findings of edited buffers are `check`'s findings of the same text saved, edit after edit, while
each view reuses what the previous one validated."""

from __future__ import annotations

import pytest

from conftest import write_kb

from rulesdsl.cli.check import check_paths
from rulesdsl.cli.lsp_state import Session, split_lines, words_at

CARD = """\
card mini X "エックス" {
  source "mini.txt §はじめに"
  text unknown
  weight unknown
  note "メモ"
}
"""
SCENARIO = """\
scenario mini/qa/x "Xの重さを仮定する" {
  as of 2026-09-01
  assume card X {
    weight 10kg
  }
  field a1 P1 X up
  expect face a1 up
}
"""
RULING = """\
ruling mini/r "裁定" {
  refs mini/battle
  revision 2026-03 confirmed {
    source "mini.txt §バトル"
    text "重いカードが勝つ。"
  }
}
"""
# (file, text replaced, by): each applied on top of the ones before
EDITS = [
    ("cards/mini/X.rules", 'note "メモ"', 'note "メモを書き足す"'),           # a card's note: nothing to find
    ("cards/mini/X.rules", "weight unknown", "weight 20kg"),                 # the scenario may no longer supply it
    ("rulings/mini/r.rules", "重いカードが勝つ。", "重いカードが負ける。"),     # no longer a quote of the source
    ("rulings/mini/game.rules", '"同じ重さのとき"', '"同じ重さの場合"'),        # a game's words, not its vocabulary
    ("rulings/mini/qa.rules", "field a1 P1 X up", "field a1 P1 Y up"),        # an unknown card
    ("rulings/mini/r.rules", "refs mini/battle", "refs mini/batle"),          # an unknown reference
    ("cards/mini/X.rules", "weight 20kg", "weight unknown"),                 # and back
    ("rulings/mini/qa.rules", "field a1 P1 Y up", "field a1 P1 X up"),
    ("rulings/mini/r.rules", "refs mini/batle", "refs mini/battle"),
    ("rulings/mini/r.rules", "重いカードが負ける。", "重いカードが勝つ。"),
]


def _shown(findings):
    return [(d.loc.file if d.loc else None, d.loc.line if d.loc else 0, d.loc.col if d.loc else 0,
             d.code, d.message, d.hint) for d in findings]


def test_each_edit_is_found_as_check_finds_the_same_text_saved(kb_root):
    root = write_kb(kb_root, {"cards/mini/X.rules": CARD, "rulings/mini/qa.rules": SCENARIO,
                              "rulings/mini/r.rules": RULING})
    names = ["cards/mini/X.rules", "rulings/mini/qa.rules", "rulings/mini/r.rules", "rulings/mini/game.rules"]
    texts = {n: (root / n).read_text(encoding="utf-8") for n in names}
    _, clean = check_paths(root, [root / n for n in names], use_cache=False)
    assert clean == []
    session = Session(root.resolve(), use_cache=False)
    for name, old, new in EDITS:
        assert old in texts[name]
        texts[name] = texts[name].replace(old, new)
        buffers = {str(root.resolve() / n): t for n, t in texts.items()}
        found = session.findings(buffers)
        for n, t in texts.items():
            (root / n).write_text(t, encoding="utf-8")
        _, expected = check_paths(root, [root / n for n in names], use_cache=False)
        got = [d for n in names for d in found[str(root.resolve() / n)]]
        assert sorted(_shown(got)) == sorted(_shown(expected)), (name, new)
    assert _shown(expected) == []


@pytest.mark.parametrize("line, col, words", [
    ('  refs grm/battle/outcome No.142', 10, [("grm/battle/outcome", "name")]),
    ('  text "No.058《KUAN》の無効化"', 11, [("No.058", "name"), ("No.058《KUAN》の無効化", "string")]),
    ('  text "No.058《KUAN》の無効化"', 16, [("KUAN", "bracketed"), ("KUAN", "name"), ("No.058《KUAN》の無効化", "string")]),
    ('  field a1 P1 "軽い" up', 16, [("軽い", "string")]),
    ('  set card(No.142).stack_scope = x', 25, [("stack_scope", "name")]),
])
def test_the_words_under_the_cursor_most_specific_first(line, col, words):
    assert [(w.text, w.kind) for w in words_at([line], 1, col)] == words


def test_lines_are_counted_as_the_parser_counts_them():
    assert split_lines("\ufeffa\r\nb\n") == ["a", "b", ""]
