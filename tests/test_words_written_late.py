"""An answer's words — its sentences, each expectation's words, the authority of its sources —
are written when first read (engine.late: RunAnswer, RunExpectation, Worded), not for every
answer: the verdict reads none of them. Read late, they are the words written from the answer
as it was made: what is done to it afterwards (the status checks appended, copies) does not
reach them, and a deep copy holds the words, not the knowledge base they are written from."""

import copy

from rulesdsl.engine import runner
from rulesdsl.engine.context import EngineError
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer
from rulesdsl.engine.sentences import answer_sentences

GAMES = ("grm", "thgm", "royal", "pm")


def _questions(kb, game: str, n: int) -> list:
    return sorted((s for s in kb.scenarios.values() if s.game == game and s.expects), key=lambda s: s.id)[:n]


def _words(a) -> tuple:
    return (a.sentences, a.derived, a.authority, [(e.text, e.statement) for e in a.expectations],
            a.to_json())


def test_an_answer_writes_no_words_until_they_are_read_and_then_the_same_as_read_at_once(kb, monkeypatch):
    written = []
    sentences = runner.answer_sentences

    def counted(*args, **kw):
        written.append(args[2].id)
        return sentences(*args, **kw)
    monkeypatch.setattr(runner, "answer_sentences", counted)
    late = []
    for game in GAMES:
        for info in _questions(kb, game, 12):
            try:
                late.append((info, answer(kb, info, settled=False)))
            except EngineError:
                continue
    assert len(late) > 30 and written == []
    assert all(type(e.__dict__["_text"]).__name__ == "Worded" for _, a in late for e in a.expectations)
    for info, a in late:    # read after every other question was answered: the words read at once
        now = answer(kb, info, settled=False)
        assert _words(a) == _words(now), info.id
    assert written


def test_the_sentences_are_those_of_the_answer_before_its_status_checks_were_appended(kb):
    checked = 0
    for info in _questions(kb, "pm", 400):
        if not info.scenario.status_expects:
            continue
        a = answer(kb, info)        # settled: the status checks appended after the sentences' view
        assert any(e.about_status for e in a.expectations)
        made = copy.copy(a)
        made.expectations = [e for e in a.expectations if not e.about_status]
        assert a.sentences == (engine_for("pm").answer_sentences(made) or answer_sentences(kb, made, info)), info.id
        checked += 1
    assert checked >= 2


def test_a_deep_copy_of_an_answer_holds_its_words_not_what_they_are_written_from(kb):
    for info in _questions(kb, "royal", 10):
        a = answer(kb, info, settled=False)
        twin = copy.deepcopy(a)     # before anything was read
        assert isinstance(twin._sentences, list)
        assert _words(twin) == _words(a), info.id


def _kept(x) -> list:
    """The values `x` keeps: in its __dict__ and in its slots (an answer's: base/record.py `slots=True`)."""
    out = list(vars(x).values()) if hasattr(x, "__dict__") else []
    for k in type(x).__mro__:
        for name in vars(k).get("__slots__", ()):
            if name not in ("__dict__", "__weakref__"):
                try:
                    out.append(vars(k)[name].__get__(x))
                except AttributeError:
                    pass
    return out


def test_words_written_now_let_go_of_what_they_are_written_from_and_are_the_words_read_later(kb):
    from rulesdsl.engine.late import Worded, write_words
    for game in GAMES:
        for info in _questions(kb, game, 6):
            try:
                a = answer(kb, info, settled=False)
            except EngineError:
                continue
            write_words(a)      # what the wiki does with every answer it keeps for its pages
            held = [v for v in (*_kept(a), *(x for e in a.expectations for x in _kept(e))) if isinstance(v, Worded)]
            assert held and all(w.args is None and w.write is None for w in held), info.id
            assert _words(a) == _words(answer(kb, info, settled=False)), info.id
