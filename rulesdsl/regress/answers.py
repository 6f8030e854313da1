"""A scenario's own `answer "…"` checked against what the engine finds, for `rulesdsl check`
(engine/verdicts.py compares the verdict words). It runs the engine, so it lives above it."""

from __future__ import annotations

from ..engine.context import EngineError
from ..engine.runner import answer
from ..engine.verdicts import contradictions
from ..lang.diagnostics import Diagnostic


def answer_findings(kb, only=None) -> list:
    """A `check` finding for each scenario whose `answer` contradicts the engine's result.
    `only`: the scenario ids to look at (default: every scenario that writes an answer)."""
    out = []
    for sid, info in kb.scenarios.items():
        sc = info.scenario
        if not sc.answer or (only is not None and sid not in only):
            continue
        try:
            result = answer(kb, info)
        except EngineError:
            continue        # `ask` and `test` report a question the engine cannot answer
        for problem in contradictions(sc.answer, result):
            out.append(Diagnostic(
                code="answer", loc=getattr(sc, "answer_loc", None) or sc.loc,
                message=f"scenario {sid} answers what the engine does not find: {problem}",
                hint="write the answer the expectations give (ask prints it as the ruling), or fix the expectations"))
    return out
