"""The interpreter in the reader's browser: what the wiki's 「この質問を変えて聞く」 editor runs.

This module runs under Pyodide (CPython 3.14 compiled to WebAssembly, in a Web Worker of the
page; see site/docs/assets/rdask-worker.js) and, in the tests, on the command line's Python. It is
given one game's knowledge base as the wiki build made it (ask_bundle.py): the parse snapshot of
that game's files, with every worked question reduced to its id (loader.outline), and the game's
source documents, written under `root`. No `.rules` text of the knowledge base is parsed here:
only the reader's question.

There is no private cache folder in a browser (no users, no os.geteuid, no os.link): a Session
chooses `cache.memory_only`, so everything lives in the page's memory; the parser's tables come
with the site (ask_bundle.py: `lang.parser.shipped_tables`), so lark is imported only to explain a
syntax error.

An answer is the command line's: the same knowledge base, the same engine, the same JSON as
`rulesdsl ask --json`; and its HTML is the Q&A page's, made by the same functions (answers.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from ..base import cache
from ..lang.diagnostics import Diagnostic, DslError, Sources, render
from ..lang.model import Document, Ruling, Scenario

EDITED = "質問.rules"       # the name of the reader's text in answers and errors


class Session:
    """One game's knowledge base, kept loaded between questions."""

    def __init__(self, root: str, snapshot: bytes, use_directory_urls: bool = False,
                 tables: bytes | None = None) -> None:
        from ..lang.parser import use_shipped_tables
        from ..lang.snapshot import loads
        cache.memory_only("the interpreter runs in a browser, where no private cache folder exists")
        if tables is not None:      # the parser's tables as the site ships them (ask_bundle.py)
            use_shipped_tables(tables)
        self.root = Path(root)
        keys, docs = loads(snapshot)
        self.documents: list[Document] = [d for d in docs if isinstance(d, Document)]
        self.dir_urls = use_directory_urls

    @classmethod
    def open(cls, root: str, snapshot_path: str, use_directory_urls: bool = False,
             tables_path: str | None = None) -> "Session":
        """A session on the snapshot written at `snapshot_path` (in the runtime's memory), the
        parser's tables at `tables_path` when the site ships them."""
        tables = Path(tables_path).read_bytes() if tables_path else None
        return cls(root, Path(snapshot_path).read_bytes(), use_directory_urls, tables)

    def warm(self) -> None:
        """Do ahead of the first question what every answer needs once: import the engine, the
        game's rules and the Q&A page's rendering, and build the parser's tables (the page calls
        this while the reader edits)."""
        from ..engine import readings, runner  # noqa: F401
        from ..engine.registry import engine_for
        from ..kb import build, verdict  # noqa: F401
        from ..lang.parser import parse_text
        from . import answers, site  # noqa: F401
        for d in self.documents:
            for decl in d.decls:
                if type(decl).__name__ == "Game":
                    engine_for(decl.id)
        try:
            parse_text("", EDITED)
        except DslError:
            pass

    # ------------------------------------------------------------------------- asking
    def ask(self, text: str, page_root: str = "", taken_ids: Iterable[str] = ()) -> dict:
        """Answer the scenarios of `text`. `page_root` is the relative prefix from the page to the
        site root (links in the HTML); `taken_ids` the element ids the page already uses.

        {"ok", "json": what `rulesdsl ask --json` prints, "html": the answers as the Q&A page
        renders them, "errors": [{"line", "col", "width", "message", "hint", "text"}]}"""
        from ..engine.context import EngineError
        from ..engine.readings import try_readings
        from ..engine.runner import answer
        from ..kb.build import from_documents
        from ..kb.verdict import file_findings
        from ..lang.parser import parse_text

        try:
            doc = parse_text(text, EDITED)
        except DslError as e:
            return self._failed(e.diagnostics, text)
        asked = {s.id for s in _scenarios(doc)}
        docs = [_without(d, asked) for d in self.documents] + [doc]
        kb = from_documents(self.root, docs, scenarios=lambda s: s.loc is not None and s.loc.file == EDITED)
        mine = file_findings(kb, [EDITED])   # one verdict per file, as check, ask and test give it
        fatal = [d for d in kb.diagnostics if d.fatal]
        if fatal or mine:
            return self._failed(fatal or mine, text)
        infos = sorted((s for s in kb.scenarios.values() if s.scenario.loc.file == EDITED),
                       key=lambda s: (s.scenario.loc.line, s.id))
        if not infos:
            return self._failed([Diagnostic(code="usage", fatal=True, message="質問（scenario）がありません",
                                            hint='scenario grm/qa/… "題" { as of …; … } と書きます')], text)
        answers, errors = [], []
        for info in infos:
            try:
                a = answer(kb, info)
                try_readings(kb, info, a)
                answers.append(a)
            except EngineError as e:     # as `rulesdsl ask` reports it
                errors.append(Diagnostic(code=e.code, message=e.message, loc=e.loc, hint=e.hint, fatal=True))
        ok = bool(answers) and not errors and all(a.ok for a in answers)
        result = {"ok": ok, "json": {"ok": ok, "answers": [a.to_json() for a in answers],
                                     "errors": [d.message for d in errors]},
                  "html": self._html(kb, answers, page_root, taken_ids),
                  "errors": _located(errors, text)}
        return result

    def ask_json(self, text: str, page_root: str = "", taken_ids: Iterable[str] = ()) -> str:
        """`ask` as JSON text (what the worker hands the page)."""
        import json
        return json.dumps(self.ask(text, page_root, list(taken_ids)), ensure_ascii=False, default=str)

    def _failed(self, diags: list[Diagnostic], text: str) -> dict:
        return {"ok": False, "json": {"ok": False, "answers": [], "errors": [d.message for d in diags]},
                "html": "", "errors": _located(diags, text)}

    def _html(self, kb, answers: list, page_root: str, taken_ids: Iterable[str]) -> str:
        """The answers as the Q&A page renders them — the same markup, anchors and links, byte
        for byte — except that an id the page already uses (`taken_ids`: the Q&A page's own
        answer, an earlier answer of the same text) is renamed `ask-…`, links to it following."""
        from .answers import answer_box, answer_details
        from .common import Ctx
        from .render import Doc
        from .site import Wiki

        w = Wiki(kb, use_directory_urls=self.dir_urls)
        taken = set(taken_ids)
        parts = []
        for a in answers:
            doc = Doc(a.title, page_root, h1=False)
            ctx = Ctx(w, doc)
            answer_box(ctx, a)
            answer_details(ctx, a)
            parts.append(renamed_ids(doc.html(), taken))
        return "".join(parts)


_ID = re.compile(r'\bid="([^"]*)"')
_LOCAL = re.compile(r'\bhref="#([^"]*)"')


def renamed_ids(fragment: str, taken: set[str]) -> str:
    """`fragment` (HTML) with each of its ids that is in `taken` renamed `ask-ID` (`ask-ID_1` …
    if that is taken too), and the links within it to that id renamed alike; its ids are added
    to `taken`."""
    import html as _html

    from .escape import Anchors, esc
    anchors = Anchors()
    anchors.used = taken
    ids = [_html.unescape(m) for m in _ID.findall(fragment)]
    mine = set(ids)
    new = {}
    for ident in ids:
        if ident in taken:
            new[ident] = anchors.take(f"ask-{ident}")
        else:
            taken.add(ident)
    if not new:
        return fragment

    def swap(kind: str):
        def sub(m: re.Match) -> str:
            ident = _html.unescape(m.group(1))
            if kind == "href" and ident not in mine:
                return m.group(0)
            return f'{kind}="{"#" if kind == "href" else ""}{esc(new.get(ident, ident))}"'
        return sub
    return _LOCAL.sub(swap("href"), _ID.sub(swap("id"), fragment))


def _scenarios(doc: Document) -> list[Scenario]:
    from ..kb.loader import scenarios_in
    return list(scenarios_in(doc))


def _without(doc: Document, ids: set[str]) -> Document:
    """`doc` without the worked questions `ids` names: the reader's text replaces the question it
    was made from (it keeps its id), and would otherwise be a duplicate."""
    if not ids or not any(s.id in ids for s in _scenarios(doc)):
        return doc
    keep = lambda items: tuple(s for s in items if s.id not in ids)  # noqa: E731
    decls = []
    for d in doc.decls:
        if isinstance(d, Scenario):
            if d.id not in ids:
                decls.append(d)
        elif isinstance(d, Ruling):
            decls.append(d.model_copy(update={
                "scenarios": keep(d.scenarios),
                "revisions": tuple(v.model_copy(update={"scenarios": keep(v.scenarios)}) for v in d.revisions)}))
        else:
            decls.append(d)
    return doc.model_copy(update={"decls": tuple(decls)})


def _located(diags: list[Diagnostic], text: str) -> list[dict]:
    """Each problem with its place in the reader's text (line and column from 1, or none) and the
    command line's rendering of it (the line, a caret, the hint)."""
    sources = Sources()
    sources.add(EDITED, text)
    out = []
    for d in sorted(diags, key=lambda d: d.sort_key()):
        here = d.loc is not None and d.loc.file == EDITED
        out.append({"line": d.loc.line if here else None, "col": d.loc.col if here else None,
                    "width": d.width, "message": d.message, "hint": d.hint, "code": d.code,
                    "text": render(d, sources)})
    return out
