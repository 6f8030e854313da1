"""A scenario's own `answer "…"` must say what the engine finds. The answer opens `ask`'s reply
when every expectation holds, so an answer that contradicts them would be read out as the
ruling. The check compares the verdict words it states — 裏向き/表向き, できる/できない,
勝利/引き分け — clause by clause with what the expectations that held state about the same
subject (a 《name》 or a position such as `c2`); a clause about a subject no expectation
names is compared with all of them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Optional

from ..base.patterns import LazyPattern

if TYPE_CHECKING:
    from .answer import Answer

# (word, pair, value): what a word claims, on a pair's scale
WORDS = [
    ("裏向き", "face", "down"), ("表向き", "face", "up"), ("オモテ向き", "face", "up"),
    ("ウラ向き", "face", "down"),
    ("できない", "can", "no"), ("できる", "can", "yes"),
    ("引き分け", "result", "draw"), ("勝利", "result", "win"),
]
BINARY = {"face": ("up", "down"), "can": ("yes", "no")}
_NEGATION = LazyPattern(r"^(?:に|と|で|は|には)?(?:ならない|ならず|ない|しない|せず|されない)")
_SUBJECT = LazyPattern(r"《[^》]+》|\b[A-Za-z]+\d+\b")
_CLAUSE = LazyPattern(r"[。、，,]")


@lru_cache(maxsize=4096)     # the same answers and statements are compared at every run of a question
def claims(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(pair, value, holds) for each verdict word in text; a word negated right after it
    (「裏向きにならない」) does not hold."""
    out = []
    taken: list[tuple[int, int]] = []
    for word, pair, value in WORDS:
        start = text.find(word)           # each occurrence, left to right, none overlapping
        while start >= 0:
            end = start + len(word)
            if not any(a <= start < b for a, b in taken):
                taken.append((start, end))
                negated = bool(_NEGATION.match(text[end:]))
                out.append((pair, value, not negated))
            start = text.find(word, end)
    return tuple(out)


@lru_cache(maxsize=4096)
def subjects(text: str) -> frozenset[str]:
    return frozenset(s.lower() for s in _SUBJECT.findall(text))


def _agrees(claim: tuple[str, str, bool], other: tuple[str, str, bool]) -> Optional[bool]:
    """Whether two claims on the same pair agree (None: they say nothing of each other)."""
    pair, value, holds = claim
    pair2, value2, holds2 = other
    if pair != pair2:
        return None
    if pair in BINARY:      # not up is down
        a = value if holds else next(v for v in BINARY[pair] if v != value)
        b = value2 if holds2 else next(v for v in BINARY[pair] if v != value2)
        return a == b
    if value == value2:
        return holds == holds2
    if holds and holds2:
        return False        # a win is not a draw
    return None


def engine_statements(a: "Answer") -> list[tuple[str, bool]]:
    """What the answer found, as (statement, holds): the expectations that held (a `never`
    expectation that held states that its text does not come about)."""
    out = []
    for e in a.expectations:
        if not (e.applies and e.evaluated and e.ok):
            continue
        out.append((e.statement or e.text, e.modality != "never"))
    if not out and len(a.outcomes) == 1:
        out.append((next(iter(a.outcomes)), True))
    return out


def contradictions(answer_text: str, a: "Answer") -> Iterator[str]:
    """Clauses of the answer text that contradict what the engine found, each with the
    statement it contradicts."""
    found = []
    for statement, holds in engine_statements(a):
        for pair, value, h in claims(statement):
            found.append((subjects(statement), statement, (pair, value, h if holds else not h)))
    for clause in _CLAUSE.split(answer_text):
        said = claims(clause)
        if not said:
            continue
        # a clause's verdict is said of each subject it names (「《上》も《土台》も裏向き」)
        groups = [[f for f in found if name in f[0]] for name in sorted(subjects(clause))]
        groups = [g for g in groups if g] or [found]
        problem = None
        for claim in said:
            for relevant in groups:
                verdicts = [(_agrees(claim, f[2]), f[1]) for f in relevant]
                verdicts = [(v, st) for v, st in verdicts if v is not None]
                if verdicts and not any(v for v, _ in verdicts):
                    problem = f"「{clause}」 — the engine finds 「{verdicts[0][1]}」"
                    break
            if problem:
                break
        if problem:
            yield problem


def agrees(answer_text: str, a: "Answer") -> bool:
    return next(contradictions(answer_text, a), None) is None
