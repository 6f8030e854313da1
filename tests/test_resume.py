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
