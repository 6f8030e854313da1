"""The canonical layout of a `.rules` file, computed from its tokens.

Formatting re-emits the exact token sequence the parser saw, so the formatted file parses to the
same model; only layout changes:

- one statement per line (`;` becomes a line break), two spaces of indent per block;
- `{` ends its header line, `}` stands alone; an empty block is `{}`;
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
from .parser import parse_text

INDENT = "  "
WIDTH = 100
_COMMENT = re.compile(r"#[^\n]*")


@dataclass
class _Piece:
    kind: str           # "tok", "sep", "comment"
    text: str
    blank: bool = False     # sep: the original had a blank line here
    own_line: bool = False  # comment: it stood on its own line


def format_text(text: str, file: str = "<text>") -> str:
    """Format `text`; raises DslError (located) if it does not parse."""
    tokens: list = []
    try:
        # a final newline makes a last-line comment part of a separator like every other
        parse_text(text if text.endswith("\n") else text + "\n", file, tokens=tokens)
    except DslError:
        parse_text(text, file)  # report the problem at its place in the text as written
        raise
    return _layout(_pieces(tokens, text))


def _pieces(tokens, text: str) -> list[_Piece]:
    out: list[_Piece] = []
    for tok in tokens:
        if tok.type == "_SEP":
            _separator(str(tok), out)
        elif tok.type == "COMMENT":
            # a comment outside a separator: only possible on the last line of the file
            own = not out or out[-1].kind == "sep"
            out.append(_Piece("comment", str(tok).rstrip(), own_line=own))
        elif tok.type == "WS":
            continue
        else:
            out.append(_Piece("tok", str(tok)))
    return out


def _separator(sep: str, out: list[_Piece]) -> None:
    """Split a separator token (newlines, ';' and comments) into comments and line breaks."""
    lines = re.split(r"\r?\n", sep)
    # lines[0] is the rest of the current line; the last entry is the next line's indent
    for i, line in enumerate(lines):
        m = _COMMENT.search(line)
        code = line[: m.start()] if m else line
        if ";" in code and not (out and out[-1].kind == "sep"):
            out.append(_Piece("sep", "\n"))
        if m:
            out.append(_Piece("comment", m.group(0).rstrip(), own_line=i > 0))
        if i < len(lines) - 1:
            blank = 0 < i and not line.strip()
            if out and out[-1].kind == "sep":
                out[-1].blank = out[-1].blank or blank
            else:
                out.append(_Piece("sep", "\n", blank=blank))


_NO_SPACE_BEFORE = {")", "]", ",", ".", "@"}
_NO_SPACE_AFTER = {"(", "[", ".", "@"}


def _layout(pieces: list[_Piece]) -> str:
    lines: list[str] = []
    depth = 0
    line = ""
    pending_blank = False
    prev_text = ""
    i = 0
    n = len(pieces)

    def flush():
        nonlocal line
        if line.strip():
            lines.append(line.rstrip())
        line = ""

    def start_line():
        nonlocal line, pending_blank
        if not line:
            if pending_blank and lines and not lines[-1].endswith("{"):
                lines.append("")
            pending_blank = False
            line = INDENT * depth

    while i < n:
        p = pieces[i]
        if p.kind == "sep":
            flush()
            pending_blank = pending_blank or p.blank
            prev_text = ""
            i += 1
            continue
        if p.kind == "comment":
            if p.own_line or not line.strip():
                flush()
                start_line()
                line += p.text
                flush()
            else:
                line = line.rstrip() + "  " + p.text
                flush()
            prev_text = ""
            i += 1
            continue
        t = p.text
        if t == "[":
            j, rendered = _list(pieces, i, depth)
            start_line()
            if prev_text and prev_text not in _NO_SPACE_AFTER:
                line += " "
            if "\n" in rendered:
                first, *rest = rendered.split("\n")
                line += first
                flush()
                for r in rest[:-1]:
                    lines.append(r)
                line = rest[-1]
            else:
                line += rendered
            prev_text = "]"
            i = j
            continue
        if t == "{":
            start_line()
            line = line.rstrip() + (" {" if line.strip() else "{")
            # empty block?
            k = i + 1
            while k < n and pieces[k].kind == "sep":
                k += 1
            if k < n and pieces[k].kind == "tok" and pieces[k].text == "}":
                line += "}"
                i = k + 1
                prev_text = "}"
                continue
            depth += 1
            if i + 1 < n and pieces[i + 1].kind == "comment" and not pieces[i + 1].own_line:
                line += "  " + pieces[i + 1].text
                i += 1
            flush()
            pending_blank = False
            prev_text = ""
            i += 1
            continue
        if t == "}":
            flush()
            depth -= 1
            pending_blank = False
            start_line()
            line += "}"
            prev_text = "}"
            if depth == 0:
                flush()
                pending_blank = True  # one blank line between top-level declarations
            i += 1
            continue
        start_line()
        if line.strip() and prev_text and prev_text not in _NO_SPACE_AFTER and t not in _NO_SPACE_BEFORE \
                and not (t == "(" and prev_text == "card"):
            line += " "
        line += t
        prev_text = t
        i += 1
    flush()
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def _list(pieces: list[_Piece], i: int, depth: int) -> tuple[int, str]:
    """Render the list starting at pieces[i] ("["); returns the index after "]" and the text.
    A comment right after "[" stays on that line; any other stays with the item before it."""
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
            k, inner = _list(pieces, j, depth + 1)
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
    one_line = "[" + ", ".join(rendered) + "]"
    if not head and not after and len(INDENT * depth) + len(one_line) <= WIDTH and "\n" not in one_line:
        return j, one_line
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
