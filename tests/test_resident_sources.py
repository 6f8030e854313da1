"""A resident process (`rulesdsl serve`, the editor's server) keeps source documents read
between loads of a knowledge base (kb/sources.py): a document whose text changed is read again,
and what the game says of a document (`kind`, `says`) stays each load's own."""

from __future__ import annotations

from conftest import MINI_SOURCE, write_kb

from rulesdsl.kb import loader, sources
from rulesdsl.kb.build import load
from rulesdsl.kb.verdict import findings


def citation_findings(kb):
    return [d.message for d in findings(kb) if d.code in ("citation", "quote")]


def test_a_kept_source_document_is_read_again_once_its_text_changes(kb_root, monkeypatch):
    monkeypatch.setattr(loader, "RESIDENT", True)
    monkeypatch.setattr(sources, "_KEPT", {})
    write_kb(kb_root, {})
    first = load(kb_root)
    assert citation_findings(first) == []
    assert len(sources._KEPT) == 1
    # the source no longer says what a section quotes from it
    (kb_root / "rulings/mini/sources/mini.txt").write_text(
        MINI_SOURCE.replace("重いカードが勝つ。", "軽いカードが勝つ。"), encoding="utf-8")
    changed = load(kb_root)
    found = citation_findings(changed)
    assert found == ["this text does not occur in mini.txt as written"]
    # and the same findings as a process that keeps nothing
    monkeypatch.setattr(loader, "RESIDENT", False)
    assert citation_findings(load(kb_root)) == found


def test_what_a_game_says_of_a_kept_document_is_that_loads_own(kb_root, monkeypatch):
    monkeypatch.setattr(loader, "RESIDENT", True)
    monkeypatch.setattr(sources, "_KEPT", {})
    write_kb(kb_root, {})
    game = kb_root / "rulings/mini/game.rules"
    text = game.read_text(encoding="utf-8")
    plain = load(kb_root).games["mini"].documents["mini.txt"]
    game.write_text(text.replace('document "sources/mini.txt" "テスト資料"',
                                 'document "sources/mini.txt" "テスト資料" { kind fan_summary }'), encoding="utf-8")
    kinded = load(kb_root).games["mini"].documents["mini.txt"]
    assert kinded is not plain and kinded._flat is plain._flat      # one reading, two loads
    assert (plain.kind, kinded.kind) == ("unknown", "fan_summary")
