"""Every rule point that changes an answer is one the answer says it depends on, and counts for
its status: for each worked question and each rule point of its game, the question is answered
under every other value of the point; where the answer changes, the point must be in the
answer's `depends_on` (or its season reading), and the answer's status can be no stronger than
the point's. And the royal interpreter consults when a victory is decided (victory.timing)
wherever it checks a victory.

The whole cross-product is about 21,000 answers (15–25 s); the suite runs a deterministic
quarter of the questions plus every royal question (the class the judge-phase case belongs to),
and `benchmarks/bench_dependencies.py` runs all of them with its time."""

from __future__ import annotations

import pytest

from rulesdsl.engine.deciding import answer_key
from rulesdsl.engine.runner import answer
from rulesdsl.regress.dependencies import dependency_violations


def _sample(kb) -> list[str]:
    ids = sorted(kb.scenarios)
    return [sid for i, sid in enumerate(ids) if i % 4 == 0 or sid.startswith("royal/")]


@pytest.mark.parametrize("game", ["grm", "thgm", "royal", "pm"])
def test_every_point_that_changes_an_answer_is_in_its_dependencies_and_counts_for_its_status(kb, game):
    ids = [sid for sid in _sample(kb) if kb.scenarios[sid].game == game]
    assert ids
    found = [v for sid in ids for v in dependency_violations(kb, kb.scenarios[sid])]
    assert found == [], "\n".join(found[:20])


VICTORY_SECTIONS = {"royal/victory/conditions", "royal/victory/life"}   # a step deciding or deferring a victory


def test_the_royal_interpreter_consults_victory_timing_wherever_it_checks_a_victory(kb):
    missing = []
    for sid, info in sorted(kb.scenarios.items()):
        if info.game != "royal":
            continue
        try:
            a = answer(kb, info)
        except Exception:   # a question the engine refuses checks no victory
            continue
        checks = any(c.ref in VICTORY_SECTIONS for b in a.branches for s in b.steps for c in s.cites)
        if checks and "victory.timing" not in a.points:
            missing.append(sid)
    assert missing == []


def test_who_wins_when_life_is_zero_in_the_other_players_judge_phase_rests_on_victory_timing(kb):
    info = kb.scenarios["royal/qa/judge-other-player-zero-life"]
    a = answer(kb, info)
    assert a.ok and a.status.value == "unconfirmed"
    assert "victory.timing" in a.points and "victory.timing" in a.readings.deciding
    now = answer(kb, info, reading={"victory.timing": "immediately"})
    assert answer_key(now) != answer_key(a)
    assert any("P1の強制敗北" in s for s in now.sentences)
