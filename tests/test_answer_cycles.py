"""An answer is freed as soon as it is dropped: it leaves no reference cycle for the cyclic
garbage collector (issue 25: the collector's sweeps of whole answers were a tenth to a sixth
of answering a corpus). And the answer its readings list under the default reading says what
the answer says."""

from __future__ import annotations

import gc

from rulesdsl.engine.context import EngineError
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer


def _answered(kb, info):
    """The question's answer, or None: the engine cannot answer it."""
    try:
        return answer(kb, info)
    except EngineError:
        return None


def test_no_answer_of_the_corpus_leaves_cyclic_garbage(kb):
    infos = [i for _, i in sorted(kb.scenarios.items()) if engine_for(i.game) is not None]
    for info in infos:          # point caches and memos filled, imports done
        _answered(kb, info)
    gc.collect()
    leaving = []
    was = gc.isenabled()
    gc.disable()
    try:
        for info in infos:
            _answered(kb, info)
            found = gc.collect()
            if found:
                leaving.append(f"{info.id}: {found} objects")
    finally:
        if was:
            gc.enable()
    assert not leaving, leaving[:10]


def test_the_answer_under_the_default_reading_says_what_the_answer_says(kb):
    checked = 0
    for sid, info in sorted(kb.scenarios.items()):
        if engine_for(info.game) is None or not sid.startswith(("grm/", "royal/")):
            continue
        try:
            a = answer(kb, info)
        except EngineError:
            continue
        if a.readings is None or len(a.readings.answers) < 2:
            continue
        reading, twin = a.readings.answers[0]
        assert reading == {}
        assert twin.readings is None          # no way back to the readings: no cycle
        assert (twin.sentences, twin.status, twin.ok, twin.outcomes.keys()) == \
               (a.sentences, a.status, a.ok, a.outcomes.keys())
        assert twin.to_json()["status_words"] == a.to_json()["status_words"]
        checked += 1
    assert checked >= 5


def test_the_collector_is_paused_while_a_question_is_answered_and_runs_again_after(kb, monkeypatch):
    info = kb.scenarios["thgm/qa/decide-bat-and-reroll"]
    engine = engine_for(info.game)
    seen = []
    act = type(engine).act

    def watched(self, ctx, st, call):
        seen.append(gc.isenabled())
        return act(self, ctx, st, call)
    monkeypatch.setattr(type(engine), "act", watched)
    assert gc.isenabled()
    a = answer(kb, info)
    assert a.ok and seen and not any(seen)      # every action of every run and reading: paused
    assert gc.isenabled()                       # and running again after


def test_a_collector_paused_by_the_caller_stays_paused_and_a_refusal_resumes_it(kb, monkeypatch):
    from rulesdsl.engine.runner import collector_paused
    info = kb.scenarios["thgm/qa/decide-bat-and-reroll"]
    with collector_paused():
        answer(kb, info)
        assert not gc.isenabled()               # the caller's pause is the caller's to end
    assert gc.isenabled()

    engine = engine_for(info.game)

    def refuses(self, ctx, info_):
        raise EngineError("refused for the test", None)
    monkeypatch.setattr(type(engine), "setup", refuses)
    try:
        answer(kb, info)
    except EngineError:
        pass
    else:
        raise AssertionError("the answer should have been refused")
    assert gc.isenabled()


def test_the_collector_stays_paused_between_the_answers_of_a_regression_run(kb, monkeypatch, run_cli):
    """`answer_all` and `rulesdsl test` keep the collector paused from the first answer to the
    last (resumed between two, it walks each answer's objects still alive, and now and then every
    record kept so far), and let it run again after."""
    from rulesdsl.regress import records
    infos = [kb.scenarios[s] for s in ("thgm/qa/decide-bat-and-reroll", "royal/qa/chain-ten-links")]
    seen = []
    record = records.record

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return record(*args, **kwargs)
    monkeypatch.setattr(records, "record", watched)
    got = records.answer_all(kb, infos)
    assert len(got) == 2 and all(r.ok for r in got.values())
    assert seen == [False, False]               # between the answers too, not only within each
    assert gc.isenabled()

    from rulesdsl.cli import regression
    seen.clear()
    monkeypatch.setattr(regression, "record", watched)
    code, out, err = run_cli("test", "rulings/royal/qa/chains.rules")
    assert code == 0, out + err
    assert len(seen) > 2 and not any(seen)
    assert gc.isenabled()


def test_the_memo_of_answers_is_read_and_impact_answers_with_the_collector_paused(kb, monkeypatch, tmp_path):
    """Decoding the memo of answers and every answer of `impact` run with the collector paused
    (it walked everything alive again and again: 10,363 records beside two loaded knowledge bases
    took 0.41-0.54 s to read, paused 0.12-0.15 s); it runs again after."""
    from rulesdsl.base import cache
    from rulesdsl.regress import impact, records
    info = kb.scenarios["thgm/qa/decide-bat-and-reroll"]
    memo = records.Memo(tmp_path / "memo.json")
    memo.put(records.record(kb, info)[0])
    memo.save()
    seen = []
    read_json = cache.read_json
    monkeypatch.setattr(cache, "read_json", lambda *a, **k: seen.append(gc.isenabled()) or read_json(*a, **k))
    again = records.Memo(tmp_path / "memo.json")
    assert seen == [False] and list(again.records) == [info.id] and gc.isenabled()
    record = impact.record
    monkeypatch.setattr(impact, "record", lambda *a, **k: seen.append(gc.isenabled()) or record(*a, **k))
    impact.impact(kb, kb, None, use_memo=False, only={info.id})
    assert seen == [False, False, False] and gc.isenabled()


def test_the_history_of_every_revision_leaves_no_cyclic_garbage(kb):
    """What each ruling revision changed (the wiki's history, regress.impact) answers every
    question again without the revision, in a knowledge base made for it and dropped after: a set-up
    kept in that knowledge base's memo must not point back at the memo, nor an answer's readings
    at the answer, or each revision would leave its runs for the collector."""
    from rulesdsl.engine.readings import try_readings
    from rulesdsl.regress.impact import revision_effects
    answers = {}
    for info in (i for _, i in sorted(kb.scenarios.items()) if engine_for(i.game) is not None):
        a = _answered(kb, info)
        if a is not None:
            if a.unsettled:
                try_readings(kb, info, a)
            answers[info.id] = a
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        changed = revision_effects(kb, answers)
        found = gc.collect()
    finally:
        if was:
            gc.enable()
    assert changed                  # the bundled rulings change answers: the history did its work
    assert found == 0
