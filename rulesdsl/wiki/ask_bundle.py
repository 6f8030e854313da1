"""What `rulesdsl wiki build` ships so that a reader's browser can answer a new question: the
Pyodide runtime (CPython 3.14 compiled to WebAssembly), the wheels of rulesdsl and of its
run-time dependencies, and each game's knowledge base as a snapshot (browser.py loads it).

Everything is a file of the site (`assets/ask/`): nothing is fetched from another host when a
reader asks. The runtime and the wheels are gathered at build time with the ordinary clients
(`npm pack`, `pip download`), at the versions pinned here and checked against the digests pinned
here, and kept in the user's private cache folder (rulesdsl/cache.py), where every file is checked
against its pinned digest again before it is used: nothing on disk is trusted. A build that cannot
get them builds the site without the feature and says why (`Bundle.missing`).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..base import cache
from . import scratch as _scratch

# ----------------------------------------------------------------------------- the pins

PYODIDE_VERSION = "314.0.8"          # CPython 3.14
PYODIDE_INTEGRITY = ("sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46"
                     "AdnGo0oq7YHSVUpHsoarLQ==")          # the npm registry's dist.integrity
# what of the npm package the page loads (the ES module loader, not the classic script; the
# standard library and the lock file trimmed by ask_trim.py)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYTHON = "3.14"
# the run-time dependencies the browser's interpreter imports, as wheels: requirement -> (file,
# sha256). The browser answers on the plain models, as `rulesdsl ask` does (base/declared.py:
# nothing on the way to an answer validates through pydantic), so pydantic, pydantic-core,
# annotated-types and typing-inspection are never imported there and are not shipped; lark is
# imported only to explain a syntax error, so it is fetched and unpacked only then (ON_DEMAND);
# typing-extensions is named by lark only for Pythons before 3.10.
WHEELS = {
    "lark==1.3.1": ("lark-1.3.1-py3-none-any.whl",
                    "c629b661023a014c37da873b4ff58a817398d12635d3bbb2c5a03be7fe5d1e12"),
}
ON_DEMAND = ("lark-",)                # the wheels unpacked only when a syntax error needs them
ASSETS = "assets/ask"                 # where the site keeps it all
PARSER_TABLES = "parser.json"         # the parser's tables (lang.parser.shipped_tables)
PACKAGE = Path(__file__).resolve().parent.parent
# modules the browser never runs (the build's, the command line's, the tests')
NOT_SHIPPED = ("cli/", "regress/fuzzing.py", "regress/pytest_plugin.py", "wiki/plugin.py", "wiki/hook.py",
               "wiki/testing.py", "wiki/search.py", "wiki/lexer.py", "wiki/ask_bundle.py", "wiki/ask_trim.py",
               "wiki/ask_compile.py")
ENV_OFF = "RULESDSL_WIKI_NO_ASK"      # set to build without the feature
ENV_NO_BYTECODE = "RULESDSL_ASK_NO_BYTECODE"  # set to ship every module as source (ask_compile.py)
ENV_RUNTIME = "RULESDSL_ASK_RUNTIME"  # where to keep the gathered runtime instead of the cache folder


def on_demand(path: str) -> bool:
    """Whether the shipped wheel `path` is unpacked only when a question needs it."""
    return path.rsplit("/", 1)[-1].startswith(ON_DEMAND)


class Unavailable(Exception):
    """The runtime cannot be gathered (its message says why)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keep_key() -> str:
    """The name under which a reader's browser keeps the runtime (rdask-sw.js): the pinned
    versions and digests, so that an update of any of them replaces what was kept."""
    pins = json.dumps([PYODIDE_VERSION, PYODIDE_INTEGRITY, sorted(WHEELS.items())], sort_keys=True)
    return f"{PYODIDE_VERSION}-{sha256(pins.encode())[:12]}"


# ----------------------------------------------------------------------------- gathering

def runtime_dir() -> Path:
    """Where the gathered runtime is kept: the user's private cache folder, or the private folder
    $RULESDSL_ASK_RUNTIME names (the test suite's, which gives every other cache a folder of its
    own run but keeps the runtime in the user's across runs: every file is checked against its
    pin before it is used, so sharing it changes nothing but the downloads)."""
    named = os.environ.get(ENV_RUNTIME, "").strip()
    try:
        if named:
            return cache._private_dir(Path(named).absolute(), strict=True)
        base = cache.base_dir()
    except cache.Unavailable as e:
        raise Unavailable(f"no private cache folder to keep the browser runtime in: {e}") from None
    folder = base / "ask-runtime"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _verified(path: Path, digest: str) -> Optional[bytes]:
    """The bytes of `path` if they have the pinned digest, else None (and the file is removed:
    it is ours, in our private folder, and is fetched again)."""
    try:
        data = cache._read_private(path, 64 << 20)
    except cache.Unavailable as e:
        raise Unavailable(str(e)) from None
    if data is None:
        return None
    if sha256(data) != digest:
        cache.note(f"{path.name} does not have its pinned digest; fetching it again")
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return data


def _run(cmd: list[str], cwd: Path) -> None:
    try:
        proc = subprocess.run(cmd, cwd=str(cwd), capture_output=True, text=True, timeout=600)
    except FileNotFoundError:
        raise Unavailable(f"{cmd[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise Unavailable(f"{' '.join(cmd[:3])} took more than 10 minutes") from None
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise Unavailable(f"{' '.join(cmd[:3])} failed: {' / '.join(last)}")


def _pyodide(folder: Path) -> dict[str, bytes]:
    """The Pyodide core files, from the pinned npm package (fetched with `npm pack` if the kept
    copy is missing or does not match the pinned integrity)."""
    tgz = folder / f"pyodide-{PYODIDE_VERSION}.tgz"
    algo, _, want = PYODIDE_INTEGRITY.partition("-")
    data = cache._read_private(tgz, 64 << 20) if tgz.exists() else None
    if data is None or base64.b64encode(hashlib.new(algo, data).digest()).decode() != want:
        with _scratch.held(folder, FETCHING) as tmp:
            _run(["npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--silent", "--pack-destination", str(tmp)], tmp)
            got = tmp / tgz.name
            data = got.read_bytes() if got.is_file() else b""
            if base64.b64encode(hashlib.new(algo, data).digest()).decode() != want:
                raise Unavailable(f"npm's pyodide@{PYODIDE_VERSION} does not match its pinned integrity")
            os.replace(got, tgz)
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for name in PYODIDE_FILES:
            member = tar.getmember(f"package/{name}")
            if not member.isfile():
                raise Unavailable(f"pyodide's package/{name} is not a file")
            out[name] = tar.extractfile(member).read()
    return out


def _wheels(folder: Path) -> dict[str, bytes]:
    """The pinned wheels, fetched with `pip download` where the kept copy is missing or wrong."""
    out: dict[str, bytes] = {}
    missing = []
    for req, (name, digest) in WHEELS.items():
        data = _verified(folder / name, digest)
        if data is None:
            missing.append(req)
        else:
            out[name] = data
    if missing:
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check"]
        with _scratch.held(folder, FETCHING) as tmp:     # pure Python: any platform's
            _run(pip + ["--dest", str(tmp), *missing], tmp)
            for req in missing:
                name, digest = WHEELS[req]
                got = tmp / name
                data = got.read_bytes() if got.is_file() else b""
                if sha256(data) != digest:
                    raise Unavailable(f"pip's {name} is missing or does not match its pinned digest")
                os.replace(got, folder / name)
                out[name] = data
    return out


def games() -> list[str]:
    """The games whose engines the package holds (imported by name)."""
    return sorted(p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").is_file())


def rulesdsl_wheel() -> tuple[str, bytes]:
    """A wheel of this package's code as it is now: its .lark files and the modules the browser's
    session and the games' engines (imported by name) import, lazily or not (ask_trim.py) —
    never the build's, the command line's and the tests' own modules; built byte for byte the
    same from the same code."""
    from .. import __version__
    from .ask_trim import package_closure, record, write_zip
    name = f"rulesdsl-{__version__}"
    files = [(f"rulesdsl/{rel}", Path(full).read_bytes()) for rel, full in cache.walk(PACKAGE, (".py", ".lark"))
             if not rel.startswith(NOT_SHIPPED)]
    roots = ["rulesdsl.wiki.browser", *(f"rulesdsl.games.{g}" for g in games())]
    keep = package_closure(files, roots, lambda p: p.endswith(".lark"))
    files = [(p, d) for p, d in files if p in keep]
    info = f"{name}.dist-info"
    wheel = dict(files)
    wheel[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: rulesdsl\nVersion: {__version__}\n".encode()
    wheel[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: rulesdsl wiki\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    wheel[f"{info}/RECORD"] = record(wheel, info)
    return f"{name}-py3-none-any.whl", write_zip(wheel)


# ----------------------------------------------------------------------------- the bundle

@dataclass
class Bundle:
    """What the site ships for the ask feature, or why it does not (`missing`)."""

    missing: Optional[str] = None
    files: dict[str, bytes] = field(default_factory=dict)    # path under ASSETS -> bytes
    manifest: dict = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)      # scenario id -> its DSL text
    written: bool = False       # the files are in the site, their bytes let go of (`write`)
    aside: Optional[str] = None  # the private scratch folder holding the files' bytes instead of `files` (`encode`)

    @property
    def available(self) -> bool:
        return self.missing is None

    def sizes(self) -> dict[str, int]:
        """Each file's size in bytes (what the pages tell a reader they download), the same
        before and after `write` let go of the bytes (the manifest lists every file's)."""
        if self.written or self.aside is not None:
            return {n: m["bytes"] for n, m in self.manifest["files"].items()}
        return {n: len(d) for n, d in self.files.items()}

    def total_bytes(self, game: Optional[str] = None) -> int:
        """The bytes a reader downloads to ask about one game (all games' when `game` is None)."""
        return sum(size for n, size in self.sizes().items()
                   if not n.startswith("games/") or game is None or n.startswith(f"games/{game}/"))


def gather() -> dict[str, bytes]:
    """The runtime's files (path under ASSETS -> bytes), without what the interpreter never
    imports (ask_trim.py); Unavailable when they cannot be had."""
    from . import ask_trim
    folder = runtime_dir()
    wheels = {n: ask_trim.trimmed_wheel(n, d) for n, d in _wheels(folder).items()}
    name, data = rulesdsl_wheel()
    wheels[name] = data
    core = _pyodide(folder)
    core["python_stdlib.zip"], _ = ask_trim.trimmed_stdlib(core["python_stdlib.zip"],
                                                           ask_trim.wheel_imports(wheels.values()))
    core["pyodide-lock.json"] = ask_trim.trimmed_lock(core["pyodide-lock.json"])
    if os.environ.get(ENV_NO_BYTECODE, "").strip() in ("", "0"):
        from .ask_compile import with_bytecode
        # what a question of any game imports: every game's engine is in the one wheel a reader
        # downloads, whichever game is asked about
        core, wheels, why = with_bytecode(core, wheels, games(), folder)
        if why:
            cache.note(why)
    files = {f"pyodide-{PYODIDE_VERSION}/{n}": d for n, d in core.items()}
    files.update({f"wheels/{n}": d for n, d in wheels.items()})
    return files


def game_documents(kb, game: str) -> list:
    """The parsed documents of the knowledge base that declare something of `game`."""
    def of(d) -> Optional[str]:
        g = getattr(d, "game", None)
        if type(d).__name__ == "Game":
            return d.id
        return g or (d.id.split("/", 1)[0] if isinstance(getattr(d, "id", None), str) else None)
    return [doc for doc in kb.documents if any(of(d) == game for d in doc.decls)]


def game_files(kb, game: str) -> tuple[bytes, bytes]:
    """One game's knowledge base for the browser: the snapshot of its documents with every worked
    question reduced to its id (loader.outline), and its source documents ({path: text} JSON)."""
    from ..kb.loader import outline
    from ..lang.snapshot import dumps
    docs = game_documents(kb, game)
    snap = dumps([tuple(d.path for d in docs), tuple(map(outline, docs))])
    sources = {}
    for d in kb.games[game].documents.values():
        path = Path(d.path)
        with contextlib.suppress(ValueError):
            sources[path.resolve().relative_to(Path(kb.root).resolve()).as_posix()] = path.read_text(encoding="utf-8")
    return snap, json.dumps(sources, ensure_ascii=False).encode("utf-8")


def build(wiki) -> Bundle:
    """The bundle for the wiki `wiki` (site.Wiki), or one saying why there is none."""
    if os.environ.get(ENV_OFF, "").strip() not in ("", "0"):
        return Bundle(missing=f"{ENV_OFF} is set")
    try:
        files = gather()
    except (Unavailable, OSError) as e:
        return Bundle(missing=str(e))
    from .ask_page import lexer_table
    kb = wiki.kb
    games = {}
    for g in wiki.games:
        from ..engine.registry import engine_for
        if engine_for(g) is None:
            continue
        snap, sources = game_files(kb, g)
        files[f"games/{g}/snapshot.json"] = snap
        files[f"games/{g}/sources.json"] = sources
        games[g] = {"snapshot": f"games/{g}/snapshot.json", "sources": f"games/{g}/sources.json"}
    from ..lang.parser import shipped_tables
    files[PARSER_TABLES] = shipped_tables()
    manifest = {
        "format": 1,
        "parser": PARSER_TABLES,
        "pyodide": {"version": PYODIDE_VERSION, "python": PYTHON, "dir": f"pyodide-{PYODIDE_VERSION}/",
                    "integrity": PYODIDE_INTEGRITY},
        # unpacked as Python starts; the others only when a question needs them (ON_DEMAND)
        "wheels": sorted(n for n in files if n.startswith("wheels/") and not on_demand(n)),
        "onDemand": sorted(n for n in files if n.startswith("wheels/") and on_demand(n)),
        "versions": {req.split("==")[0]: req.split("==")[1] for req in WHEELS},
        "keep": keep_key(),
        "games": games,
        "dirUrls": bool(wiki.dir_urls),
        "lexer": lexer_table(),
        "files": {n: {"sha256": sha256(d), "bytes": len(d)} for n, d in sorted(files.items())},
    }
    texts = {}
    for sid, info in kb.scenarios.items():
        if info.game in games:
            text = wiki.sources.block(info.scenario.loc)
            if text:
                texts[sid] = text + "\n"
    return Bundle(files=files, manifest=manifest, texts=texts)


SCRATCH_PREFIX = "ask-scratch-"     # + the making process's id + "-": in the user's private cache folder
FETCHING = "fetching-"              # npm's and pip's downloads, in the runtime folder (scratch.py)


def scratch() -> Optional[Path]:
    """A new private folder (mode 0700) for a forked maker to leave the bundle's files in
    (`encode`); whoever made it removes it (`scratch.discard`). It is made in the user's private
    cache folder, never the shared temporary one: its files are the code the site ships (the
    wheels); those a stopped build left are removed first (scratch.py). None where there is no
    private cache folder: the files then come through the pipe (`encode` without `aside`)."""
    try:
        top = cache.base_dir()
    except cache.Unavailable:
        return None
    return _scratch.make(top, SCRATCH_PREFIX)


def encode(bundle: Bundle, aside: Optional[Path] = None) -> bytes:
    """The bundle as bytes (made beside the answers by a forked copy of the build: plugin.py):
    its description as JSON, then its files' bytes one after the other — or, given `aside` (a
    folder `scratch` made), its files' bytes written there under their names and only their
    lengths sent, so that they never enter the heap of the process that decodes it."""
    files = [[name, len(data)] for name, data in bundle.files.items()]
    if aside is not None and bundle.available:
        for name, data in bundle.files.items():
            dest = _inside(aside, name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with open(dest, "xb") as f:
                f.write(data)
    else:
        aside = None
    head = json.dumps({"missing": bundle.missing, "manifest": bundle.manifest, "texts": bundle.texts,
                       "files": files, "aside": None if aside is None else str(aside)},
                      ensure_ascii=False).encode("utf-8")
    return len(head).to_bytes(8, "little") + head + (b"" if aside is not None else b"".join(bundle.files.values()))


def decode(data: bytes, aside: Optional[Path] = None) -> Bundle:
    """The bundle `encode` made (ValueError when `data` is not one, or when its files were left
    in a folder other than `aside`, or are not there at their lengths)."""
    size = int.from_bytes(data[:8], "little")
    head = json.loads(data[8:8 + size])
    pos, files = 8 + size, {}
    left = head.get("aside")
    if left is not None:
        if aside is None or left != str(aside):
            raise ValueError("not a bundle")
        for name, length in head["files"]:
            if not isinstance(name, str) or not isinstance(length, int) or head["manifest"]["files"][name]["bytes"] != length:
                raise ValueError("not a bundle")
            st = os.lstat(_inside(aside, name))     # (OSError: not there)
            if not stat.S_ISREG(st.st_mode) or st.st_size != length:
                raise ValueError("not a bundle")
    else:
        for name, length in head["files"]:
            if not isinstance(name, str) or not isinstance(length, int) or pos + length > len(data):
                raise ValueError("not a bundle")
            files[name] = data[pos:pos + length]
            pos += length
    if pos != len(data):
        raise ValueError("not a bundle")
    return Bundle(missing=head["missing"], files=files, manifest=head["manifest"], texts=head["texts"], aside=left)


def _inside(folder: Path, name: str) -> Path:
    """Where the file `name` of the bundle goes under `folder` (ValueError for a name that would
    leave it)."""
    parts = name.split("/")
    if not name or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a file name of the bundle: {name!r}")
    return Path(folder, *parts)


def write(bundle: Bundle, site: Path) -> None:
    """Write the bundle's files into the built site (only ever into its own folder there), then
    let go of their bytes (~50 MB: the build writes them as soon as mkdocs has emptied the site
    folder, instead of holding them while every page is made); a second call writes nothing.
    Files left aside (`encode`) are copied a piece at a time, each checked against the digest the
    manifest gives it, and their folder removed."""
    if not bundle.available or bundle.written:
        return
    top = Path(site) / ASSETS
    if top.exists() and not top.is_dir():
        raise OSError(f"{top} is not a folder")
    if bundle.aside is not None:
        for name, meta in bundle.manifest["files"].items():
            _copy_checked(_inside(Path(bundle.aside), name), _inside(top, name), meta["sha256"])
        _scratch.discard(Path(bundle.aside))
        bundle.aside = None
    for name, data in bundle.files.items():
        dest = _inside(top, name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    (top / "manifest.json").write_text(json.dumps(bundle.manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    bundle.files, bundle.written = {}, True


def _copy_checked(src: Path, dest: Path, digest: str) -> None:
    """Copy `src` to `dest` a megabyte at a time; OSError (and `dest` removed) when what was
    copied does not have the sha256 `digest`."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    with open(src, "rb") as f, open(dest, "wb") as out:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            out.write(chunk)
    if h.hexdigest() != digest:
        dest.unlink()
        raise OSError(f"{src} changed after the interpreter for readers' browsers was made")
