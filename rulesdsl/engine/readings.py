"""Readings: an answer under each way of reading the rule points the sources leave unsettled.

A rule point declared `unsettled GAP-RULING` is open on a day when no source decides it; each
of its values is a reading. An answer records the unsettled points it consulted; `try_readings`
answers the scenario again under every combination of their values (a reading may lead the
run to other unsettled points, which are then tried too), and says whether the answer is the
same under all of them. Bounded: past `MAX_READINGS` combinations, each point is varied alone.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..kb.knowledge import KnowledgeBase, ScenarioInfo
    from .answer import Answer

MAX_READINGS = 64


@dataclass
class Readings:
    """The answers under each reading of the unsettled points an answer consulted."""

    points: dict[str, dict]                        # key -> {"point", "card", "gap", "readings"}
    answers: list[tuple[dict[str, str], "Answer"]] = field(default_factory=list)  # reading -> answer
    exhaustive: bool = True                        # False: too many combinations, varied one at a time
    errors: list[tuple[dict[str, str], str]] = field(default_factory=list)  # readings it cannot answer under

    @property
    def same(self) -> bool:
        keys = {answer_key(a) for _, a in self.answers}
        return len(keys) <= 1 and not self.errors

    def groups(self) -> list[tuple[list[dict[str, str]], "Answer"]]:
        """Readings grouped by the answer they give, the default reading's group first."""
        out: dict[tuple, tuple[list, "Answer"]] = {}
        for reading, a in self.answers:
            out.setdefault(answer_key(a), ([], a))[0].append(reading)
        return list(out.values())


def answer_key(a: "Answer") -> tuple:
    return (tuple(a.sentences), a.ok, tuple(sorted(a.outcomes)))


def try_readings(kb: "KnowledgeBase", info: "ScenarioInfo", base: "Answer",
                 limit: int = MAX_READINGS, **options) -> Readings:
    """The scenario answered under every reading of the unsettled points it depends on.
    `options` are passed to `runner.answer` (as_of, tournament, bounds, point_cache)."""
    from .context import EngineError
    from .runner import answer

    points = dict(base.unsettled)
    failed: dict[tuple, str] = {}
    result = Readings(points=points, answers=[({}, base)])
    if not points:
        base.readings = result
        return result
    done: dict[tuple, "Answer"] = {(): base}
    while True:
        combos, exhaustive = _combinations(points, limit)
        grew = False
        for combo in combos:
            key = tuple(sorted(combo.items()))
            if key in done or key in failed:
                continue
            try:
                a = answer(kb, info, reading=combo, **options)
            except EngineError as e:   # this reading leads where the engine cannot answer: say so
                failed[key] = e.message.splitlines()[0]
                continue
            done[key] = a
            for k, v in a.unsettled.items():
                if k not in points:
                    points[k] = v
                    grew = True
        if not grew or len(done) > limit * 4:
            break
    result.exhaustive = exhaustive
    wanted = {tuple(sorted(c.items())) for c in _combinations(points, limit)[0]}
    result.answers = [({}, base)] + [(dict(k), a) for k, a in done.items() if k and k in wanted]
    result.errors = [(dict(k), m) for k, m in failed.items() if k in wanted]
    base.readings = result
    return result


def _combinations(points: dict[str, dict], limit: int) -> tuple[list[dict[str, str]], bool]:
    """Every combination of non-default readings (as overrides), or each point varied alone."""
    keys = sorted(points)
    choices = [[None] + list(points[k]["readings"][1:]) for k in keys]
    total = 1
    for c in choices:
        total *= len(c)
    if total <= limit:
        out = []
        for values in itertools.product(*choices):
            combo = {k: v for k, v in zip(keys, values) if v is not None}
            if combo:
                out.append(combo)
        return out, True
    return [{k: v} for k, c in zip(keys, choices) for v in c[1:]], False


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


