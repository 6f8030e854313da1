"""Reading `.rules` files: decoding with located errors, and a parse cache keyed by content.

Parsed documents are kept in one pickle per knowledge base root (`.rulesdsl-cache/parsed.pickle`,
or under $RULESDSL_CACHE), keyed by a hash of the file's path and bytes, so an unchanged file is
never parsed twice. The cache is only an accelerator: any problem reading it means a re-parse.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Iterable, Optional

from .diagnostics import Diagnostic, DslError
from .fastpath import cache_dir
from .model import Document, Loc

CACHE_VERSION = "1"


def _salt() -> bytes:
    """Changes whenever the grammar or the model code changes, invalidating the cache."""
    here = Path(__file__).parent
    h = hashlib.sha1(CACHE_VERSION.encode())
    # the grammar by path: importing the parser (and lark) is left to runs that parse something
    for f in (*sorted((here / "grammar").glob("*.lark")), here / "model.py", here / "parser.py", here / "dates.py"):
        h.update(f.read_bytes())
    return h.digest()


def decode(data: bytes, file: str) -> str:
    """UTF-8 text of a file; a located diagnostic (line and column of the bad byte) if not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[line_start:e.start].decode("utf-8", errors="replace")) + 1
        raise DslError([Diagnostic(
            code="encoding", loc=Loc(file=file, line=line, col=col), fatal=True,
            message=f"the file is not valid UTF-8 (byte 0x{data[e.start]:02x})",
            hint="save the file as UTF-8")]) from None
    return text[1:] if text.startswith("\ufeff") else text


# Set by the command line (a short-lived process): loaded objects are then moved out of the
# collector's sight for good, instead of being walked again by every full collection while
# scenarios are answered. Library users, who may load many knowledge bases, keep the default.
FREEZE_AFTER_LOAD = False

# Set by `rulesdsl serve`, a process that answers many commands: parsed documents stay in memory
# between commands (they are keyed by content, so they never go stale), `kb.load` keeps the
# knowledge bases it loaded, and nothing is frozen (a replaced knowledge base must be freed).
RESIDENT = False
_in_memory: dict[str, Document] = {}


@contextlib.contextmanager
def no_gc():
    """Loading builds millions of small objects and no reference cycles; the cyclic garbage
    collector would walk all of them again and again (a fifth of a cold load), so it is
    paused while loading."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if FREEZE_AFTER_LOAD and not RESIDENT:
            gc.freeze()
        if was:
            gc.enable()


def read_documents(paths: Iterable[Path], root: Path, use_cache: bool = True
                   ) -> tuple[list[Document], list[Diagnostic]]:
    from .kb import display_path

    salt = _salt()
    cache_file = cache_dir(root) / "parsed.pickle"
    global _in_memory
    cached: dict[str, Document] = {}
    if use_cache:
        cached = _in_memory if RESIDENT and _in_memory else _load_pickle(cache_file)
    used: dict[str, Document] = {}
    docs: list[Document] = []
    diags: list[Diagnostic] = []
    slots: list = []                       # per file: key and document, or diagnostics
    todo: list[tuple[int, str, bytes, str]] = []
    for path in paths:
        shown = display_path(Path(path), root)
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            slots.append((None, None, [Diagnostic(code="io", message=f"cannot read {shown}: {e.strerror or e}",
                                                  loc=None, fatal=True)]))
            continue
        key = hashlib.sha1(salt + shown.encode() + b"\0" + data).hexdigest()
        doc = cached.get(key)
        if doc is None:
            todo.append((len(slots), shown, data, key))
        slots.append((key, doc, []))
    for (i, _, _, key), (doc, problems) in zip(todo, parse_all([(s, d, k) for _, s, d, k in todo])):
        slots[i] = (key, doc, problems)
    for key, doc, problems in slots:
        diags.extend(problems)
        if doc is not None:
            used[key] = doc
            docs.append(doc)
    if use_cache and _worth_writing(todo, used, cached):
        write_in_background(cache_file, used, fresh=len(used) - len(set(used) & set(cached)))
    if RESIDENT and use_cache:
        _in_memory = used
    return docs, diags


PARALLEL_MIN = 500  # files to parse before a second process is worth its start
FEW = 20            # files outside the knowledge base, or stale entries, not worth a rewrite


def _worth_writing(todo: list, used: dict, cached: dict) -> bool:
    """Whether to rewrite the parse cache: when a file of the knowledge base was parsed, or many
    files were, or many entries are stale. A judge's scenario file outside it is not (parsing
    one file costs less than rewriting the whole cache each time another is asked)."""
    if any(not os.path.isabs(shown) for _, shown, _, _ in todo) or len(todo) >= FEW:
        return True
    stale = len(cached.keys() - used.keys())
    return stale > max(FEW, len(used) // 10)


def parse_one(shown: str, data: bytes, key: str) -> tuple[Optional[Document], list[Diagnostic]]:
    try:
        from .parser import parse_text
        return parse_text(decode(data, shown), shown).model_copy(update={"digest": key}), []
    except DslError as e:
        return None, e.diagnostics


def parse_all(items: list[tuple[str, bytes, str]]) -> list[tuple[Optional[Document], list[Diagnostic]]]:
    """Parse files, in two processes when there are many and two processors: a forked child
    parses every other file and sends its documents back pickled."""
    if len(items) < PARALLEL_MIN or not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        return [parse_one(*it) for it in items]
    theirs_items, mine_items = items[1::2], items[0::2]
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return [parse_one(*it) for it in items]
    if pid == 0:  # the child: parse its share, send it, leave without the parent's exit handlers
        os.close(r)
        try:
            payload = pickle.dumps([parse_one(*it) for it in theirs_items], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as f:
                f.write(payload)
        finally:
            os._exit(0)
    os.close(w)
    mine = [parse_one(*it) for it in mine_items]
    with os.fdopen(r, "rb") as f:
        payload = f.read()
    os.waitpid(pid, 0)
    try:
        theirs = pickle.loads(payload)
        assert len(theirs) == len(theirs_items)
    except Exception:  # the child failed: parse its share here
        theirs = [parse_one(*it) for it in theirs_items]
    out = []
    for i in range(len(items)):
        out.append(mine[i // 2] if i % 2 == 0 else theirs[i // 2])
    return out


def _load_pickle(path: Path):
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except Exception:  # a missing, stale or damaged cache only means parsing again
        return {}


def write_pickle(path: Path, value) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only checkout still works, just without the cache


def write_in_background(path: Path, value, fresh: int) -> None:
    """Write the parse cache; when many files were parsed, from a forked child so that the
    command does not wait for a large pickle (the cache is only an accelerator, and the write
    is atomic, so a reader sees the old cache or the new one)."""
    if fresh < 2000 or not hasattr(os, "fork"):
        write_pickle(path, value)
        return
    try:
        pid = os.fork()
    except OSError:
        write_pickle(path, value)
        return
    if pid == 0:  # the child: write, then leave without running the parent's exit handlers
        try:
            write_pickle(path, value)
        finally:
            os._exit(0)


def read_cached(path: Path) -> Optional[object]:
    value = _load_pickle(path)
    return value if value != {} else None
