"""Answering a scenario: run it under every unfixed choice, check its expectations, and gather
the verdict, the traces, the statuses relied on and the dependencies consulted.

The runner is game-neutral; a game plugs in through `GameEngine` (see `registry`).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Optional

from ..kb import KnowledgeBase, ScenarioInfo
from ..model import Status, weakest
from .chance import ChanceLimit, Odds, is_chance, odds_text, probability_of, summarize
from .context import (BranchLimit, Bounds, ChoicePoint, Context, EngineError, IllegalAction, StepLimit,
                      explore)
from .registry import engine_for
from .trace import Cite, Step

_CAUTION = (Status.unconfirmed, Status.unofficial, Status.provisional)


@dataclass
class Branch:
    choices: list[ChoicePoint]
    steps: list[Step]
    outcome: str                        # a one-line summary of the final state (Japanese)
    illegal: Optional[str]              # the message if an action was illegal
    before: Any                         # the game's board before the actions
    after: Any                          # and after
    results: list[tuple[bool, str]]     # per expectation: holds?, what was found

    @property
    def path(self) -> str:
        if not self.choices:
            return "（選択なし）"
        return " → ".join(f"{'出目' if is_chance(c) else c.chooser or '—'}: {c.options[c.picked]}"
                          for c in self.choices)

    @property
    def probability(self):
        """The exact probability of this branch given its choices (1 without chance points)."""
        return probability_of(self.choices)


@dataclass
class ExpectationResult:
    text: str                           # the expectation in words
    modality: str                       # always / possible / never
    ok: bool
    applies: bool                       # False when the as-of date is outside its period
    holds_in: int
    branches: int
    found: list[str]                    # what each branch found, when it did not hold
    loc: str
    probability: Optional[str] = None   # the bound of a probability expectation (`>= 1/2`)
    odds: Optional[list] = None         # with chance: per plan, the exact probability it holds


@dataclass
class Answer:
    scenario: str
    title: str
    question: Optional[str]
    game: str
    as_of: _dt.date
    mode: str
    branches: list[Branch]
    expectations: list[ExpectationResult]
    status: Status
    cautions: list[Cite]                # what the answer rests on that is not confirmed
    fuzzy: list[str]
    points: dict[str, dict]             # rule point -> value and provenance
    sections: list[str]
    cards: list[str]
    rulings: list[str]
    odds: Optional[Odds] = None         # with chance (or a probability expectation): see chance.summarize

    @property
    def ok(self) -> bool:
        return all(e.ok for e in self.expectations if e.applies)

    @property
    def outcomes(self) -> dict[str, list[Branch]]:
        groups: dict[str, list[Branch]] = {}
        for b in self.branches:
            groups.setdefault(b.outcome, []).append(b)
        return groups

    def verdict(self) -> str:
        applicable = [e for e in self.expectations if e.applies]
        failed = [e for e in applicable if not e.ok]
        outcomes = self.outcomes
        if self.odds is not None and self.odds.chance_points and len(self.odds.plans) == 1:
            head = " / ".join(f"{o.split('; ')[0]} {odds_text(p)}" for o, p in self.odds.plans[0].outcomes)
        elif self.odds is not None and self.odds.chance_points:
            head = f"{len(outcomes)} outcomes are possible, depending on the dice and {len(self.odds.plans) or 'the'} choices"
        elif len(outcomes) == 1:
            head = next(iter(outcomes))
        else:
            head = f"{len(outcomes)} outcomes are possible, depending on the choices"
        if not applicable:
            return head
        if failed:
            return f"{head} — {len(failed)} of {len(applicable)} expectations FAIL"
        return f"{head} — all {len(applicable)} expectations hold"

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario, "title": self.title, "question": self.question,
            "game": self.game, "as_of": self.as_of.isoformat(), "mode": self.mode,
            "verdict": self.verdict(), "ok": self.ok, "status": self.status.value,
            "cautions": [c.as_dict() for c in self.cautions], "fuzzy": self.fuzzy,
            "expectations": [{
                "text": e.text, "modality": e.modality, "ok": e.ok, "applies": e.applies,
                "holds_in": e.holds_in, "branches": e.branches, "found": e.found, "loc": e.loc,
                **({"probability": e.probability} if e.probability else {}),
                **({"odds": e.odds} if e.odds is not None else {})}
                for e in self.expectations],
            "outcomes": [{
                "outcome": outcome, "branches": [b.path for b in bs]}
                for outcome, bs in self.outcomes.items()],
            **({"odds": self.odds.as_dict()} if self.odds is not None else {}),
            "branches": [{
                "choices": [{"chooser": c.chooser, "label": c.label, "options": list(c.options),
                             "picked": c.options[c.picked],
                             **({"chance": True, "probabilities": [str(w) for w in c.weights]} if is_chance(c) else {})}
                            for c in b.choices],
                **({"probability": str(b.probability)} if self.odds is not None else {}),
                "outcome": b.outcome, "illegal": b.illegal, "before": b.before, "after": b.after,
                "trace": [s.as_dict() for s in b.steps]} for b in self.branches],
            "depends_on": {"points": self.points, "sections": self.sections, "cards": self.cards,
                           "rulings": self.rulings},
        }


def answer(kb: KnowledgeBase, info: ScenarioInfo, as_of: Optional[_dt.date] = None,
           tournament: Optional[bool] = None, bounds: Optional[Bounds] = None,
           point_cache: Optional[dict] = None) -> Answer:
    """Answer one scenario. Raises EngineError for a question the engine cannot answer."""
    sc = info.scenario
    game = info.game
    engine = engine_for(game)
    if engine is None:
        raise EngineError(f"there is no interpreter for {game} yet", sc.loc,
                          "its scenarios are kept as data until one is written", code="no-engine")
    day = as_of or (sc.as_of.start() if sc.as_of else _dt.date.today())
    modes = kb.games[game].modes
    mode = "tournament" if tournament else (sc.mode or next(iter(modes)))
    bounds = bounds or Bounds()
    cache = point_cache if point_cache is not None else {}
    fixed = engine.fixed_choices(info)

    def run(script):
        ctx = Context(kb, game, day, mode, script, fixed, bounds, cache)
        illegal = None
        try:
            state = engine.setup(ctx, info)
            before = engine.board(state)
            for call in engine.actions(info):
                engine.act(ctx, state, call)
        except IllegalAction as e:
            illegal = e.message
            ctx.steps.append(Step(f"ルール上できない: {e.message}", (e.cite,) if e.cite else (), "illegal"))
            before = locals().get("before")
        except StepLimit:
            tail = "\n".join(f"  {s.text}" for s in ctx.steps[-5:])
            raise EngineError(f"stopped after {len(ctx.steps)} steps ({ctx.depth} effects deep): the effects seem to loop; "
                              f"the last steps were:\n{tail}",
                              sc.loc, "check effects that trigger each other, e.g. two on_flipped effects that flip each other",
                              code="step-limit") from None
        results = [_evaluated(engine.expect(ctx, state, call, illegal), illegal) for _, call in info.expects]
        branch = Branch(list(ctx.choices), ctx.steps, engine.outcome(state, illegal), illegal,
                        before, engine.board(state), results)
        return ctx.choices, (branch, ctx)

    try:
        runs = explore(run, bounds)
    except BranchLimit as e:
        raise branch_limit_error(e, bounds, sc.loc) from None
    except ChanceLimit as e:
        raise EngineError(f"the chance point 「{e.label}」 has {e.outcomes:,} outcomes, more than the limit of "
                          f"{e.limit:,}; stopped before enumerating them", e.loc or sc.loc,
                          "fix the dice in the scenario, or raise the limit with --max-outcomes N",
                          code="chance-limit") from None
    runs.sort(key=lambda r: [c.picked for c in r[0]])
    branches = [b for _, (b, _) in runs]
    contexts = [ctx for _, (_, ctx) in runs]

    odds = None
    if any(is_chance(c) for b in branches for c in b.choices) or any(e.probability for e, _ in info.expects):
        odds = summarize(branches, len(info.expects))
    expectations = []
    for i, (e, call) in enumerate(info.expects):
        applies = (e.valid_from is None or e.valid_from.start() <= day) and \
                  (e.valid_until is None or day <= e.valid_until.end())
        holds = [b.results[i][0] for b in branches]
        modality = e.modality or "always"
        ok = {"always": all(holds), "possible": any(holds), "never": not any(holds)}[modality]
        found = sorted({b.results[i][1] for b in branches if b.results[i][0] != (modality != "never")})
        per_plan = None if odds is None else [(p.label, p.holds[i]) for p in odds.plans]
        if e.probability is not None:
            ok, found = probability_expectation(e, modality, per_plan or [])
        text = engine.describe(kb, call)
        if e.probability is not None:
            text += f"（その確率 {e.probability.op} {e.probability.value}）"
        expectations.append(ExpectationResult(
            text=text, modality=modality, ok=ok, applies=applies,
            holds_in=sum(holds), branches=len(branches), found=found, loc=str(e.loc),
            probability=f"{e.probability.op} {e.probability.value}" if e.probability else None,
            odds=None if per_plan is None else [{"plan": label, "probability": str(p)} for label, p in per_plan]))

    cites: dict[tuple, Cite] = {}
    for b in branches:
        for s in b.steps:
            for c in s.cites:
                cites.setdefault(c.key(), c)
    statuses = [c.status for c in cites.values()]
    cautions = sorted((c for c in cites.values() if c.status in _CAUTION),
                      key=lambda c: (-c.status.rank, c.ref))
    fuzzy = sorted({c.note for c in cites.values() if c.kind == "ruling" and c.note})
    points: dict[str, dict] = {}
    rulings: set[str] = set()
    sections: set[str] = set()
    cards: set[str] = set()
    for ctx in contexts:
        sections |= ctx.sections
        cards |= ctx.cards
        rulings |= ctx.rulings
        for (name, card), r in ctx.points.items():
            key = f"card({card}).{name}" if card else name
            points[key] = {"value": r.value, "status": r.status.value, "from": r.cite,
                           "source": r.source}
            if r.ruling:
                rulings.add(f"{r.ruling}@{r.revision}")
    return Answer(
        scenario=sc.id, title=sc.title, question=sc.question, game=game, as_of=day, mode=mode,
        branches=branches, expectations=expectations, status=weakest(statuses), cautions=cautions,
        fuzzy=fuzzy, points=dict(sorted(points.items())), sections=sorted(sections),
        cards=sorted(cards), rulings=sorted(rulings), odds=odds)


def _evaluated(result, illegal: Optional[str]) -> tuple[bool, str]:
    """An expectation an engine did not evaluate (None: an action before it was illegal)."""
    if result is None:
        return False, f"評価しない（ルール上できない操作があった: {illegal}）"
    return result


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


def branch_limit_error(e: BranchLimit, bounds: Bounds, loc) -> EngineError:
    """Name the branch point that multiplies the runs most: a chance point (with where the
    scenario leaves it open) or a player's choice."""
    widest = max(e.choices, key=lambda c: len(c.options), default=None)
    if widest is None:
        where = ""
    elif is_chance(widest):
        where = f"; the widest branch point is the chance point 「{widest.label}」 ({len(widest.options)} outcomes)"
        loc = widest.loc or loc
    else:
        where = f"; the widest branch point is {widest.chooser or 'nobody'}'s choice 「{widest.label}」 " \
                f"({len(widest.options)} options)"
    return EngineError(f"more than {bounds.max_branches} branches of choices and chance; stopped exploring{where}",
                       loc, "fix some choices (`choose PLAYER OPTION`) or dice in the scenario, "
                            "or raise the limit with --max-branches N", code="branch-limit")
