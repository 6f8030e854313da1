"""The DSL text of one declaration or clause, cut from its file by the node's location, so the
wiki shows what was written (comments and layout included) rather than a re-rendering."""

from __future__ import annotations

import re
import textwrap
from collections import OrderedDict
from itertools import accumulate
from pathlib import Path
from typing import Optional

from ..lang.model import Loc


class SourceTexts:
    """Reads each `.rules` file once and cuts blocks out of it."""

    KEEP = 4096   # files kept in memory (pages are rendered in declaration order: a file's items follow each other)

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._files: OrderedDict[str, tuple[str, list[int]]] = OrderedDict()

    def _get(self, file: str) -> Optional[tuple[str, list[int]]]:
        got = self._files.get(file)
        if got is not None:
            self._files.move_to_end(file)
        else:
            path = Path(file) if Path(file).is_absolute() else self.root / file
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            # where each line starts: 0, then one past each line break (the lines' lengths summed in C)
            offsets = list(accumulate(map(_PAST_BREAK, map(len, text.split("\n")[:-1])), initial=0))
            got = self._files[file] = (text, offsets)
            if len(self._files) > self.KEEP:
                self._files.popitem(last=False)
        return got

    def clear(self) -> None:
        self._files.clear()

    def block(self, loc: Optional[Loc]) -> Optional[str]:
        """The statement starting at `loc`, through its closing `}` (or the end of its line for
        a statement without a block), dedented."""
        if loc is None:
            return None
        got = self._get(loc.file)
        if got is None or not 1 <= loc.line <= len(got[1]):
            return None
        text, offsets = got
        line_start = offsets[loc.line - 1]
        start = line_start + loc.col - 1
        end = statement_end(text, start)
        head = text[line_start:start]
        if head.strip():           # something else precedes it on its line (`a; b { … }`)
            head = " " * len(head)
        return textwrap.dedent(head + text[start:end]).strip("\n") + "\n"


_PAST_BREAK = (1).__add__        # a line's length and its break


_STOP = re.compile(r'["#{}\n;]')
_STOP_INSIDE = re.compile(r'["#{}]')      # inside braces a newline or `;` ends nothing
# a one-line string's text after its opening quote: up to its closing quote or its line's end, a
# backslash escaping whatever follows it (a line break too); one match rather than a turn of a
# Python loop per character (a card's texts are most of its block)
_STRING_REST = re.compile(r'[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*').match


def statement_end(text: str, start: int) -> int:
    """The index just past the statement that starts at `start`: braces are matched, strings
    (`"…"`, `\"\"\"…\"\"\"`) and comments are skipped."""
    depth, i, n = 0, start, len(text)
    outside, inside = _STOP.search, _STOP_INSIDE.search
    while True:
        m = (inside if depth else outside)(text, i)
        if m is None:
            return n
        i = m.start()
        c = text[i]
        if c == '"':
            if text.startswith('"""', i):
                close = text.find('"""', i + 3)
                if close == -1:
                    return n
                i = close + 3
                continue
            i = _STRING_REST(text, i + 1).end() + 1      # past its closing quote (or its line's end)
            continue
        if c == "#":
            nl = text.find("\n", i)
            if depth == 0:
                return n if nl == -1 else nl
            if nl == -1:
                return n
            i = nl
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth <= 0:
                return i + 1
        elif depth == 0:        # a newline or `;` ends a statement without a block
            return i
        i += 1
