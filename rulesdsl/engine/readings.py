"""Readings: an answer under each way of reading the rule points it consulted that are not
confirmed — the points the sources leave unsettled, and the points a provisional, unofficial or
unconfirmed ruling sets.

Every answer is tried so when it is made (engine.deciding, which also says which points decide
it); `try_readings` returns what was found, or tries now for an answer made without it.
Bounded: past `MAX_READINGS` combinations, each point is varied alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .deciding import MAX_READINGS, Readings, answer_key, search  # noqa: F401  (the readings' API)

if TYPE_CHECKING:
    from ..kb.knowledge import KnowledgeBase, ScenarioInfo
    from .answer import Answer


def try_readings(kb: "KnowledgeBase", info: "ScenarioInfo", base: "Answer",
                 limit: int = MAX_READINGS, **options) -> Readings:
    """The scenario answered under every reading of the points it depends on that are not
    confirmed. `options` are passed to `runner.answer` (as_of, tournament, bounds, point_cache)."""
    if base.readings is not None and limit == MAX_READINGS:
        return base.readings
    from .runner import answer, collector_paused

    with collector_paused():        # as for one answer: the readings' answers live until the search ends
        base.readings = search(kb, base, lambda r: answer(kb, info, reading=r, **options), limit)
    return base.readings


def reading_words(kb: "KnowledgeBase", game: str, reading: dict[str, str], points: dict[str, dict]) -> str:
    """「stack_scope（No.142）＝スタック内のこのカードのみ」, or 「既定の読み」 for the default."""
    if not reading:
        defaults = []
        for key, p in sorted(points.items()):
            defaults.append(_one(kb, game, p, p["readings"][0]))
        return "既定の読み（" + "、".join(defaults) + "）" if defaults else "既定の読み"
    return "、".join(_one(kb, game, points[k], v) for k, v in sorted(reading.items()))


def _one(kb: "KnowledgeBase", game: str, p: dict, value: str) -> str:
    decl = kb.games[game].points.get(p["point"])
    label = next((v.label for v in decl.values if v.name == value and v.label), value) if decl else value
    name = decl.label if decl and decl.label else p["point"]
    where = f"（{p['card']}）" if p.get("card") else ""
    return f"{name}{where}＝{label}"


