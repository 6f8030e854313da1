"""Every answer cites what decides it: for every scenario of every game that has an interpreter,
each step of the trace names the rule section, ruling or card that makes it so; no step names
the same thing twice, no step is printed twice in a row, and an answer cites everything its
scenario pins (a pin is the scenario's claim about what its answer rests on).

Game-neutral: it runs whatever interpreters `rulesdsl.games` holds, one test per game and rule."""

from __future__ import annotations

from collections import defaultdict

import pytest
from conftest import REPO

from rulesdsl.engine.context import EngineError
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer
from rulesdsl.kb.build import load

GAMES = sorted(p.name for p in (REPO / "rulings").iterdir() if p.is_dir() and engine_for(p.name) is not None)

per_game = pytest.mark.parametrize("game", GAMES)


@pytest.fixture(scope="module")
def corpus():
    """(kb, [(scenario info, answer)]) for every answerable scenario of a game with an interpreter
    (a scenario the engine cannot answer is the scenario tests' business, not this file's)."""
    extra = sorted((REPO / "tests").rglob("*.rules")) if (REPO / "tests").is_dir() else []
    kb = load(REPO, extra=extra)
    out = []
    for sid in sorted(kb.scenarios):
        info = kb.scenarios[sid]
        if engine_for(info.game) is None:
            continue
        try:
            out.append((info, answer(kb, info)))
        except EngineError:
            continue
    return kb, out


def _steps(corpus, game: str):
    for info, a in corpus[1]:
        if info.game != game:
            continue
        for b in a.branches:
            for i, s in enumerate(b.steps):
                yield f"{info.game}:{info.id} [{b.path}] step {i + 1}", b.steps, i, s


def _report(found: list[str]) -> str:
    return f"{len(found)} finding(s):\n  " + "\n  ".join(found[:40])


@pytest.mark.parametrize("game", GAMES)
def test_the_corpus_holds_answers_of_each_interpreter(corpus, game):
    assert any(a.branches for info, a in corpus[1] if info.game == game)


@per_game
def test_every_step_but_a_choice_cites_what_decides_it(corpus, game):
    found = [f"{where}: {s.text}" for where, _, _, s in _steps(corpus, game) if s.kind != "choice" and not s.cites]
    assert not found, _report(found)


@per_game
def test_no_step_cites_the_same_thing_twice(corpus, game):
    found = []
    for where, _, _, s in _steps(corpus, game):
        refs = [(c.kind, c.ref) for c in s.cites]
        if len(refs) != len(set(refs)):
            found.append(f"{where}: {s.text} ← {', '.join(r for _, r in refs)}")
    assert not found, _report(found)


@per_game
def test_no_step_is_printed_twice_in_a_row(corpus, game):
    found = []
    for where, steps, i, s in _steps(corpus, game):
        if i and steps[i - 1].text == s.text and [c.key() for c in steps[i - 1].cites] == [c.key() for c in s.cites]:
            found.append(f"{where}: {s.text}")
    assert not found, _report(found)


@per_game
def test_every_answer_cites_what_its_scenario_pins(corpus, game):
    """A pinned section, ruling or card must be among what the answer cites or consulted; a
    pinned ruling revision not in force on the scenario's day counts when the answer consulted
    a rule point that ruling sets (the question is about the day before it)."""
    kb = corpus[0]
    sets: dict[str, set[tuple]] = defaultdict(set)
    for rid, r in kb.rulings.items():
        for rev in r.revisions:
            for s in rev.settings:
                sets[rid].add((s.point, s.card))
    found = []
    for info, a in corpus[1]:
        if info.game != game:
            continue
        cited = set(a.sections) | set(a.cards) | {r.split("@", 1)[0] for r in a.rulings}
        cited |= {c.ref.split("@", 1)[0] for b in a.branches for s in b.steps for c in s.cites}
        cited |= {g["ref"].split("@", 1)[0] for g in a.gaps}
        cited |= {p["gap"] for p in a.unsettled.values()}
        consulted = {(p["point"], p.get("card")) for p in a.unsettled.values()}
        for key, v in a.points.items():
            cited.add(str(v["from"]).split("@", 1)[0])
            if key.startswith("card("):
                card, point = key[5:].split(").", 1)
                consulted.add((point, card))
            else:
                consulted.add((key, None))
        for pin in info.pins:
            target = pin.target
            if target in cited or sets.get(target, set()) & consulted:
                continue
            found.append(f"{info.game}:{info.id} pins {pin} but its answer does not cite it")
    assert not found, _report(found)
