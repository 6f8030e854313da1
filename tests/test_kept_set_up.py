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
