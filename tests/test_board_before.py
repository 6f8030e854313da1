"""The board before the actions, kept (from the second time it is drawn) per scenario, day, mode
and reading and shared by every later run of the question (GameEngine.board_before): it is the
set-up's own board, and the board after the actions is never taken for it."""

from rulesdsl.engine.context import Context, EngineError
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer

GAMES = ("grm", "thgm", "royal", "pm")


def test_every_runs_board_before_is_the_one_a_fresh_set_up_draws(kb):
    compared = 0
    for game in GAMES:
        engine = engine_for(game)
        infos = sorted((s for s in kb.scenarios.values() if s.game == game and s.expects), key=lambda s: s.id)
        for info in infos[:30]:
            try:
                a = answer(kb, info)        # with the readings tried: every run shares the board
            except EngineError:
                continue
            ctx = Context(kb, game, a.as_of, a.mode, fixed=engine.fixed_choices(info))
            try:
                state = engine.setup(ctx, info)
            except Exception:
                continue
            if ctx.choices or ctx.assigned:
                continue
            state.fresh = None          # drawn afresh, not remembered
            own = engine.board(state)
            for b in a.branches:
                if b.before is not None:
                    assert b.before == own, info.id
                    compared += 1
    assert compared > 100


def test_the_board_after_the_actions_is_drawn_from_the_state_and_the_before_is_shared():
    from conftest import REPO
    from rulesdsl.kb.build import load
    kb = load(REPO)
    info = kb.scenarios["royal/qa/chain-ten-links"]
    first = answer(kb, info, settled=False)
    again = answer(kb, info, settled=False)
    third = answer(kb, info, settled=False)
    # kept the second time it is drawn (a question asked once keeps none), then shared
    assert first.branches[0].before == again.branches[0].before
    assert first.branches[0].before is not again.branches[0].before
    assert again.branches[0].before is third.branches[0].before
    assert first.branches[0].after != first.branches[0].before       # the chain resolved: a board of its own
    assert first.branches[0].after is not again.branches[0].after


def test_a_board_after_read_late_is_the_one_read_at_once(kb):
    """The board after the actions is drawn when first read (late.RunBranch): read only after
    the question has been answered again (its set-up kept and copied, its runs repeated, the
    readings tried) and after other questions, it is the board an answer read at once shows."""
    late = []
    for game in GAMES:
        infos = sorted((s for s in kb.scenarios.values() if s.game == game and s.expects), key=lambda s: s.id)
        for info in infos[:40]:
            try:
                late.append((info, answer(kb, info, settled=False), answer(kb, info)))
            except EngineError:
                continue
    compared = 0
    for info, alone, asked in late:
        for a in (alone, asked):
            now = answer(kb, info, settled=a is alone)
            assert [b.after for b in now.branches] == [b.after for b in a.branches], info.id
            compared += len(now.branches)
    assert compared > 200


def test_no_board_is_drawn_until_one_is_read_and_the_one_read_late_is_the_set_ups(kb, monkeypatch):
    """A run draws neither board (late.Redrawn, late.RunBranch): `rulesdsl test`, the history
    and the readings never read them. Read later — after other questions were answered — the
    board before the actions is the one a fresh set-up draws."""
    engine = engine_for("royal")
    drawn = []
    board = type(engine).board

    def counted(self, state):
        drawn.append(state)
        return board(self, state)
    monkeypatch.setattr(type(engine), "board", counted)
    infos = sorted((s for s in kb.scenarios.values() if s.game == "royal" and s.expects), key=lambda s: s.id)[:20]
    answers = []
    for info in infos:
        try:
            answers.append((info, answer(kb, info, settled=False)))
        except EngineError:
            continue
    assert len(answers) > 10 and drawn == []
    for info, a in answers:
        ctx = Context(kb, "royal", a.as_of, a.mode, fixed=engine.fixed_choices(info))
        state = engine.setup(ctx, info)
        state.fresh = None
        assert a.branches[0].before == board(engine, state), info.id
    assert len(drawn) == len(answers)       # each read drew its board once
