"""benchmarks/gen_corpus.py: the synthetic knowledge base every benchmark measures is one that
`rulesdsl check` accepts, has every game, and is the same for the same seed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

GEN = REPO / "benchmarks" / "gen_corpus.py"
GAMES = sorted(p.parent.name for p in (REPO / "rulings").glob("*/game.rules"))


def generate(out, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GEN), str(out), *args], capture_output=True, text=True,
                          check=check, timeout=600)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen") / "kb"
    run = generate(root, "--cards", "200", "--revisions", "600", "--scenarios", "200", "--json")
    return root, json.loads(run.stdout)


def test_the_generated_corpus_of_every_game_checks_clean(corpus, run_cli, monkeypatch, tmp_path):
    root, stats = corpus
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    assert stats["games"] == GAMES and len(GAMES) >= 4
    assert (stats["cards"], stats["revisions"], stats["scenarios"]) == (200, 600, 200)
    code, out, err = run_cli("--root", root, "check")
    assert code == 0, out + err
    assert "no findings" in out


def test_every_worked_question_of_the_generated_corpus_passes(corpus, run_cli, monkeypatch, tmp_path):
    """The benchmarks time `rulesdsl test` and the regression on this corpus: a failing question is
    mostly a quick refusal, so the corpus must pass like the real one does, in every game."""
    root, stats = corpus
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    code, out, err = run_cli("--root", root, "test", "--json")
    assert code == 0, out[-3000:] + err
    report = json.loads(out)
    assert (report["passed"], report["failed"], report["skipped"]) == (200, 0, 0)
    assert {r["game"] for r in report["results"]} == set(GAMES)
    q = stats["questions"]
    assert q["as_written"] > 0 and q["dropped"] + q["rewritten"] > 0   # the corpus's rulings do move answers


def test_the_generated_questions_keep_their_status_expectations_settled_against_the_corpus(corpus):
    """A template's `expect status` is the repository's; the corpus's own rulings decide the
    variation's, so the generator checks it and rewrites the ones the corpus moved (every
    question passing, status included, is the test above)."""
    root, stats = corpus
    lines = [x for p in root.glob("rulings/*/qa/*.rules") for x in p.read_text(encoding="utf-8").splitlines()
             if x.startswith("  expect status ")]
    assert len(lines) > 20
    assert 0 < stats["questions"]["status_rewritten"] < len(lines)


def test_a_status_found_before_an_expectation_was_dropped_is_answered_again(tmp_path, run_cli, monkeypatch):
    """A question's status is the weakest of what decides its expectations: when the corpus makes
    one false and it is dropped (e.g. `expect battle …` under a ruling that stops the battle), the
    status found with it may not be the written question's. This seed at 400 cards writes three
    such questions when the status is not settled again (found ※未確定, written; 確定 once the
    battle no longer decides anything)."""
    root = tmp_path / "kb"
    stats = json.loads(generate(root, "--cards", "400", "--revisions", "1200", "--scenarios", "400",
                                "--seed", "2", "--json").stdout)
    assert stats["questions"]["settled_again"] > 0
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    code, out, err = run_cli("--root", root, "test", "--json")
    assert code == 0, out[-3000:] + err
    assert (json.loads(out)["passed"], json.loads(out)["failed"]) == (400, 0)


def test_the_corpus_holds_what_the_fidelity_checks_look_at(corpus):
    """A clean check means something only if the corpus has the things the checks judge."""
    root, _ = corpus
    text = {p: p.read_text(encoding="utf-8") for p in root.rglob("*.rules")}
    everything = "\n".join(text.values())
    for game in GAMES:
        declared = set(re.findall(r"^\s*unsettled (\S+)", (REPO / "rulings" / game / "game.rules")
                                  .read_text(encoding="utf-8"), re.M))
        copied = "\n".join(t for p, t in text.items() if p.parent == root / "rulings" / game
                           and p.name.startswith("copied-"))
        assert declared and all(f"ruling {rid} " in copied for rid in declared), game
    assert re.search(r"^  assume card \S+ \{", everything, re.M)            # a known card completed
    assert re.search(r"^  revision \S+ retracted \{\n(?:    .*\n)*?    note ", everything, re.M)
    assert re.search(r"^  note .*「", everything, re.M)                       # a section's note quotes
    assert re.search(r"^  gap \w+\n(?:.*\n)*?    set ", everything, re.M)    # a gap reads a point


def test_the_same_seed_writes_the_same_corpus_and_another_seed_another(tmp_path):
    small = ("--cards", "40", "--revisions", "120", "--scenarios", "40")
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    generate(a, *small)
    generate(b, *small)
    generate(c, *small, "--seed", "2")

    def files(root):
        return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert files(a) == files(b)
    assert files(a) != files(c)


def test_a_game_whose_declaration_has_findings_stops_the_generator(tmp_path):
    repo = tmp_path / "repo"
    for d in ("cards", "rulings"):
        shutil.copytree(REPO / d, repo / d)
    decl = repo / "rulings" / "thgm" / "game.rules"
    text = decl.read_text(encoding="utf-8")
    gap = re.search(r"^\s*unsettled (\S+)", text, re.M).group(1)
    decl.write_text(text.replace(f"unsettled {gap}", "unsettled thgm/gap/no-such-gap", 1), encoding="utf-8")
    out = tmp_path / "out"
    run = generate(out, "--cards", "40", "--from", str(repo), check=False)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "thgm" in run.stderr and "rulings/thgm/game.rules" in run.stderr and "no-such-gap" in run.stderr
    assert not out.exists()
