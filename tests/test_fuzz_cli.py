"""Fuzzing the command line with damaged knowledge-base files (rulesdsl/regress/fuzzing.py).

Every corpus file (cards/, rulings/ and examples/) is mutated in seeded ways — tokens deleted,
duplicated or swapped, bits flipped, random bytes, invalid UTF-8, truncation, lines deleted or
duplicated, deep nesting, other encodings (UTF-16, Shift_JIS, NUL, …) — and the command line
runs in-process on it: `fmt --check` on the file alone, and now and then `check`, `check PATH`,
`check` of the file from outside, `show` and `ask` with the file in a copy of its knowledge
base. Whatever the damage, no exception may escape, no traceback or internal error be printed,
no exit code other than 0, 1 or 2 be returned, and every failure must name a location inside
the file.

Cases are deterministic (rulesdsl/regress/fuzzing.Case: the file, the kind, a seed) and bounded: CASES in
all, every KB_EVERY-th (and every one of the examples) also against the knowledge base, so the file runs in seconds however the
corpus grows. `benchmarks/bench_fuzz.py` runs 10,000 of them.

Hand-written cases (issue 26) try what no mutation finds, on throwaway copies: `wiki build -d` at
the knowledge base and its folders, a save made while `fmt --write` runs, and the global options
spelled as argparse once completed them (`--ro=B`, `--no-c`), which must never answer stale.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulesdsl.cli.main import main
from rulesdsl.regress.fuzzing import (KINDS, Case, abbreviations, cases, classify, concurrent_saves,
                                      copy_knowledge_bases, folder_emptying, mutate, runner, show_id)

run = runner(main)

REPO = Path(__file__).resolve().parent.parent
KB_DIRS = ("cards", "rulings")
CORPUS = sorted(p for d in (*KB_DIRS, "examples") for p in (REPO / d).rglob("*.rules"))

CASES = 330
KB_EVERY = 6
KB_COMMANDS = ("check", "check PATH", "check OUTSIDE", "show ID", "show ID --as-of")
ALL = cases(CORPUS, REPO, max(CASES, len(CORPUS)))
QUESTIONS = {f for f in CORPUS if "\nscenario " in "\n" + f.read_text(encoding="utf-8")}
BY_FILE: dict[Path, list[tuple[Case, str]]] = {f: [] for f in CORPUS}
for _n, _c in enumerate(ALL):
    kb_command = None
    if _n % KB_EVERY == 0 or not _c.game:        # the examples (a judge's files): always
        kb_command = KB_COMMANDS[(_n // KB_EVERY) % len(KB_COMMANDS)] if _c.game else \
            ("ask OUTSIDE" if _c.file in QUESTIONS else "check OUTSIDE")
    BY_FILE[_c.file].append((_c, kb_command))


@pytest.fixture(scope="session")
def kb_copies(tmp_path_factory):
    """One copy of the knowledge base per game, made once (rulesdsl.regress.fuzzing)."""
    return copy_knowledge_bases((c.game for c in ALL), REPO, tmp_path_factory.mktemp("fuzz-kb"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.relative_to(REPO).as_posix() for p in CORPUS])
def test_cli_survives_mutations_of_corpus_file_and_names_locations(path, kb_copies, monkeypatch, tmp_path):
    monkeypatch.delenv("RULESDSL_DEBUG", raising=False)
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    problems: list[str] = []

    def record(case: Case, command: str, code, out: str, file: Path, data: bytes) -> None:
        problems.extend(f"{case}: {text}" for _, text in classify(command, code, out, file, data))

    for case, kb_command in BY_FILE[path]:
        data = case.mutated()
        monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
        alone = tmp_path / f"{case.kind}-{case.seed}.rules"
        alone.write_bytes(data)
        code, out = run(["fmt", "--check", alone])
        record(case, f"fmt --check {alone.name}", code, out, alone, data)
        if kb_command is None:
            continue
        root = kb_copies[case.game]
        monkeypatch.setenv("RULESDSL_CACHE", str(root.parent / f"cache-{case.game or '_all'}"))
        inside = root / path.relative_to(REPO) if case.game else None
        original = inside.read_bytes() if inside else None
        file = inside or alone
        try:
            if kb_command in ("check", "check PATH", "show ID", "show ID --as-of"):
                inside.write_bytes(data)
            args = {"check": ["check"], "check PATH": ["check", file], "check OUTSIDE": ["check", alone],
                    "ask OUTSIDE": ["ask", alone], "show ID": ["show", show_id(path)],
                    "show ID --as-of": ["show", show_id(path), "--as-of", "2026-09-01"]}[kb_command]
            if kb_command in ("check OUTSIDE", "ask OUTSIDE"):
                file = alone
            code, out = run(["--root", root, *args])
            record(case, " ".join(map(str, args)), code, out, file, data)
        finally:
            if inside is not None:
                inside.write_bytes(original)
    assert not problems, f"{len(problems)} problem(s):\n\n" + "\n\n".join(problems)


def test_cases_cover_every_file_and_kind():
    assert CORPUS, "no .rules files found under cards/, rulings/ and examples/"
    assert all(BY_FILE.values()), "a file without a case"
    assert {c.kind for c in ALL} == set(KINDS)
    kb = {cmd for pairs in BY_FILE.values() for _, cmd in pairs if cmd}
    assert kb == {*KB_COMMANDS, "ask OUTSIDE"}


@pytest.mark.parametrize("kind", KINDS)
def test_mutations_are_deterministic_and_change_the_file(kind):
    f = max(CORPUS, key=lambda p: p.stat().st_size)
    rel = f.relative_to(REPO).as_posix()
    a = Case(f, rel, kind, 0).mutated()
    assert a == Case(f, rel, kind, 0).mutated()
    assert a != f.read_bytes() or kind == "encoding"
    if kind == "invalid-utf8":
        with pytest.raises(UnicodeDecodeError):
            a.decode("utf-8")


def test_odd_encodings_are_located_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    text = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")
    for name, data in (("utf-16", text.encode("utf-16")), ("shift_jis", text.encode("shift_jis")),
                       ("nul", b"\x00" + text.encode()), ("bom", text.encode("utf-8-sig"))):
        f = tmp_path / f"{name}.rules"
        f.write_bytes(data)
        code, out = run(["fmt", "--check", f])
        assert not classify("fmt --check", code, out, f, data), (name, out)
        assert code == (0 if name == "bom" else 2), (name, out)


@pytest.mark.parametrize("command", ["fmt --check", "check"])
def test_an_early_end_of_file_is_located_on_the_last_line_of_the_file(command, tmp_path, monkeypatch):
    """A file cut off with no last newline: the error points at its real end (line 2, column
    14), the same for every command, not at a line 3 that the file does not have."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "cut.rules"
    f.write_bytes('card grm No.1 "名前" {\n  weight 60kg'.encode())
    code, out = run([*command.split(), f])
    assert code == 2, out
    assert f"{f}:2:14: error[syntax]" in out, out


def test_a_mutation_of_an_empty_file_is_still_a_mutation():
    assert mutate(b"", "delete", random.Random(0)) == b"}"


# ----------------------------------------------------------------------------- hand-written cases

def test_hand_written_folder_emptying_cases_lose_nothing(tmp_path, monkeypatch):
    """`wiki build -d` at the knowledge base, its folders, its parent, a user's folder, a device."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    kb = copy_knowledge_bases(["grm"], REPO, tmp_path / "copies")["grm"]
    problems = folder_emptying(run, kb, "grm", tmp_path)
    assert not problems, "\n\n".join(problems)


def test_hand_written_concurrent_saves_are_never_overwritten(tmp_path, monkeypatch):
    from rulesdsl.cli import fmt as fmt_command
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    files = [f for f in CORPUS if "\n  " in f.read_text(encoding="utf-8")][::15]
    problems = concurrent_saves(run, files, tmp_path,
                                lambda save: monkeypatch.setattr(fmt_command, "_before_replace", save))
    assert len(files) >= 5 and not problems, "\n\n".join(problems)


def test_hand_written_abbreviations_never_answer_stale(tmp_path, monkeypatch):
    from rulesdsl.base import cache
    from rulesdsl.cli import fastpath
    monkeypatch.setattr(cache, "_verbose", cache.verbose())    # `-vv` turns the notes on: off again after
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    copies = copy_knowledge_bases(["grm", "thgm"], REPO, tmp_path / "copies")
    monkeypatch.chdir(copies["grm"])            # another knowledge base is found from here
    target = copies["thgm"]
    edit = sorted((target / "cards").rglob("*.rules"))[0]
    problems = abbreviations(runner(fastpath.main), run, target, edit)
    assert not problems, "\n\n".join(problems)
