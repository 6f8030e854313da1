"""Rule points and choices, the two ways a decision reaches the royal interpreter.

Every behaviour where source 003 is silent or contradicts itself is a rule point read through
`reading`; the knowledge base may leave a point `unspecified` (it records the gap and prefers
no reading), and then each alternative value is a branch that nobody chooses.
"""

from __future__ import annotations


from ...engine.context import Context
from ...engine.trace import Cite


def reading(ctx: Context, taken: dict, name: str) -> tuple[str, Cite]:
    """The value of rule point `name` on the run's day, with what set it. Where the knowledge base
    leaves it `unspecified`, the other declared values are explored as a choice of nobody, made
    once per run (`taken` remembers it, so every later reading of the point agrees)."""
    value, cite = ctx.point(name)
    if value != "unspecified":
        return value, cite
    if name in taken:
        return taken[name], cite
    point = ctx.kb.games[ctx.game].points[name]
    alternatives = [v for v in point.values if v.name != "unspecified"]
    picked = ctx.choose(None, f"{point.label or name}（資料が決めていない）",
                    [v.label or v.name for v in alternatives], cite)
    taken[name] = alternatives[picked].name
    return taken[name], cite
