"""`rulesdsl lsp` end to end: a real server process driven by pytest-lsp's client, as an editor
would drive it. Every wait is for a condition (a diagnostic published, an answer received)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types as T  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

from rulesdsl.cli.check import check_paths  # noqa: E402
from rulesdsl.cli.fmt import format_checked  # noqa: E402

from conftest import REPO, this_checkout, write_kb  # noqa: E402

pytestmark = pytest.mark.asyncio

WAIT = 120      # seconds: the bound on any wait (a loaded machine), never a delay


class Published(dict):
    """The client's diagnostics by uri, with an event set whenever some are published."""

    def __init__(self) -> None:
        super().__init__()
        self.event = asyncio.Event()

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.event.set()


async def until(client, condition, timeout: float = WAIT):
    """Wait until `condition(published diagnostics)` holds."""
    published = client.diagnostics

    async def wait():
        while not condition(published):
            published.event.clear()
            await published.event.wait()
    await asyncio.wait_for(wait(), timeout)
    return published


@contextlib.asynccontextmanager
async def server(root: Path):
    client = pytest_lsp.make_test_lsp_client()
    client.diagnostics = Published()
    await client.start_io(sys.executable, "-m", "rulesdsl", "--root", str(root), "lsp",
                          env=this_checkout(dict(os.environ)), cwd=str(root))
    await client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(), root_uri=from_fs_path(str(root))))
    try:
        yield client
    finally:
        await asyncio.wait_for(client.shutdown_session(), WAIT)
        await client.stop()


def open_doc(client, path: Path, text: str, version: int = 1) -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="rulesdsl", version=version, text=text)))
    return uri


def change(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))


def at(uri: str, lines: list[str], line_no: int, needle: str, offset: int = 1) -> dict:
    """Position (UTF-16, as the client counts) of `needle` on 1-based line `line_no`."""
    col = lines[line_no - 1].index(needle) + offset
    return dict(text_document=T.TextDocumentIdentifier(uri=uri),
                position=T.Position(line=line_no - 1, character=utf16(lines[line_no - 1][:col])))


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def line_of(lines: list[str], needle: str) -> int:
    return next(i for i, line in enumerate(lines, 1) if needle in line)


SCENARIO = """\
scenario mini/qa/one "一つ目" {
  as of 2026-09-01
  card "軽い" { weight 10kg }
  field a1 P1 "軽い" up
  expect face a1 up
}
"""


# ----------------------------------------------------------------------------- diagnostics

async def test_a_diagnostic_on_japanese_text_covers_the_word_in_utf16_units(kb_root):
    # two characters outside the BMP before the typo: two UTF-16 units each, one code point each
    text = 'ruling mini/r "𠮷🃏の裁定" { revision 2026-03 confirmd { source "mini.txt §バトル"; text "𠮷" } }\n'
    root = write_kb(kb_root, {"rulings/mini/r.rules": ""})
    async with server(root) as client:
        uri = open_doc(client, root / "rulings/mini/r.rules", text)
        found = await until(client, lambda p: p.get(uri))
        (d,) = found[uri]
        start = utf16(text[:text.index("confirmd")])
        assert start == text.index("confirmd") + 2
        assert (d.range.start.line, d.range.start.character, d.range.end.character) == (0, start, start + 8)
        assert d.code == "syntax"
        assert d.message.startswith('unexpected "confirmd"; expected a status')
        assert d.message.endswith('hint: did you mean "confirmed"?')


async def test_diagnostics_are_the_findings_of_check_for_the_file_with_their_hints(kb_root):
    text = SCENARIO.replace("a1 P1", "a1 P7").replace("expect face a1 up", "expect face a1 sideways") + \
        'ruling mini/x "参照" {\n  refs mini/batle\n  revision 2026-03 confirmed {\n    source "mini.txt §バトル"\n' \
        '    text "重いカードが勝つ。"\n  }\n}\n'
    root = write_kb(kb_root, {"rulings/mini/qa.rules": text})
    path = root / "rulings/mini/qa.rules"
    _, expected = check_paths(root, [path], use_cache=False)
    assert len(expected) >= 3
    async with server(root) as client:
        uri = open_doc(client, path, text)
        found = await until(client, lambda p: p.get(uri))
        got = [(d.range.start.line + 1, d.code, d.message) for d in found[uri]]
        assert got == [(f.loc.line, f.code, f.message + (f"\nhint: {f.hint}" if f.hint else ""))
                       for f in expected]


async def test_fixing_the_text_clears_its_diagnostics_and_the_server_follows_files_on_disk(kb_root):
    text = SCENARIO + 'ruling mini/y "新" {\n  refs mini/new\n  revision 2026-03 confirmed {\n' \
        '    source "mini.txt §バトル"\n    text "重いカードが勝つ。"\n  }\n}\n'
    root = write_kb(kb_root, {"rulings/mini/qa.rules": text})
    async with server(root) as client:
        uri = open_doc(client, root / "rulings/mini/qa.rules", text)
        found = await until(client, lambda p: p.get(uri))
        assert [d.message.split(";")[0] for d in found[uri]] == ["unknown reference mini/new"]
        # the section it names appears in another file, saved on disk
        (root / "rulings/mini/new.rules").write_text(
            'section mini/new "新しい節" {\n  source "mini.txt §スタック"\n  text "一番上のカードだけが裏返る。"\n}\n',
            encoding="utf-8")
        client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[T.FileEvent(
            uri=from_fs_path(str(root / "rulings/mini/new.rules")), type=T.FileChangeType.Created)]))
        await until(client, lambda p: uri in p and len(p[uri]) == 0)


# ----------------------------------------------------------------------------- hover

async def test_hover_on_a_ruling_shows_the_revision_in_force_today_with_its_status_and_date():
    path = REPO / "rulings/grm/rulings.rules"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = line_of(lines, "ruling grm/battle/zero-weight")
    async with server(REPO) as client:
        uri = open_doc(client, path, text)
        hover = await client.text_document_hover_async(T.HoverParams(**at(uri, lines, n, "grm/battle/zero-weight", 5)))
    value = hover.contents.value
    assert "0kgのカードを含むバトルも発生する" in value
    assert "in force today" in value
    assert "revision 2026-03 (2026年3月) — confirmed 確定（出典: ファンwikiのまとめ。公式ルールではない）" in value


async def test_hover_shows_earlier_revisions_a_section_quote_a_point_value_and_a_card_unknowns(kb):
    async with server(REPO) as client:
        # a ruling superseded by another: not in force today, and its revision listed
        path = REPO / "rulings/grm/rulings.rules"
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        uri = open_doc(client, path, text)
        n = line_of(lines, "supersedes grm/effects/classification")
        hover = await client.text_document_hover_async(T.HoverParams(**at(uri, lines, n, "grm/effects/classification", 3)))
        assert "superseded today" in hover.contents.value and "undated" in hover.contents.value
        # a rule section: its quoted text and source heading
        n = line_of(lines, "refs grm/battle/outcome")
        hover = await client.text_document_hover_async(T.HoverParams(**at(uri, lines, n, "grm/battle/outcome", 3)))
        section = kb.sections["grm/battle/outcome"]
        assert section.source.raw in hover.contents.value and section.text.value.splitlines()[0] in hover.contents.value
        # a rule point: its value today
        n = line_of(lines, "set battle.zero_weight")
        hover = await client.text_document_hover_async(T.HoverParams(**at(uri, lines, n, "battle.zero_weight", 3)))
        assert "value today" in hover.contents.value and "`battle_occurs`" in hover.contents.value
        # a point the sources leave open: its readings and its gap ruling
        game = REPO / "rulings/grm/game.rules"
        game_lines = game.read_text(encoding="utf-8").split("\n")
        game_uri = open_doc(client, game, "\n".join(game_lines))
        n = line_of(game_lines, "point stack.cell_limit_count")
        hover = await client.text_document_hover_async(T.HoverParams(**at(game_uri, game_lines, n, "stack.cell_limit_count", 3)))
        assert "unsettled" in hover.contents.value and "`grm/gap/cell-limit`" in hover.contents.value
        assert "readings: `cards_in_cell`, `stacked_cards`" in hover.contents.value
        # a card: what the source does not give
        n = line_of(lines, "refs grm/stack/definition No.142")
        hover = await client.text_document_hover_async(T.HoverParams(**at(uri, lines, n, "No.142", 2)))
        assert "《クッパ》" in hover.contents.value and "not given by the source" in hover.contents.value


# ----------------------------------------------------------------------------- definitions and references

async def test_definition_of_a_section_id_is_in_another_file_and_references_span_files(kb):
    path = REPO / "rulings/grm/rulings.rules"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = line_of(lines, "refs grm/battle/outcome")
    section = kb.sections["grm/battle/outcome"]
    async with server(REPO) as client:
        uri = open_doc(client, path, text)
        loc = await client.text_document_definition_async(T.DefinitionParams(**at(uri, lines, n, "grm/battle/outcome")))
        assert loc.uri == from_fs_path(str(REPO / section.loc.file))
        assert loc.range.start.line == section.loc.line - 1
        target = (REPO / section.loc.file).read_text(encoding="utf-8").split("\n")[section.loc.line - 1]
        assert target[loc.range.start.character:loc.range.end.character] == "grm/battle/outcome"
        n = line_of(lines, "ruling grm/battle/zero-weight")
        refs = await client.text_document_references_async(T.ReferenceParams(
            **at(uri, lines, n, "grm/battle/zero-weight"), context=T.ReferenceContext(include_declaration=True)))
    files = {r.uri for r in refs}
    assert uri in files and len(files) >= 2
    pins = [s for s in kb.scenarios.values() if any(p.target == "grm/battle/zero-weight" for p in s.scenario.pins)]
    assert {from_fs_path(str(REPO / s.scenario.loc.file)) for s in pins} <= files


# ----------------------------------------------------------------------------- completion

async def test_completion_offers_the_vocabulary_words_valid_at_the_cursor(kb_root):
    text = SCENARIO.replace('  expect face a1 up\n', '  pl\n  field \n  expect face a1 up\n')
    root = write_kb(kb_root, {"rulings/mini/qa.rules": text})
    lines = text.split("\n")
    async with server(root) as client:
        uri = open_doc(client, root / "rulings/mini/qa.rules", text)
        n = line_of(lines, "  pl")
        got = await client.text_document_completion_async(T.CompletionParams(**at(uri, lines, n, "pl", 2)))
        play = [i for i in got.items if i.label == "play"]
        assert play and "{player}が{card}を{cell}に" in play[0].detail
        assert "field" not in [i.label for i in got.items]     # set-up words do not start with "pl"
        n = line_of(lines, "  field ")
        got = await client.text_document_completion_async(T.CompletionParams(**at(uri, lines, n, "field ", 6)))
        assert [i.label for i in got.items] == ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
        # inside a card: its facts; after a revision's date: the statuses
        n = line_of(lines, "weight 10kg")
        got = await client.text_document_completion_async(T.CompletionParams(**at(uri, lines, n, "weight", 0)))
        assert "weight" in [i.label for i in got.items] and "play" not in [i.label for i in got.items]


# ----------------------------------------------------------------------------- formatting

async def test_formatting_gives_fmts_canonical_layout_and_nothing_for_a_broken_file(kb_root):
    messy = 'section mini/z "節" {\n      source "mini.txt §バトル"\n text "重いカードが勝つ。"   # 注\n}\n'
    root = write_kb(kb_root, {"rulings/mini/z.rules": messy})
    async with server(root) as client:
        uri = open_doc(client, root / "rulings/mini/z.rules", messy)
        options = T.FormattingOptions(tab_size=2, insert_spaces=True)
        edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=T.TextDocumentIdentifier(uri=uri), options=options))
        assert len(edits) == 1 and edits[0].range.start == T.Position(line=0, character=0)
        assert edits[0].new_text == format_checked(messy, "rulings/mini/z.rules") != messy
        change(client, uri, messy.replace("{", "", 1), 2)
        edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=T.TextDocumentIdentifier(uri=uri), options=options))
        assert not edits


# ----------------------------------------------------------------------------- answers

async def test_the_code_action_answers_a_scenario_with_the_answer_first_as_ask_does(run_cli, kb):
    info = kb.scenarios["grm/qa/stack-flips-top-only"]
    path = REPO / info.scenario.loc.file
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    code, out, _ = run_cli("--root", REPO, "--no-cache", "ask", "grm/qa/stack-flips-top-only")
    assert code == 0
    async with server(REPO) as client:
        uri = open_doc(client, path, text)
        n = info.scenario.loc.line + 2
        actions = await client.text_document_code_action_async(T.CodeActionParams(
            text_document=T.TextDocumentIdentifier(uri=uri),
            range=T.Range(start=T.Position(line=n - 1, character=0), end=T.Position(line=n - 1, character=0)),
            context=T.CodeActionContext(diagnostics=[])))
        (action,) = actions
        assert action.title == "この質問に答える"
        result = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command=action.command, arguments=action.arguments))
    assert result["summary"] == "\n".join(out.splitlines()[:2])
    assert result["summary"].startswith("答え: ") and result["status"] == "confirmed"
    assert any(m.message == result["summary"] for m in client.messages)


# ----------------------------------------------------------------------------- robustness

async def test_a_broken_file_never_stops_the_server(kb_root):
    root = write_kb(kb_root, {"rulings/mini/qa.rules": SCENARIO})
    broken = 'scenario mini/qa/b "壊れ" {\n  as of 2026-13-45\n  field a1 P1 "未閉じ\n}}}\n\x00\udcff{{"\n'
    async with server(root) as client:
        good = open_doc(client, root / "rulings/mini/qa.rules", SCENARIO)
        bad = open_doc(client, root / "rulings/mini/bad.rules", broken)
        found = await until(client, lambda p: p.get(bad) and good in p)
        assert len(found[good]) == 0 and found[bad][0].severity == T.DiagnosticSeverity.Error
        for version, text in enumerate(["{", "", "scenario", '"' * 7, SCENARIO.replace("one", "two")], 2):
            change(client, bad, text, version)
        await until(client, lambda p: bad in p and len(p[bad]) == 0)
        lines = SCENARIO.split("\n")
        hover = await client.text_document_hover_async(T.HoverParams(**at(good, lines, 5, "face", 2)))
        assert "{cell}は{face}" in hover.contents.value


async def test_a_huge_file_keeps_the_server_answering_while_it_is_checked(kb_root):
    root = write_kb(kb_root, {"rulings/mini/qa.rules": SCENARIO})
    block = SCENARIO.replace("mini/qa/one", "mini/qa/huge-NUMBER")
    parts, size, n = [], 0, 0
    while size < 10 * 1024 * 1024:
        parts.append(block.replace("NUMBER", str(n)))
        size += len(parts[-1].encode())
        n += 1
    lines = SCENARIO.split("\n")
    async with server(root) as client:
        good = open_doc(client, root / "rulings/mini/qa.rules", SCENARIO)
        await until(client, lambda p: good in p)
        huge = open_doc(client, root / "rulings/mini/huge.rules", "".join(parts))
        hover = await asyncio.wait_for(client.text_document_hover_async(
            T.HoverParams(**at(good, lines, 5, "face", 2))), WAIT)
        completion = await asyncio.wait_for(client.text_document_completion_async(
            T.CompletionParams(**at(good, lines, 4, "field ", 6))), WAIT)
        # answered while the ten megabytes were still being checked
        assert huge not in client.diagnostics
        assert "{cell}は{face}" in hover.contents.value and "a1" in [i.label for i in completion.items]


async def test_a_judges_file_outside_the_knowledge_base_is_checked_and_answered_with_it(tmp_path):
    question = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")
    path = tmp_path / "q.rules"
    path.write_text(question, encoding="utf-8")
    typo = question.replace('  play P2 "重い" c2', '  pley P2 "重い" c2')
    async with server(REPO) as client:
        uri = open_doc(client, path, typo)
        found = await until(client, lambda p: p.get(uri))
        (d,) = found[uri]
        assert d.message == '"pley" is not a scenario statement of grm\nhint: did you mean "play"?'
        change(client, uri, question, 2)
        await until(client, lambda p: len(p[uri]) == 0)
        result = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="rulesdsl.ask", arguments=[uri, "grm/judge/stack"]))
    assert result["summary"].startswith("答え: ") and "《上》" in result["summary"]
