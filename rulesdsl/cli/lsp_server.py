"""`rulesdsl lsp`: the language server (pygls 2, over stdio). The protocol only: what the server
knows lives in lsp_state.py, completion in lsp_complete.py.

Checking runs on one worker thread, so that a long check (a 10 MB file) never holds up a hover,
a completion or a definition, which answer from the last knowledge base built. A change starts a
check once no other change has come for `debounce` seconds; changes that come while a check
runs are checked together once it is done. Any failure is logged to the editor and the server
goes on.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..base.cache import find_root
from ..kb.build import check_root
from ..lang.diagnostics import Diagnostic
from ..lang.model import Loc
from .lsp_complete import complete
from .lsp_state import (Session, Target, Texts, hover_text, id_span, references, scenario_at, split_lines,
                        target_at)

ASK = "rulesdsl.ask"
ANSWER_TITLE = "この質問に答える"
_KINDS = {"keyword": T.CompletionItemKind.Keyword, "entry": T.CompletionItemKind.Function,
          "value": T.CompletionItemKind.EnumMember, "status": T.CompletionItemKind.EnumMember,
          "id": T.CompletionItemKind.Reference, "card": T.CompletionItemKind.Class,
          "point": T.CompletionItemKind.Property}


class RulesServer(LanguageServer):
    def __init__(self, root: Optional[Path] = None, use_cache: bool = True, debounce: float = 0.03) -> None:
        super().__init__("rulesdsl", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.root = root
        self.use_cache = use_cache
        self.debounce = debounce
        self.sessions: dict[Path, Session] = {}
        self.texts = Texts()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulesdsl-check")
        # formatting needs no knowledge base: it never waits behind a check
        self.helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulesdsl-fmt")
        self.timers: dict[Path, asyncio.TimerHandle] = {}
        self.running: set[Path] = set()
        self.dirty: set[Path] = set()

    # -- sessions and documents -------------------------------------------------------------
    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def uri_of(self, path: str) -> str:
        return path if "://" in path or path.startswith("untitled:") else (from_fs_path(path) or path)

    def session_for(self, path: str) -> Session:
        """The knowledge base a file belongs to: --root when given, else the nearest folder
        above it that holds rulings/ (as the command line finds it from the file's folder)."""
        start = Path(path).parent if os.path.isabs(path) else Path.cwd()
        root = check_root(self.root or find_root(start))
        session = self.sessions.get(root)
        if session is None:
            session = self.sessions[root] = Session(root, self.use_cache)
        return session

    def buffers_of(self, session: Session) -> dict[str, str]:
        out = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = self.path_of(uri)
            if _is_rules(path) and self.session_for(path) is session:
                out[path] = doc.source
        return out

    def sync(self, uri: str) -> None:
        path = self.path_of(uri)
        doc = self.workspace.text_documents.get(uri)
        if doc is None:
            self.texts.buffers.pop(path, None)
        else:
            self.texts.buffers[path] = doc.source

    # -- positions ----------------------------------------------------------------------------
    def units(self, text: str) -> int:
        return self.workspace.position_codec.client_num_units(text)

    def position(self, lines: list[str], line: int, col: int) -> T.Position:
        """A 1-based place counted in characters, in the editor's units (UTF-16 by default)."""
        if line > len(lines):
            return T.Position(line=max(len(lines) - 1, 0), character=self.units(lines[-1]) if lines else 0)
        text = lines[line - 1]
        return T.Position(line=line - 1, character=self.units(text[:max(col - 1, 0)]))

    def span(self, lines: list[str], line: int, start: int, end: int) -> T.Range:
        return T.Range(start=self.position(lines, line, start), end=self.position(lines, line, max(end, start)))

    def place(self, lines: list[str], pos: T.Position) -> tuple[int, int]:
        """The editor's position as a 1-based line and character column."""
        if pos.line >= len(lines):
            return len(lines) + 1, 1
        server = self.workspace.position_codec.position_from_client_units(lines, T.Position(pos.line, pos.character))
        return server.line + 1, server.character + 1

    def location(self, session: Session, loc: Loc, ident: Optional[str] = None) -> T.Location:
        path = session.path(loc.file)
        lines = self.texts.lines(path)
        start, end = id_span(lines, loc, ident) if ident else (loc.col, loc.col)
        return T.Location(uri=self.uri_of(path), range=self.span(lines, loc.line, start, end))

    # -- diagnostics --------------------------------------------------------------------------
    def schedule(self, session: Session) -> None:
        """Check the session's buffers once changes stop coming for `debounce` seconds."""
        root = session.root
        self.dirty.add(root)
        if root in self.running:
            return                          # checked again when the current check ends
        timer = self.timers.pop(root, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self.timers[root] = loop.call_later(self.debounce, self.start_check, session)

    def start_check(self, session: Session) -> None:
        root = session.root
        self.timers.pop(root, None)
        self.dirty.discard(root)
        self.running.add(root)
        buffers = self.buffers_of(session)
        versions = {p: self.doc_version(p) for p in buffers}
        future = asyncio.get_running_loop().run_in_executor(self.worker, session.findings, buffers)
        future.add_done_callback(lambda f: self.checked(session, buffers, versions, f))

    def doc_version(self, path: str) -> Optional[int]:
        doc = self.workspace.text_documents.get(self.uri_of(path))
        return doc.version if doc is not None else None

    def checked(self, session: Session, buffers: dict[str, str], versions: dict, future) -> None:
        self.running.discard(session.root)
        try:
            found = future.result()
        except Exception as e:               # a bug: say so, keep serving
            self.log(f"rulesdsl: checking failed: {type(e).__name__}: {e}\n{traceback.format_exc()}",
                     T.MessageType.Error)
            found = None
        for path, diags in (found or {}).items():
            if self.doc_version(path) is None:
                continue                     # closed meanwhile
            try:
                self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                    uri=self.uri_of(path), diagnostics=[self.diagnostic(session, split_lines(buffers[path]), d)
                                                        for d in diags],
                    version=versions.get(path)))
            except Exception as e:
                self.log(f"rulesdsl: reporting on {path} failed: {type(e).__name__}: {e}", T.MessageType.Error)
        if session.root in self.dirty:
            self.schedule(session)

    def diagnostic(self, session: Session, lines: list[str], d: Diagnostic) -> T.Diagnostic:
        """A finding in the editor's terms, placed in `lines` (the text that was checked)."""
        if d.loc is None:
            rng = T.Range(start=T.Position(0, 0), end=T.Position(0, 0))
        else:
            rng = self.span(lines, d.loc.line, d.loc.col, d.loc.col + max(d.width, 1))
        related = [T.DiagnosticRelatedInformation(location=self.location(session, r.loc), message=r.message)
                   for r in d.related]
        return T.Diagnostic(
            range=rng, message=d.message + (f"\nhint: {d.hint}" if d.hint else ""),
            severity=T.DiagnosticSeverity.Warning if d.severity == "warning" else T.DiagnosticSeverity.Error,
            code=d.code, source="rulesdsl", related_information=related or None,
            data={"hint": d.hint} if d.hint else None)

    def log(self, message: str, kind: T.MessageType = T.MessageType.Info) -> None:
        self.window_log_message(T.LogMessageParams(type=kind, message=message))

    # -- what the cursor is on ---------------------------------------------------------------
    def at(self, uri: str, pos: T.Position) -> tuple[Optional[Session], Optional[Target], object, list[str], str]:
        path = self.path_of(uri)
        if not _is_rules(path):              # a client may send any plain text file
            return None, None, None, [], path
        self.sync(uri)
        session = self.session_for(path)
        kb = session.navigable()
        lines = self.texts.lines(path)
        line, col = self.place(lines, pos)
        target, word = target_at(kb, lines, line, col, path, session.name(path))
        return session, target, word, lines, path


def _is_rules(path: str) -> bool:
    return path.endswith(".rules") or path.startswith("untitled:")


def build(root: Optional[Path] = None, use_cache: bool = True, debounce: float = 0.03) -> RulesServer:
    server = RulesServer(root, use_cache, debounce)

    @server.feature(T.INITIALIZED)
    def initialized(ls: RulesServer, params: T.InitializedParams) -> None:
        folder = ls.workspace.root_path
        if folder or ls.root:
            try:
                session = ls.session_for(os.path.join(str(folder or ls.root), "x.rules"))
                ls.worker.submit(session.loaded)    # the first check should not wait for the load
            except Exception as e:           # not a knowledge base: files opened later say which
                ls.log(f"rulesdsl: {e}")
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            ls.client_register_capability(T.RegistrationParams(registrations=[T.Registration(
                id="rulesdsl-files", method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=[
                    T.FileSystemWatcher(glob_pattern="**/rulings/**"),
                    T.FileSystemWatcher(glob_pattern="**/cards/**"),
                    T.FileSystemWatcher(glob_pattern="**/*.rules")]))]))

    def changed(ls: RulesServer, uri: str) -> None:
        ls.sync(uri)
        path = ls.path_of(uri)
        if _is_rules(path):
            try:
                ls.schedule(ls.session_for(path))
            except Exception as e:
                ls.log(f"rulesdsl: {path}: {e}", T.MessageType.Warning)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesServer, params: T.DidOpenTextDocumentParams) -> None:
        changed(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesServer, params: T.DidChangeTextDocumentParams) -> None:
        changed(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RulesServer, params: T.DidSaveTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if _is_rules(path):
            ls.session_for(path).files_changed()
        changed(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesServer, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.sync(uri)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        path = ls.path_of(uri)
        if _is_rules(path):
            ls.schedule(ls.session_for(path))   # the others now see the file as saved

    @server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: RulesServer, params: T.DidChangeWatchedFilesParams) -> None:
        for session in ls.sessions.values():
            session.files_changed()
            ls.schedule(session)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesServer, params: T.HoverParams) -> Optional[T.Hover]:
        session, target, word, lines, _ = ls.at(params.text_document.uri, params.position)
        if target is None:
            return None
        kb = session.navigable()
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=hover_text(kb, target)),
                       range=ls.span(lines, word.line, word.start, word.end))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: T.DefinitionParams) -> Optional[T.Location]:
        session, target, _, _, _ = ls.at(params.text_document.uri, params.position)
        if target is None or target.loc is None:
            return None
        return ls.location(session, target.loc, target.ident if target.kind not in ("entry", "enum") else target.ident)

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def find_references(ls: RulesServer, params: T.ReferenceParams) -> list[T.Location]:
        session, target, _, _, _ = ls.at(params.text_document.uri, params.position)
        if target is None:
            return []
        kb = session.navigable()
        found = references(kb, target, ls.texts, session, params.context.include_declaration)
        return [T.Location(uri=ls.uri_of(path), range=ls.span(ls.texts.lines(path), line, a, b))
                for path, line, a, b in found]

    @server.feature(T.TEXT_DOCUMENT_COMPLETION,
                    T.CompletionOptions(trigger_characters=[" ", "@"]))
    def completion(ls: RulesServer, params: T.CompletionParams) -> T.CompletionList:
        uri = params.text_document.uri
        ls.sync(uri)
        path = ls.path_of(uri)
        if not _is_rules(path):
            return T.CompletionList(is_incomplete=False, items=[])
        session = ls.session_for(path)
        kb = session.navigable()
        lines = ls.texts.lines(path)
        line, col = ls.place(lines, params.position)
        text = "\n".join(lines)
        offset = sum(len(x) + 1 for x in lines[:line - 1]) + col - 1
        items = complete(kb, text, offset, lines, line, path)
        return T.CompletionList(is_incomplete=False, items=[
            T.CompletionItem(label=it.label, kind=_KINDS.get(it.kind), detail=it.detail,
                             insert_text=it.insert) for it in items])

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    async def formatting(ls: RulesServer, params: T.DocumentFormattingParams) -> Optional[list[T.TextEdit]]:
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        text = doc.source
        path = ls.path_of(uri)
        if not _is_rules(path):
            return []
        name = ls.session_for(path).name(path)
        formatted = await asyncio.get_running_loop().run_in_executor(ls.helper, _format, text, name)
        if formatted is None or formatted == text:
            return []
        lines = doc.lines
        end = T.Position(line=len(lines), character=0)
        return [T.TextEdit(range=T.Range(start=T.Position(0, 0), end=end), new_text=formatted)]

    # the action is given as a bare command, which the protocol allows beside code actions (an
    # action holding only a command reads back as a command in lsprotocol's own client)
    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: RulesServer, params: T.CodeActionParams) -> list[T.Command]:
        uri = params.text_document.uri
        ls.sync(uri)
        path = ls.path_of(uri)
        if not _is_rules(path):
            return []
        session = ls.session_for(path)
        kb = session.navigable()
        lines = ls.texts.lines(path)
        line, _ = ls.place(lines, params.range.start)
        s = scenario_at(kb, session.name(path), line)
        if s is None:
            return []
        return [T.Command(title=ANSWER_TITLE, command=ASK, arguments=[uri, s.id])]

    @server.command(ASK)
    async def ask(ls: RulesServer, uri: str, scenario: str) -> dict:
        path = ls.path_of(uri)
        session = ls.session_for(path)
        buffers = ls.buffers_of(session)
        result = await asyncio.get_running_loop().run_in_executor(ls.worker, _answer, session, buffers, scenario)
        if result.get("error"):
            ls.window_show_message(T.ShowMessageParams(type=T.MessageType.Error, message=result["error"]))
        else:
            ls.window_show_message(T.ShowMessageParams(type=T.MessageType.Info, message=result["summary"]))
            ls.log(result["text"])
        return result

    return server


def _format(text: str, name: str) -> Optional[str]:
    """`text` in fmt's canonical layout, or None when it cannot be formatted (it does not parse)."""
    from ..lang.diagnostics import DslError
    from .fmt import format_checked
    try:
        return format_checked(text[1:] if text.startswith("\ufeff") else text, name)
    except DslError:
        return None


def _answer(session: Session, buffers: dict[str, str], scenario: str) -> dict:
    """`ask`'s answer to a scenario of the knowledge base as the editor has it: the answer and
    its status first (as `ask` prints them), then the whole of what `ask` prints."""
    from ..engine.context import EngineError
    from ..engine.readings import try_readings
    from ..engine.runner import answer
    from ..kb.verdict import file_findings
    from .ask import render_answer
    kb = session.view(buffers)
    info = kb.scenarios.get(scenario)
    if info is None:
        return {"error": f"{scenario}: この質問は検証を通らなかったため答えられない（診断を参照）"}
    # as `ask ID` does: a line of the file that did not validate would be dropped silently,
    # and the answer would be to another question
    own = info.scenario.loc.file
    broken = file_findings(kb, [own])   # one verdict per file, as check, ask and test give it
    if broken:
        return {"error": f"{scenario}: 答えられない — {broken[0].loc}: {broken[0].message}"}
    try:
        a = answer(kb, info)
        try_readings(kb, info, a)
    except EngineError as e:
        return {"error": f"{scenario}: 答えられない — {e.message}" + (f"（{e.loc}）" if e.loc else "")}
    text = render_answer(a, "first", kb=kb)
    summary = "\n".join(text.splitlines()[:2])
    return {"scenario": scenario, "summary": summary, "text": text, "status": a.status.value,
            "answer": "".join(a.sentences), "ok": a.ok, "as_of": a.as_of.isoformat()}

