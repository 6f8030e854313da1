"""A Pygments lexer for the rules DSL (`.rules` files).

Registered through the `pygments.lexers` entry point (see pyproject.toml), so any tool that runs
Pygments — the wiki's code blocks, `pygmentize -l rules`, Markdown's highlight extensions —
highlights the DSL by the names `rules` or `rulesdsl`.

What is highlighted, following `rulesdsl/grammar/rules.lark`:

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

from pygments.lexer import RegexLexer, bygroups
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

__all__ = ["RulesLexer"]

DECLARATIONS = ("game", "section", "card", "ruling", "scenario", "deck", "point", "vocabulary",
                "revision", "errata")
KEYWORDS = ("source", "text", "quote", "reason", "note", "refs", "set", "supersedes", "pins",
            "expect", "as", "of", "mode", "question", "value", "default", "per", "defines", "gap",
            "from", "until")
MODALITIES = ("always", "possible", "never")
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


def _head(lexer, match):
    """The first word of a statement: a keyword, or the head of a vocabulary clause."""
    yield match.start(1), Whitespace, match.group(1)
    word = match.group(2)
    yield match.start(2), _word_token(word) or Name.Function, word


def _word(lexer, match):
    word = match.group(0)
    yield match.start(), _word_token(word) or Name, word


class RulesLexer(RegexLexer):
    """Lexer for the rulesdsl card-game rules and rulings DSL."""

    name = "Rules DSL"
    aliases = ["rules", "rulesdsl"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulesdsl"]
    url = "https://pypi.org/project/rulesdsl/"
    flags = re.MULTILINE

    tokens = {
        "root": [
            (r"\r?\n", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"""(?:[^"\\]|\\.|"(?!""))*"""', String.Double),
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (r'"', String.Double),  # an unterminated quote: still text, never an error token
            # a statement's first word: at a line start, or after `;` or `{`
            (r"(^" + _SPACE + r"*|(?<=[;{])" + _SPACE + r"*)(" + _WORD + r")(?![A-Za-z0-9_\-./])", _head),
            (r"\d{4}-(?:spring|summer|autumn|winter)(?![\w.\-])", Number),
            (r"\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?(?![\w.\-])", Number),
            (r"\d+(?:\.\d+)?[A-Za-z]+(?![\w.\-])", Number),
            (r"-?\d+(?:\.\d+)?(?![\w.\-])", Number),
            (r"(card)(\()", bygroups(Keyword.Declaration, Punctuation)),
            (_ID, Name.Namespace),
            (_WORD, _word),
            (r"@", Operator),
            (r"=", Operator),
            (r"[{}\[\]();,.]", Punctuation),
            (_SPACE + r"+", Whitespace),
            (r"[^\s\"#{}\[\]();,=@]+", Text),
            (r"\s+", Whitespace),
        ],
    }
