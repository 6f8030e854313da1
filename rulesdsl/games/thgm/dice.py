"""What 東方グランドメレー reads of a roll, as exact distributions.

An attack rolls as many six-sided dice as its strength; the attack value is the sum of the two
highest (thgm/attack/value) and コウモリ変化 asks whether any face repeats (thgm/abilities/
bat-transformation). So unless something reads the faces themselves (a `checked_faces`
expectation), a roll is kept as the distribution of its summary `(highest, second, repeats)`:
21 × 2 values at most, whatever the number of dice, weighted by how many ordered rolls show it.
Faces the scenario fixes and dice it leaves open (`any`) combine; a roll fixed in full is a
certain distribution and goes through the same code.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from ...engine.chance import Distribution, dice

Summary = tuple  # (highest face, second face or 0, whether any face repeats)


def summary(faces: tuple[int, ...]) -> Summary:
    """faces: highest first."""
    return (faces[0], faces[1] if len(faces) > 1 else 0, len(set(faces)) < len(faces))


def value_of(v) -> int:
    """Attack value of a roll value (a summary or a tuple of faces)."""
    if isinstance(v[-1], bool):
        return v[0] + v[1]
    return v[0] + (v[1] if len(v) > 1 else 0)


def repeats(v) -> bool:
    if isinstance(v[-1], bool):
        return v[2]
    return len(set(v)) < len(v)


@lru_cache(maxsize=512)
def roll(fixed: tuple[int, ...], open_dice: int, full: bool) -> Distribution:
    """The distribution of a roll with the faces `fixed` and `open_dice` more dice left to
    chance: of the faces themselves (highest first) if `full`, else of their summary."""
    base = dice(open_dice)
    known = tuple(sorted(fixed, reverse=True))
    merged: dict = {}
    for faces, w in base.pairs:
        allf = tuple(sorted(known + faces, reverse=True)) if known else faces
        k = allf if full else summary(allf)
        merged[k] = merged.get(k, 0) + w
    return Distribution(merged.items())


def faces_words(faces) -> str:
    return "，".join(map(str, faces))


def value_range(dist: Distribution, bonus: int = 0) -> tuple[int, int]:
    """The least and the greatest attack value: over the classes of the question 「what value?」
    (the distribution keeps them, rolls.see asks the same), not over every outcome — a roll's runs
    ask it of the same distribution thousands of times."""
    classes = dist.partition(value_of, ("value",))
    lo = hi = classes[0][0]
    for v, _ in classes:
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo + bonus, hi + bonus


def range_words(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}〜{hi}"


def only_faces(dist: Distribution) -> Optional[tuple[int, ...]]:
    """The faces of a roll known in full (a certain distribution of faces), else None."""
    if len(dist) == 1:
        v = dist.only()
        if not isinstance(v[-1], bool):
            return v
    return None
