"""A run resumed from the state before one of its actions is the run from the set-up (issue 25,
engine.resume): another branch or another reading that reaches an action the way a kept run did
(the same options picked, every point consulted at the value seen) starts there from a copy of
the game's state, and its answer — the answer's words, status, readings, boards, trace — is the
answer made without resuming, byte for byte."""

from __future__ import annotations

import gc
import json
import weakref

from rulesdsl.engine import resume, runner
from rulesdsl.engine.context import EngineError
from rulesdsl.engine.deciding import RunMemo
from rulesdsl.engine.resume import graph_copier

# every game, with questions that branch on choices and chance and readings changed late
SAMPLE = ("grm/qa/", "thgm/qa/", "royal/qa/", "pm/qa/")


def _everything(a) -> str:
    out = a.to_json()
    out["steps"] = [[s.text for s in b.steps] for b in a.branches]
    out["boards"] = [(b.before, b.after) for b in a.branches]
    return json.dumps(out, ensure_ascii=False, sort_keys=True, default=str)


def _answers(kb, sids) -> tuple[dict[str, str], int]:
    said, resumed = {}, 0
    for sid in sids:
        memo = RunMemo()
        try:
            said[sid] = _everything(runner.answer(kb, kb.scenarios[sid], run_memo=memo))
        except EngineError as e:
            said[sid] = e.message
        resumed += memo.resumes.resumed if memo.resumes is not None else 0
    return said, resumed


def test_an_answer_made_with_resumed_runs_is_the_answer_made_from_the_set_up(kb, monkeypatch):
    sids = [sid for sid, info in sorted(kb.scenarios.items())
            if sid.startswith(SAMPLE) and info.expects and sid != "thgm/qa/decide-bat-and-reroll"]
    # resume wherever a kept run allows it, however cheap the run (the engine does so only where it pays)
    monkeypatch.setattr(runner, "MIN_RUNS", 0)
    monkeypatch.setattr(resume, "_PAYS", 0.0)
    with_resume, resumed = _answers(kb, sids)
    monkeypatch.setattr(runner, "copier", lambda engine: None)     # no game copies its state: no resuming
    from_set_up, none = _answers(kb, sids)
    assert none == 0
    for sid in sids:
        assert with_resume[sid] == from_set_up[sid], sid
    assert len(sids) > 300 and resumed > 300, (len(sids), resumed)     # the test is not vacuous


def test_the_question_of_thousands_of_runs_resumes_them_and_answers_the_same(kb, monkeypatch):
    sid = "thgm/qa/decide-bat-and-reroll"       # every reading's dice enumerated: 16,032 runs
    with_resume, resumed = _answers(kb, [sid])
    monkeypatch.setattr(runner, "copier", lambda engine: None)
    from_set_up, _ = _answers(kb, [sid])
    assert with_resume == from_set_up
    assert resumed > 10_000, resumed


class _Piece:
    __slots__ = ("where", "holder", "__weakref__")

    def __init__(self, where: str) -> None:
        self.where, self.holder = where, None


class _Board:
    def __init__(self) -> None:
        self.rows = {"a": [], "b": []}
        self.fresh = ({"memo": 1}, "key")
        self.label = ("a", "b")


def test_the_state_copy_copies_the_games_objects_once_wherever_held_and_shares_the_rest():
    copy = graph_copier(_Board, _Piece)
    board = _Board()
    piece, other = _Piece("a"), _Piece("b")
    piece.holder = weakref.ref(other)
    board.rows["a"].append(piece)
    board.rows["b"].append(other)
    board.last = (piece, "played")
    twin = copy(board)
    assert twin is not board and twin.rows is not board.rows and twin.rows["a"] is not board.rows["a"]
    moved = twin.rows["a"][0]
    assert moved is not piece and moved.where == "a"
    assert twin.last[0] is moved                        # one copy of an object held twice
    assert moved.holder() is twin.rows["b"][0]          # a weak reference follows to the copy
    assert twin.fresh is board.fresh and twin.label is board.label   # the memo and values: shared
    moved.where = "b"
    twin.rows["b"].append(twin.rows["a"].pop())
    assert piece.where == "a" and board.rows["a"] == [piece]    # the original is untouched
    gc.collect()
    gc.disable()
    try:
        copy(board)
        assert gc.collect() == 0                        # a copy leaves no cycle behind
    finally:
        gc.enable()


def _same_shape(a, b, kinds: tuple, pairs: dict, shells=(list, tuple, set, dict)) -> None:
    """`b` is `a` copied as `graph_copier(*kinds)` copies: objects of `kinds` and containers holding
    them new (one copy of each, wherever held: `pairs` maps a's ids to b's objects), every other
    value the very same object."""
    if type(a) in kinds:
        assert type(b) is type(a) and b is not a, "an object of the state is copied"
        if id(a) in pairs:
            assert pairs[id(a)] is b, "an object held twice is copied once"
            return
        pairs[id(a)] = b
        names = [n for n in getattr(type(a), "__slots__", ()) if n != "__weakref__"] or list(vars(a))
        assert names == ([n for n in getattr(type(b), "__slots__", ()) if n != "__weakref__"] or list(vars(b)))
        for n in names:
            x, y = getattr(a, n), getattr(b, n)
            if n == "fresh" or type(x) not in kinds + shells:
                assert x is y, n                    # a value, or the memo: shared
            else:
                _same_shape(x, y, kinds, pairs)
        return
    assert type(b) is type(a)
    assert b is not a or (type(a) is tuple and not any(type(x) in kinds + shells for x in a)), \
        "a container is copied (a tuple of values is itself a value)"
    if type(a) is set:
        assert a == b
        return
    if type(a) is dict:
        assert list(a) == list(b)
        a, b = list(a.values()), list(b.values())
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if type(x) in kinds + shells:
            _same_shape(x, y, kinds, pairs)
        else:
            assert x is y


def test_thgms_own_copy_copies_exactly_what_the_walk_of_its_state_copies(kb, monkeypatch):
    """東方グランドメレー writes its copy out field by field (games/thgm/state.py `copy_state`):
    over the states its runs resume from in the corpus, it makes new what `graph_copier` (the
    walk of every field and item) makes new, once wherever held, shares what it shares, and a copy
    changed leaves the original as it was."""
    from rulesdsl.games.thgm import state as S
    from rulesdsl.games.thgm.engine import ThgmEngine
    states = []
    real = ThgmEngine.copy_state

    def kept(st):
        states.append(st)
        return real(st)
    monkeypatch.setattr(ThgmEngine, "copy_state", staticmethod(kept))
    monkeypatch.setattr(runner, "MIN_RUNS", 0)
    monkeypatch.setattr(resume, "_PAYS", 0.0)
    for sid, info in sorted(kb.scenarios.items()):
        if info.game == "thgm" and sid != "thgm/qa/decide-bat-and-reroll":
            try:
                runner.answer(kb, info, run_memo=RunMemo())
            except EngineError:
                pass
    assert len(states) > 200 and any(st.attack is not None for st in states) \
        and any(st.last_attack is not None and st.last_attack.fue_reroll for st in states) \
        and any(st.turn_effects for st in states), len(states)
    kinds = (S.State, S.Side, S.Attack, S.Char)
    walk = graph_copier(*kinds)
    for st in states:
        by_hand, walked = S.copy_state(st), walk(st)
        _same_shape(st, walked, kinds, {})      # the reference itself, as this test reads it
        _same_shape(st, by_hand, kinds, {})
        injured = [c.injured for side in st.sides.values() for c in side.front.values()]
        for side in by_hand.sides.values():     # and it is a copy: changed, the original is not
            for c in side.front.values():
                c.injured = not c.injured
            side.score_cards.append(None)
        assert all(None not in side.score_cards for side in st.sides.values())
        assert [c.injured for side in st.sides.values() for c in side.front.values()] == injured
