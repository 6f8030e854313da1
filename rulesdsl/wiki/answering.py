"""The wiki's answers to every scenario, made once per build, one after another in this process
(answering them over two processes, with the answers handed back as JSON, was measured and not
kept: benchmarks/README.md, the fourteenth and fifteenth rounds' wiki14 and wiki15)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from ..engine.context import EngineError
from ..engine.late import write_words
from ..engine.registry import engine_for

if TYPE_CHECKING:
    from ..engine.answer import Answer
    from ..kb.knowledge import KnowledgeBase

@dataclass
class Failure:
    scenario: str
    loc: str
    message: str

    def __str__(self) -> str:
        return f"{self.loc}: scenario {self.scenario}: {self.message}"


def answer_all(kb: "KnowledgeBase", answers: dict) -> list[Failure]:
    """Answer every scenario of a game that has an interpreter into `answers` (None for a game
    without one); failing expectations and questions the interpreter cannot answer are failures
    (returned, in the scenarios' order)."""
    cache: dict = {}
    failures = []
    for sid, info in kb.scenarios.items():
        if engine_for(info.game) is None:
            answers[sid] = None
            continue
        a = answers[sid] = answer_one(kb, sid, info, cache)
        if isinstance(a, Failure):
            failures.append(a)
        elif not a.ok:
            failed = [e for e in a.expectations if e.applies and not e.ok]
            detail = "; ".join(f"expected {e.text} ({e.modality}), found {', '.join(e.found) or '—'}"
                               for e in failed)
            failures.append(Failure(sid, str(info.scenario.loc), f"{len(failed)} expectation(s) fail: {detail}"))
    return failures


def answer_one(kb, sid: str, info, cache: dict) -> Union["Answer", "Failure"]:
    """One scenario's answer, tried under each reading of what the sources leave open, or why the
    interpreter cannot answer it. `cache`: the rule points' values, shared between questions."""
    from ..engine.readings import try_readings
    from ..engine.runner import answer

    loc = str(info.scenario.loc)
    try:
        a = answer(kb, info, point_cache=cache)
        if a.unsettled:         # the answer under each reading of what the sources leave open
            try_readings(kb, info, a, point_cache=cache)
    except EngineError as e:
        return Failure(sid, str(e.loc or loc), f"the interpreter cannot answer it: {e.message}")
    except Exception as e:  # an interpreter bug must not hide behind a generic crash
        return Failure(sid, loc, f"the interpreter failed: {type(e).__name__}: {e}")
    # what no page and not the history reads of the answers under other readings (their runs'
    # traces, boards and choices: `release_runs`) let go of as soon as they are made, not held
    # with every other answer's until the Q&A pages are drawn
    thin_readings(a)
    draw_afters(a)
    write_words(a)     # every Q&A page shows them: written now, the view they are written from let go of
    return a


def draw_afters(a: "Answer") -> None:
    """The boards after the actions that the answer's Q&A page shows (the first branch of each
    outcome: `answers.boards`) drawn now, and the states they are drawn from let go of
    (engine.late: a run's board is drawn when first read, from the state the run ended on, which
    no later run changes, so it is the picture the page would draw): at 10,000 questions the
    states waiting for the pages take ~2 KB a question more than their pictures."""
    for bs in a.outcomes.values():
        bs[0].after


def thin_readings(a: "Answer") -> None:
    """An answer's answers under other readings as the pages and the history read them: their
    branches' outcomes, illegal actions and expectations' results, without their choices, traces
    and boards (a Q&A page shows their sentences and status; the history reads what they say,
    their outcomes and what they consulted)."""
    if a.readings is not None:
        slim: dict[int, tuple] = {}     # a branch shared by two readings (the same run) stays shared
        for _, x in a.readings.answers:
            if x is not a:
                thin_branches(x, slim)


def thin_branches(a: "Answer", slim: dict[int, tuple]) -> None:
    """`a` with its branches reduced to their outcomes; `slim`: the branches already reduced, by
    the id of the branch they replace."""
    for b in a.branches:
        if id(b) not in slim:
            slim[id(b)] = (b, _outcome_only(b))     # (the branch kept, so that its id is not reused)
    a.branches = [slim[id(b)][1] for b in a.branches]


def _outcome_only(b):
    """A branch as the verdict reads it: its outcome, illegal action and expectations' results,
    without its choices, trace and boards."""
    from ..base.record import replace
    return replace(b, choices=[], steps=[], before=None, after=None, refused=[])
