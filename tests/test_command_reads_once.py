"""A command line's run reads each file of the knowledge base once, and leaves what it loaded to
the process's exit: the bytes its key hashed are the bytes its loader parses (their digest not
taken again), and a `check` run by the entry point holds its knowledge base until that exit
instead of freeing it object by object, while a server or a test calling the command frees it."""

from __future__ import annotations

import pytest
from conftest import write_kb

from rulesdsl.base import cache, files
from rulesdsl.cli import fastpath
from rulesdsl.cli import main as command_line
from rulesdsl.kb import loader
from rulesdsl.kb.knowledge import KnowledgeBase
from rulesdsl.lang.diagnostics import DslError

CARD = """\
card mini X "エックス" {
  source "mini.txt §はじめに"
  text unknown
  weight 60kg
}
"""


def test_inside_one_look_the_loader_reads_the_bytes_the_key_hashed_and_their_digest_is_kept(tmp_path, monkeypatch):
    f = tmp_path / "a.rules"
    f.write_bytes(b"first")
    d = cache.Digests(None)
    hashed = []
    real = cache.content_digest
    monkeypatch.setattr(cache, "content_digest", lambda data: hashed.append(data) or real(data))
    with cache.one_look():
        assert d.digest(str(f)) == real(b"first")
        f.write_bytes(b"second, written after the key was made")
        data = loader.read_file(f, "a.rules")
        assert data == b"first"                             # what the key was made of
        assert d.digest(str(f), data) == real(b"first")
        assert hashed == [b"first"]                         # hashed once
        assert ("read", str(f)) not in files.looks()        # let go of once read
        assert loader.read_file(f, "a.rules") == b"second, written after the key was made"
    d2 = cache.Digests(None)
    assert d2.digest(str(f)) == real(b"second, written after the key was made")    # outside: nothing kept
    assert loader.read_file(f, "a.rules") == b"second, written after the key was made"


def test_bytes_kept_by_the_key_past_the_limit_give_the_error_a_read_from_disk_gives(tmp_path):
    f = tmp_path / "big.rules"
    f.write_bytes(b"line\n" * 10)
    with pytest.raises(DslError) as from_disk:
        loader.read_file(f, "big.rules", limit=23)
    with cache.one_look():
        cache.Digests(None).digest(str(f))
        with pytest.raises(DslError) as from_key:
            loader.read_file(f, "big.rules", limit=23)
    assert [x.as_json() for x in from_key.value.diagnostics] == [x.as_json() for x in from_disk.value.diagnostics]


def test_a_file_that_is_not_regular_is_not_kept_and_the_loader_still_refuses_it(tmp_path):
    folder = tmp_path / "folder.rules"
    folder.mkdir()
    with cache.one_look():
        assert cache.Digests(None).digest(str(folder)) == "not-a-file"
        with pytest.raises(DslError) as e:
            loader.read_file(folder, "folder.rules")
    assert "a folder" in e.value.diagnostics[0].message


@pytest.mark.parametrize("entry_point", [False, True])
def test_check_run_by_the_entry_point_holds_its_knowledge_base_until_exit_and_any_other_caller_frees_it(
        kb_root, capsys, monkeypatch, entry_point):
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    monkeypatch.setattr(command_line, "_held", [])
    monkeypatch.setattr(command_line, "HOLD_TO_EXIT", False)
    monkeypatch.setattr(fastpath, "_ENDS_BY_EXIT", entry_point)
    code = fastpath.main(["--root", str(kb_root), "check"])
    out = capsys.readouterr().out
    assert code == 0 and out.endswith("files checked: no findings\n")
    held = command_line._held
    if entry_point:
        assert any(isinstance(v, KnowledgeBase) for v in held)
    else:
        assert held == [] and not command_line.HOLD_TO_EXIT


def test_hold_keeps_nothing_unless_the_process_ends_by_the_entry_points_exit(monkeypatch):
    monkeypatch.setattr(command_line, "_held", [])
    monkeypatch.setattr(command_line, "HOLD_TO_EXIT", False)
    command_line.hold(object())
    assert command_line._held == []
    monkeypatch.setattr(command_line, "HOLD_TO_EXIT", True)
    monkeypatch.setattr(loader, "RESIDENT", True)           # a server's or a language server's process
    command_line.hold(object())
    assert command_line._held == []
    monkeypatch.setattr(loader, "RESIDENT", False)
    kept = object()
    command_line.hold(kept)
    assert command_line._held == [kept]


@pytest.mark.parametrize("argv, held", [
    (["check"], True), (["--root", "kb", "ask", "q.rules"], True), (["--root", "kb", "serve"], False),
    (["lsp"], False), (["fmt", "--write", "x.rules"], False)])
def test_only_a_read_only_command_run_by_the_entry_point_holds_what_it_loaded(monkeypatch, argv, held):
    monkeypatch.setattr(command_line, "HOLD_TO_EXIT", False)
    monkeypatch.setattr(fastpath, "_ENDS_BY_EXIT", True)
    fastpath._hold_to_exit(argv)
    assert command_line.HOLD_TO_EXIT is held
    monkeypatch.setattr(command_line, "HOLD_TO_EXIT", False)
    monkeypatch.setattr(fastpath, "_ENDS_BY_EXIT", False)
    fastpath._hold_to_exit(argv)
    assert command_line.HOLD_TO_EXIT is False


def test_reading_a_whole_file_reads_every_byte_past_a_chunk(tmp_path):
    f = tmp_path / "large"
    data = bytes(range(256)) * (5 * 4096 + 7)
    f.write_bytes(data)
    assert files.read_whole(f) == data
    (tmp_path / "empty").write_bytes(b"")
    assert files.read_whole(tmp_path / "empty") == b""
