"""Reading `.rules` files: safe reading with located errors, and a parse snapshot keyed by content.

A file is opened without blocking and refused unless it is a regular file (a folder, a FIFO or a
device given as a file is an error, never a read that does not end), and refused past
MAX_FILE_BYTES; its bytes must be UTF-8. Problems are diagnostics located in the file.

Parsed documents are kept per knowledge base in a snapshot (rulesdsl/lang/snapshot.py: JSON, no
code) in its private cache folder (rulesdsl/base/cache.py), under a MAC bound to the code that
parsed them; each document is keyed by the file's name and a digest of its bytes, so an
unchanged file is never parsed twice, and an unchanged file whose digest is on record is not
even read. The snapshot is only an accelerator: anything wrong with it means parsing again.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import gc
import os
import re
from pathlib import Path
from typing import Callable, Iterable, Optional

from ..base import cache, files
from . import brief
from ..base.cache import blake2b       # CPython's own BLAKE2: hashlib's import loads OpenSSL (~8 ms)
from ..lang.diagnostics import Diagnostic, DslError
from ..lang.model import Document, Loc, Scenario
from .doc_outline import outline, scenarios_in     # noqa: F401 (read here as loader's)

SNAPSHOT_VERSION = "4"
MAX_FILE_BYTES = files.MAX_BYTES


def _salt(digests: Optional[cache.Digests] = None) -> str:
    """Changes whenever the grammar, the model or the snapshot code changes: a digest of the
    content digests of every .py and .lark file under lang/, of this file and of the outline's
    (kb/doc_outline.py, what the parts' outlines hold), as `digests` (the
    knowledge base's records) gives them — an unchanged file on record, which the output key
    has just looked at, is not read again — or as read here."""
    d = digests if digests is not None else cache.Digests(None)
    lang = Path(__file__).resolve().parents[1] / "lang"
    h = blake2b(SNAPSHOT_VERSION.encode(), digest_size=20)
    # the grammar by path: importing the parser (and lark) is left to runs that parse something
    for rel, full in (*files.walk(lang, (".py", ".lark")),
                      *((f"../kb/{name}", str(lang.parent / "kb" / name)) for name in ("loader.py", "doc_outline.py"))):
        h.update(f"{rel}\0{d.digest(full)}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


# ----------------------------------------------------------------------------- reading files

def file_problem(path: Path, shown: str, e: OSError) -> Diagnostic:
    """A located diagnostic for a file that cannot be opened or read."""
    reason = e.strerror or str(e)
    hint = None
    if e.errno == errno.ENAMETOOLONG:
        reason = "the path is too long for this system"
        hint = "shorten the file or folder names"
    elif e.errno == errno.ELOOP:
        reason = "a symlink loop"
    return Diagnostic(code="io", loc=Loc(shown, 1, 1), fatal=True, message=f"cannot read {shown}: {reason}",
                      hint=hint)


def read_file(path: Path, shown: str, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `limit` of them
    (MAX_FILE_BYTES by default). DslError, located in `shown`, for anything that is not a
    regular file, is too large or cannot be read; a FIFO or a device is refused before anything
    is read from it."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        return files.read_once(path, limit)     # as the command's key read it, when it did
    except files.NotAFile as e:
        raise DslError([Diagnostic(code="io", loc=Loc(shown, 1, 1), fatal=True,
                                   message=f"{shown} is {e}, not a .rules file; it was not read")]) from None
    except files.TooLarge as e:
        raise DslError([too_large(shown, e.data, limit)]) from None
    except OSError as e:
        raise DslError([file_problem(path, shown, e)]) from None


def too_large(shown: str, data: bytes, limit: int = MAX_FILE_BYTES) -> Diagnostic:
    """The finding for a file past `limit` bytes, located where the limit falls."""
    line = data.count(b"\n", 0, limit) + 1
    col = limit - (data.rfind(b"\n", 0, limit) + 1) + 1
    return Diagnostic(code="file-size", loc=Loc(shown, line, col), fatal=True,
                      message=f"{shown} is larger than {limit // (1024 * 1024)} MB; it was not read",
                      hint="split it into several files (the limit guards against reading a device or a runaway file)")


def decode(data: bytes, file: str) -> str:
    """UTF-8 text of a file; a located diagnostic (line and column of the bad byte) if not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[line_start:e.start].decode("utf-8", errors="replace")) + 1
        raise DslError([Diagnostic(code="encoding", loc=Loc(file=file, line=line, col=col), fatal=True,
                                   message=f"the file is not valid UTF-8 (byte 0x{data[e.start]:02x})",
                                   hint="save the file as UTF-8")]) from None
    return text[1:] if text.startswith("\ufeff") else text


def rules_files(path: Path) -> list[Path]:
    """The .rules files a path names: a folder's (symlinks followed, each real folder once),
    else the path itself, whatever it is (reading it says what is wrong with it)."""
    try:
        if Path(path).is_dir():
            return [Path(f) for _, f in cache.walk(Path(path), (".rules",))]
    except OSError:
        pass
    return [Path(path)]


def display_path(p: Path, root: Path) -> str:
    """A file's name in diagnostics: relative to the root when it is inside it (judged on the
    path as given, so a symlink is named as the user named it), else the absolute path as given."""
    ap = os.path.abspath(p)
    top = str(root)
    if os.path.isabs(top) and ap.startswith(top) and ap[len(top):len(top) + 1] == os.sep:
        return ap[len(top) + 1:]
    return ap


# ----------------------------------------------------------------------------- loading

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


def snapshot_path(root: Path) -> Optional[Path]:
    try:
        return cache.kb_dir(root) / "parsed"
    except cache.Unavailable as e:
        cache.note(f"no parse snapshot: {e}")
        return None


def outline_path(snap: Path) -> Path:
    """The outline kept beside the snapshot at `snap` (see `outline`)."""
    return snap.with_name(snap.name + "-outline")


def read_snapshot(path: Optional[Path], salt: str, kind: str = "parsed") -> Optional[dict[str, Document]]:
    """The parsed documents kept at `path` by key; None when there are none that verify."""
    if path is None:
        return None
    payload = cache.read_entry(path, kind, salt)
    if payload is None:
        return None
    from ..lang.snapshot import SnapshotError, loads
    try:
        keys, docs = loads(payload)
        if len(keys) != len(docs) or not all(isinstance(d, Document) for d in docs):
            raise SnapshotError("not a list of documents")
    except SnapshotError as e:
        cache.note(f"ignoring the parse snapshot: {e}; parsing again")
        return None
    return dict(zip(keys, docs))


# ----------------------------------------------------------------------------- the kept documents

def read_kept(snap: Optional[Path], salt: str,
              bodies: Optional[Callable[[Scenario], bool]]) -> tuple[dict[str, Document], bool]:
    """The kept documents, and whether they are outlines: the outline when only the scenarios
    `bodies` accepts are needed in full and none of those is among the kept ones (a question
    from a file outside the knowledge base), else the whole snapshot."""
    kept, outlined, _ = _read_kept(snap, salt, bodies)
    return kept, outlined


def _read_kept(snap: Optional[Path], salt: str, bodies: Optional[Callable[[Scenario], bool]]
               ) -> tuple[dict[str, Document], bool, dict[int, set[str]]]:
    """read_kept, and the keys each shard that was read holds (see `shard_paths`)."""
    if bodies is not None and snap is not None:
        kept, held = _read_shards(snap, salt, outline=True)
        if held and not any(bodies(s) for d in kept.values() for s in scenarios_in(d)):
            cache.note("read the outline of the parse snapshot")
            return kept, True, held
    if snap is None:
        return {}, False, {}
    kept, held = _read_shards(snap, salt)
    return kept, False, held


# The parse snapshot of a large knowledge base is kept in SHARDS parts, each file's document in
# the part its name falls in: a cold knowledge base's parts are written by the process that parsed
# their files or a copy of it (none walks the whole knowledge base to write it); a run that parsed a
# few changed files rewrites only their parts. A part holds documents keyed by name and content,
# so parts written at different times never disagree: a stale one only holds unused entries.
SHARDS = 16
OWN_PARTS = 10      # the parts whose files the parent parses, the child the rest (balance: benchmarks/)


def shard_count(files: int) -> int:
    """How many parts the snapshot of a knowledge base of `files` files is kept in."""
    return SHARDS if files >= PARALLEL_MIN else 1


def shard_of(name: str, count: int) -> int:
    if count == 1:
        return 0
    h = blake2b(name.encode("utf-8", "surrogateescape"), digest_size=4).digest()
    return int.from_bytes(h, "little") % count


def shard_paths(snap: Path) -> list[Path]:
    """Where the parts of the snapshot at `snap` are kept: the first at `snap` itself."""
    return [snap] + [snap.with_name(f"{snap.name}-{i}") for i in range(1, SHARDS)]


def _read_shards(snap: Path, salt: str, outline: bool = False) -> tuple[dict[str, Document], dict[int, set[str]]]:
    kept: dict[str, Document] = {}
    held: dict[int, set[str]] = {}
    for i, path in enumerate(shard_paths(snap)):
        if outline:
            path = outline_path(path)
        if i and not path.exists():
            continue
        part = read_snapshot(path, salt, "outline" if outline else "parsed")
        if part is not None:
            kept.update(part)
            held[i] = set(part)
    return kept, held


def read_documents(paths: Iterable[Path], root: Path, use_cache: bool = True,
                   shown: Optional[list[str]] = None,
                   bodies: Optional[Callable[[Scenario], bool]] = None) -> tuple[list[Document], list[Diagnostic]]:
    """Parse the files at `paths` (named `shown` in diagnostics, by default their display path).
    With `bodies`, the scenarios it rejects may come back as outlines (see `outline`)."""
    paths = list(paths)
    names = shown if shown is not None else [display_path(p, root) for p in paths]
    wait_for_writers()                     # the parts a previous load of this process is writing
    digests = cache.digests(root if use_cache else None)
    salt = _salt(digests)
    snap = snapshot_path(root) if use_cache else None
    global _in_memory
    cached: dict[str, Document] = {}
    held: dict[int, set[str]] = {}
    outlined = False
    narrow = use_cache and brief.ONLY is not None and (
        RESIDENT and bool(_in_memory) or bodies is not None and snap is not None and not RESIDENT)
    picked = None
    if narrow:                  # a new question: only the documents of the games it names
        picked = brief.pick_kept(paths, names, digests, _key, _in_memory) if RESIDENT else \
            brief.pick(paths, names, snap, salt, digests, _key, bodies, read_snapshot, scenarios_in)
    if picked is not None:
        paths, names, cached = picked
        outlined = not RESIDENT
    elif use_cache:
        if RESIDENT and _in_memory:
            cached = _in_memory
        else:
            cached, outlined, held = _read_kept(snap, salt, None if RESIDENT else bodies)
    count = shard_count(len(paths))
    docs: list[Document] = []
    diags: list[Diagnostic] = []
    slots: list = []                       # per file: key, document (or diagnostics), its shard
    todo: list[tuple[int, str, bytes, str, int]] = []
    for path, name in zip(paths, names):
        shard = shard_of(name, count)
        known = digests.trusted(str(path)) if cached else None
        if known is not None:
            key = _key(name, known)
            if key in cached:
                slots.append((key, cached[key], [], shard))
                continue
        try:
            data = read_file(path, name)
        except DslError as e:
            slots.append((None, None, e.diagnostics, shard))
            continue
        key = _key(name, digests.digest(str(path), data))
        doc = cached.get(key)
        if doc is None:
            todo.append((len(slots), name, data, key, shard))
        slots.append((key, doc, [], shard))
    plan = None
    relaid = any(s >= count for s in held)      # parts of a knowledge base of another size
    if use_cache and snap is not None and (relaid or _worth_writing(todo, {s[0] for s in slots if s[0]}, cached)):
        plan = _Plan(snap, salt, count, slots, held, outlined)
    for (i, _, _, key, shard), (doc, problems) in zip(todo, parse_all(todo, plan)):
        slots[i] = (key, doc, problems, shard)
    used: dict[str, Document] = {}
    for key, doc, problems, _ in slots:
        diags.extend(problems)
        if doc is not None:
            used[key] = doc
            docs.append(doc)
    if narrow and picked is None and outlined and not RESIDENT:      # the next new question reads its games' part
        fresh = {key for _, _, _, key, _ in todo}
        brief.write(snap, salt, {key: outline(doc) if key in fresh else doc
                                 for (key, doc, _, _), name in zip(slots, names)
                                 if doc is not None and name != brief.QUESTION})
    if use_cache:
        digests.save()
        if plan is not None:
            plan.tidy()
        if RESIDENT:
            _in_memory = {**_in_memory, **used} if picked is not None else used
    return docs, diags


class _Plan:
    """Which parts of the parse snapshot a run rewrites, and writing them: a part whose file
    holds other keys than the documents now in it (a file parsed, changed, added or removed;
    the parts laid out for another size), from whole documents, never from outlines."""

    def __init__(self, snap: Path, salt: str, count: int, slots: list, held: dict[int, set[str]],
                 outlined: bool) -> None:
        self.snap, self.salt, self.count, self.slots, self.held = snap, salt, count, slots, held
        self.outlined = outlined
        self.full: Optional[dict[str, Document]] = None
        self.written = 0

    def write(self, shards: Iterable[int], fresh: dict[str, Document]) -> dict[int, tuple[bytes, bool]]:
        """Write the parts `shards` that need it, with the documents parsed here (`fresh`) and
        those that were kept; by part, the payload of those encoded and whether it was written."""
        from ..lang.snapshot import SnapshotError, dumps_nested
        wanted = set(shards)
        parts: dict[int, list] = {s: [] for s in wanted}
        for key, doc, problems, shard in self.slots:
            if shard in wanted and key is not None:
                doc = fresh.get(key, doc)
                if doc is not None:
                    parts[shard].append((key, doc))
        out = {}
        paths = shard_paths(self.snap)
        for shard in sorted(wanted):
            entries = dict(parts[shard])
            if set(entries) == self.held.get(shard, set()):
                continue
            if self.outlined and any(k not in fresh for k in entries):
                whole = self.whole(entries, fresh)
                if whole is None:
                    continue
                entries = whole
            keys, values = tuple(entries), tuple(entries.values())
            try:
                brief, payload = dumps_nested([keys, tuple(map(outline, values))], [keys, values])
            except SnapshotError as e:
                cache.note(f"not writing the parse snapshot: {e}")
                continue
            path = paths[shard]
            written = cache.write_entry(path, "parsed", self.salt, payload) and \
                cache.write_entry(outline_path(path), "outline", self.salt, brief)
            if written:
                self.written += len(entries)
                cache.note(f"parse snapshot of {len(entries)} files written" +
                           (f" (part {shard + 1} of {self.count})" if self.count > 1 else ""))
            out[shard] = (payload, written)
        return out

    def whole(self, entries: dict[str, Document], fresh: dict[str, Document]) -> Optional[dict[str, Document]]:
        """`entries` with every outline replaced by its whole document from the snapshot, or
        None when one is not there."""
        if self.full is None:
            self.full = _read_shards(self.snap, self.salt)[0]
        whole = {k: fresh[k] if k in fresh else self.full.get(k) for k in entries}
        if any(d is None for d in whole.values()):
            cache.note("not rewriting the parse snapshot: it lacks documents the outline has")
            return None
        return whole

    def tidy(self) -> None:
        """Remove the parts past this layout's count (left by a knowledge base of another size)."""
        for path in shard_paths(self.snap)[self.count:]:
            for p in (path, outline_path(path)):
                with contextlib.suppress(OSError):
                    p.unlink()


def _key(name: str, digest: str) -> str:
    return blake2b(f"{name}\0{digest}".encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


PARALLEL_MIN = 500  # files to parse before a second process is worth its start
FEW = 20            # files outside the knowledge base, or stale entries, not worth a rewrite


def _worth_writing(todo: list, used: set, cached: dict) -> bool:
    """Whether to rewrite the parse snapshot: when a file of the knowledge base was parsed, or
    many files were, or many entries are stale. A judge's scenario file outside it is not
    (parsing one file costs less than rewriting the whole snapshot each time another is asked)."""
    if any(not os.path.isabs(shown) for _, shown, *_ in todo) or len(todo) >= FEW:
        return True
    return len(cached.keys() - used) > max(FEW, len(used) // 10)     # entries stale


_parser = None      # lang/parser.py, imported by the first parse (a run that parses nothing never imports it)


def parse_one(shown: str, data: bytes, key: str) -> tuple[Optional[Document], list[Diagnostic]]:
    global _parser
    try:
        if _parser is None:     # (once: two imports a file were ~1.8 µs of each of 13,327 files)
            from ..lang import parser as _parser
        doc = brief.preparsed(shown, data)      # else made with its digest, not copied to set it
        return (_parser.parse_text(decode(data, shown), shown, digest=key) if doc is None else
                doc.model_copy(update={"digest": key})), []
    except DslError as e:
        return None, e.diagnostics


def parse_all(items: list[tuple[int, str, bytes, str, int]], plan: Optional[_Plan] = None
              ) -> list[tuple[Optional[Document], list[Diagnostic]]]:
    """Parse files (slot, name, bytes, key, part), and write the parts of the snapshot `plan` says, in two
    processes when there are many files and two processors: a forked child parses the files of the parts
    from OWN_PARTS on and writes each part as it goes; this process parses the others, leaves their parts
    to a copy of itself forked once they are parsed (it shares only them; `wait_for_writers` waits for
    it), and reads the child's parts back (their MAC verified): a part's encoding is the hand-off. What no
    part holds (a file that did not parse, a part not written, everything without a `plan`) comes through
    a pipe, pickled (it joins this process to its own fork; nothing pickled is ever read from a file)."""
    if len(items) < PARALLEL_MIN or not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or \
            plan is not None and plan.count < 2:
        return _serial(items, plan)
    own = min(OWN_PARTS, plan.count - 1) if plan is not None else 0
    if plan is not None:    # each process writes the parts of its own files
        mine_items = [it for it in items if it[4] < own]
        theirs_items = [it for it in items if it[4] >= own]
    else:
        mine_items, theirs_items = items[0::2], items[1::2]
    from ..base.shared_work import beside, fork_with_pipe
    from ..lang.parser import prepare
    wait_for_writers()
    prepare()       # on an empty cache, Lark's parser and the driver's tables made once, not per process
    forked = fork_with_pipe()
    if forked is None:
        return _serial(items, plan)
    pid, r, w = forked
    if pid == 0:  # the child: parse its share, write its parts, leave without the parent's exit handlers
        os.close(r)
        try:
            gc.disable()
            with os.fdopen(w, "wb") as f:
                _child_parts(f, theirs_items, plan, own)
        finally:
            os._exit(0)
    os.close(w)
    mine = [parse_one(name, data, key) for _, name, data, key, _ in mine_items]
    if plan is not None:        # its parts written beside this process, while it loads and checks
        fresh = {it[3]: doc for it, (doc, _) in zip(mine_items, mine) if doc is not None}
        copy = beside(lambda: (plan.write(range(own), fresh), b"")[1])
        if copy.forked:
            _writers.append(copy)
        else:                   # no copy could be forked: written here
            plan.write(range(own), fresh)
    with os.fdopen(r, "rb") as f:
        theirs = _take_in(f, theirs_items, plan)
    with contextlib.suppress(ChildProcessError, InterruptedError):
        os.waitpid(pid, 0)
    lost = [i for i, res in enumerate(theirs) if res is None]
    for i in lost:              # the child failed, or a part it wrote was replaced since: parse it here
        theirs[i] = parse_one(*theirs_items[i][1:4])
    if plan is not None and lost:
        plan.write({theirs_items[i][4] for i in lost},
                   {theirs_items[i][3]: theirs[i][0] for i in lost if theirs[i][0] is not None})
    by_slot = {it[0]: res for it, res in zip(mine_items, mine)}
    by_slot.update((it[0], res) for it, res in zip(theirs_items, theirs))
    return [by_slot[it[0]] for it in items]


def _child_parts(f, items: list, plan: Optional[_Plan], first: int) -> None:
    """The child's share, part by part: parse its files, write the part, say so (`F` and the
    part's number; its payload itself, `P`, when it could not be written); last (`R`), pickled,
    the results no part holds, by position in `items`."""
    import pickle           # here only: a new question's load parses one file in this process
    rest: dict[int, tuple] = {}
    by_part: dict[int, list[int]] = {}
    for i, it in enumerate(items):
        by_part.setdefault(it[4] if plan is not None else 0, []).append(i)
    for shard in range(first, plan.count) if plan is not None else [0]:    # every part of its own, as the parent
        results = {i: parse_one(*items[i][1:4]) for i in by_part.get(shard, [])}
        fresh = {items[i][3]: doc for i, (doc, _) in results.items() if doc is not None}
        done = plan.write([shard], fresh).get(shard) if plan is not None else None
        rest.update((i, res) for i, res in results.items() if done is None or res[0] is None)
        if done is not None and results:
            tag, data = (b"F", shard.to_bytes(2, "little")) if done[1] else (b"P", done[0])
            f.write(tag + len(data).to_bytes(8, "little") + data)
            f.flush()
    data = pickle.dumps(rest, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(b"R" + len(data).to_bytes(8, "little") + data)


def _take_in(f, items: list, plan: Optional[_Plan]) -> list:
    """The child's results for `items`, in order, from what it sent (see `_child_parts`); None
    for those it did not give (it failed, or a part it wrote was replaced meanwhile)."""
    import pickle
    from ..lang.snapshot import loads
    docs: dict[str, Document] = {}
    rest: dict = {}
    with contextlib.suppress(Exception):       # the child failed: what it did not give is parsed here
        while len(head := f.read(9)) == 9:
            data = f.read(int.from_bytes(head[1:], "little"))
            if head[:1] == b"F" and plan is not None:
                docs.update(read_snapshot(shard_paths(plan.snap)[int.from_bytes(data, "little")], plan.salt) or {})
            elif head[:1] == b"P":
                docs.update(zip(*loads(data)))
            elif head[:1] == b"R":
                rest = pickle.loads(data)
    out: list = []
    for i, it in enumerate(items):
        doc = docs.get(it[3])
        out.append(rest.get(i) or ((doc, []) if isinstance(doc, Document) else None))
    return out


_writers: list = []        # the copies of this process that may still be writing their parts


def wait_for_writers() -> None:
    """Wait until every copy this process forked has written its parts of the snapshot: a
    command that exits leaves nothing running, and two writers never overlap."""
    while _writers:
        with contextlib.suppress(ChildProcessError, OSError):
            _writers.pop().result()


atexit.register(wait_for_writers)       # a library user's process waits for them too


def _serial(items: list, plan: Optional[_Plan]) -> list[tuple[Optional[Document], list[Diagnostic]]]:
    out = [parse_one(name, data, key) for _, name, data, key, _ in items]
    if plan is not None:
        plan.write(range(plan.count), {it[3]: doc for it, (doc, _) in zip(items, out) if doc is not None})
    return out


# ----------------------------------------------------------------------------- a new question's games

_PREFIX = re.compile(r"(?<![\w.\-/])([A-Za-z_][A-Za-z0-9_\-]*)/")


def question_games(path: Path, shown: str) -> Optional[frozenset]:
    """The games the question file at `path` (named `shown`) can concern (kb/brief.py): every
    `game/…` its text writes; None when a load must not be narrowed to them: it declares more
    than scenarios, or does not read or parse (its errors are then those of a whole load). Its
    parse is kept for the load."""
    from ..lang.parser import parse_text
    try:
        data = read_file(path, shown)
        doc = parse_text(decode(data, shown), shown)
    except (DslError, OSError):
        return None
    if not doc.decls or not all(type(d) is Scenario for d in doc.decls):
        return None
    brief.keep_parse(shown, data, doc)
    return frozenset(m.group(1) for m in _PREFIX.finditer(data.decode("utf-8")))
