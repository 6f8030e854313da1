"""Parsing `.rules` text into the syntax model.

The grammar lives in `grammar/rules.lark`. The LALR parser runs with the transformer inline, so
no parse tree is built: each rule becomes a model node as soon as it is reduced. Positions come
from the keyword or name token that starts each rule, which keeps `propagate_positions` off.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from . import lalr
from .builder import _Builder, constructor
from .diagnostics import Diagnostic, DslError, did_you_mean
from .model import Document, Loc

GRAMMAR = Path(__file__).with_name("grammar") / "rules.lark"





# ----------------------------------------------------------------------------- the parser

@lru_cache(maxsize=None)
def _lark_lib():
    """lark, imported on first need: the model's parse runs on lang/lalr.py's driver, so lark is
    imported only to build the tables, to explain a syntax error, and for `fmt`'s token streams.
    Lark's tokens count as the driver's `Token` (the builder tells tokens from text by it)."""
    # lark probes for the optional `regex` package when imported and uses it only when asked to
    # (`regex=True`, which this grammar does not need); importing it costs about 15 ms, so the
    # probe is told it is absent unless it is loaded.
    probe = "regex" not in sys.modules
    if probe:
        sys.modules["regex"] = None  # type: ignore[assignment]
    try:
        import lark
        import lark.exceptions
    finally:
        if probe and sys.modules.get("regex", 0) is None:
            del sys.modules["regex"]
    lalr.Token.register(lark.Token)
    return lark


def _lark(raw: bool = False, callbacks: bool = False, build: bool = True) -> Lark:
    """The parser. `raw` builds a plain parse tree (the benchmark baseline); `callbacks`
    reports every token, comments included, to `_TokenTap` (used by `fmt`); without `build`
    (with `callbacks` only) it builds nothing at all, neither model nor tree: it only says whether
    the text parses, and which tokens it is (fmt's check of its own output). One instance of
    each: syntax hints compare parser states, whose numbers differ between instances."""
    return _parser(bool(raw), bool(callbacks), bool(build) or not callbacks)


@lru_cache(maxsize=None)
def _parser(raw: bool, callbacks: bool, build: bool = True) -> Lark:
    _lark_lib()
    options: dict[str, Any] = dict(parser="lalr", lexer="contextual", maybe_placeholders=False,
                                   propagate_positions=False)
    if not raw:
        options["transformer"] = _BUILDER if build else _NOTHING
    if callbacks:
        options["postlex"] = _TAP
    name = "raw" if raw else ("tokens" if build else "scan") if callbacks else "model"
    return _cached_parser(GRAMMAR.read_text(encoding="utf-8"), options, name)


def _cached_parser(grammar: str, options: dict[str, Any], name: str) -> Lark:
    """The LALR parser for `grammar`. Building its tables takes a few tenths of a second, so
    they are kept in the user's private cache folder as JSON (`tables_dumps`; never a pickle: see
    rulesdsl/base/cache.py), under a MAC bound to the grammar, the options and lark's version."""
    import hashlib

    import lark
    from lark import Lark
    from lark.grammar import Rule
    from lark.lark import _LOAD_ALLOWED_OPTIONS
    from lark.lexer import TerminalDef

    from ..base import cache

    fixed = sorted((k, repr(v)) for k, v in options.items() if k not in _LOAD_ALLOWED_OPTIONS)
    inputs = hashlib.blake2b(repr((grammar, fixed, lark.__version__, name, TABLES_FORMAT)).encode(),
                             digest_size=20).hexdigest()
    try:
        path: Optional[Path] = cache.base_dir() / f"grammar-{name}"
    except cache.Unavailable as e:
        cache.note(f"no grammar cache: {e}")
        path = None
    loadable = {k: v for k, v in options.items() if k in _LOAD_ALLOWED_OPTIONS}
    payload = cache.read_entry(path, "grammar", inputs) if path else None
    if payload is not None:
        try:
            data, memo = tables_loads(payload)
            return Lark._load_from_dict(data, memo, **loadable)
        except Exception as e:  # noqa: BLE001 — any problem with a cached table means building it
            cache.note(f"ignoring the grammar cache: {type(e).__name__}: {e}; building the parser")
    parser = Lark(grammar, **options)
    if path is not None:
        try:
            data, memo = parser.memo_serialize([TerminalDef, Rule])
            data["options"] = {k: v for k, v in data["options"].items() if k not in _LOAD_ALLOWED_OPTIONS}
            cache.write_entry(path, "grammar", inputs, tables_dumps([data, memo]))
        except ValueError as e:
            cache.note(f"not caching the grammar: {e}")
    return parser


# Lark's serialized tables are JSON-like: str-keyed dicts, lists, scalars, and some tuples and
# int-keyed dicts (the parse table's states). They are kept as JSON with those two marked, one
# `object_hook` call per dict when read: about 5 ms, where the parse snapshot's columnar form
# (built for millions of model nodes) took 11 ms for these few thousand small containers.
TABLES_FORMAT = "json-1"
_TUPLE, _DICT = "\x00tuple", "\x00dict"


def tables_dumps(value: Any) -> bytes:
    """Lark's serialized tables as JSON (str subclasses as plain strings, as the snapshot's `loose`
    form kept them); ValueError for anything else than the types above."""
    def enc(v: Any) -> Any:
        t = type(v)
        if t is str or t is int or t is bool or t is float or v is None:
            return v
        if isinstance(v, str):          # lark's tokens (a str subclass) in its options: plain text
            return str(v)
        if t is list:
            return [enc(x) for x in v]
        if t is tuple:
            return {_TUPLE: [enc(x) for x in v]}
        if t is dict:
            if all(type(k) is str and not k.startswith("\x00") for k in v):
                return {k: enc(x) for k, x in v.items()}
            return {_DICT: [[enc(k), enc(x)] for k, x in v.items()]}
        raise ValueError(f"a {t.__name__} in lark's tables")
    return json.dumps(enc(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _tables_hook(d: dict) -> Any:
    if len(d) == 1:
        if _TUPLE in d:
            return tuple(d[_TUPLE])
        if _DICT in d:
            return dict(d[_DICT])
    return d


def tables_loads(payload: bytes) -> Any:
    return json.loads(payload, object_hook=_tables_hook)


class _TokenTap:
    """A pass-through post-lexer that records every token the parser receives (for `fmt`), as a
    (type, text) pair. Comments reach it inside separator tokens; see the grammar's _SEP."""

    always_accept = ()

    def __init__(self) -> None:
        self.sink: Optional[list] = None

    def process(self, stream):
        for tok in stream:
            if self.sink is not None:
                # (type, text) as plain strings: half the memory of lark's token, which the
                # parser lets go of once it has shifted it (a 10 MB file is a million tokens)
                self.sink.append((tok.type, str(tok)))
            yield tok


class _Inlined:
    """What an inlined rule (`_name`) reduces to when nothing is built: lark splices its children
    into the rule that contains it."""

    __slots__ = ("children",)

    def __init__(self, children: list) -> None:
        self.children = children


class _Nothing:
    """Callbacks that build nothing: every rule reduces to None, except that an inlined rule
    hands its children on (they are None too, or tokens)."""

    @staticmethod
    def __default__(data, children, meta):
        return _Inlined([]) if data[:1] == "_" else None


_BUILDER = _Builder()
_NOTHING = _Nothing()
_TAP = _TokenTap()


def raw_parser() -> Lark:
    return _lark(raw=True)


def prepare() -> None:
    """Make the model parser's driver now (its tables read from the cache, or made from Lark's
    parser and kept), so that a process forked to parse beside this one shares it rather than
    making its own."""
    _driver()


def parse_text(text: str, file: str = "<text>", tokens: Optional[list] = None,
               digest: Optional[str] = None) -> Document:
    """Parse one file's text. Raises DslError with located diagnostics on bad input.
    With `tokens`, every token (comments and separators included) is appended to it, as a
    (type, text) pair. With `digest`, the document is made with it (as the loader's
    `model_copy(update={"digest": …})` of it would be, without the copy)."""
    if tokens is None:
        driver = _driver()
        if driver is not None:
            _BUILDER.reset(file)
            try:
                decls = driver.parse(text)
            except lalr.Refused:
                decls = None        # Lark parses it again below, for its located error
            finally:
                _BUILDER.heights = {}
            if decls is not None:
                return _built(decls, file, digest)
    lark = _lark_lib()
    parser = _lark(callbacks=tokens is not None)
    _BUILDER.reset(file)
    if tokens is not None:
        _TAP.sink = tokens
    try:
        decls = parser.parse(text)
    except lark.exceptions.UnexpectedInput as e:
        raise DslError([syntax_diagnostic(e, text, file)]) from None
    finally:
        _TAP.sink = None
        _BUILDER.heights = {}
    return _built(decls, file, digest)


def _built(decls, file: str, digest: Optional[str] = None) -> Document:
    if _BUILDER.too_deep is not None:
        _BUILDER.errors.append(_BUILDER.too_deep)
    if _BUILDER.errors:
        raise DslError(_BUILDER.errors)
    if digest is None:      # the parse's own constructor: Document.model_construct, without its machinery
        return constructor(Document)(path=file, decls=tuple(decls))
    return constructor(Document)(path=file, decls=tuple(decls), digest=digest)


def scan_tokens(text: str, file: str, tokens: list) -> None:
    """Append every token of `text` (comments and separators included) to `tokens`, building
    nothing: about half the cost of `parse_text`. Raises DslError on a syntax error only (the
    checks the model's builder makes are not made)."""
    lark = _lark_lib()
    parser = _lark(callbacks=True, build=False)
    _TAP.sink = tokens
    try:
        parser.parse(text)
    except lark.exceptions.UnexpectedInput as e:
        raise DslError([syntax_diagnostic(e, text, file)]) from None
    finally:
        _TAP.sink = None


# The driver's tables as the wiki ships them (use_shipped_tables): where no private cache folder
# exists (the reader's browser), they spare building Lark's tables and importing lark at all.
_shipped: Optional[bytes] = None


def _driver_inputs() -> str:
    from ..base import cache
    grammar = GRAMMAR.read_bytes()
    return cache.blake2b(grammar + b"\x00" + lalr.FORMAT.encode(), digest_size=20).hexdigest()


def shipped_tables() -> bytes:
    """The driver's tables, with the grammar and format they were made for, as JSON: what the
    wiki ships to readers' browsers (ask_bundle.py) for use_shipped_tables."""
    return json.dumps({"inputs": _driver_inputs(), "tables": lalr.tables_of(_lark())},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def use_shipped_tables(payload: Optional[bytes]) -> None:
    """Parse with the tables `payload` holds (shipped_tables' output) rather than those of the
    private cache; tables made for another grammar or driver format are ignored (and said so in
    -vv), and the driver then makes its own."""
    global _shipped
    _shipped = payload
    _driver.cache_clear()


@lru_cache(maxsize=None)
def _driver() -> Optional[lalr.Driver]:
    """The model's parser on lang/lalr.py's driver, its tables kept in the private cache (JSON,
    under a MAC bound to the grammar and the driver's format), made from Lark's parser when
    missing; None when they cannot be made (Lark then parses)."""
    from ..base import cache

    inputs = _driver_inputs()
    if _shipped is not None:
        try:
            kept = json.loads(_shipped)
            if kept.get("inputs") == inputs:
                return lalr.Driver(kept["tables"], _BUILDER)
            cache.note("the shipped parser tables were made for another grammar; making them")
        except Exception as e:  # noqa: BLE001 — any problem with them means making them
            cache.note(f"ignoring the shipped parser tables: {type(e).__name__}: {e}; making them")
    try:
        path: Optional[Path] = cache.base_dir() / "grammar-driver"
    except cache.Unavailable:
        path = None           # _cached_parser says so
    payload = cache.read_entry(path, "grammar-driver", inputs) if path else None
    if payload is not None:
        try:
            return lalr.Driver(json.loads(payload), _BUILDER)
        except Exception as e:  # noqa: BLE001 — any problem with the kept tables means making them
            cache.note(f"ignoring the driver's tables: {type(e).__name__}: {e}; making them")
    try:
        text = json.dumps(lalr.tables_of(_lark()), ensure_ascii=False, separators=(",", ":"))
        # the driver runs on the tables as written and read back, plain str and lists, as every
        # later run does: Lark's own have its Tokens for names, whose __eq__ (Python) a table
        # look-up by another str of the same name calls (~1.6 million a cold 10,000-card check)
        driver = lalr.Driver(json.loads(text), _BUILDER)
    except ValueError as e:
        cache.note(f"parsing with lark: {e}")
        return None
    if path is not None:
        cache.write_entry(path, "grammar-driver", inputs, text.encode("utf-8"))
    return driver


# ----------------------------------------------------------------------------- syntax errors

_WORDS = {
    "NAME": "a name (like grm/battle/range, No.018 or on_play)",
    "STRING": 'a quoted string ("…")',
    "NUMBER": "a number",
    "QUANTITY": "a quantity like 60kg",
    "DATE": "a date (2026, 2026-03, 2026-03-14 or 2026-summer)",
    "UNDATED": "undated",
    "_SEP": "the end of the line",
    "_LB": '"{"', "_RB": '"}"', "LSQB": '"["', "RSQB": '"]"', "COMMA": '","',
    "EQUAL": '"="', "PROB_OP": "=, >= or <=", "BEST": "best for PLAYER", "PLAN": 'plan "OPTION"', "PROB_VALUE": "a probability (0, 1/2, 77/216 or 1)",
    "LPAR": '"("', "RPAR": '")"', "DOT": '"."', "AT": '"@"',
    "$END": "the end of the file",
}
_STATUSES = {"CONFIRMED", "PROVISIONAL", "UNOFFICIAL", "UNCONFIRMED", "RETRACTED"}
_MODALITIES = {"ALWAYS", "POSSIBLE", "NEVER"}


def expected_words(expected) -> str:
    names = set(expected)
    words: list[str] = []
    if _STATUSES <= names:
        names -= _STATUSES
        words.append("a status (confirmed, provisional, unofficial, unconfirmed or retracted)")
    if {"DATE", "UNDATED"} <= names:
        names -= {"DATE", "UNDATED"}
        words.append("a date (2026, 2026-03, 2026-03-14 or 2026-summer) or undated")
    if _MODALITIES <= names:
        names -= _MODALITIES
        words.append("always, possible or never")
    keywords = sorted(n.lower() for n in names if n.isupper() and n not in _WORDS and n.isalpha())
    others = sorted((n for n in names if n in _WORDS), key=lambda n: list(_WORDS).index(n))
    words += [f'"{k}"' for k in keywords] + [_WORDS[n] for n in others]
    unknown = sorted(n for n in names if n not in _WORDS and not (n.isupper() and n.isalpha()))
    words += unknown
    if not words:
        return "nothing more here"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _found(tok) -> str:
    if tok.type == "$END":
        return "the end of the file"
    if tok.type == "_SEP":
        return "the end of the line" if "\n" in tok or tok.strip() == "" else f'"{tok.strip()}"'
    return f'"{tok}"'


# Common mistakes, matched by parser state (lark's match_examples).
_EXAMPLES: dict[str, list[str]] = {
    "a revision starts with a date and a status: `revision 2026-03 confirmed {`": [
        'ruling a "t" {\n revision confirmed {\n}\n}',
        'ruling a "t" {\n revision 2026-03 {\n}\n}',
    ],
    "a setting is written `set point.name = value`": [
        'ruling a "t" {\n revision 2026 confirmed {\n set a b\n}\n}',
        'ruling a "t" {\n revision 2026 confirmed {\n set a: b\n}\n}',
    ],
    "a card starts with its game, its code and its quoted name: `card grm No.018 \"名前\" {`": [
        'card No.018 "名" {\n}', 'card grm No.018 {\n}',
    ],
    "a scenario's date is written `as of 2026-09-01`": ['scenario a "t" {\n as 2026\n}'],
    "a declaration starts with game, section, card, ruling or scenario": ['rule a "t" {\n}'],
    "a name and a quoted title follow the keyword: `ruling grm/battle/x \"題名\" {`": [
        'ruling grm/x {\n}', 'section grm/x {\n}', 'scenario grm/x {\n}'],
}


def _hint(e, text: str) -> Optional[str]:
    x = _lark_lib().exceptions
    if isinstance(e, x.UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        if ch in "“”„«»「『":
            return 'strings use straight double quotes: "…"'
        if ch == '"':
            return 'this string is not closed on its line; close it, or use """…""" for text over several lines'
        ahead = text[e.pos_in_stream:e.pos_in_stream + 12]
        if re.match(r"\d{4}\s*年|[年月日]", ahead) or (ch.isdigit() and not ch.isascii()):
            return "write dates with ASCII digits: 2026-03, 2026-03-14 or 2026-summer"
        if ch and not ch.isascii():
            return 'Japanese text goes in double quotes: text "…"'
    if isinstance(e, (x.UnexpectedToken, x.UnexpectedEOF)):
        tok = getattr(e, "token", None)
        if tok is not None and tok.type in ("$END",) or isinstance(e, x.UnexpectedEOF):
            unclosed = _unclosed_brace(text)
            if unclosed:
                return f'the "{{" on line {unclosed[0]} is never closed; add "}}"'
        if tok is not None and tok.type == "NAME":
            expected = {n.lower() for n in e.expected if n.isupper() and n.isalpha() and n not in _WORDS}
            dym = did_you_mean(str(tok), expected)
            if dym:
                return dym
    try:
        label = e.match_examples(_lark().parse, _EXAMPLES, use_accepts=True)
    except Exception:  # match_examples must never turn a syntax error into a crash
        label = None
    return label


def _unclosed_brace(text: str) -> Optional[tuple[int, int]]:
    stack: list[tuple[int, int]] = []
    line, col, i, n = 1, 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if ch == '"':
            end = '"""' if text.startswith('"""', i) else '"'
            j = i + len(end)
            while j < n and not text.startswith(end, j) and (end == '"""' or text[j] != "\n"):
                j += 2 if text[j] == "\\" else 1
            seg = text[i:j + len(end)]
            line += seg.count("\n")
            i = j + len(end)
            continue
        if ch == "{":
            stack.append((line, col))
        elif ch == "}" and stack:
            stack.pop()
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return stack[-1] if stack else None


def syntax_diagnostic(e, text: str, file: str) -> Diagnostic:
    """The located diagnostic of lark's syntax error `e` (an UnexpectedInput)."""
    hint = _hint(e, text)
    if isinstance(e, _lark_lib().exceptions.UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        found = "the end of the line" if ch in "\r\n" else f'"{ch}"'
        message = f"unexpected {found}; expected {expected_words(e.allowed or ())}"
        loc = Loc(file=file, line=e.line, col=e.column)
        return Diagnostic(code="syntax", message=message, loc=loc, hint=hint, fatal=True)
    tok = getattr(e, "token", None)
    expected = getattr(e, "expected", None) or getattr(e, "accepts", None) or ()
    if tok is None or tok.type == "$END":
        lines = text.split("\n")
        loc = Loc(file=file, line=len(lines), col=len(lines[-1]) + 1)
        message = f"the file ends too early; expected {expected_words(expected)}"
        return Diagnostic(code="syntax", message=message, loc=loc, hint=hint, fatal=True)
    line, col, width = tok.line, tok.column, max(len(str(tok)), 1)
    if tok.type == "_SEP":
        # point at the end of the line the separator ends, not at the next line
        stripped = str(tok).lstrip(" \t\u3000")
        col += len(str(tok)) - len(stripped)
        width = 1
    message = f"unexpected {_found(tok)}; expected {expected_words(expected)}"
    return Diagnostic(code="syntax", message=message, loc=Loc(file=file, line=line, col=col),
                      width=width, hint=hint, fatal=True)
