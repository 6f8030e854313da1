"""The headings of a source document, found once from its own text, and the section each one
heads: a citation names a heading that stands in the document *as a heading*, and what it
quotes must lie in that heading's section — from the heading to the next heading of the same or
a higher level.

The four sources come in three forms, told apart by the text itself:

- **wiki markup** (004, a wiki backup): `**`/`***`/`****` lines are headings of levels 2-4, a
  decorated title line (`&bold(){…}`) level 1; a list item (`+` level 5, `-` level 6) heads a
  passage when body text follows it (or, for `+`, a `-` item), and it is not a sentence.
- **paragraphs without headings** (001): cited by line. Any line may be cited; its section runs
  from that line to the end of its paragraph (lines up to an empty line; a block that begins
  with a list item — `•`, `1.` — or a `※` note continues the paragraph before it).
- **plain heading lines** (000, 003): a heading is a line that is not a sentence (no 。！？, no
  verb ending, no list marker, not a step of a `↓` flow that has no text of its own). Levels:
  a plain line is level 1, or 0 when a plain heading follows it directly (it groups the ones
  after it); 【…】 level 2, 「…」 level 3; a heading that follows a `↓` (a step of a flow) is
  one level below the plain heading the flow started under.
"""

from __future__ import annotations

import re
from typing import Callable

from ..base.patterns import LazyPattern
from ..base.record import Record

WIKI_HEADING = re.compile(r"^(\*{1,6})(.*)$")
WIKI_TITLE = LazyPattern(r"^&\w+\(\d*\)\{&bold\(\)\{[^{}]+\}\}$")
ITEM = LazyPattern(r"^\s*(?:•|・|\d+\.|[０-９]+．)\s*")
SENTENCE_END = re.compile(r"[。！？!?]")
VERB_END = re.compile(r"(?:[るすただうくねよ]|ない)$")
BRACKETED = re.compile(r"^[^\s【】「」]{0,4}【[^【】]+】$")
QUOTED = re.compile(r"^「[^「」]+」$")
ARROWS = ("↓", "↔")


class Heading(Record):
    key: str        # the normalized heading, as citations name it
    line: int       # 0-based line index in the document
    level: int
    end_line: int   # the section runs over lines [line, end_line)

    def __init__(self, key: str, line: int, level: int, end_line: int) -> None:   # one per heading
        self.key, self.line, self.level, self.end_line = key, line, level, end_line


def headings(lines: list[str], normalize: Callable[[str], str]) -> list[Heading]:
    """The document's headings in order, each with the lines its section covers."""
    if any(WIKI_HEADING.match(x) for x in lines):
        found = _wiki(lines, normalize)
    elif any(x == "" for x in lines):
        return _paragraphs(lines, normalize)
    else:
        found = _plain(lines, normalize)
    return _close(found, len(lines))


def _close(found: list[tuple[int, int, str]], n: int) -> list[Heading]:
    out = []
    for i, (line, level, key) in enumerate(found):
        end = n
        for line2, level2, _ in found[i + 1:]:
            if level2 <= level:
                end = line2
                break
        out.append(Heading(key=key, line=line, level=level, end_line=end))
    return out


def _next(lines: list[str], i: int) -> tuple[int, str]:
    for j in range(i + 1, len(lines)):
        if lines[j].strip():
            return j, lines[j].strip()
    return len(lines), ""


# ----------------------------------------------------------------------------- wiki markup

def _wiki(lines: list[str], normalize) -> list[tuple[int, int, str]]:
    found = []
    for i, raw in enumerate(lines):
        s = raw.strip()
        m = WIKI_HEADING.match(s)
        if m:
            found.append((i, len(m.group(1)), normalize(m.group(2)).strip("【】")))
        elif WIKI_TITLE.match(s):
            found.append((i, 1, normalize(s)))
        elif s and s[0] in "+-" and not s.startswith("--") and not SENTENCE_END.search(s):
            _, after = _next(lines, i)
            body = after[:1] not in "+-*&#" and after != ""
            if body or (s[0] == "+" and after[:1] == "-"):
                found.append((i, 5 if s[0] == "+" else 6, normalize(s)))
    return found


# ----------------------------------------------------------------------------- paragraphs

def _paragraphs(lines: list[str], normalize) -> list[Heading]:
    ends: list[int] = [0] * len(lines)
    blocks: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if lines[i] == "":
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j] != "":
            j += 1
        blocks.append((i, j))
        i = j
    paragraphs: list[list[int]] = []
    for b, e in blocks:
        first = lines[b].strip()
        if paragraphs and (ITEM.match(first) or first.startswith("※")):
            paragraphs[-1][1] = e
        else:
            paragraphs.append([b, e])
    for b, e in paragraphs:
        for k in range(b, e):
            ends[k] = e
    out = []
    for k, raw in enumerate(lines):
        key = normalize(raw).strip("【】")
        if key:
            out.append(Heading(key=key, line=k, level=1, end_line=ends[k]))
    return out


# ----------------------------------------------------------------------------- plain heading lines

def _style(raw: str, lines: list[str], i: int, normalize) -> int:
    """0 when the line is not a heading, else 1 (plain), 2 (【…】) or 3 (「…」)."""
    s = raw.strip()
    if not s or SENTENCE_END.search(s) or s[:1] in "-+*•・" or any(a in s for a in ARROWS):
        return 0
    j, after = _next(lines, i)
    if after.startswith("。"):
        return 0    # the sentence goes on on the next line
    if BRACKETED.match(s):
        return 2
    if QUOTED.match(s):
        return 3
    if any(c in s for c in "「」、（()") or VERB_END.search(s) or len(normalize(s)) > 25:
        return 0
    prev = _prev(lines, i)
    if prev in ARROWS and (after in ARROWS or _style(after, lines, j, normalize) or not after):
        return 0    # a step of a flow with no text of its own
    if after in ARROWS:
        return 0
    return 1


def _prev(lines: list[str], i: int) -> str:
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            return lines[j].strip()
    return ""


def _plain(lines: list[str], normalize) -> list[tuple[int, int, str]]:
    styles = {i: _style(raw, lines, i, normalize) for i, raw in enumerate(lines)}
    for i in list(styles):
        # a plain line right under a 【…】 or 「…」 heading is that heading's text, not a heading
        p = _prev_index(lines, i)
        if styles[i] == 1 and p is not None and styles[p] in (2, 3):
            styles[i] = 0
    seen_as_text = set()
    for i, raw in enumerate(lines):
        # a repeated copy of a line that is text where it first stands is text too
        key = normalize(raw)
        if styles[i] == 0:
            seen_as_text.add(key)
        elif styles[i] == 1 and key in seen_as_text:
            styles[i] = 0
    level: dict[int, int] = {}
    i = 0
    while i < len(lines):
        if styles.get(i) != 1:
            i += 1
            continue
        run = [i]     # plain candidates on consecutive lines
        while True:
            j, _ = _next(lines, run[-1])
            if styles.get(j) == 1 and _prev(lines, j) not in ARROWS:
                run.append(j)
            else:
                break
        if len(run) == 2:       # a heading that groups the next one
            level[run[0]], level[run[1]] = 0, 1
        else:                   # one heading; lines after it are its list, not headings
            level[run[0]] = 1
        i = run[-1] + 1
    found = []
    flow_base = 1
    for i, raw in enumerate(lines):
        st = styles.get(i, 0)
        if not st or (st == 1 and i not in level):
            continue
        lv = level.get(i, st)
        if st == 1:
            if _prev(lines, i) in ARROWS:
                lv = flow_base + 1
            else:
                flow_base = lv
        found.append((i, lv, normalize(raw).strip("【】")))
    return found


def _prev_index(lines: list[str], i: int):
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            return j
    return None
