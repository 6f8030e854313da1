"""Readings only where the source is open: a value of a rule point that a sentence of the same
game's source excludes in so many words is not a reading.

At least the numeric bounds are read: 「強さを１以下にすることはできません」 excludes every value of
1 or less, 「…未満にはできない」 every value under the number, 「…以上にすることはできません」 every value
of the number or more. The sentences read are those of the rule sections that define the point
(`defines`) or give its default, and the quotes of the ruling that records it as unsettled; a
value's number is the first number of its label (or name). Registered in `lint` as
`reading-excluded`."""

from __future__ import annotations

import re
import unicodedata
from typing import Iterator, Optional

from ..lang.diagnostics import Diagnostic
from .knowledge import KnowledgeBase

# what follows the number in a sentence that forbids: 「…にすることはできません」「…にはできない」「…は不可」
_FORBIDS = (r"\s*(?:枚|個|人|点|回|D|kg)?(?:を)?{}(?:に(?:する|は)?|と|て|る)?(?:こと|は)?(?:は)?"
            r"(?:できな|できませ|なら|なりませ|不可|禁止)")
# (the word, test of a value v against the bound n that says v is excluded); each word's pattern is
# compiled on the first sentence that has the word and a word that forbids (few sentences do)
_BOUNDS = (
    ("以下", lambda v, n: v <= n),
    ("未満", lambda v, n: v < n),
    ("以上", lambda v, n: v >= n),
    ("超え", lambda v, n: v > n),
)
_FORBIDDING = ("できな", "できませ", "なら", "なりませ", "不可", "禁止")   # _FORBIDS' last group
_PATTERNS: dict[str, re.Pattern] = {}
_READ: dict[str, list] = {}         # text -> its bounds: a resident server reads the same texts again
_READ_MAX = 8192
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NUMERALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "zero": 0}


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def value_number(name: str, label: Optional[str]) -> Optional[float]:
    """The number a value stands for: the first number of its label, else of its name."""
    for text in (label or "", name):
        m = _NUMBER.search(_norm(text))
        if m:
            return float(m.group())
    return _NUMERALS.get(name)


def bounds_in(text: str) -> list[tuple[str, float, object]]:
    """(the sentence, the number, the test) for every numeric bound the text states."""
    known = _READ.get(text)
    if known is not None:
        return known
    out = []
    for sentence in re.split(r"(?<=[。！？\n])", _norm(text)):
        if not any(w in sentence for w in _FORBIDDING):
            continue                            # no pattern can match without one of these
        for word, excluded in _BOUNDS:
            if word not in sentence:
                continue
            pattern = _PATTERNS.get(word)
            if pattern is None:
                pattern = _PATTERNS[word] = re.compile(r"(\d+)" + _FORBIDS.format(word))
            for m in pattern.finditer(sentence):
                out.append((sentence.strip(), float(m.group(1)), excluded))
    if len(_READ) >= _READ_MAX:
        _READ.clear()
    _READ[text] = out
    return out


def _sentences(kb: KnowledgeBase, game: str, point, sections=None) -> list[tuple[str, str]]:
    """(where, text) of what the source says about the point (`sections`: the game's, if known)."""
    out = []
    for sec in kb.sections.values() if sections is None else sections:
        gives = point.name in sec.defines or (point.default and point.default.section == sec.id)
        if sec.game == game and gives and sec.text is not None and sec.text.value:
            out.append((sec.id, sec.text.value))
    ruling = kb.rulings.get(point.unsettled) if point.unsettled else None
    for rev in ruling.revisions if ruling else ():
        for q in rev.quotes:
            out.append((ruling.id, q.text))
    return out


def excluded_readings(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    read: dict[str, list] = {}                  # text -> its bounds (a section defines many points)
    by_game: dict[str, list] = {}
    for sec in kb.sections.values():
        by_game.setdefault(sec.game, []).append(sec)
    for game, info in sorted(kb.games.items()):
        for point in info.points.values():
            numbers = [(v, value_number(v.name, v.label)) for v in point.values]
            if all(n is None for _, n in numbers):
                continue                        # no value a bound could exclude: nothing to read
            said = [(where, b) for where, text in _sentences(kb, game, point, by_game.get(game, ()))
                    for b in (read[text] if text in read else read.setdefault(text, bounds_in(text)))]
            if not said:
                continue
            for v, number in numbers:
                if number is None:
                    continue
                for where, (sentence, bound, excluded) in said:
                    if excluded(number, bound):
                        yield Diagnostic(
                            code="reading-excluded", loc=v.loc, width=max(len(v.name), 1),
                            message=f"the value {v.name} of {point.name} is not a reading: the source "
                                    f"excludes it (「{sentence}」, {where})",
                            hint="remove the value; a point whose source settles it is not unsettled")
                        break
