"""Bytecode for the modules a reader's first question imports, made at build time (ask_bundle.py).

Under Pyodide, importing a module from its source compiles it first, and in WebAssembly that
compiling is most of Python's start and of importing rulesdsl (measured in
benchmarks/README.md: Pyodide's start alone went from 12–13 s to 4.5–5 s in Node on a loaded
machine with its own modules compiled). So the build compiles them once, with Pyodide's own
CPython run in Node (ask_compile.mjs: the same interpreter, so the same magic number and code),
and ships each chosen module as a sourceless `.pyc` in place of its `.py` (zipimport and the
file system's importer both load a lone `.pyc`; a traceback then shows no source line).

Bytecode compresses about half as well as source, and a reader downloads at most 15 MB for one
game (issue 22), so not every module may fit: the modules imported on the way to an answer, by a
syntax error (lark) and the rest of rulesdsl's wheel (every game's engine: one wheel for all)
are taken in the order of the most compiling saved (the nodes of the module's syntax tree) per
byte the download grows, until GROWTH bytes are spent — the same choice from the same input.
What is compiled is kept in the private cache folder (a MAC'd entry, rulesdsl/base/cache.py)
under the digest of everything it was made from; without Node, or if anything fails, the site
ships the sources, as before, and says why among the caches' notes (--verbose).
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import zlib
from pathlib import Path
from typing import Optional

from ..base import cache
from . import scratch

GROWTH = 1_500_000          # the bytes the bytecode may add to what a reader downloads: since
                            # pydantic is no longer shipped (ask_bundle.WHEELS), every module a
                            # question or a syntax error imports fits, and one game stays < 14 MB
SCRIPT = Path(__file__).with_name("ask_compile.mjs")
FORMAT = "ask-compiled-1"
COMPILING = "compiling-"   # the scratch folder Node reads the runtime from, in the runtime folder (scratch.py)
CHOSEN = "ask-chosen-1"     # the entry keeping `chosen`'s answer beside the bytecode (`kept_choice`):
                            # a new name whenever `chosen` ranks otherwise (the entry is keyed by its input only)


def _compile(core: dict[str, bytes], wheels: dict[str, bytes], games: list[str], runtime: Path) -> list:
    """[[archive ("stdlib" or "wheels"), path of the .py inside, pyc bytes, syntax nodes], …] from Node,
    given the files in a scratch folder of the private `runtime` folder (scratch.py: they are the
    code the site ships, never left in the shared temporary folder)."""
    from ..lang.parser import shipped_tables      # parsed on them, as the page parses
    with scratch.held(runtime, COMPILING) as folder:
        for name, data in core.items():
            (folder / name).write_bytes(data)
        (folder / "wheels").mkdir()
        for name, data in wheels.items():
            (folder / "wheels" / name).write_bytes(data)
        try:
            proc = subprocess.run(["node", str(SCRIPT), str(folder)], capture_output=True, timeout=900,
                                  input=json.dumps({"wheels": sorted(wheels), "games": games,
                                                    "tables": shipped_tables().decode()}).encode())
        except FileNotFoundError:
            raise OSError("node is not installed") from None
        except subprocess.TimeoutExpired:
            raise OSError("compiling took more than 15 minutes") from None
        if proc.returncode != 0:
            lines = [ln for ln in proc.stderr.decode(errors="replace").splitlines() if ln.strip() and len(ln) < 300]
            raise OSError("node failed: " + " / ".join(lines[-4:]))
    return [[a, p, base64.b64decode(b), n] for a, p, b, n in json.loads(proc.stdout)]


def _inputs(core: dict[str, bytes], wheels: dict[str, bytes], games: list[str]) -> str:
    """The digest of everything the bytecode is made from."""
    h = hashlib.sha256(FORMAT.encode() + SCRIPT.read_bytes())
    for name in sorted(core):
        h.update(name.encode() + b"\0" + hashlib.sha256(core[name]).digest())
    for name in sorted(wheels):
        h.update(name.encode() + b"\0" + hashlib.sha256(wheels[name]).digest())
    h.update(json.dumps(games).encode())
    return h.hexdigest()


def compiled(core: dict[str, bytes], wheels: dict[str, bytes], games: list[str], folder: Path,
             inputs: Optional[str] = None) -> list:
    """`_compile`'s answer, from the cache entry in `folder` made from the same input if there is
    one (`inputs`: their `_inputs`, where the caller has it)."""
    inputs = inputs or _inputs(core, wheels, games)
    path = folder / "compiled-bytecode"
    # signed by the runtime folder's own key, not the cache folder's: a runtime kept between
    # builds with caches of their own ($RULESDSL_ASK_RUNTIME: the benchmarks', the tests') keeps
    # its bytecode too, not only its downloads (else node compiles it again at every build)
    payload = cache.read_entry(path, FORMAT, inputs, keyed=folder)
    if payload is not None:
        try:
            return [[a, p, base64.b64decode(b), n] for a, p, b, n in json.loads(payload)]
        except (ValueError, TypeError):      # an entry that does not read back is made again
            pass
    out = _compile(core, wheels, games, folder)
    cache.write_entry(path, FORMAT, inputs,
                      json.dumps([[a, p, base64.b64encode(b).decode(), n] for a, p, b, n in out]).encode(),
                      keyed=folder)
    return out


def _growth(source: bytes, pyc: bytes) -> int:
    return len(zlib.compress(pyc, 9)) - len(zlib.compress(source, 9))


def chosen(found: list, sources: dict[tuple[str, str], bytes], growth: int = GROWTH) -> dict[tuple[str, str], bytes]:
    """Which of `found` ([archive, path, pyc, syntax nodes]) to ship in place of their sources
    (`sources`: (archive, path) -> the .py's bytes): the most compiling saved (syntax nodes) per
    byte of growth first, within `growth`."""
    ranked = []
    for archive, path, pyc, nodes in found:
        src = sources.get((archive, path))
        if src:
            grows = _growth(src, pyc)
            ranked.append((-nodes / max(grows, 1), archive, path, grows, pyc))
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    out, spent = {}, 0
    for _, archive, path, grows, pyc in ranked:
        if spent + grows > growth:
            continue
        spent += grows
        out[(archive, path)] = pyc
    return out


def kept_choice(found: list, sources: dict[tuple[str, str], bytes], folder: Path, inputs: str,
                growth: int = GROWTH) -> dict[tuple[str, str], bytes]:
    """`chosen`'s answer, from the entry beside the bytecode in `folder` made for the same inputs
    (`_inputs`: `found` and `sources` are made from them alone) and growth if there is one: ranking
    compresses every module and its bytecode at level 9, ~1.5 s of CPU a build. Signed by the
    runtime folder's key as the bytecode is; an entry naming a module not found is made again."""
    path, key = folder / "chosen-bytecode", f"{inputs} {growth}"
    pycs = {(a, p): pyc for a, p, pyc, _ in found}
    payload = cache.read_entry(path, CHOSEN, key, keyed=folder)
    if payload is not None:
        try:
            names = [(a, p) for a, p in json.loads(payload)]
            if all(n in pycs and sources.get(n) for n in names):
                return {n: pycs[n] for n in names}          # in the order `chosen` gave them
        except (ValueError, TypeError):
            pass
    out = chosen(found, sources, growth)
    cache.write_entry(path, CHOSEN, key, json.dumps([list(n) for n in out]).encode(), keyed=folder)
    return out


def apply(files: dict[str, bytes], chosen_here: dict[str, bytes]) -> dict[str, bytes]:
    """The files of an archive with each chosen `X.py` replaced by `X.pyc`."""
    out = {p: d for p, d in files.items() if p not in chosen_here}
    out.update({p + "c": pyc for p, pyc in chosen_here.items()})
    return out


def with_bytecode(core: dict[str, bytes], wheels: dict[str, bytes], games: list[str],
                  folder: Path) -> tuple[dict[str, bytes], dict[str, bytes], Optional[str]]:
    """`core` (Pyodide's files) and `wheels` with the chosen modules as bytecode; and why not,
    if they could not be compiled (then unchanged)."""
    from .ask_trim import read_zip, record, write_zip
    inputs = _inputs(core, wheels, games)
    try:
        found = compiled(core, wheels, games, folder, inputs)
    except OSError as e:
        return core, wheels, f"shipping the sources without bytecode: {e}"
    stdlib = read_zip(core["python_stdlib.zip"])
    unpacked = {name: read_zip(data) for name, data in wheels.items()}
    owner = {p: name for name, files in unpacked.items() for p in files}
    sources = {("stdlib", p): stdlib[p] for a, p, *_ in found if a == "stdlib" and p in stdlib}
    sources.update({("wheels", p): unpacked[owner[p]][p] for a, p, *_ in found if a == "wheels" and p in owner})
    picked = kept_choice(found, sources, folder, inputs)
    core = dict(core)
    core["python_stdlib.zip"] = write_zip(apply(stdlib, {p: b for (a, p), b in picked.items() if a == "stdlib"}))
    wheels = dict(wheels)
    for name, files in unpacked.items():
        mine = {p: b for (a, p), b in picked.items() if a == "wheels" and owner.get(p) == name}
        if not mine:
            continue
        files = apply(files, mine)
        for info in {p.split("/", 1)[0] for p in files if p.split("/", 1)[0].endswith(".dist-info")}:
            if f"{info}/RECORD" in files:
                files[f"{info}/RECORD"] = record(files, info)
        wheels[name] = write_zip(files)
    return core, wheels, None

