"""Mutation fuzzing of the command line, shared by the test suite (tests/test_fuzz_cli.py, a few
hundred cases in seconds) and the long run (benchmarks/bench_fuzz.py, 10,000 cases).

A case is a corpus file, a kind of mutation and a seed; the mutated bytes are a pure function of
those three (the random generator is seeded with them). Whatever the damage, a command must
exit 0, 1 or 2, never let a Python exception out or report an internal error, and when it fails
it must name a location, `path:line:col`, inside the file.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import traceback
from pathlib import Path
from typing import Callable, NamedTuple, Optional

KINDS = ("delete", "duplicate", "swap", "truncate", "byte-flip", "random-bytes", "invalid-utf8",
         "delete-line", "duplicate-line", "deep-nesting", "encoding")

# A rendered diagnostic starts with its location: `path:line:col: error[code]: …`.
LOCATED = re.compile(r"(?m)^(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+): (?:error|warning)\[")
UNLOCATED = re.compile(r"(?m)^(?:error|warning)\[(?P<code>[\w-]+)\]")

_TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*|\s+'
                    r'|[^\s{}\[\](),;=@"#]+|.', re.S)
_INVALID_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc3(", b"\xe3\x81", b"\xed\xa0\x80",
                 b"\xf8\x88\x80\x80\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"]
_ENCODINGS = ("utf-16", "utf-16-be", "utf-32", "shift_jis", "euc_jp", "iso2022_jp", "utf-8-sig", "nul", "crlf")


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
    if kind in ("delete-line", "duplicate-line"):
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        if kind == "delete-line":
            del lines[i]
        else:
            lines.insert(i, lines[i])
        return b"\n".join(lines)
    if kind == "deep-nesting":
        depth = rng.choice([65, 200, 1500])
        opener, closer = rng.choice([(b"{ a ", b"}"), (b"[", b"]"), (b"{", b"}"), (b"(", b")")])
        closed = rng.random() < 0.7
        nest = b" x " + opener * depth + (closer * depth if closed else b"")
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        lines[i] = lines[i] + nest
        return b"\n".join(lines)
    if kind == "encoding":
        how = rng.choice(_ENCODINGS)
        text = data.decode("utf-8", errors="replace")
        if how == "nul":
            pos = rng.randrange(len(data) + 1)
            return data[:pos] + b"\x00" + data[pos:]
        if how == "crlf":
            return data.replace(b"\n", b"\r\n")
        return text.encode(how, errors="replace")
    out = bytearray(data)
    if kind == "byte-flip":
        for _ in range(rng.randint(1, 4)):
            if out:
                pos = rng.randrange(len(out))
                out[pos] ^= 1 << rng.randrange(8)
        return bytes(out)
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


class Case(NamedTuple):
    file: Path          # in the corpus
    rel: str            # its path in the corpus, which seeds the mutation
    kind: str
    seed: int

    @property
    def game(self) -> str:
        parts = Path(self.rel).parts
        return parts[1] if len(parts) > 2 and parts[0] in ("cards", "rulings") else ""

    def __str__(self) -> str:
        return f"{self.rel} [{self.kind} #{self.seed}]"

    def mutated(self) -> bytes:
        return mutate(self.file.read_bytes(), self.kind, random.Random(f"{self.rel}|{self.kind}|{self.seed}"))


def cases(corpus: list[Path], root: Path, count: int, first_seed: int = 0) -> list[Case]:
    """`count` cases, layer by layer: in each layer every file once, the kinds rotating over the
    files, so that every file and every kind is covered as early as possible."""
    out: list[Case] = []
    seed = first_seed
    while len(out) < count:
        for round_ in range(len(KINDS)):
            for n, f in enumerate(corpus):
                out.append(Case(f, f.relative_to(root).as_posix(), KINDS[(n + round_ + seed) % len(KINDS)], seed))
        seed += 1
    return out[:count]


def runner(main: Callable[[list], int]) -> Callable[[list], tuple[Optional[int], str]]:
    """`run(argv)` for the command line's `main` (rulesdsl.cli.main.main, passed in: the command
    line is the layer above this one): runs it in this process and gives (exit code, stdout +
    stderr); an escaping exception is exit code None with its traceback as the output."""
    def run(argv: list) -> tuple[Optional[int], str]:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = main([str(a) for a in argv])
        except (Exception, SystemExit):    # noqa: BLE001 — the point of fuzzing
            return None, f"{out.getvalue()}\n{traceback.format_exc()}"
        return code, out.getvalue()
    return run


def classify(command: str, code: Optional[int], out: str, file: Path, data: bytes) -> list[tuple[str, str]]:
    """What is wrong with one run, as (kind, text): "traceback" (an escaping exception, a
    traceback or an internal error), "exit" (an exit code other than 0, 1 or 2), "unlocated" (a
    failure that names no location, or a location that is not in the file)."""
    if code is None:
        return [("traceback", f"`rulesdsl {command}` let an exception out:\n{out}")]
    found = []
    where = f"`rulesdsl {command}` exited {code}"
    if "Traceback" in out or "internal error" in out:
        found.append(("traceback", f"{where} with a traceback or an internal error"))
    if code not in (0, 1, 2):
        found.append(("exit", f"{where} (70 is an internal error)"))
    lines = data.decode("utf-8", errors="replace").split("\n")
    for m in LOCATED.finditer(out):
        named = m.group("file")
        if Path(named).name == file.name and str(file).endswith(named):
            line, col = int(m.group("line")), int(m.group("col"))
            if line == len(lines) + 1 and col == 1 and lines[-1]:
                continue    # the end of a file with no last newline
            if not (1 <= line <= len(lines) and 1 <= col <= len(lines[line - 1]) + 1):
                found.append(("unlocated", f"{where} naming {named}:{line}:{col}, which is not in the file "
                                           f"({len(lines)} lines, the last {len(lines[-1])} characters long)"))
    if code and not LOCATED.search(out):
        unlocated = {m.group("code") for m in UNLOCATED.finditer(out)}
        if command.startswith("fmt --check") and code == 1 and "would be reformatted" in out:
            pass    # the file parses and is merely not in the canonical layout: a diff, no error
        elif command.startswith("show") and unlocated == {"usage"}:
            pass    # the id asked for is gone: an error about the command line, not a file
        else:
            found.append(("unlocated", f"{where} without naming a location (path:line:col)"))
    return [(kind, f"{text}:\n{_indent(out)}") for kind, text in found]


def _indent(text: str, limit: int = 1500) -> str:
    text = text if len(text) <= limit else text[:limit] + " …"
    return "    " + text.replace("\n", "\n    ")


KB_DIRS = ("cards", "rulings")


def copy_knowledge_bases(games, repo: Path, dest: Path) -> dict[str, Path]:
    """One copy of the knowledge base per game (its cards/ and rulings/ folders); "" is the
    whole knowledge base (for files that belong to no game's folder, such as the examples)."""
    import shutil

    roots = {}
    for game in sorted(set(games)):
        root = dest / (game or "_all")
        for d in KB_DIRS:
            src = repo / d / game if game else repo / d
            if src.is_dir():
                shutil.copytree(src, root / d / game if game else root / d)
        (root / "rulings").mkdir(parents=True, exist_ok=True)
        roots[game] = root
    return roots


def show_id(path: Path) -> str:
    """Something `show` can be asked about in a corpus file: its first declaration."""
    from ..lang.diagnostics import DslError
    from ..lang.model import Card
    from ..lang.parser import parse_text

    try:
        doc = parse_text(path.read_text(encoding="utf-8"), path.name)
    except (DslError, UnicodeDecodeError, OSError):
        doc = None
    for d in (doc.decls if doc else ()):
        if isinstance(d, Card):
            return f"{d.game}:{d.code}"
        if getattr(d, "id", None):
            return d.id
    parts = path.parts
    for i, part in enumerate(parts[:-2]):
        if part in KB_DIRS:
            return parts[i + 1]                 # the game of cards/<game>/…, rulings/<game>/…
    return "grm"


# ----------------------------------------------------------------------------- hand-written cases
# Attacks that no mutation of a file finds: a site folder that would be emptied, a save made while
# `fmt --write` runs, a global option spelled the way argparse would once have completed it. Each
# returns what went wrong (nothing, if all holds); run them on throwaway copies only.

SITE_TARGETS = (".", "rulings", "cards", "rulings/{game}", "rulings/{game}/sources", "..", "{foreign}",
                "/dev/null")
SAVES = ("atomic", "in-place", "same-bytes")
SPELLINGS = (("--ro", "{kb}"), ("--ro={kb}",), ("--roo={kb}",), ("--r", "{kb}"), ("--root", "{kb}"),
             ("--root={kb}",), ("--root", "{kb}", "--no-c"), ("--root", "{kb}", "--no"),
             ("--root", "{kb}", "--no-cache"), ("--root", "{kb}", "--verb"), ("--root", "{kb}", "-vv"))


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (relative path -> digest of its bytes)."""
    import hashlib
    return {p.relative_to(folder).as_posix(): hashlib.blake2b(p.read_bytes(), digest_size=16).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def folder_emptying(run, kb: Path, game: str, scratch: Path) -> list[str]:
    """`wiki build -d` at the knowledge base, its folders, its parent, a folder of the user's and a
    device, with and without --force: never exit 0, never a traceback, every file still there."""
    foreign = scratch / "notes"
    foreign.mkdir(exist_ok=True)
    (foreign / "draft.txt").write_text("mine\n", encoding="utf-8")
    before = {kb: snapshot(kb), foreign: snapshot(foreign)}
    problems = []
    for target in SITE_TARGETS:
        site = target.format(game=game, foreign=foreign)
        for force in ((), ("--force",)) if target != "{foreign}" else ((),):
            argv = ["--root", kb, "wiki", "build", "-d", site if os.path.isabs(site) else kb / site, *force]
            code, out = run(argv)
            said = f"wiki build -d {site} {' '.join(force)}".strip()
            if code != 2 or "Traceback" in out or "internal error" in out:
                problems.append(f"`{said}` exited {code}:\n{_indent(out)}")
            for folder, files in before.items():
                if snapshot(folder) != files:
                    problems.append(f"`{said}` changed or removed files in {folder}")
                    return problems
    return problems


def concurrent_saves(run, files: list[Path], scratch: Path, on_replace) -> list[str]:
    """`fmt --write` of each file laid out badly, with another program saving it between the read
    and the replace (`on_replace(fn)` makes the formatter call fn(target) there): an atomic save,
    one in place with the same size and the mtime put back, one of the very bytes read. The save
    must survive (reported, exit 2), and the last one be formatted (exit 0)."""
    problems = []
    for n, f in enumerate(files):
        messy = re.sub(r"(?m)^[ \t]+", "", f.read_text(encoding="utf-8"))
        for how in SAVES:
            target = scratch / f"save-{n}-{how}.rules"
            target.write_text(messy, encoding="utf-8")
            saved = messy if how == "same-bytes" else messy.replace("\n", "\n# saved by an editor\n", 1)
            if how == "in-place":
                saved = messy[:-1] + ("#" if messy[-1:] != "#" else " ")    # the same size
            on_replace(lambda path, saved=saved, how=how: _save(Path(path), saved, how))
            code, out = run(["fmt", "--write", target])
            text = target.read_text(encoding="utf-8")
            where = f"{f.name} [{how} save]"
            if how == "same-bytes":         # nothing else was saved: it is formatted as usual
                if code != 0 or text == messy:
                    problems.append(f"{where}: exited {code}, the file not formatted:\n{_indent(out)}")
            elif text != saved:
                problems.append(f"{where}: the save was overwritten (exit {code}):\n{_indent(out)}")
            elif code != 2 or f"{target} was not rewritten" not in out:
                problems.append(f"{where}: exit {code} without naming the file:\n{_indent(out)}")
    return problems


def _save(path: Path, text: str, how: str) -> None:
    data = text.encode("utf-8")
    if how == "in-place":
        st = os.stat(path)
        with open(path, "r+b") as f:
            f.write(data)
            f.truncate()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        return
    tmp = path.with_name(f".{path.name}.editor")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _answer_of(result: tuple[Optional[int], str]) -> tuple[Optional[int], str]:
    """A command's exit code and output without the cache's own notes (`-vv`): which caches were
    read or written differs between a run that fills them and one that finds them filled, and
    is not part of the answer."""
    code, out = result
    return code, "".join(line for line in out.splitlines(True) if not line.startswith("rulesdsl: cache: "))


def abbreviations(fast, slow, kb: Path, edit: Path) -> list[str]:
    """`check` of the knowledge base `kb` named by every spelling of the global options, run from
    another folder through the command line with its kept outputs (`fast`), once, then after
    `edit` is damaged: the second answer must be the one the command line gives without any kept
    output (`slow`) — never the first one kept under another key."""
    problems = []
    original = edit.read_bytes()
    for spelling in SPELLINGS:
        argv = [a.format(kb=kb) for a in spelling] + ["check"]
        try:
            edit.write_bytes(original)
            fast(argv)
            edit.write_bytes(original + b"\n}\n")
            got, truth = fast(argv), slow(argv)
        finally:
            edit.write_bytes(original)
        if _answer_of(got) != _answer_of(truth):
            problems.append(f"`rulesdsl {' '.join(spelling)} check`: after an edit it answered\n"
                            f"{_indent(got[1])}\n  where the truth is\n{_indent(truth[1])}")
    return problems
