"""A judge's new question reads the outline of the parse snapshot (every worked question reduced to
its id, title and place), not the whole snapshot; the outline must never change an answer, and
never become the snapshot that other commands read."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO

from rulesdsl.kb import loader
from rulesdsl.kb.build import load

QUESTION = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")


@pytest.fixture
def bundled(tmp_path, monkeypatch):
    """A copy of the bundled knowledge base, with its own empty cache folder."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    root = tmp_path / "kb"
    for part in ("cards", "rulings"):
        shutil.copytree(REPO / part, root / part)
    return root


def ask_new(run_cli, root, tmp_path, n: int, *flags: str):
    q = tmp_path / f"q{n}.rules"
    q.write_text(QUESTION.replace("grm/judge/stack", f"grm/judge/q{n}"), encoding="utf-8")
    return run_cli("--root", root, *flags, "ask", q)


def test_a_new_question_reads_the_outline_and_answers_as_without_any_cache(bundled, tmp_path, run_cli):
    assert run_cli("--root", bundled, "check")[0] == 0                 # keeps the snapshot and its outline
    assert loader.outline_path(loader.snapshot_path(bundled)).exists()
    code, out, err = ask_new(run_cli, bundled, tmp_path, 1, "-v")
    assert "read the outline" in err
    assert (code, out) == ask_new(run_cli, bundled, tmp_path, 1, "--no-cache")[:2]
    assert code == 0 and out.startswith("答え: b2の《上》は裏向き。")


def test_a_worked_question_of_the_knowledge_base_is_answered_from_the_whole_snapshot(bundled, run_cli):
    assert run_cli("--root", bundled, "check")[0] == 0
    code, out, err = run_cli("--root", bundled, "-v", "ask", "grm/qa/stack-flips-top-only")
    assert "read the outline" not in err
    assert (code, out) == run_cli("--root", bundled, "--no-cache", "ask", "grm/qa/stack-flips-top-only")[:2]
    assert code == 0 and out.startswith("答え: ")


def test_a_snapshot_rewritten_while_the_outline_was_read_keeps_every_worked_question_whole(bundled, tmp_path, run_cli):
    """A file of the knowledge base edited, then a new question asked: the edited file is parsed,
    the snapshot rewritten — from whole documents, never from the outline the question read."""
    assert run_cli("--root", bundled, "check")[0] == 0
    stack = bundled / "rulings/grm/qa/stack.rules"
    stack.write_text(stack.read_text(encoding="utf-8") + "\n# 追記\n", encoding="utf-8")
    code, _, err = ask_new(run_cli, bundled, tmp_path, 2, "-v")
    assert code == 0 and "read the outline" in err and "parse snapshot of" in err
    cached, fresh = load(bundled), load(bundled, use_cache=False)
    assert cached.scenarios.keys() == fresh.scenarios.keys() and len(cached.scenarios) > 400
    for sid, info in fresh.scenarios.items():
        assert cached.scenarios[sid].scenario == info.scenario, sid
    assert run_cli("--root", bundled, "check")[:2] == (0, "%d files checked: no findings\n" % len(cached.files))


def test_a_question_that_no_longer_matches_the_outline_is_still_found(bundled, tmp_path, run_cli):
    """Asking by id for a worked question the outline lists needs its whole text: the whole
    snapshot is read, and a misspelt id is still an error, not an empty answer."""
    assert run_cli("--root", bundled, "check")[0] == 0
    code, out, err = run_cli("--root", bundled, "ask", "grm/qa/stack-flips-top-onl")
    assert code == 2 and "no such file or scenario id" in err
