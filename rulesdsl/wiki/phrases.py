"""Two answers compared as a reader compares them: sentence by sentence, and inside a changed
sentence phrase by phrase, never character by character.

Japanese has no spaces, so a phrase is cut by script: a run of kanji, katakana, Latin letters or
digits with the hiragana that follow it (its okurigana and particles: 「裏向きに」「選ぶかは」
「P1の」), a run of hiragana of its own, and each punctuation mark or bracket alone. (The search
index cuts text into character pairs, which is right for finding and wrong for reading.)
"""

from __future__ import annotations

import difflib
import re
from typing import NamedTuple

from .escape import esc

_CONTENT = "\u3005\u3006\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaffA-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a._%"
_HIRA = "\u3041-\u309f"
_PHRASE = re.compile(rf"[{_CONTENT}]+[{_HIRA}]*|[{_HIRA}]+|\s+|.", re.S)
_OPEN, _CLOSE = "「『（(《【［", "」』）)》】］"
_GLUE = 1       # an unchanged stretch this short between two changes is shown as part of them


def phrases(text: str) -> list[str]:
    """`text` cut into phrases (see the module's docstring); joined they give `text` back."""
    return _PHRASE.findall(text)


def sentences(text: str) -> list[str]:
    """`text` cut after each 。 that closes a sentence (not one inside 「…」 or （…））."""
    out, start, depth = [], 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
            # 「（「…」ではない）」 after a sentence is a sentence of its own; 「（…）は」 goes on
            nxt = text[i + 1:i + 2]
            if ch in "）)" and depth == 0 and nxt and nxt not in "。、" and not re.match(rf"[{_HIRA}]", nxt):
                out.append(text[start:i + 1])
                start = i + 1
        elif ch == "。" and depth == 0:
            j = i + 1
            while j < len(text) and text[j] in _CLOSE:
                j += 1
            out.append(text[start:j])
            start = j
    if text[start:].strip():
        out.append(text[start:])
    return [s for s in (x.strip() for x in out) if s]


class Diff(NamedTuple):
    """What changed between two answers: the changed passages as (before, after) HTML with the
    removed phrases in <del> and the added ones in <ins> (either side may be empty: a sentence
    dropped or added), and the sentences both share, unmarked."""

    changed: list[tuple[str, str]]
    same: list[str]

    def key(self) -> tuple:
        return tuple(self.changed)


def phrase_diff(before: str, after: str) -> tuple[str, str]:
    """`before` and `after` as HTML, the phrases removed in <del> and those added in <ins>; a
    change that leaves only a particle or a bracket between two changes takes it in."""
    a, b = phrases(before), phrases(after)
    ops: list[list] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if op == "equal":
            ops.append(["=", old, new])
        elif ops and ops[-1][0] == "~":
            ops[-1][1] += old
            ops[-1][2] += new
        else:
            ops.append(["~", old, new])
    merged: list[list] = []
    for i, (op, old, new) in enumerate(ops):
        glue = op == "=" and len(old.strip()) <= _GLUE and 0 < i < len(ops) - 1
        if (glue or op == "~") and merged and merged[-1][0] == "~":
            merged[-1][1] += old
            merged[-1][2] += new
        else:
            merged.append([op, old, new])
    old_html, new_html = [], []
    for op, old, new in merged:
        if op == "=":
            old_html.append(esc(old))
            new_html.append(esc(new))
            continue
        if old:
            old_html.append(f"<del>{esc(old)}</del>")
        if new:
            new_html.append(f"<ins>{esc(new)}</ins>")
    return "".join(old_html), "".join(new_html)


def answer_diff(before: str, after: str) -> Diff:
    """The two answers compared sentence by sentence; a run of changed sentences is compared
    phrase by phrase."""
    a, b = sentences(before), sentences(after)
    changed, same = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            same.extend(esc(x) for x in a[i1:i2])
        elif op == "delete":
            changed.append(("".join(f"<del>{esc(x)}</del>" for x in a[i1:i2]), ""))
        elif op == "insert":
            changed.append(("", "".join(f"<ins>{esc(x)}</ins>" for x in b[j1:j2])))
        else:
            changed.append(phrase_diff("".join(a[i1:i2]), "".join(b[j1:j2])))
    return Diff(changed, same)
