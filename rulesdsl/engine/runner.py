"""Answering a scenario: run it under every unfixed choice, check its expectations, and gather
the verdict, the traces, the statuses relied on and the dependencies consulted.

The runner is game-neutral; a game plugs in through `GameEngine` (see `registry`).
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
import gc
from typing import Optional

from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from ..lang.model import Status, weakest
from .answer import Answer, Branch, ExpectationResult
from .chance import ChanceLimit, is_chance, summarize
from .context import Bounds, BranchLimit, Context, EngineError, IllegalAction, StepLimit, carded_games, explore
from .deciding import SEASON_POINT, RunMemo, settle
from .expecting import add_status_checks, probability_expectation, under_policy
from .late import Pending, Redrawn, RunAnswer, RunBranch, RunExpectation, Worded
from .registry import engine_for
from .resume import MIN_RUNS, Resumes, copier
from .sentences import answer_sentences
from .trace import Cite, Step

_CAUTION = (Status.unconfirmed, Status.unofficial, Status.provisional)
_BOUNDS = Bounds()      # the default bounds (read, never changed): made once, not per answer and reading


def answer(kb: KnowledgeBase, info: ScenarioInfo, as_of: Optional[_dt.date] = None,
           tournament: Optional[bool] = None, bounds: Optional[Bounds] = None,
           point_cache: Optional[dict] = None, reading: Optional[dict[str, str]] = None,
           settled: bool = True, run_memo: Optional[RunMemo] = None) -> Answer:
    """Answer one scenario (under `reading`, other values for rule points, if given). Without a
    reading (and unless `settled` is false) the answer is tried under the other values of the
    points it consulted that are not confirmed, and its status counts only those that decide it
    (engine.deciding); `run_memo` keeps the runs made meanwhile, so that a reading that would repeat
    one does not run it again. Raises EngineError for a question the engine cannot answer.

    The cyclic garbage collector is paused while a question is answered (as `collector_paused`
    does, written in: one answer of a question asked once is short enough for its calls to count)."""
    was = gc.isenabled()
    if was:
        gc.disable()
    try:
        return _answer(kb, info, as_of, tournament, bounds, point_cache, reading, settled, run_memo)
    finally:
        if was:
            gc.enable()


class collector_paused:
    """Pauses the cyclic garbage collector for what it encloses, and lets it run again after
    (if it was running: nested, only the outermost resumes it).

    A question's runs build objects that live until it is answered — the runs kept to be reused
    and resumed from, their traces and choices — and the collector, which counts allocations,
    walks them all again each time they have grown by a quarter: for a question of thousands of
    runs (dice enumerated under every reading) more than half of its time
    (benchmarks/README.md, «The collector, the dice and the history»). Answers make no reference cycles (each question of
    the corpus leaves nothing for the collector: tests/test_answer_cycles.py), so reference counting
    frees what a question let go of as before; a cycle an answer did make is collected once the
    collector runs again."""

    __slots__ = ("was",)

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        if self.was:
            gc.disable()

    def __exit__(self, *exc) -> None:
        if self.was:
            gc.enable()


def _answer(kb: KnowledgeBase, info: ScenarioInfo, as_of: Optional[_dt.date], tournament: Optional[bool],
            bounds: Optional[Bounds], point_cache: Optional[dict], reading: Optional[dict[str, str]],
            settled: bool, run_memo: Optional[RunMemo]) -> Answer:
    sc = info.scenario
    game = info.game
    engine = engine_for(game)
    if engine is None:
        raise EngineError(f"there is no interpreter for {game} yet", sc.loc,
                          "its scenarios are kept as data until one is written", code="no-engine")
    day = as_of or (sc.as_of.start() if sc.as_of else _dt.date.today())
    modes = kb.games[game].modes
    mode = "tournament" if tournament else (sc.mode or next(iter(modes)))
    bounds = bounds or _BOUNDS
    cache = point_cache if point_cache is not None else {}
    if reading and SEASON_POINT in reading:         # season dates read another way
        kb = kb.under_calendar(reading[SEASON_POINT])
        cache = {}
    fixed = engine.fixed_choices(info)
    memo = run_memo if run_memo is not None else (RunMemo() if settled and not reading else None)
    # under another reading only the answer's words, whether its expectations hold, its outcomes
    # and its status are shown (engine.deciding, the readings list): no board, but the final one
    # where the game words an expectation from it (a GRM face expectation: 「a1のカードは」)
    boards = not reading
    final_board = boards or any(engine.words_from_boards(call) for _, call in info.expects)

    # the actions to perform, the same under every reading of the test of what decides
    calls = memo.calls if memo is not None and memo.calls is not None else list(engine.actions(info))
    copy = copier(engine)
    if memo is not None:
        memo.calls, memo.kb = calls, kb     # (kb: the season reading's, which `find` compares runs made under another with)
        if memo.resumes is None and copy is not None:
            memo.resumes = Resumes(copy)
    # a refusal the game goes on from, when the scenario asks about the state after it; one that
    # asks only whether the actions are allowed has the (first) refusal as its answer, as at a table
    # (and whether an expectation asks a probability: the answer's odds are then summed up)
    goes_on = probable = False
    for e, call in info.expects:    # a loop, not `any(...)`s: a question has one to three expectations
        if call.name not in ("illegal", "legal"):
            goes_on = True
        if e.probability:
            probable = True
    named = game in carded_games(kb)      # else no point asks for the cards an action names

    def rebuild(script, done, since=None):
        """The state before a refused action: the set-up and the actions that took effect,
        replayed on a scratch context with the same picks (a run is deterministic given them) —
        from `since`, the state kept at the run's last refusal (the state then, replayed on from
        there and no longer kept; the choices met and the fixed choices left then; how many of
        `done` it had), where the game copies its states."""
        scratch = Context(kb, game, day, mode, script, fixed, bounds, cache, reading)
        if since is None:
            state, start = engine.setup(scratch, info), 0
        else:
            state, met, left, start = since
            scratch.choices, scratch.fixed = list(met), {k: list(v) for k, v in left.items()}
        for call in done[start:]:
            engine.act(scratch, state, call)
        return state, scratch

    def redraw(picks):
        """The board before the actions of a run whose set-up met `picks` (`Redrawn`)."""
        return engine.board(rebuild(picks, ())[0])

    def run(script):    # with a memo of the question's runs (without one, `run_anew` is the run)
        made = memo.find(script, reading or {})
        if made is not None:
            return made
        made = run_anew(script)
        memo.keep(script, reading or {}, made)
        return made

    def run_anew(script):
        ctx = Context(kb, game, day, mode, script, fixed, bounds, cache, reading)
        # in a question that has made many runs, a run starts from the state before the latest
        # action a run made before reached the same way (the same options picked, the points
        # consulted at the values seen: engine.resume)
        resumes = memo.resumes if memo is not None and memo.made >= MIN_RUNS else None
        illegal = None
        refused: list[IllegalAction] = []
        since = None        # the state at the last refusal, to replay the next from (rebuild)
        before = None       # the board before the actions, once drawn
        try:
            start = resumes.find(script, reading or {}, kb, boards) if resumes is not None else None
            if start is None:
                first = 0
                if resumes is not None:
                    resumes.start(None)
                state = engine.setup(ctx, info)
                if boards:      # drawn when first read (most answers' never is), from the set-up made again
                    before = Redrawn(redraw, [c.picked for c in ctx.choices] if ctx.choices else [])
                    if getattr(state, "fresh", None) is not None:
                        state.fresh = None      # as drawing it did: the board after the actions is the state's own
                done = []
            else:
                first = start.k
                state, before, done = resumes.restore(start, ctx)
                before = before if boards else None
                resumes.start(start)
            for k in range(first, len(calls)):
                call = calls[k]
                if resumes is not None and not refused and (start is None or k > first) and resumes.worth():
                    resumes.keep(k, ctx, state, done, before, reading or {})
                mark, asked = len(ctx.choices), len(ctx.assigned)
                ctx.subjects = engine.subjects(state, call) if named else ()
                try:
                    engine.act(ctx, state, call)
                except IllegalAction as e:
                    if not goes_on or not any(not c.name.startswith("_") for c in calls[k + 1:]):
                        raise       # nothing of the scenario's follows (a game's own markers aside): the refusal is the answer
                    # refused: the action does not happen, and the game goes on from the state before it
                    refused.append(e.with_traceback(None))   # kept: not its frames (a cycle through this one)
                    ctx.steps.append(Step(f"ルール上できない: {e.message}（この操作は行われず、その前の状態からゲームを続ける）",
                                          e.cites, "illegal"))
                    if e.untouched and len(ctx.assigned) == asked:
                        # refused before it changed anything, and nothing was chosen: the state is
                        # the one before it
                        continue
                    del ctx.choices[mark:]
                    state, scratch = rebuild([c.picked for c in ctx.choices], done, since)
                    ctx.fixed = scratch.fixed
                    twin = copy(state) if copy is not None else None
                    if twin is not None:    # the next refusal replays from here: the run goes on on a copy
                        since = (state, list(ctx.choices), {k: list(v) for k, v in ctx.fixed.items()}, len(done))
                        state = twin
                    continue
                finally:
                    ctx.subjects = ()
                done.append(call)
        except IllegalAction as e:
            illegal = e.with_traceback(None)
            ctx.steps.append(Step(f"ルール上できない: {e.message}", e.cites, "illegal"))
        except StepLimit:
            tail = "\n".join(f"  {s.text}" for s in ctx.steps[-5:])
            raise EngineError(f"stopped after {len(ctx.steps)} steps ({ctx.depth} effects deep): the effects seem to loop; "
                              f"the last steps were:\n{tail}",
                              sc.loc, "check effects that trigger each other, e.g. two on_flipped effects that flip each other",
                              code="step-limit") from None
        message = illegal.message if illegal else None
        if refused and not illegal:   # a refusal the game went on from: legality asks of it, the rest of the state
            said = "、".join(e.message for e in refused)
            results = [engine.expect(ctx, state, call, said if call.name in ("illegal", "legal") else None)
                       for _, call in info.expects]
        else:
            results = []
            for _, call in info.expects:
                results.append(engine.expect(ctx, state, call, message))
        outcome = engine.outcome(state, message)
        if refused:     # the outcome says what did not happen, then where the game went on to
            outcome = "; ".join([*(f"ルール上できない（行われなかった）: {e.message}" for e in refused), outcome])
        branch = RunBranch(list(ctx.choices), ctx.steps, outcome, message,
                           before, Pending(engine.board, state) if final_board else None, results,
                           illegal.cite if illegal else None, [e.message for e in refused] if refused else [])
        return ctx.choices, (branch, ctx)

    try:
        runs = explore(run if memo is not None else run_anew, bounds)
    except BranchLimit as e:
        raise branch_limit_error(e, bounds, sc.loc) from None
    except ChanceLimit as e:
        raise EngineError(f"the chance point 「{e.label}」 has {e.outcomes:,} outcomes, more than the limit of "
                          f"{e.limit:,}; stopped before enumerating them", e.loc or sc.loc,
                          "fix the dice in the scenario, or raise the limit with --max-outcomes N",
                          code="chance-limit") from None
    if len(runs) > 1:
        runs.sort(key=lambda r: [c.picked for c in r[0]])
    branches, contexts = [], []
    for _, (b, ctx) in runs:
        branches.append(b)
        contexts.append(ctx)
    if fixed and not reading:  # under another reading a choice the scenario fixes may not arise at all
        _unused_fixed(contexts, sc)

    odds = None
    if probable or (len(branches) > 1 and any(is_chance(c) for b in branches if b.choices for c in b.choices)):
        # (one run: no chance point had two outcomes)
        odds = summarize(branches, len(info.expects))
    expectations = []
    # the words, written when first read (late.RunExpectation): the verdict reads none; under
    # another reading at once (the test of what decides compares the readings' sentences, which
    # word the expectations: every such answer's words are read)
    result = ExpectationResult if reading else RunExpectation
    for i, (e, modality, call, loc, bound) in enumerate(_expects(kb, info)):
        if bound is None:
            text = describe(kb, engine, call) if reading else Worded(describe, (kb, engine, call))
            statement = None
        elif reading:
            text, statement = _bounded(kb, engine, call, e.probability), describe(kb, engine, call)
        else:
            text, statement = Worded(_bounded, (kb, engine, call, e.probability)), Worded(describe, (kb, engine, call))
        applies = (e.valid_from is None or e.valid_from.start() <= day) and \
                  (e.valid_until is None or day <= e.valid_until.end())
        want = modality != "never"      # what a run that bears the expectation out finds
        if len(branches) == 1:          # most questions: one run, its result read directly
            r = branches[0].results[i]
            ok, evaluated, holds_in, found = (False, 0, 0, []) if r is None else \
                (bool(r[0]) if want else not r[0], 1, 0 + r[0], [r[1]] if r[0] != want else [])
        else:
            checked = [b.results[i] for b in branches if b.results[i] is not None]
            holds = [r[0] for r in checked]
            ok = bool(checked) and len(checked) == len(branches) and \
                (all(holds) if modality == "always" else any(holds) if modality == "possible" else not any(holds))
            evaluated, holds_in = len(checked), sum(holds)
            found = sorted({r[1] for r in checked if r[0] != want})
        per_plan = None if odds is None else [(p.label, p.holds[i]) for p in odds.plans]
        if bound is not None and per_plan is not None:
            per_plan = under_policy(e, i, branches, odds, per_plan)
        if bound is not None and evaluated == len(branches):
            ok, found = probability_expectation(e, modality, per_plan or [])
        expectations.append(result(     # by position (one per expectation and answer): text,
            # modality, ok, applies, holds_in, branches, found, loc, evaluated, probability, statement, odds
            text, modality, ok, applies, holds_in, len(branches), found, loc, evaluated, bound, statement,
            None if per_plan is None else [{"plan": label, "probability": str(p)} for label, p in per_plan]))

    cites: dict[tuple, Cite] = {}
    gaps: dict[str, Cite] = {}
    assumed: dict[str, None] = dict.fromkeys(info.assumptions)
    met: set[Cite] = set()      # the citations seen, by identity (steps cite the same objects again and again)
    for b in branches:
        for s in b.steps:
            for c in s.cites:
                if c in met:
                    continue
                met.add(c)
                kind = c.kind
                if kind == "gap":
                    gaps.setdefault(c.ref, c)
                elif kind == "assumption":   # 仮定: listed with the answer, no status of the rules
                    assumed.setdefault(f"{c.note}（{c.ref}）")
                else:
                    k = c._key      # Cite.key, read without a call where it is made already
                    if k is None:
                        k = c.key()
                    if k not in cites:
                        cites[k] = c
    relies: dict[tuple, set[str]] = {}
    direct: set[tuple] = set()
    for ctx in contexts:
        # a ruling the engine relied on directly counts whether or not a step of the trace shows
        # it (an expectation checked against a value the reading gives, say)
        for k, c in ctx.direct.items():
            direct.add(k)
            if k not in cites:
                cites[k] = c
        for k, via in ctx.point_cites.items():
            had = relies.get(k)
            if had is None:
                relies[k] = set(via)
            else:
                had.update(via)
    statuses: list[Status] = []     # the citations' statuses in their order, in one loop: those of
    cautions: list[Cite] = []       # cautions with the citation, the others among the firm ones
    firm: list[Status] = []
    for c in cites.values():
        status = c.status
        statuses.append(status)
        if status in _CAUTION:
            cautions.append(c)
        else:
            firm.append(status)
    if len(cautions) > 1:
        cautions.sort(key=_caution_order)
    points: dict[str, dict] = {}
    unsettled: dict[str, dict] = {}
    rulings: set[str] = set()
    fuzzy_notes: set[str] = set()
    if len(contexts) == 1:      # most questions: one run, whose sets are only read (sorted) below
        sections, cards = contexts[0].sections, contexts[0].cards
    else:
        sections, cards = set(), set()
        for ctx in contexts:
            sections |= ctx.sections
            cards |= ctx.cards
    for ctx in contexts:
        rulings |= ctx.rulings
        for (name, card), r in ctx.points.items():
            if r.fuzzy:
                fuzzy_notes.add(r.fuzzy)
            key = f"card({card}).{name}" if card else name     # a status's _value_: `.value` is Enum's Python property
            points[key] = {"value": r.value, "status": r.status._value_, "from": r.cite,
                           "source": r.source}
            if r.ruling:
                rulings.add(f"{r.ruling}@{r.revision}")
            if r.unsettled:
                unsettled[key] = {"point": name, "card": card, "value": r.value, "gap": r.unsettled,
                                  "readings": list(r.readings), "status": r.status._value_}
    season = _season_reading(kb, game, day)
    if season is not None:
        unsettled[SEASON_POINT] = season
        decl = kb.games[game].points[SEASON_POINT]
        label = next((v.label for v in decl.values if v.name == season["value"]), season["value"])
        cite = Cite("ruling", f"{decl.unsettled}@undated", Status.unconfirmed, None, decl.reason)
        step = Step(f"季節で日付が示された裁定の始まる日は、季節を{label}で読んで決める", (cite,), "rule")
        for b in branches:   # the answer rests on how a season is read: say so, and weaken its status
            b.steps = [step, *b.steps]      # a new list: the run's own is kept as made (deciding.RunMemo)
        statuses.append(Status.unconfirmed)
        relies.setdefault(cite.key(), set()).add(SEASON_POINT)
        cautions = sorted([*cautions, cite], key=_caution_order)
        rulings.add(f"{decl.unsettled}@undated")
    illegal = None
    if branches and _all_illegal(branches):
        first = branches[0]
        cite = getattr(first, "illegal_cite", None)
        illegal = {"message": first.illegal, "rule": cite.ref if cite else None,
                   "title": cite_title(kb, cite) if cite else None}
    a = RunAnswer(
        scenario=sc.id, title=sc.title, question=sc.question, game=game, as_of=day, mode=mode,
        branches=branches, expectations=expectations, status=weakest(statuses), cautions=cautions,
        fuzzy=sorted(fuzzy_notes), points=dict(sorted(points.items())), sections=sorted(sections),
        cards=sorted(cards), rulings=sorted(rulings), choosers=_choosers(kb, contexts), illegal=illegal,
        unsettled=dict(sorted(unsettled.items())), reading=dict(reading or {}),
        assumptions=list(assumed), authority=Worded(_authority, (kb, game, cites.values())),
        gaps=[c.as_dict() for c in gaps.values()] if gaps else [], odds=odds, relies=relies, direct=direct,
        firm=firm)
    if reading:     # under another reading the sentences are read (compared): written at once, and
        # the question's own answer words are never read out: the sentences are already the run's own
        a.sentences = a.derived = _sentences(engine, kb, a, info, True)
    else:           # written when first read (late.RunAnswer), from the answer as it is now
        said = _copy.copy(a)
        said.expectations = list(expectations)
        a.sentences = words = Worded(_sentences, (engine, kb, said, info, True))
        a.derived = Worded(_sentences, (engine, kb, said, info, False)) if info.scenario.answer else words
    if settled and not reading:
        def under(r: dict[str, str]) -> Answer:   # the point cache holds values before any reading: shared
            return answer(kb, info, as_of=as_of, tournament=tournament, bounds=bounds,
                          point_cache=cache, reading=r, run_memo=memo)
        settle(kb, a, under)
        _unlink_readings(a)
        add_status_checks(a, sc)
    return a


def _sentences(engine, kb: KnowledgeBase, a: Answer, info: ScenarioInfo, own: bool) -> list[str]:
    """The answer's sentences: the game's own, else the core's (`own` false: never the scenario's
    own answer words)."""
    return engine.answer_sentences(a) or answer_sentences(kb, a, info, own=own)


def _all_illegal(branches: list) -> bool:
    """Did every branch end on an action the rules forbid? (A loop: most questions have one.)"""
    for b in branches:
        if not b.illegal:
            return False
    return True


def _caution_order(c: Cite) -> tuple:
    """The cautions of an answer in order: the weakest first, then by what they cite."""
    return -c.status.rank, c.ref


def _unlink_readings(a: Answer) -> None:
    """The answer's readings list the answer itself (under the default reading): there, a twin
    of it that does not point back at the readings, so that an answer is freed as soon as it is
    dropped instead of waiting for the cyclic garbage collector (whose collections of whole
    answers were a tenth to a sixth of answering a corpus). The twin says what the answer says."""
    r = a.readings
    if r is not None and r.answers and r.answers[0][1] is a:
        twin = _copy.copy(a)
        twin.readings = None
        r.answers[0] = (r.answers[0][0], twin)


def describe(kb: KnowledgeBase, engine, call) -> str:
    """An expectation in words (engine.describe), worded once per knowledge base: the same
    words for every run and every reading the answer is tried under."""
    key = ("engine.describe", id(call))
    found = kb.memo.get(key)
    if found is None or found[0] is not call:   # the call is kept with its words: its id stays its own
        found = kb.memo[key] = (call, engine.describe(kb, call))
    return found[1]


def _expects(kb: KnowledgeBase, info: ScenarioInfo) -> list[tuple]:
    """What an answer says of each expectation whatever its runs found, worked out once per
    question (the answer and every reading it is tried under): the expectation, its modality,
    its call (to word it: `describe`, `_bounded`), where it is written, and a probability's bound
    (`>= 1/2`)."""
    key = ("engine.expects", id(info))
    found = kb.memo.get(key)
    if found is not None and found[0] is info:    # the question is kept with its entry
        return found[1]
    out = []
    for e, call in info.expects:
        prob = e.probability
        out.append((e, e.modality or "always", call, str(e.loc), None if prob is None else f"{prob.op} {prob.value}"))
    kb.memo[key] = (info, out)
    return out


def _bounded(kb: KnowledgeBase, engine, call, prob) -> str:
    """A probability expectation in words, with its policy and bound."""
    policy = f"{prob.best_for}の最善の決め方で" if prob.best_for else \
        ("「" + "」「".join(prob.plan) + "」と決めて" if prob.plan else "")
    return describe(kb, engine, call) + f"（{policy}その確率 {prob.op} {prob.value}）"


BRANCH_LIMIT = "branch-limit"       # the refusal's code: raised once every run explored is made


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
                            "or raise the limit with --max-branches N", code=BRANCH_LIMIT)


def _season_reading(kb: KnowledgeBase, game: str, day: _dt.date) -> Optional[dict]:
    """The season reading as an unsettled point of this answer, when a revision of the game is
    dated to a season whose first day, under some reading, falls after `day` and, under
    another, on or before it (the same for every answer on this knowledge base, game and day:
    worked out once, a copy of its own for each answer)."""
    key = ("engine.season", game, day)
    found = kb.memo.get(key, _UNREAD)
    if found is _UNREAD:
        found = kb.memo[key] = _season_point(kb, game, day)
    return None if found is None else {**found, "readings": list(found["readings"])}


def _season_point(kb: KnowledgeBase, game: str, day: _dt.date) -> Optional[dict]:
    decl = kb.games[game].points.get(SEASON_POINT)
    if decl is None or decl.unsettled is None:
        return None
    # on a day some reading of a season puts inside and another outside it, the answer is tried
    # under each reading whether or not it consulted that season's ruling: a revision coming
    # into force can change what the run meets (engine.deciding then says whether it decides)
    for first, last in _season_starts(kb, game):
        if not first <= day < last:
            continue
        return {"point": SEASON_POINT, "card": None, "value": kb.calendar or decl.readings[0],
                "gap": decl.unsettled, "readings": list(decl.readings), "status": "unconfirmed"}
    return None


def _season_starts(kb: KnowledgeBase, game: str) -> list[tuple[_dt.date, _dt.date]]:
    """The earliest and the latest first day of each of the game's revisions dated to a season
    (`PartialDate.starts`, under any reading: the same for every day asked, so listed once per
    knowledge base and game, not once per day, ~85 revisions at 10,000 cards)."""
    key = ("engine.season-starts", game)
    found = kb.memo.get(key)
    if found is None:
        found = kb.memo[key] = [rev.date.starts() for _, rev in kb.season_revisions(game)]
    return found  # type: ignore[return-value]


def _unused_fixed(contexts: list[Context], sc) -> None:
    """A `choose` that no branch met is a mistake in the scenario, not a choice to ignore."""
    if not contexts or any(not any(ctx.fixed.values()) for ctx in contexts):
        return      # a run used every choice the scenario fixes: none is left unmet by every run
    left = [{(p, f) for p, fs in ctx.fixed.items() for f in fs} for ctx in contexts]
    offered = {o for ctx in contexts for c in ctx.choices for o in c.options}
    # an option the rules give to nobody (or to another player) is not a mistake of the
    # scenario: the answer says who chooses; a value never offered at all is
    never = {(p, f) for p, f in set.intersection(*left) if f.value not in offered}
    if never:
        player, f = sorted(never, key=lambda x: (str(x[1].loc), x[0]))[0]
        offered = sorted({o for ctx in contexts for c in ctx.choices if c.chooser == player for o in c.options})
        raise EngineError(f"{player} is never offered the choice {f.value!r}",
                          f.loc or sc.loc,
                          ("the options offered to " + player + " were: " + ", ".join(offered)) if offered
                          else f"{player} has no choice to make in this scenario", code="choice")


def _choosers(kb: KnowledgeBase, contexts: list[Context]) -> list[dict]:
    seen: dict[tuple, dict] = {}
    for ctx in contexts:
        for chooser, label, cite in ctx.assigned:
            key = (chooser, label)
            if key not in seen:
                seen[key] = {"chooser": chooser, "label": label, "rule": cite.ref if cite else None,
                             "title": cite_title(kb, cite) if cite else None,
                             "status": cite.status.value if cite else None}
    return list(seen.values())


def cite_title(kb: KnowledgeBase, cite: Cite) -> Optional[str]:
    """The title of what a citation names: a rule section's or a ruling's heading."""
    ref = cite.ref.split("@", 1)[0]
    sec = kb.sections.get(ref)
    if sec is not None:
        return sec.title
    ruling = kb.rulings.get(ref)
    if ruling is not None:
        return ruling.title
    return None


def _authority(kb: KnowledgeBase, game: str, cites) -> list[str]:
    """What the documents an answer's citations come from are (「ファンwikiのまとめ。公式ルールではない」)."""
    said_of = kb.memo.get(("engine.authority", game))
    if said_of is None:     # per source, the same for every answer on this knowledge base
        said_of = kb.memo[("engine.authority", game)] = {}
    out: list[str] = []
    for c in cites:
        source = c.source
        if not source:
            continue
        said = said_of.get(source, _UNREAD)
        if said is _UNREAD:
            doc = kb.games[game].documents.get(source.split("§", 1)[0].strip())
            said = said_of[source] = doc.authority if doc is not None else None
        if said is not None and said not in out:
            out.append(said)
    return out


_UNREAD = object()      # a memo entry not made yet (a source's authority, a day's season reading)
