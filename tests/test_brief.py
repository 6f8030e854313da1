"""A judge's new question loads only the games its file names (rulesdsl/kb/brief.py), and answers
exactly as on the whole knowledge base: the same output and exit code for worked questions of
every game copied outside it, for a question that names another game's ruling, and for refused
files (whose messages come from a whole load) — both from the command line and from a running
`rulesdsl serve`."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from rulesdsl.cli import ask as ask_command
from rulesdsl.cli.main import run_captured
from rulesdsl.kb import brief, loader

REPO = Path(__file__).resolve().parent.parent
QA = ["rulings/pm/qa/victory.rules", "rulings/pm/qa/deck.rules", "rulings/thgm/qa/odds.rules",
      "rulings/thgm/qa/attack-value.rules", "rulings/royal/qa/chain.rules", "rulings/royal/qa/battle.rules"]


def copied(src: str, dest: Path) -> Path:
    """A worked question file of the knowledge base as a judge's new file: the same scenarios
    under ids of their own, outside the knowledge base."""
    text = (REPO / src).read_text(encoding="utf-8")
    text = re.sub(r"(?m)^scenario (\w+)/", r"scenario \1/copy/", text)
    path = dest / Path(src).name
    path.write_text(text, encoding="utf-8")
    return path


def ask(argv: list[str], whole: bool, monkeypatch) -> dict:
    with monkeypatch.context() as m:
        if whole:
            m.setattr(ask_command, "question_games", lambda path, shown: None)
        notes = io.StringIO()
        with contextlib.redirect_stderr(notes):        # where the cache's notes go
            r = run_captured(["--root", str(REPO), "-v", *argv])
        return dict(r, notes=notes.getvalue())


def same_as_whole(argv: list[str], monkeypatch, narrowed_note: bool = True) -> None:
    whole = ask(argv, True, monkeypatch)
    # another new question first, which keeps the outline by game (the whole load just made
    # the parse snapshot, with the question's own file in it, so that one reads it whole)
    warm = Path(argv[1]).with_name(f"warm-{len(list(Path(argv[1]).parent.iterdir()))}.rules")
    warm.write_text((REPO / "examples/judge-question.rules").read_text(encoding="utf-8"), encoding="utf-8")
    ask(["ask", str(warm)], False, monkeypatch)
    for _ in range(2):
        narrow = ask(argv, False, monkeypatch)
        assert (narrow["code"], narrow["stdout"]) == (whole["code"], whole["stdout"])
    assert ("read the outline of the parse snapshot for" in narrow["notes"]) == narrowed_note, narrow["notes"]


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    return tmp_path


@pytest.mark.parametrize("src", QA)
def test_a_new_question_of_every_game_answers_as_on_the_whole_knowledge_base(src, private_cache, monkeypatch):
    q = copied(src, private_cache)
    same_as_whole(["ask", str(q)], monkeypatch)
    same_as_whole(["ask", str(q), "--json"], monkeypatch)


def test_the_judge_s_question_and_another_date_answer_as_on_the_whole_knowledge_base(private_cache, monkeypatch):
    q = private_cache / "judge.rules"
    q.write_text((REPO / "examples/judge-question.rules").read_text(encoding="utf-8"), encoding="utf-8")
    same_as_whole(["ask", str(q)], monkeypatch)
    same_as_whole(["ask", str(q), "--as-of", "2025-01-01", "--readings"], monkeypatch)


def test_a_question_naming_another_game_s_ruling_loads_that_game_too(private_cache, monkeypatch):
    text = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")
    pm_ruling = next(m.group(1) for f in sorted((REPO / "rulings/pm").rglob("*.rules"))
                     for m in re.finditer(r"(?m)^ruling (pm/\S+)", f.read_text(encoding="utf-8")))
    q = private_cache / "cross.rules"
    q.write_text(text.replace("  as of 2026-09-01\n", f"  as of 2026-09-01\n  refs {pm_ruling}\n"), encoding="utf-8")
    same_as_whole(["ask", str(q)], monkeypatch)
    assert loader.question_games(q, str(q)) >= {"grm", "pm"}


# a finding of each check about scenarios (kb/checks.py), located in the question's file
FINDINGS_IN_THE_FILE = [
    ("  as of 2026-09-01\n", "  as of 2026-09-01\n  pins grm/battle/rangee\n"),  # unknown-ref (with a hint)
    ("  as of 2026-09-01\n", '  as of 2026-09-01\n  source "nosuch.txt §なし"\n'),  # citation
    ("  as of 2026-09-01\n", ""),                                                 # scenario: no date
    ('  expect card_face b2 "上" down\n', '  question "どうなるか。"\n'),          # answer
    ('"重い"', "No.043"),                                                          # assumption
]


@pytest.mark.parametrize("damage", [
    ("expect card_face b2", "expect card_face b9"),          # the engine refuses the question
    ("  turn P2\n", "  turn P2\n  refs grm/battle/rangee\n"),  # a statement the vocabulary has not
    *FINDINGS_IN_THE_FILE,
    ("scenario grm/judge/stack", "scenario grm/battle/range"),   # an id the knowledge base has
    ("weight 45kg", "weight 45kg 3"),                         # a syntax error: not narrowed at all
])
def test_a_refused_question_says_what_the_whole_knowledge_base_says(damage, private_cache, monkeypatch):
    q = private_cache / "bad.rules"
    q.write_text((REPO / "examples/judge-question.rules").read_text(encoding="utf-8").replace(*damage),
                 encoding="utf-8")
    whole = ask(["ask", str(q)], True, monkeypatch)
    narrow = ask(["ask", str(q)], False, monkeypatch)
    assert whole["code"] != 0
    assert (narrow["code"], narrow["stdout"], narrow["stderr"].count("error")) == \
        (whole["code"], whole["stdout"], whole["stderr"].count("error"))


def test_a_resident_process_narrows_from_the_documents_it_keeps(private_cache, monkeypatch):
    from rulesdsl.kb import build
    q = copied("rulings/thgm/qa/odds.rules", private_cache)
    monkeypatch.setattr(loader, "RESIDENT", True)
    monkeypatch.setattr(loader, "_in_memory", {})
    monkeypatch.setattr(build, "_resident", {})
    whole = ask(["ask", str(q)], True, monkeypatch)
    narrow = ask(["ask", str(q)], False, monkeypatch)
    assert (narrow["code"], narrow["stdout"]) == (whole["code"], whole["stdout"])
    narrowed = [kb for key, kb in build._resident.items() if key[-1] is not None]
    assert narrowed and all(set(kb.games) == {"thgm"} for kb in narrowed)


@pytest.mark.parametrize("damage", FINDINGS_IN_THE_FILE)
def test_in_a_file_of_scenarios_only_the_checks_about_scenarios_find_anything(damage, private_cache):
    # what lets `ask` run only those on the narrowed knowledge base: the others report in the
    # other declarations' files alone
    from rulesdsl.kb.build import load
    from rulesdsl.kb.lint import run_checks
    q = private_cache / "bad.rules"
    q.write_text((REPO / "examples/judge-question.rules").read_text(encoding="utf-8").replace(*damage),
                 encoding="utf-8")
    kb = load(REPO, extra=[q], scenarios=lambda s: s.loc.file == str(q))

    def in_file(found):
        return [d for d in found if d.loc is None or d.loc.file == str(q)]
    assert in_file(run_checks(kb)) == in_file(run_checks(kb, scenarios_only=True)) != []


def test_every_check_about_scenarios_is_in_lint_which_runs_them_without_the_others():
    from rulesdsl.kb import fidelity, lint, markers  # noqa: F401  (every module holding checks)
    from rulesdsl.kb.checks import ABOUT_SCENARIOS, CHECKS
    assert {CHECKS[name].__module__ for name in ABOUT_SCENARIOS} == {lint.__name__}
    assert {"unknown-ref/scenarios", "citation/scenarios", "scenario", "assumption", "answer"} <= ABOUT_SCENARIOS
