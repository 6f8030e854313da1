"""Every rule point that changes an answer is in the answer's dependencies and counts for its
status: the worked question answered under every other value of every rule point of its game
(for a point set per card, under the cards the answer consulted too).

A point the answer never consults cannot change it, so this finds a point the engine consults
without recording it, or an answer whose status ignores a point that changes it; a point the
rules make relevant but the engine never reads is found by pinning it (tests/test_dependencies)."""

from __future__ import annotations

from typing import Iterator

from ..engine.context import EngineError
from ..engine.deciding import answer_key
from ..engine.runner import answer
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from ..lang.model import Status


def alternatives(kb: KnowledgeBase, info: ScenarioInfo, base) -> Iterator[tuple[str, str]]:
    """(point key, value) for every value of every rule point of the game other than the one
    the answer used (or the default, for a point it did not consult)."""
    for name, decl in sorted(kb.games[info.game].points.items()):
        keys = [name] + ([f"card({c}).{name}" for c in base.cards] if decl.per else [])
        for key in keys:
            used = (base.points.get(key) or base.unsettled.get(key) or {}).get("value")
            if used is None:
                used = decl.default.value if decl.default else None
            for v in decl.values:
                if v.name != used:
                    yield key, v.name


def dependency_violations(kb: KnowledgeBase, info: ScenarioInfo, count: list | None = None) -> list[str]:
    """What breaks the rule, in words (empty when it holds). `count`, if given, gets the number
    of answers computed appended."""
    try:
        base = answer(kb, info)
    except EngineError:
        return []
    key = answer_key(base)
    out, n = [], 0
    for point, value in alternatives(kb, info, base):
        n += 1
        try:
            other = answer_key(answer(kb, info, reading={point: value}, settled=False))
        except EngineError as e:
            other = ("error", e.message)
        if other == key:
            continue
        dep = base.points.get(point) or base.unsettled.get(point)
        if dep is None:
            out.append(f"{info.id}: {point} = {value} changes the answer, "
                       f"but the answer does not depend on {point}")
            continue
        status = Status(dep["status"])
        if status.rank > base.status.rank:
            out.append(f"{info.id}: {point} = {value} changes the answer; {point} is {status.value}, "
                       f"yet the answer is {base.status.value}")
    if count is not None:
        count.append(n)
    return out
