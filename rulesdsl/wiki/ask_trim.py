"""What the wiki leaves out of the runtime it ships for readers' browsers (ask_bundle.py): the
modules of Python's standard library, of the wheels and of rulesdsl that the interpreter can never
import, so that a reader downloads less (issue 22: ≤ 15 MB for one game, on a host that does not
compress).

What is kept is decided from the code, not guessed: every module named by an import statement of
the code that is shipped — at the top of a file or inside a function, so the lazy imports of error
paths (traceback, linecache, difflib …) are kept too — and, transitively, every module those name.
The starting points are rulesdsl's browser session and the games' engines (imported by name),
the wheels' packages, and what Pyodide itself runs as it starts (its own `_pyodide`/`pyodide`
packages, `site`, the codecs it looks up by name). The proof that nothing needed was cut is the
comparison test (tests/test_wiki_ask.py): worked questions of the four games answered in the
trimmed runtime give exactly `rulesdsl ask --json`'s answers, and every module they imported is
among those kept.

Every archive is written again byte for byte the same from the same input (fixed dates, sorted
names), so the bundle's size is a property of the build and can be tested.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import zipfile
from typing import Callable, Iterable

# what Pyodide runs as it starts, named from its JavaScript and C rather than by an import
# statement: its own packages (kept whole) and the modules of Python's start
STDLIB_WHOLE = ("_pyodide", "pyodide")
STDLIB_START = ("site", "sitecustomize", "sysconfig", "zipimport", "json", "encodings",
                "_sysconfigdata__emscripten_wasm32-emscripten")
# the codecs `encodings` finds by name (codecs.lookup): the ones Python, zipfile, json and the
# answer's text can ask for
CODECS = ("aliases", "ascii", "charmap", "cp437", "idna", "latin_1", "punycode", "raw_unicode_escape",
          "unicode_escape", "utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_8", "utf_8_sig")
# what the standard library imports inside its functions on the paths an answer or an error can
# take (formatting an exception or a warning, a date parsed from text, a hint's "did you mean")
STDLIB_LAZY = ("traceback", "linecache", "tokenize", "difflib", "textwrap", "pprint", "reprlib", "_strptime",
               "warnings", "_py_warnings", "inspect", "dis", "string", "locale", "copy", "unicodedata")
# parts of the wheels nothing imports unless a program asks for them by name: lark's command-line
# tools, PyInstaller hook, the reconstructor and the grammars of Python and of Lark itself; type
# stubs and markers everywhere
WHEEL_DROPS = {
    "lark": ("lark/tools/", "lark/__pyinstaller/", "lark/reconstruct.py", "lark/tree_matcher.py",
             "lark/tree_templates.py", "lark/grammars/python.lark", "lark/grammars/lark.lark"),
}
ANY_DROP = re.compile(r"(\.pyi|/py\.typed|__pycache__/.*|\.pyc)$")
EPOCH = (1980, 1, 1, 0, 0, 0)

_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^#\n;]*)"
                     r"|import[ \t]+([^#\n;]+))", re.MULTILINE)


_HEADER = re.compile(r"[ \t]*(?:async[ \t]+def\b|def\b|if[ \t]+__name__[ \t]*==)")


def _runs_on_import(text: str, at: int) -> bool:
    """Whether the statement at offset `at` of `text` runs when the module is imported: it is not
    inside a function, nor under `if __name__ == "__main__"` (judged by indentation: the lines
    that open the blocks around it)."""
    start = text.rfind("\n", 0, at) + 1
    indent = len(text[start:at]) - len(text[start:at].lstrip())
    while indent > 0 and start > 0:
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if not line.strip() or line.lstrip().startswith(("#", ")", "]", "}")):
            continue
        ind = len(line) - len(line.lstrip())
        if ind < indent:
            if _HEADER.match(line):
                return False
            indent = ind
    return True


def imports_in(text: str, module: str, is_package: bool, on_import: bool = False) -> set[str]:
    """The absolute names of the modules (and of the names imported from them, which may be
    modules too) that the import statements of `text`, the source of `module`, name; only those
    that run when the module is imported if `on_import`."""
    out: set[str] = set()
    here = module.split(".") if is_package else module.split(".")[:-1]
    for m in _IMPORT.finditer(text):
        if on_import and not _runs_on_import(text, m.start() + len(m.group(0)) - len(m.group(0).lstrip())):
            continue
        frm, names, plain = m.groups()
        if plain is not None:
            for part in plain.split(","):
                name = part.strip().split()[0] if part.strip() else ""
                if re.fullmatch(r"[\w.]+", name):
                    out.add(name)
            continue
        dots = len(frm) - len(frm.lstrip("."))
        base = frm[dots:]
        if dots:
            up = here[:len(here) - dots + 1] if dots > 1 else here
            if dots > 1 and len(here) < dots - 1:
                continue
            base = ".".join(filter(None, [*up, base]))
        if not base:
            continue
        out.add(base)
        names = " ".join(line.split("#", 1)[0] for line in names.strip("()").splitlines())
        for part in names.split(","):
            name = part.strip().split()[0] if part.strip() else ""
            if re.fullmatch(r"\w+", name):
                out.add(f"{base}.{name}")
    return out


def closure(sources: dict[str, tuple[str, bool]], roots: Iterable[str], on_import: bool = False) -> set[str]:
    """The modules of `sources` ({module: (text, is_package)}) that `roots` import, directly or
    not, with the packages that hold them; following only the imports that run when a module is
    imported if `on_import`."""
    kept: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            mod = ".".join(parts[:i])
            if mod in sources and mod not in kept:
                kept.add(mod)
                text, pkg = sources[mod]
                todo.extend(imports_in(text, mod, pkg, on_import))
    return kept


def _module(path: str) -> tuple[str, bool] | None:
    """The module a file of an archive holds (name, is a package), or None."""
    if not path.endswith(".py"):
        return None
    name = path[:-3].replace("/", ".")
    if name.endswith(".__init__"):
        return name[:-9], True
    return name, False


def python_sources(files: dict[str, bytes]) -> dict[str, tuple[str, bool]]:
    out = {}
    for path, data in files.items():
        mod = _module(path)
        if mod:
            out[mod[0]] = (data.decode("utf-8", "replace"), mod[1])
    return out


def read_zip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}


def write_zip(files: dict[str, bytes]) -> bytes:
    """A zip of `files`, the same bytes for the same files."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path in sorted(files):
            zi = zipfile.ZipInfo(path, date_time=EPOCH)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            z.writestr(zi, files[path])
    return buf.getvalue()


def record(files: dict[str, bytes], info: str) -> bytes:
    """A wheel's RECORD for `files` (its dist-info folder `info`)."""
    lines = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
             for p, d in sorted(files.items()) if p != f"{info}/RECORD"]
    return ("".join(lines) + f"{info}/RECORD,,\n").encode()


def trimmed_wheel(name: str, data: bytes) -> bytes:
    """The wheel `name` without its stubs, markers and the parts WHEEL_DROPS names."""
    files = read_zip(data)
    drops = WHEEL_DROPS.get(re.split(r"[-_]", name, maxsplit=1)[0], ())
    kept = {p: d for p, d in files.items() if not ANY_DROP.search(p) and not p.startswith(drops)}
    infos = {p.split("/", 1)[0] for p in kept if p.split("/", 1)[0].endswith(".dist-info")}
    for info in infos:
        if f"{info}/RECORD" in kept:
            kept[f"{info}/RECORD"] = record(kept, info)
    return write_zip(kept)


def wheel_imports(wheels: Iterable[bytes]) -> set[str]:
    """Every module the Python files of `wheels` name in an import statement."""
    out: set[str] = set()
    for data in wheels:
        for mod, (text, pkg) in python_sources(read_zip(data)).items():
            out.add(mod)
            out |= imports_in(text, mod, pkg)
    return out


def trimmed_stdlib(data: bytes, needed: Iterable[str]) -> tuple[bytes, list[str]]:
    """Pyodide's python_stdlib.zip with only what Pyodide's start, STDLIB_LAZY and the modules
    `needed` (every name the shipped code imports) import when they are imported, directly or
    not; and the sorted names of the modules kept."""
    files = read_zip(data)
    sources = python_sources(files)
    whole = [m for m in sources if m.split(".")[0] in STDLIB_WHOLE]
    roots = [*whole, *STDLIB_START, *(f"encodings.{c}" for c in CODECS), *STDLIB_LAZY, *needed]
    kept = closure(sources, roots, on_import=True)
    out = {}
    for path, body in files.items():
        mod = _module(path)
        if mod is None:
            # data files of a kept package, and the (empty) site-packages folder's README
            if path.startswith("site-packages/") or ("/" in path and path.split("/", 1)[0] in kept):
                out[path] = body
        elif mod[0] in kept:
            out[path] = body
    return write_zip(out), sorted(kept)


def trimmed_lock(data: bytes) -> bytes:
    """pyodide-lock.json without its packages: the interpreter installs only the wheels the site
    ships (unpacked by the page, never loaded by name from Pyodide's package index)."""
    lock = json.loads(data)
    lock["packages"] = {}
    return json.dumps(lock, sort_keys=True, separators=(",", ":")).encode()


def package_closure(files: Iterable[tuple[str, bytes]], roots: Iterable[str],
                    keep: Callable[[str], bool]) -> set[str]:
    """The paths of `files` (of one package) that `roots` import, directly or not, and the other
    files `keep` accepts (the grammar's .lark files)."""
    files = dict(files)
    sources = python_sources(files)
    mods = closure(sources, roots)
    return {p for p in files if (_module(p) or ("", False))[0] in mods or (not p.endswith(".py") and keep(p))}
