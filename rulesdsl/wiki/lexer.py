"""A Pygments lexer for the rules DSL (`.rules` files).

Registered through the `pygments.lexers` entry point (see pyproject.toml), so any tool that runs
Pygments — the wiki's code blocks, `pygmentize -l rules`, Markdown's highlight extensions —
highlights the DSL by the names `rules` or `rulesdsl`.

What is highlighted, following `rulesdsl/lang/grammar/rules.lark`:

* comments (`# …`), strings (`"…"` and `\"\"\"…\"\"\"`);
* declaration keywords (`game section card ruling scenario deck point vocabulary revision
  errata`) and statement keywords (`source text set supersedes pins expect as of …`);
* statuses (`confirmed provisional unofficial unconfirmed retracted`) and the constants
  `unknown undated yes no`;
* dates (`2026`, `2026-03`, `2026-summer`), quantities (`60kg`, `3d`) and numbers;
* ids with a `/` or `.` (`grm/battle/zero-weight`, `battle.zero_weight`);
* the head of every other statement (a game's vocabulary word: `weight`, `field`, `play`).

This module imports nothing from rulesdsl, so loading the entry point is cheap.
"""

from __future__ import annotations

import re

from pygments.lexer import Lexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

__all__ = ["RulesLexer"]

DECLARATIONS = ("game", "section", "card", "ruling", "scenario", "deck", "point", "vocabulary",
                "revision", "errata")
KEYWORDS = ("source", "text", "quote", "reason", "note", "refs", "set", "supersedes", "pins",
            "expect", "as", "of", "mode", "question", "value", "default", "per", "defines", "gap",
            "from", "until")
MODALITIES = ("always", "possible", "never", "probability")
STATUSES = ("confirmed", "provisional", "unofficial", "unconfirmed", "retracted")
CONSTANTS = ("unknown", "undated", "yes", "no")

_WORD = r"[A-Za-z_][A-Za-z0-9_\-]*"
_ID = _WORD + r"(?:[./][A-Za-z0-9_\-]+)+"
_SPACE = r"[ \t\u3000]"


def _word_token(word: str):
    if word in DECLARATIONS:
        return Keyword.Declaration
    if word in KEYWORDS:
        return Keyword
    if word in MODALITIES:
        return Keyword.Pseudo
    if word in STATUSES:
        return Name.Decorator
    if word in CONSTANTS:
        return Keyword.Constant
    return None


_RULES: tuple[tuple[str, object], ...] = (
    (r"\r?\n", Whitespace),
    (r"#[^\n]*", Comment.Single),
    (r'"""(?:[^"\\]|\\.|"(?!""))*"""', String.Double),
    (r'"(?:[^"\\\n]|\\.)*"', String.Double),
    (r'"', String.Double),                      # an unterminated quote: text, never an error
    # a statement's first word: at a line start, or after `;` or `{`
    (r"(?:^|(?<=[;{]))" + _SPACE + r"*" + _WORD + r"(?![A-Za-z0-9_\-./])", "head"),
    (r"\d{4}-(?:spring|summer|autumn|winter)(?![\w.\-])", Number),
    (r"\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?(?![\w.\-])", Number),
    (r"\d+(?:\.\d+)?[A-Za-z]+(?![\w.\-])", Number),
    (r"\d+/\d+(?![\w.\-/])", Number),            # a probability: 77/216
    (r"-?\d+(?:\.\d+)?(?![\w.\-])", Number),
    (r"card(?=\()", Keyword.Declaration),
    (_ID, Name.Namespace),
    (_WORD, "word"),
    (r"[<>]=|[≥≤]|[@=]", Operator),
    (r"[{}\[\]();,.]", Punctuation),
    (_SPACE + r"+", Whitespace),
    (r"[^\s\"#{}\[\]();,=@]+", Text),
    (r"\s+", Whitespace),
    (r".", Text),
)
_MASTER = re.compile("|".join(f"({pattern})" for pattern, _ in _RULES), re.MULTILINE)
_KINDS = tuple(kind for _, kind in _RULES)
MEMO = 1024          # tokens whose HTML `highlight_html` keeps (~0.2 MB: the build's peak is near)
MEMO_TOKEN = 16      # characters of the longest one kept (longer ones, strings and comments, seldom recur)
MEMO_LINES = 2048    # lines whose HTML `highlight_html` keeps
MEMO_LINE = 48       # characters of the longest one kept (a card's text line seldom recurs)
# what may make a token that runs past a line break: a triple-quoted string, or a blank character
# other than a space, a tab, U+3000 and a line break (only the catch-all `\s+` rule takes those)
_ACROSS_LINES = re.compile(r'"""|[^\S \t\u3000\n]').search


def _piece(rule: int, value: str, css_class) -> str:
    """The HTML of one token: `value` as matched by the `rule`-th rule (1-based)."""
    kind = _KINDS[rule - 1]
    lead = ""
    if kind == "head":
        word = value.lstrip(" \t\u3000")
        lead = value[:len(value) - len(word)]
        value, kind = word, _word_token(word) or Name.Function
    elif kind == "word":
        kind = _word_token(value) or Name
    elif kind is Whitespace:
        return value
    cls = css_class(kind)
    if "&" in value or "<" in value or ">" in value:
        value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return lead + (f'<span class="{cls}">{value}</span>' if cls else value)


class RulesLexer(Lexer):
    """Lexer for the rulesdsl card-game rules and rulings DSL.

    One compiled alternation of the rules above, tried at each position in order (what a
    RegexLexer does, several times faster): the wiki highlights thousands of blocks per build."""

    name = "Rules DSL"
    aliases = ["rules", "rulesdsl"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulesdsl"]
    url = "https://pypi.org/project/rulesdsl/"

    _memo: dict = {}
    _lines: dict = {}
    _memo_for = None

    def highlight_html(self, text: str, css_class) -> str:
        """The HTML of `text` highlighted: what `get_tokens_unprocessed` and Pygments'
        HtmlFormatter(nowrap=True) give, in one loop (the wiki highlights thousands of blocks).
        `css_class(token type)` gives a token type's CSS class ("" for none).

        Most lines recur from block to block (`  kind character`, `  status confirmed`, `}`), and
        a line's tokens are the line's own: no token but a triple-quoted string or a run of
        unusual blank characters (`_ACROSS_LINES`) runs past a line break, and a statement's head
        is found after a line start as after a line break. So a short line's HTML is made once and
        kept (at most MEMO_LINES, for one `css_class`), and a text that may hold a token across
        lines is highlighted whole."""
        if css_class is not self._memo_for:
            self._memo, self._lines, self._memo_for = {}, {}, css_class
        if _ACROSS_LINES(text) is not None:
            return self._tokens_html(text, css_class)
        lines = self._lines
        get = lines.get
        out = []
        add = out.append
        for line in text.split("\n"):
            piece = get(line)
            if piece is None:
                piece = self._tokens_html(line, css_class)
                if len(line) <= MEMO_LINE:
                    if len(lines) >= MEMO_LINES:
                        lines.clear()
                    lines[line] = piece
            add(piece)
        return "\n".join(out)

    def _tokens_html(self, text: str, css_class) -> str:
        """The HTML of `text` highlighted token by token: a short token's HTML, which depends only
        on the rule that matched it and its text, made once and kept (at most MEMO of them)."""
        memo = self._memo
        get = memo.get
        out = []
        add = out.append
        for m in _MASTER.finditer(text):       # (every position matches a rule: the tokens are contiguous)
            key = (m.lastindex, m.group())
            piece = get(key)
            if piece is None:
                piece = _piece(key[0], key[1], css_class)
                if len(key[1]) <= MEMO_TOKEN:
                    if len(memo) >= MEMO:
                        memo.clear()
                    memo[key] = piece
            add(piece)
        return "".join(out)

    def get_tokens_unprocessed(self, text):
        match = _MASTER.match
        kinds = _KINDS
        pos, end = 0, len(text)
        while pos < end:
            m = match(text, pos)
            value = m.group()
            kind = kinds[m.lastindex - 1]
            if kind == "head":
                word = value.lstrip(" \t\u3000")
                if len(word) < len(value):
                    yield pos, Whitespace, value[:len(value) - len(word)]
                yield pos + len(value) - len(word), _word_token(word) or Name.Function, word
            elif kind == "word":
                yield pos, _word_token(value) or Name, value
            else:
                yield pos, kind, value
            pos = m.end()
