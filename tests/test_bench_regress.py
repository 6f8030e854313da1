"""benchmarks/bench_regress.py: the copied corpus it times is one whose every question passes
(its figures measure answers, not quick failures), and a copy is never moved to a day on which
its `expect status` lines fail."""

from __future__ import annotations

import importlib.util
import re

import pytest

from conftest import REPO
from rulesdsl.kb.build import load
from rulesdsl.regress.records import answer_all

spec = importlib.util.spec_from_file_location("bench_regress", REPO / "benchmarks" / "bench_regress.py")
bench_regress = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_regress)


@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    root = tmp_path_factory.mktemp("regress") / "kb"
    total = bench_regress.build_corpus(root, 700)
    return root, total


def test_every_copied_question_passes_on_the_day_it_is_asked(copied):
    root, total = copied
    kb = load(root, use_cache=False)
    answerable = [s for s in kb.scenarios.values() if s.expects]
    assert total == 700 and len(answerable) >= 700
    failing = sorted(r.scenario for r in answer_all(kb, answerable).values() if not r.ok)
    assert failing == []


def test_copies_keep_the_periods_of_their_expectations(copied):
    # an expectation `from`/`until` a day speaks of the repository's rulings, which the copies
    # share: without its period `expect face c2 up from 2026-04-01` would hold on no day
    root, _ = copied
    text = "".join(p.read_text(encoding="utf-8") for p in (root / "rulings/grm/qa-copies").glob("*.rules"))
    copy = re.search(r"^scenario grm/qa/rulings-simultaneous-order-before-april-copy\d+ .*?^}\n", text,
                     flags=re.S | re.M)
    assert copy is not None
    assert "expect face c2 up from 2026-04-01" in copy.group(0)


def test_a_period_of_another_status_is_not_a_day_for_a_status_line(copied):
    # a timeline's period answered on another day is `ok` whatever its status (the line is checked
    # on the scenario's own day): the benchmark asks its status of the line itself
    root, _ = copied
    kb = load(root, use_cache=False)
    info = kb.scenarios["grm/qa/rulings-simultaneous-order-before-april"]
    assert bench_regress.status_holds(info, "unconfirmed")
    assert not bench_regress.status_holds(info, "confirmed")
