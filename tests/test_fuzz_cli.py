"""Fuzzing the command line with damaged knowledge-base files.

Every corpus file (cards/ and rulings/) is mutated in seeded ways: a token deleted, duplicated or
swapped with another, the file truncated (at a byte, so possibly inside a character), random
bytes written into it, invalid UTF-8 inserted. The mutated file replaces the original in a copy
of its game's knowledge base, and the CLI runs in-process on it: `check`, `fmt --check` and
`show`. Whatever the damage, the CLI must never let a Python exception out (nor report an
internal error, exit 70), must print no traceback, and when it fails it must name a location,
`path:line:col`.

Cases are deterministic (seeds derive from the file's path, the kind of mutation and a number)
and bounded (FMT_CASES and KB_CASES), so the file runs in about a minute however the corpus
grows; every file gets at least one case of each sort and the kinds rotate over the files.
"""

from __future__ import annotations

import random
import re
import shutil
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from rulesdsl.cli import main
from rulesdsl.diagnostics import DslError
from rulesdsl.model import Card
from rulesdsl.parser import parse_text

REPO = Path(__file__).resolve().parent.parent
KB_DIRS = ("cards", "rulings")
CORPUS = sorted(p for d in KB_DIRS for p in (REPO / d).rglob("*.rules"))

KINDS = ("delete", "duplicate", "swap", "truncate", "random-bytes", "invalid-utf8")
# `fmt --check` is cheap: every file gets one mutation of every kind (seed 0), up to FMT_CASES.
FMT_CASES = 600
# Loading a whole knowledge base is not: KB_CASES more mutations (seeds 1, 2, …), rotating over
# the files, the kinds and the commands, every file at least once.
KB_CASES = 100
KB_COMMANDS = ("check", "check PATH", "check OUTSIDE", "show ID", "show ID --as-of")

# A rendered diagnostic starts with its location: `path:line:col: error[code]: …`.
LOCATED = re.compile(r"(?m)^(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+): (?:error|warning)\[")
UNLOCATED = re.compile(r"(?m)^(?:error|warning)\[(?P<code>[\w-]+)\]")


# ----------------------------------------------------------------------------- mutations

_TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*|\s+'
                    r'|[^\s{}\[\](),;=@"#]+|.', re.S)
_INVALID_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc3(", b"\xe3\x81", b"\xed\xa0\x80",
                 b"\xf8\x88\x80\x80\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"]


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    """One seeded mutation of a file's bytes."""
    if kind in ("delete", "duplicate", "swap"):
        text = data.decode("utf-8", errors="surrogateescape")
        toks = _TOKEN.findall(text)
        solid = [i for i, t in enumerate(toks) if not t.isspace()]
        if not solid:
            return data + b"}"
        i = rng.choice(solid)
        if kind == "delete":
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[i] + rng.choice(["", " ", "\n"]))
        else:
            near = [j for j in solid if 0 < abs(j - i) <= 4]
            j = rng.choice(near) if near and rng.random() < 0.6 else rng.choice(solid)
            toks[i], toks[j] = toks[j], toks[i]
        return "".join(toks).encode("utf-8", errors="surrogateescape")
    if kind == "truncate":
        return data[: rng.randrange(len(data) + 1)]
    out = bytearray(data)
    if kind == "random-bytes":
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(out) + 1)
            chunk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.5 and pos < len(out):
                out[pos:pos + len(chunk)] = chunk
            else:
                out[pos:pos] = chunk
        return bytes(out)
    assert kind == "invalid-utf8", kind
    multibyte = [i for i, b in enumerate(out) if b >= 0xC0]
    if multibyte and rng.random() < 0.4:   # cut a character in half
        i = rng.choice(multibyte)
        del out[i + 1]
    else:
        pos = rng.randrange(len(out) + 1)
        out[pos:pos] = rng.choice(_INVALID_UTF8)
    return bytes(out)


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    file: Path          # in the repo
    kind: str
    seed: int

    @property
    def rel(self) -> str:
        return self.file.relative_to(REPO).as_posix()

    @property
    def game(self) -> str:
        parts = Path(self.rel).parts
        return parts[1] if len(parts) > 2 else ""      # cards/<game>/…, rulings/<game>/…

    def __str__(self) -> str:
        return f"{self.rel} [{self.kind} #{self.seed}]"

    def mutated(self) -> bytes:
        rng = random.Random(f"{self.rel}|{self.kind}|{self.seed}")
        return mutate(self.file.read_bytes(), self.kind, rng)


def rotation(seeds) -> list[Case]:
    """Cases layer by layer: in each layer every file once, the kinds rotating over the files."""
    out = []
    for seed in seeds:
        for round_ in range(len(KINDS)):
            for n, f in enumerate(CORPUS):
                out.append(Case(f, KINDS[(n + round_ + seed) % len(KINDS)], seed))
    return out


FMT_ONLY = rotation([0])[:max(FMT_CASES, len(CORPUS))]
KB_ONLY = rotation(range(1, 4))[:max(KB_CASES, len(CORPUS))]
KB_COMMAND = {case: KB_COMMANDS[n % len(KB_COMMANDS)] for n, case in enumerate(KB_ONLY)}
BY_FILE: dict[Path, tuple[list[Case], list[Case]]] = {f: ([], []) for f in CORPUS}
for _c in FMT_ONLY:
    BY_FILE[_c.file][0].append(_c)
for _c in KB_ONLY:
    BY_FILE[_c.file][1].append(_c)


# ----------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def kb_copies(tmp_path_factory):
    """One copy of the knowledge base per game (its cards/ and rulings/ folders), made once."""
    base = tmp_path_factory.mktemp("fuzz-kb")
    games = sorted({c.game for c in KB_ONLY})
    roots = {}
    for game in games:
        root = base / (game or "_all")
        for d in KB_DIRS:
            src = REPO / d / game if game else REPO / d
            if src.is_dir():
                shutil.copytree(src, root / d / game if game else root / d)
        (root / "rulings").mkdir(parents=True, exist_ok=True)
        roots[game] = root
    return roots


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run the CLI in-process: (exit code, stdout + stderr); an escaping exception is returned
    as exit code None with its traceback as the output."""
    monkeypatch.delenv("RULESDSL_DEBUG", raising=False)
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args) -> tuple[Optional[int], str]:
        try:
            code = main([str(a) for a in args])
        except (Exception, SystemExit):    # noqa: BLE001 — the point of the test
            out, err = capsys.readouterr()
            return None, f"{out}{err}\n{traceback.format_exc()}"
        out, err = capsys.readouterr()
        return code, out + err
    return run


def show_id(path: Path) -> str:
    """Something `show` can be asked about in the original file: its first declaration."""
    try:
        doc = parse_text(path.read_text(encoding="utf-8"), path.name)
    except (DslError, UnicodeDecodeError, OSError):
        doc = None
    for d in (doc.decls if doc else ()):
        if isinstance(d, Card):
            return f"{d.game}:{d.code}"
        if getattr(d, "id", None):
            return d.id
    parts = path.relative_to(REPO).parts
    return parts[1] if len(parts) > 2 else "grm"


def problems_of(command: str, code: Optional[int], out: str, file: Path, data: bytes) -> list[str]:
    """What is wrong with one run: an escaping exception, an exit code other than 0, 1 or 2, a
    traceback, a failure that names no location, or a location that is not in the file."""
    if code is None:
        return [f"`rulesdsl {command}` let an exception out:\n{out}"]
    found = []
    where = f"`rulesdsl {command}` exited {code}"
    if code not in (0, 1, 2):
        found.append(f"{where} (70 is an internal error)")
    if "Traceback" in out or "internal error" in out:
        found.append(f"{where} with a traceback or an internal error")
    lines = data.decode("utf-8", errors="replace").split("\n")
    for m in LOCATED.finditer(out):
        named = m.group("file")
        if Path(named).name == file.name and str(file).endswith(named):
            line, col = int(m.group("line")), int(m.group("col"))
            if line == len(lines) + 1 and col == 1 and lines[-1]:
                continue    # the end of a file with no last newline: pinned on its own, below
            if not (1 <= line <= len(lines) and 1 <= col <= len(lines[line - 1]) + 1):
                found.append(f"{where} naming {named}:{line}:{col}, which is not in the file "
                             f"({len(lines)} lines, the last {len(lines[-1])} characters long)")
    if code and not LOCATED.search(out):
        unlocated = {m.group("code") for m in UNLOCATED.finditer(out)}
        if command.startswith("fmt --check") and code == 1 and "would be reformatted" in out:
            pass    # the file parses and is merely not in the canonical layout: a diff, no error
        elif command.startswith("show") and unlocated == {"usage"}:
            pass    # the id asked for is gone: an error about the command line, not a file
        else:
            found.append(f"{where} without naming a location (path:line:col)")
    return [f"{p}:\n{_indent(out)}" for p in found]


def _indent(text: str, limit: int = 1500) -> str:
    text = text if len(text) <= limit else text[:limit] + " …"
    return "    " + text.replace("\n", "\n    ")


# ----------------------------------------------------------------------------- the test

@pytest.mark.parametrize("path", CORPUS, ids=[p.relative_to(REPO).as_posix() for p in CORPUS])
def test_cli_survives_mutations_of_corpus_file_and_names_locations(path, kb_copies, cli, monkeypatch, tmp_path):
    fmt_cases, kb_cases = BY_FILE[path]
    problems: list[str] = []

    def record(case: Case, command: str, code, out: str, file: Path, data: bytes) -> None:
        problems.extend(f"{case}: {p}" for p in problems_of(command, code, out, file, data))

    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    for case in fmt_cases:
        data = case.mutated()
        alone = tmp_path / f"{case.kind}-{case.seed}.rules"
        alone.write_bytes(data)
        code, out = cli("fmt", "--check", alone)
        record(case, f"fmt --check {alone.name}", code, out, alone, data)

    game = kb_cases[0].game
    root = kb_copies[game]
    monkeypatch.setenv("RULESDSL_CACHE", str(root.parent / f"cache-{game or '_all'}"))
    target = root / path.relative_to(REPO)
    original = target.read_bytes()
    ident = show_id(path)
    try:
        for case in kb_cases:
            data = case.mutated()
            target.write_bytes(data)
            code, out = cli("--root", root, "fmt", "--check", target)
            record(case, f"fmt --check {case.rel}", code, out, target, data)
            command, file = KB_COMMAND[case], target
            if command == "check":
                args = ["check"]
            elif command == "check PATH":
                args = ["check", target]
            elif command == "check OUTSIDE":      # a file outside the knowledge base, checked with it
                target.write_bytes(original)
                file = tmp_path / "outside" / path.name
                file.parent.mkdir(exist_ok=True)
                file.write_bytes(data)
                args = ["check", file]
            elif command == "show ID":
                args = ["show", ident]
            else:
                args = ["show", ident, "--as-of", "2026-09-01"]
            code, out = cli("--root", root, *args)
            record(case, " ".join(map(str, args)), code, out, file, data)
    finally:
        target.write_bytes(original)
    assert not problems, f"{len(problems)} problem(s):\n\n" + "\n\n".join(problems)


def test_cases_cover_every_file_and_kind():
    assert CORPUS, "no .rules files found under cards/ and rulings/"
    assert all(fmt for fmt, _ in BY_FILE.values()), "a file without a fmt case"
    assert all(kb for _, kb in BY_FILE.values()), "a file without a knowledge-base case"
    assert {c.kind for c in FMT_ONLY} == {c.kind for c in KB_ONLY} == set(KINDS)
    assert set(KB_COMMAND.values()) == set(KB_COMMANDS)
    assert len(FMT_ONLY) <= max(FMT_CASES, len(CORPUS)) and len(KB_ONLY) <= max(KB_CASES, len(CORPUS))


@pytest.mark.parametrize("kind", KINDS)
def test_mutations_are_deterministic_and_change_the_file(kind):
    f = max(CORPUS, key=lambda p: p.stat().st_size)
    a = Case(f, kind, 0).mutated()
    assert a == Case(f, kind, 0).mutated()
    assert a != f.read_bytes()
    if kind == "invalid-utf8":
        with pytest.raises(UnicodeDecodeError):
            a.decode("utf-8")


@pytest.mark.parametrize("command", ["fmt --check", "check"])
def test_an_early_end_of_file_is_located_on_the_last_line_of_the_file(command, cli, tmp_path, monkeypatch):
    """A file cut off with no last newline: the error points at its real end (line 2, column
    14), the same for every command, not at a line 3 that the file does not have."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "cut.rules"
    f.write_bytes('card grm No.1 "名前" {\n  weight 60kg'.encode())
    code, out = cli(*command.split(), f)
    assert code == 2, out
    assert f"{f}:2:14: error[syntax]" in out, out
