"""The canonical layout of a `.rules` file, computed from its tokens.

Formatting re-emits the exact token sequence the parser saw, so the formatted file parses to the
same model; only layout changes:

- one statement per line (`;` becomes a line break), two spaces of indent per block;
- `{` ends its header line, `}` stands alone; an empty block is `{}`;
- except that a block written on one line, with no comment in it, stays on one line, its
  statements separated by `; ` (`effect on_play { draw 1 }`, a vocabulary entry's arguments,
  a short deck list): whether a block is a one-liner is the author's choice, as in the corpus;
- single spaces between tokens, none inside brackets or around `(` `)` `.` `@`, `, ` in lists;
- comments are kept: a comment that followed code stays on that line, two spaces after it;
  a comment on its own line stays on its own line at the block's indent;
- at most one blank line is kept between statements, none after `{` or before `}`, and
  declarations at the top level are separated by one;
- a list stays on one line unless it holds a comment or would pass 100 columns;
- strings, including triple-quoted text, are kept byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagnostics import DslError
from .parser import parse_text, scan_tokens

INDENT = "  "
WIDTH = 100
_COMMENT = re.compile(r"#[^\n]*")
_LINE_BREAK = re.compile(r"\r?\n")


@dataclass(slots=True)
class _Piece:
    kind: str           # "tok", "sep", "comment"
    text: str
    blank: bool = False     # sep: the original had a blank line here
    own_line: bool = False  # comment: it stood on its own line
    newline: bool = False   # sep: the original broke the line here (not only `;`)


def format_text(text: str, file: str = "<text>") -> str:
    """Format `text`; raises DslError (located) if it does not parse."""
    return _layout(_pieces(tokens_of(text, file), text))


def format_and_compare(text: str, file: str = "<text>") -> tuple[str, bool]:
    """`text` in the canonical layout, and whether it means what `text` means (see `meaning`);
    raises DslError (located) if `text` does not parse. Linear in the text's size: `text` is
    parsed once with its model built (so the formatter refuses what `check` refuses) and the
    result once more for its tokens only; what each step needs is let go before the next
    (a 10 MB file is a million tokens)."""
    tokens = tokens_of(text, file)
    wanted = meaning(tokens)
    pieces = _pieces(tokens, text)
    del tokens
    formatted = _layout(pieces)
    del pieces
    if formatted == text:
        return formatted, True
    try:
        return formatted, meaning(tokens_of(formatted, file, build=False)) == wanted
    except DslError:
        return formatted, False


def tokens_of(text: str, file: str = "<text>", build: bool = True) -> list:
    """Every token of `text` as the parser saw it, as a (type, text) pair, separators (with their
    comments) included;
    raises DslError (located) if it does not parse. Without `build`, only the syntax is checked
    (for the formatter's own output, whose meaning is then compared with the original's)."""
    tokens: list = []
    try:
        # a final newline makes a last-line comment part of a separator like every other
        if build:
            parse_text(text if text.endswith("\n") else text + "\n", file, tokens=tokens)
        else:
            scan_tokens(text if text.endswith("\n") else text + "\n", file, tokens)
    except DslError:
        parse_text(text, file)  # report the problem at its place in the text as written
        raise
    return tokens


_OPEN, _CLOSE = {"{", "["}, {"}", "]"}
_SEP_MARK = ("_SEP", "")


def meaning(tokens: list) -> tuple[list, list[str]]:
    """What a token stream says, layout aside: its tokens in order (a separator only where it
    ends a statement, not where the grammar allows one anyway) and its comments in order. Two
    texts with the same meaning parse to the same model: the parser is a function of the
    tokens it is fed, and separators carry nothing but their position."""
    out: list = []
    comments: list[str] = []
    pending = False
    for tok in tokens:
        kind, value = tok
        if kind == "_SEP":
            comments.extend(m.group(0).rstrip() for m in _COMMENT.finditer(value))
            pending = True
            continue
        if kind == "COMMENT":
            comments.append(value.rstrip())
            continue
        if pending and out and out[-1][1] not in _OPEN and out[-1][1] != "," and value not in _CLOSE:
            out.append(_SEP_MARK)
        pending = False
        out.append(tok)
    return out, comments


def _pieces(tokens, text: str) -> list[_Piece]:
    out: list[_Piece] = []
    for kind, value in tokens:
        if kind == "_SEP":
            _separator(value, out)
        elif kind == "COMMENT":
            # a comment outside a separator: only possible on the last line of the file
            own = not out or out[-1].kind == "sep"
            out.append(_Piece("comment", value.rstrip(), own_line=own))
        elif kind == "WS":
            continue
        else:
            out.append(_Piece("tok", value))
    return out


def _separator(sep: str, out: list[_Piece]) -> None:
    """Split a separator token (newlines, ';' and comments) into comments and line breaks."""
    if "\n" not in sep and "#" not in sep:          # the common `;` between statements
        if not (out and out[-1].kind == "sep"):
            out.append(_Piece("sep", "\n"))
        return
    lines = _LINE_BREAK.split(sep)
    # lines[0] is the rest of the current line; the last entry is the next line's indent
    for i, line in enumerate(lines):
        m = _COMMENT.search(line)
        code = line[: m.start()] if m else line
        if m and i == 0 and out and out[-1].kind == "tok":
            # `a;  # note`: the note trails the statement it follows
            out.append(_Piece("comment", m.group(0).rstrip()))
            m = None
        if ";" in code and not (out and out[-1].kind == "sep"):
            out.append(_Piece("sep", "\n"))
        if m:
            out.append(_Piece("comment", m.group(0).rstrip(), own_line=i > 0))
        if i < len(lines) - 1:
            blank = 0 < i and not line.strip()
            if out and out[-1].kind == "sep":
                out[-1].blank = out[-1].blank or blank
                out[-1].newline = True
            else:
                out.append(_Piece("sep", "\n", blank=blank, newline=True))


_NO_SPACE_BEFORE = {")", "]", ",", ".", "@"}
_NO_SPACE_AFTER = {"(", "[", ".", "@"}


def _blocks(pieces: list[_Piece]) -> tuple[dict[int, int], list[int]]:
    """The index of the `}` closing each `{`, and a running count of the line breaks and
    comments before each piece (a block is a one-liner when it holds none)."""
    match: dict[int, int] = {}
    stack: list[int] = []
    breaks = [0] * (len(pieces) + 1)
    for i, p in enumerate(pieces):
        breaks[i + 1] = breaks[i] + (p.kind == "comment" or (p.kind == "sep" and p.newline))
        if p.kind == "tok":
            if p.text == "{":
                stack.append(i)
            elif p.text == "}" and stack:
                match[stack.pop()] = i
    return match, breaks


def _spaced(prev: str, t: str) -> bool:
    """Whether a space goes between two tokens on a line."""
    return bool(prev) and prev not in _NO_SPACE_AFTER and t not in _NO_SPACE_BEFORE \
        and not (t == "(" and prev == "card")


def _inline(pieces: list[_Piece], i: int, j: int) -> str:
    """The block pieces[i] (`{`) … pieces[j] (`}`) on one line: `{ a; b { c } }`, `{}` if empty."""
    out = ["{"]
    prev = "{"
    pending = False                  # a separator since the last token
    k = i + 1
    while k <= j:
        p = pieces[k]
        if p.kind == "sep":
            pending = True
            k += 1
            continue
        t = p.text
        if pending and prev != "{" and t != "}":
            out.append(";")
        pending = False
        if t == "}" and prev == "{":
            out.append("}")
        elif t == "[":
            k, rendered = _list(pieces, k, 0, one_line=True)
            out.append((" " if _spaced(prev, t) else "") + rendered)
            prev = "]"
            continue
        else:
            out.append((" " if _spaced(prev, t) or t == "}" else "") + t)
        prev = t
        k += 1
    return "".join(out)


class _Lines:
    """The output, line by line; the current line is built from parts (a line may be long, and
    a string built by repeated concatenation grows in quadratic time)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.parts: list[str] = []
        self.code = False            # the current line holds more than its indent
        self.depth = 0
        self.pending_blank = False

    def flush(self) -> None:
        if self.code:
            self.lines.append("".join(self.parts).rstrip())
        self.parts, self.code = [], False

    def start(self) -> None:
        if not self.parts:
            if self.pending_blank and self.lines and not self.lines[-1].endswith("{"):
                self.lines.append("")
            self.pending_blank = False
            self.parts.append(INDENT * self.depth)

    def add(self, text: str, space: bool = False) -> None:
        self.start()
        if space and self.code:
            self.parts.append(" ")
        self.parts.append(text)
        self.code = True


def _layout(pieces: list[_Piece]) -> str:
    match, breaks = _blocks(pieces)
    out = _Lines()

    def end_declaration(i: int) -> int:
        """After a top-level declaration's last `}` (pieces[i - 1]): a comment on that line stays
        on it; then one blank line. The index of the next piece."""
        if i < n and pieces[i].kind == "comment" and not pieces[i].own_line:
            out.add("  " + pieces[i].text)
            i += 1
        out.flush()
        out.pending_blank = True
        return i

    prev_text = ""
    i = 0
    n = len(pieces)
    while i < n:
        p = pieces[i]
        if p.kind == "sep":
            out.flush()
            out.pending_blank = out.pending_blank or p.blank
            prev_text = ""
            i += 1
            continue
        if p.kind == "comment":
            if p.own_line or not out.code:
                out.flush()
                out.add(p.text)
            else:
                out.add("  " + p.text)
            out.flush()
            prev_text = ""
            i += 1
            continue
        t = p.text
        if t == "[":
            j, rendered = _list(pieces, i, out.depth)
            space = bool(prev_text) and prev_text not in _NO_SPACE_AFTER
            if "\n" in rendered:
                first, *rest = rendered.split("\n")
                out.add(first, space)
                out.flush()
                out.lines.extend(rest[:-1])
                out.parts, out.code = [rest[-1]], True
            else:
                out.add(rendered, space)
            prev_text = "]"
            i = j
            continue
        if t == "{" and i in match and breaks[match[i]] == breaks[i]:   # a one-liner
            out.add(_inline(pieces, i, match[i]), space=True)
            i = match[i] + 1
            prev_text = "}"
            if out.depth == 0:
                i = end_declaration(i)
            continue
        if t == "{":
            # empty block?
            k = i + 1
            while k < n and pieces[k].kind == "sep":
                k += 1
            if k < n and pieces[k].kind == "tok" and pieces[k].text == "}":
                out.add("{}", space=True)
                i = k + 1
                prev_text = "}"
                if out.depth == 0:
                    i = end_declaration(i)
                continue
            out.add("{", space=True)
            out.depth += 1
            if i + 1 < n and pieces[i + 1].kind == "comment" and not pieces[i + 1].own_line:
                out.add("  " + pieces[i + 1].text)
                i += 1
            out.flush()
            out.pending_blank = False
            prev_text = ""
            i += 1
            continue
        if t == "}":
            out.flush()
            out.depth -= 1
            out.pending_blank = False
            out.add("}")
            prev_text = "}"
            i += 1
            if out.depth == 0:
                i = end_declaration(i)   # one blank line between top-level declarations
            continue
        out.add(t, space=_spaced(prev_text, t))
        prev_text = t
        i += 1
    out.flush()
    lines = out.lines
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def _list(pieces: list[_Piece], i: int, depth: int, one_line: bool = False) -> tuple[int, str]:
    """Render the list starting at pieces[i] ("["); returns the index after "]" and the text.
    A comment right after "[" stays on that line; any other stays with the item before it.
    `one_line`: inside a one-line block, where the list holds no comment, whatever its width."""
    items: list[list[str]] = [[]]
    head: list[str] = []                       # comments after "[" before any item
    after: dict[int, list[str]] = {}           # comments following item k
    j = i + 1
    while j < len(pieces):
        p = pieces[j]
        if p.kind == "sep":
            j += 1
            continue
        if p.kind == "comment":
            if len(items) == 1 and not items[0]:
                head.append(p.text)
            else:
                k = len(items) - 1 if items[-1] else len(items) - 2
                after.setdefault(k, []).append(p.text)
            j += 1
            continue
        if p.text == "[":
            k, inner = _list(pieces, j, depth + 1, one_line)
            items[-1].append(inner)
            j = k
            continue
        if p.text == "]":
            j += 1
            break
        if p.text == ",":
            items.append([])
            j += 1
            continue
        items[-1].append(p.text)
        j += 1
    items = [x for x in items if x]
    rendered = [" ".join(x) for x in items]
    flat = "[" + ", ".join(rendered) + "]"
    if one_line or (not head and not after and len(INDENT * depth) + len(flat) <= WIDTH and "\n" not in flat):
        return j, flat
    inner_indent = INDENT * (depth + 1)
    out = ["[" + ("  " + head[0] if head else "")]
    out += [inner_indent + c for c in head[1:]]
    for k, r in enumerate(rendered):
        text = inner_indent + r + ("," if k < len(rendered) - 1 else "")
        notes = after.get(k, [])
        if notes:
            text += "  " + notes[0]
        out.append(text)
        out += [inner_indent + c for c in notes[1:]]
    out.append(INDENT * depth + "]")
    return j, "\n".join(out)
