"""A set-up made once (GameEngine.kept_set_up): a game that copies its state (GRM, royal) starts
every later run of the same scenario, day, mode and reading from a copy of the first run's
set-up, with that set-up's trace replayed; and a refused action is replayed from the state at
the run's last refusal. Answers stay those of set-ups made afresh, and a run never changes the
state kept for the next."""

from __future__ import annotations

import json

from rulesdsl.engine.context import Context, EngineError
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer

GAMES = ("grm", "royal")


def _said(kb, info) -> str:
    try:
        a = answer(kb, info)
    except EngineError as e:
        return f"error: {e.message}"
    return json.dumps(a.to_json(), ensure_ascii=False, sort_keys=True, default=str)


def test_answers_from_a_kept_set_up_are_those_of_set_ups_made_afresh(kb, monkeypatch):
    infos = sorted((s for s in kb.scenarios.values() if s.game in GAMES and s.expects), key=lambda s: s.id)
    kept = {info.id: (_said(kb, info), _said(kb, info)) for info in infos}     # the second from kept set-ups
    for game in GAMES:      # no copies: every run sets up afresh, every refusal replays from the set-up
        monkeypatch.setattr(engine_for(game), "copy_state", None)
    kb.memo.clear()
    compared = 0
    for info in infos:
        fresh = _said(kb, info)
        assert kept[info.id] == (fresh, fresh), info.id
        compared += 1
    assert compared > 200


def test_a_run_does_not_change_the_set_up_kept_for_the_next(kb):
    info = kb.scenarios["royal/qa/chain-ten-links"]
    engine = engine_for("royal")
    answer(kb, info, settled=False)         # the set-up made once: not kept
    ctx = Context(kb, "royal", info.scenario.as_of.start(), info.scenario.mode or next(iter(kb.games["royal"].modes)),
                  fixed=engine.fixed_choices(info))
    assert engine.kept_set_up(ctx, info) is None
    answer(kb, info, settled=False)         # made again: kept
    ctx = Context(kb, "royal", info.scenario.as_of.start(), info.scenario.mode or next(iter(kb.games["royal"].modes)),
                  fixed=engine.fixed_choices(info))
    state = engine.kept_set_up(ctx, info)
    assert state is not None and ctx.steps          # a copy, with the set-up's trace replayed
    state.fresh = None                  # drawn from the state itself, not the board kept with the set-up
    before = engine.board(state)
    for call in engine.actions(info):
        try:
            engine.act(ctx, state, call)
        except Exception:
            break
    again = engine.kept_set_up(Context(kb, "royal", ctx.day, ctx.mode, fixed=engine.fixed_choices(info)), info)
    assert again is not state
    again.fresh = None
    assert engine.board(again) == before
    state.fresh = None
    assert engine.board(state) != before        # the run did change its own copy


def test_what_only_the_royal_set_up_writes_no_action_changes(kb):
    """A royal state's copy shares what only the set-up writes (State.SET_UP_ONLY): after every
    royal question is answered (its readings too), the kept set-ups hold what they held."""
    import copy

    from rulesdsl.games.royal.state import State
    infos = sorted((s for s in kb.scenarios.values() if s.game == "royal" and s.expects), key=lambda s: s.id)
    before = {}
    for info in infos:
        for _ in range(2):      # made twice: kept
            try:
                answer(kb, info, settled=False)
            except EngineError:
                break
    kept = [(key, entry[2]) for key, v in kb.memo.items() if isinstance(key, tuple) and key[0] == "engine.set_up"
            for entry in v[1] if entry[2] is not None]
    assert len(kept) > 50
    for key, state in kept:
        before[id(state)] = {name: copy.deepcopy(getattr(state, name)) for name in State.SET_UP_ONLY}
    for info in infos:
        try:
            answer(kb, info)
        except EngineError:
            pass
    for key, state in kept:
        assert {name: getattr(state, name) for name in State.SET_UP_ONLY} == before[id(state)], key


def test_a_refusal_that_changed_nothing_goes_on_from_the_state_as_it_is(kb, monkeypatch):
    """A royal activation refused by its check, with nothing settled before it in the action
    and nothing chosen (IllegalAction.untouched): the run goes on from the state as it is, with
    no replay to the state before the action and no copy of it — and every royal answer is the
    one the replay gives."""
    from rulesdsl.engine.context import IllegalAction
    from rulesdsl.games.royal import chain

    infos = sorted((s for s in kb.scenarios.values() if s.game == "royal" and s.expects), key=lambda s: s.id)
    engine = engine_for("royal")
    copies = []
    real_copy = type(engine).copy_state.__get__(engine)
    monkeypatch.setattr(engine, "copy_state", lambda st: copies.append(1) or real_copy(st))
    ten = kb.scenarios["royal/qa/chain-ten-links"]
    kb.memo.clear()
    answer(kb, ten)                     # the set-up kept: the next answer copies it once per run
    copies.clear()
    answer(kb, ten)         # its test of what decides refuses responses under some readings (32 refusals)
    gone_on = len(copies)
    said = {info.id: _said(kb, info) for info in infos}

    class Replayed(IllegalAction):      # a refusal that never says it changed nothing
        untouched = property(lambda self: False, lambda self, value: None)

    real_refused = chain.refused
    monkeypatch.setattr(chain, "refused", lambda refuse: Replayed(*_args(real_refused(refuse))))
    kb.memo.clear()
    answer(kb, ten)
    copies.clear()
    answer(kb, ten)
    # each refusal replayed, and a copy made of the state before it
    assert len(copies) >= gone_on + 30, (gone_on, len(copies))
    for info in infos:
        assert _said(kb, info) == said[info.id], info.id


def _args(e):
    return (e.message, e.cite, e.loc, e.cites[1:] if e.cite is not None else e.cites)
