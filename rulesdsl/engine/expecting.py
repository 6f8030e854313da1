"""What an expectation about the answer's status or about a probability finds: `expect status
[at_least] S` against the answer's status (after the test of what decides it), and a bound on a
probability (`expect possible … >= 1/2`) against every plan's, the best play's or the plans
named (from the runner, whose answer assembly reads them)."""

from __future__ import annotations

import datetime as _dt
from typing import Optional

from ..lang.model import Status
from .answer import Answer, ExpectationResult
from .chance import best_play, odds_text
from .context import EngineError


def status_matches(e, status: Status) -> bool:
    """Whether an answer of `status` satisfies `expect status [at_least] S`."""
    return status.rank <= e.status.rank if e.at_least else status is e.status


def status_expectation(e, a: Answer, asked: Optional[_dt.date] = None) -> ExpectationResult:
    """`expect status [at_least] S`: the answer's status (after the test of what decides it) is S,
    or S or stronger. A status is the status of the answer on a day: without `from`/`until` it
    is checked on the scenario's own date (`as of`), not on the other days a timeline visits."""
    from .answer import STATUS_WORDS
    day = a.as_of
    if e.valid_from is None and e.valid_until is None:
        applies = asked is None or day == asked
    else:
        applies = (e.valid_from is None or e.valid_from.start() <= day) and \
                  (e.valid_until is None or day <= e.valid_until.end())
    ok = status_matches(e, a.status)
    word = STATUS_WORDS[e.status] + ("以上" if e.at_least else "")
    return ExpectationResult(text=f"答えの状態は{word}", modality="always", ok=ok, applies=applies,
                             holds_in=int(ok), branches=1, found=[] if ok else [f"状態は{STATUS_WORDS[a.status]}"],
                             loc=str(e.loc), about_status=True)


def add_status_checks(a: Answer, scenario) -> None:
    """Append to `a` the checks of its status (`expect status …` of `scenario`), once the test of
    what decides has given its status, each on the scenario's own day (`status_expectation`)."""
    asked = scenario.as_of.start() if scenario.as_of else None
    a.expectations += [status_expectation(e, a, asked) for e in scenario.status_expects]


def under_policy(e, i: int, branches: list, odds, per_plan: list) -> list:
    """The probabilities an expectation's bound is checked against: every plan fixed before the
    dice (no policy named), the best play for one player (`best for P1`), or the plans that
    choose the options named (`plan "振りなおさない"`), a located error when none does."""
    prob = e.probability
    if prob.best_for:
        def holds(b):
            r = b.results[i]
            return r is not None and bool(r[0])
        play = best_play(branches, holds, prob.best_for)
        return [(f"{prob.best_for}の最善の決め方", play.probability)]
    if prob.plan:
        wanted = set(prob.plan)
        chosen = [(p.label, p.holds[i]) for p in odds.plans if wanted <= {o for _, _, o in p.picks}]
        if not chosen:
            offered = sorted({o for p in odds.plans for _, _, o in p.picks})
            raise EngineError(f"no plan of choices picks {', '.join(repr(o) for o in prob.plan)}", prob.loc,
                              ("the options met are: " + ", ".join(offered)) if offered
                              else "nobody chooses anything in this scenario: drop `plan …`", code="choice")
        return chosen
    return per_plan


def probability_expectation(e, modality: str, per_plan: list) -> tuple[bool, list[str]]:
    """A bound on a probability holds for every plan (always), some plan (possible) or none
    (never); `found` gives the probability each plan that breaks it reaches."""
    meets = [(label, p, e.probability.holds(p)) for label, p in per_plan]
    ok = {"always": all(m for _, _, m in meets), "possible": any(m for _, _, m in meets),
          "never": not any(m for _, _, m in meets)}[modality]
    several = len(meets) > 1
    found = [f"確率は{odds_text(p)}" + (f"（{label}）" if several else "")
             for label, p, m in meets if m != (modality != "never")]
    return ok, found
