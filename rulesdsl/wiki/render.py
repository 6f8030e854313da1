"""HTML building blocks of the wiki's generated pages: a page under construction (`Doc`) with
its headings, table of contents and search sections; status badges; highlighted DSL code.

Everything here takes plain text and escapes it; the only raw HTML that goes in is what these
helpers (and the page renderers, from escaped parts) produce.
"""

from __future__ import annotations

import html as _html
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Optional

from ..lang.model import Status
from .escape import Anchors, esc, esc_lines, strip_tags

if TYPE_CHECKING:
    from .search import Entry

_ENTITY_TAIL = re.compile(r"&[#\w]*$")
_BREAK = re.compile(r"[\s。、，．・！？）」』】]")


def _cut(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters at a word boundary (a space or Japanese punctuation,
    never inside a word or an entity: a cut word would enter the search index as a word of its own
    and derail Material's segmentation of Japanese queries)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    breaks = [m.start() for m in _BREAK.finditer(head)]
    if breaks and breaks[-1] > limit // 2:
        head = head[:breaks[-1] + 1]
    else:
        head = head[:max(limit // 2, 1)]
        breaks = [m.start() for m in _BREAK.finditer(head)]
        head = head[:breaks[-1] + 1] if breaks else ""
    return _ENTITY_TAIL.sub("", head).rstrip() + " …"


_CODE = re.compile(r'<div class="language-rules highlight">.*?</code></pre></div>', re.S)
# what a reader does not read as text: DSL identifiers and values in <code> (rule-point ids,
# 「counted」), the labels of fact tables (名前, 値), a section's id-and-source line
_NOT_TEXT = re.compile(r'<code>[A-Za-z0-9_.:/\-]+</code>|<th\b[^>]*>.*?</th>|<p class="rd-meta">.*?</p>', re.S)
_BADGE = re.compile(r'<span class="rd-badge rd-([a-z]+)"[^>]*>([^<]+)</span>')

# ----------------------------------------------------------------------------- statuses

STATUS_JA = {
    Status.confirmed: "確定",
    Status.provisional: "暫定裁定",
    Status.unofficial: "※暫定ルール・非公式",
    Status.unconfirmed: "※未確定",
    Status.retracted: "撤回",
}
STATUS_HELP = {
    Status.confirmed: "資料が定める（確認済み・統一裁定を含む）",
    Status.provisional: "資料が「暫定裁定」とするもの",
    Status.unofficial: "資料自身が「※暫定ルール・非公式」とするもの",
    Status.unconfirmed: "このwikiの解釈（資料の裏付けなし）",
    Status.retracted: "撤回された裁定",
}
GAP_JA = {
    "missing": "欠落",
    "contradiction": "矛盾",
    "ambiguity": "曖昧",
    "typo": "誤記",
    "duplication": "重複",
}


def badge(status: Status, extra: str = "") -> str:
    """A status badge: 確定 / 暫定 / 非公式 / ※未確定 / 撤回."""
    return (f'<span class="rd-badge rd-{status.value}" title="{esc(STATUS_HELP[status])}">'
            f'{STATUS_JA[status]}</span>{extra}')


def tag(text: str, kind: str = "plain", title: Optional[str] = None) -> str:
    t = f' title="{esc(title)}"' if title else ""
    return f'<span class="rd-tag rd-tag-{kind}"{t}>{esc(text)}</span>'


UNKNOWN_TAG = '<span class="rd-tag rd-tag-unknown" title="資料に記載がない">未収録</span>'


def link(href: str, text_html: str, cls: Optional[str] = None) -> str:
    c = f' class="{cls}"' if cls else ""
    return f'<a href="{esc(href)}"{c}>{text_html}</a>'


def code(text: str) -> str:
    return f"<code>{esc(text)}</code>"


# ----------------------------------------------------------------------------- code blocks

_lexer = None
_css: dict = {}


def dsl_lexer():
    """The DSL lexer, found the way any Pygments user finds it: by name, through the
    `pygments.lexers` entry point (falling back to the module if the package metadata is stale)."""
    global _lexer
    if _lexer is None:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
        try:
            _lexer = get_lexer_by_name("rules")
        except ClassNotFound:  # pragma: no cover - only before `pip install -e .` is rerun
            from .lexer import RulesLexer
            _lexer = RulesLexer()
    return _lexer


def _css_class(ttype) -> str:
    """Pygments' short CSS class of a token type (`k`, `s2`, `nf` …), as HtmlFormatter gives it."""
    cls = _css.get(ttype)
    if cls is None:
        from pygments.token import STANDARD_TYPES, Text, Whitespace
        t = ttype
        while t not in STANDARD_TYPES:
            t = t.parent
        cls = "" if t in (Text, Whitespace) else STANDARD_TYPES[t]
        _css[ttype] = cls
    return cls


@lru_cache(maxsize=16)     # a Q&A page highlights its question twice: its source block and its editor
def dsl_block(source: str) -> str:
    """DSL code highlighted as Material for MkDocs shows a ```rules fenced block (the same
    markup and CSS classes as Pygments' HtmlFormatter, written directly: it is in the hot path)."""
    if "\r" in source:
        source = source.replace("\r\n", "\n")
    lexer = dsl_lexer()
    if hasattr(lexer, "highlight_html"):
        body = lexer.highlight_html(source, _css_class)
    else:  # pragma: no cover - a lexer registered by someone else under the same name
        parts = []
        for ttype, value in lexer.get_tokens(source):
            cls = _css_class(ttype)
            text = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            parts.append(f'<span class="{cls}">{text}</span>' if cls else text)
        body = "".join(parts)
    return f'<div class="language-rules highlight"><pre><span></span><code>{body}</code></pre></div>'


# ----------------------------------------------------------------------------- pages

class Doc:
    """A generated page: HTML parts, headings with ids, the table of contents and the text of
    each heading's section for the search index."""

    def __init__(self, title: str, root: str, h1: bool = True) -> None:
        self.title = title          # plain text
        self.root = root            # relative prefix from this page to the site root
        self.parts: list[str] = []
        self.anchors = Anchors()
        self.toc: list[dict] = []   # Python-Markdown toc tokens (levels 2–3)
        self.sections: list[tuple[int, str, str, int]] = []   # (level, id, title html, part index)
        self.unsearched: set[str] = set()
        if h1:
            self.h1(title)

    # -- structure ----------------------------------------------------------------------
    def h1(self, text: str, extra_html: str = "") -> None:
        ident = self.anchors.new(text)
        self.sections.append((1, ident, esc(text), len(self.parts)))
        self.parts.append(f'<h1 id="{esc(ident)}">{esc(text)}{extra_html}</h1>\n')

    def heading(self, level: int, text: str, ident: Optional[str] = None, extra_html: str = "",
                toc: bool = True, search: bool = True) -> str:
        """An h2/h3 with a permalink; returns its id. `ident` fixes the id (it must be unused);
        `search=False` keeps the section's text out of the search index."""
        ident = self.anchors.take(ident) if ident else self.anchors.new(text)
        if not search:
            self.unsearched.add(ident)
        title, at = esc(text), esc(ident)
        self.sections.append((level, ident, title, len(self.parts)))
        self.parts.append(
            f'<h{level} id="{at}">{title}{extra_html}'
            f'<a class="headerlink" href="#{at}" title="この見出しへのリンク">&para;</a></h{level}>\n')
        if toc:
            token = {"level": level, "id": ident, "name": title, "children": []}
            if level > 2 and self.toc and self.toc[-1]["level"] < level:
                self.toc[-1]["children"].append(token)
            else:
                self.toc.append(token)
        return ident

    def h2(self, text: str, ident: Optional[str] = None, extra_html: str = "", search: bool = True) -> str:
        return self.heading(2, text, ident, extra_html, search=search)

    def h3(self, text: str, ident: Optional[str] = None, extra_html: str = "") -> str:
        return self.heading(3, text, ident, extra_html)

    def add(self, html: str) -> None:
        self.parts.append(html)

    def p(self, text: str, cls: Optional[str] = None) -> None:
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{c}>{esc_lines(text)}</p>\n")

    def p_html(self, html: str, cls: Optional[str] = None) -> None:
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{c}>{html}</p>\n")

    def note(self, html: str, kind: str = "note", title: Optional[str] = None) -> None:
        """A Material admonition (note, info, warning, danger …)."""
        t = f'<p class="admonition-title">{esc(title)}</p>' if title else ""
        self.parts.append(f'<div class="admonition {kind}">{t}<p>{html}</p></div>\n')

    def dl(self, rows: Iterable[tuple[str, str]], cls: str = "rd-facts") -> None:
        """A two-column table of (label text, value html)."""
        body = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
        if body:
            self.parts.append(f'<table class="{cls}"><tbody>{body}</tbody></table>\n')

    def table(self, head: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> None:
        """A table: header texts, rows of cell HTML."""
        h = "".join(f"<th>{esc(x)}</th>" for x in head)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
                          f'<table{c}><thead><tr>{h}</tr></thead><tbody>\n{body}</tbody></table></div></div>\n')

    def ul(self, items: Iterable[str], cls: str = "") -> None:
        items = list(items)
        if items:
            c = f' class="{cls}"' if cls else ""
            self.parts.append(f"<ul{c}>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>\n")

    def code(self, source: str) -> None:
        self.parts.append(dsl_block(source) + "\n")

    # -- output -------------------------------------------------------------------------
    def html(self) -> str:
        return "".join(self.parts)

    def search_entries(self, location: str, limit: int = 1500, single: bool = False, where: str = "",
                       keys: tuple = (), rank: int = 1) -> list["Entry"]:
        """Search entries (plain text; see search.py): one per h1/h2 section, or with `single` one
        for the whole page (its title; the text of its sections in order, up to `limit`
        characters). Sections whose heading was made with `search=False` are left out."""
        from .search import Entry

        out = []
        bounds = [s[3] for s in self.sections] + [len(self.parts)]
        texts, joined = [], 0                            # (joined: their length joined, with `single`)
        status = None if single else ""                  # an item page's first status badge
        for i, (level, ident, title, start) in enumerate(self.sections):
            if level > 2:
                continue
            end = next((bounds[j] for j in range(i + 1, len(self.sections)) if self.sections[j][0] <= 2),
                       len(self.parts))
            if ident in self.unsearched:
                continue
            body, size = [], 0
            for part in self.parts[start + 1:end]:       # enough markup for `limit` characters of text
                body.append(part)
                size += len(part)
                if size > limit * 6:
                    break
            body = _CODE.sub(" ", "".join(body))         # DSL code is not searched
            if status is None:
                badge = _BADGE.search(body)
                status = f"{badge.group(1)} {_html.unescape(badge.group(2))}" if badge else ""
            text = _html.unescape(strip_tags(_NOT_TEXT.sub(" ", body[:limit * 6])))
            plain_title = _html.unescape(title)
            if single:
                text = text if level == 1 else f"{plain_title} {text}"
                if text:
                    texts.append(text)
                    joined += len(text) + (len(texts) > 1)
                    if joined > limit:     # what follows the first `limit` characters is cut anyway
                        break
                continue
            if level == 1:
                out.append(Entry(location, plain_title, _cut(text, limit), where, keys, rank))
            else:
                out.append(Entry(f"{location}#{ident}", plain_title, _cut(text, limit),
                                 f"{where} ＞ {self.title}" if where else self.title, (), rank))
        if single:
            text = _cut(" ".join(texts), limit)
            out.append(Entry(location, self.title, text, where, keys, rank, status or ""))
        return out
