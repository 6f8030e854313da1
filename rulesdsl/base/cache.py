"""Where rulesdsl keeps its caches, how it judges that a file is unchanged, and why it can
trust what it reads back (standard library only: the command line's fast path imports it
before anything else).

- **Where.** `$RULESDSL_CACHE`, else `$XDG_CACHE_HOME/rulesdsl`, else `~/.cache/rulesdsl`:
  created 0700, and used only while it is owned by the user and writable by nobody else. Each
  knowledge base gets its own folder in it, named by a digest of its resolved path (never a
  folder inside the knowledge base, never a shared temp folder); it holds the parse snapshot,
  the cached outputs, the answers memo, the record of file digests and the server's socket.
- **Entries cannot lie.** Every entry is written with a MAC (keyed BLAKE2b) over its kind, the
  digest of exactly what it was built from, and its bytes; the key is the user's own, kept 0600
  in the cache folder. An entry that is missing, truncated, corrupt, built from something else,
  edited or planted does not verify and is ignored (the caller rebuilds it); `--verbose` says
  so. Entries are JSON, read with `json`: nothing read back can run code.
- **Freshness by content.** A file's digest is remembered with its size, mtime_ns, ctime_ns and
  inode; the record is used only when all four still match and the file's ctime is older than
  the moment the digest was taken (less a margin for coarse file-system clocks). Anything else
  — an edit that keeps the size with the mtime restored (`touch -r`), a copy keeping times, an
  archive restore — changes the ctime or the inode, and the bytes are hashed again. A folder's
  part of a command's output key is remembered the same way, by a digest of its files' names,
  sizes, times and inodes, so that a run with nothing changed reads no file's record.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from collections import namedtuple

from .files import keep_read, kept_digest, look, looked, looks, one_look, read_whole, walk  # noqa: F401

# No `typing` here: this module is the command line's whole start when a kept output or a
# server answers, and typing's import is a tenth of that (the annotations are never evaluated).

try:        # CPython's own BLAKE2, without hashlib's import of OpenSSL (a tenth of a served answer)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b
try:
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover
    from hmac import compare_digest

KB_DIRS = ("cards", "rulings")
FORMAT = b"rulesdsl-cache 2"
# commands whose output depends only on their arguments, the code, the knowledge base and the day
READ_ONLY = ("check", "ask", "show", "timeline", "deck")
# a record younger than this is not trusted: file-system clocks are coarser than ours
SLACK_NS = 2_000_000_000
KEY_BYTES = 32
KEEP_UNSEEN = 2000   # records of files not looked at in a run that are kept


class Unavailable(Exception):
    """The cache folder cannot be used safely (its message says why); run without it."""


# ----------------------------------------------------------------------------- telling

_verbose = bool(os.environ.get("RULESDSL_VERBOSE"))
_notes_to = None        # while a command's output is captured: the stream it would have had


def set_verbose(on: bool) -> None:
    global _verbose
    _verbose = on


def verbose() -> bool:
    return _verbose


@contextlib.contextmanager
def notes_to(stream):
    """Send notes to `stream` (the command line's own stderr) while output is captured."""
    global _notes_to
    saved, _notes_to = _notes_to, stream
    try:
        yield
    finally:
        _notes_to = saved


def note(message: str) -> None:
    """A line for `--verbose` about what the caches did, on the command line's stderr; never
    part of an output being captured for the output cache."""
    if _verbose:
        try:
            print(f"rulesdsl: cache: {message}", file=_notes_to or sys.stderr, flush=True)
        except (OSError, ValueError, AttributeError):
            pass


# ----------------------------------------------------------------------------- where

def find_root(start_dir: Optional[Path] = None) -> Path:
    """The knowledge base root: $RULESDSL_ROOT, else the nearest folder holding rulings/, else
    the checkout this package was installed from."""
    env = os.environ.get("RULESDSL_ROOT")
    if env:
        return Path(env)
    here = (start_dir or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "rulings").is_dir():
            return d
    return Path(__file__).resolve().parents[2]


# Why this process keeps no cache folder at all, when its caller chose so (`memory_only`).
_memory_only: Optional[str] = None


def memory_only(reason: str) -> None:
    """Keep nothing on disk from now on: every cache folder is Unavailable (for `reason`), so what
    the caches would keep lives in this process only (the parser's tables, the documents read).
    For a platform with no private folder to keep them in: Python under Pyodide, in a reader's
    browser, has no users (no os.geteuid) and no hard links (no os.link). Chosen explicitly by
    the code that runs there (rulesdsl/wiki/browser.py), never guessed from the platform."""
    global _memory_only
    _memory_only = reason


def base_dir() -> Path:
    """The user's private cache folder, created if need be; Unavailable if it is not private."""
    if _memory_only is not None:
        raise Unavailable(_memory_only)
    env = os.environ.get("RULESDSL_CACHE")
    if env:
        base = Path(env)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        try:
            parent = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
        except (RuntimeError, KeyError):
            raise Unavailable("no home folder to keep a cache in; set RULESDSL_CACHE") from None
        base = parent / "rulesdsl"
    return _private_dir(base.absolute(), strict=not env)


def kb_dir(root: Path) -> Path:
    """The private cache folder of the knowledge base at `root` (found and checked once inside
    `one_look`)."""
    memo = looks()
    found = memo.get(("kb_dir", str(root))) if memo is not None else None
    if found is None:
        real = os.path.realpath(root)
        name = "kb-" + blake2b(real.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
        found = _private_dir(base_dir() / name, strict=True)
        if memo is not None:
            memo[("kb_dir", str(root))] = found
    return found


def socket_path(root: Path) -> Path:
    """Where a `rulesdsl serve` for the knowledge base at `root` listens."""
    return kb_dir(root) / "serve.sock"


def _private_dir(path: Path, strict: bool) -> Path:
    """`path` as a folder only this user can write: created 0700 (with missing parents), and
    refused when it is a symlink, another user's, or writable by others. Our own folders
    (`strict`) are closed to others if they were open; a folder the user named in
    $RULESDSL_CACHE may be readable by others, and is never changed."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as e:
        raise Unavailable(f"cannot use {path}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise Unavailable(f"{path} is not a folder (a symlink is not accepted)")
    if st.st_uid != os.geteuid():
        raise Unavailable(f"{path} belongs to another user (uid {st.st_uid})")
    loose = st.st_mode & (0o077 if strict else 0o022)
    if loose:
        if not strict:
            raise Unavailable(f"{path} can be written by other users")
        try:
            os.chmod(path, st.st_mode & ~loose & 0o7777)
        except OSError as e:
            raise Unavailable(f"{path} is open to other users and cannot be closed: {e.strerror}") from None
        note(f"{path} was open to other users; it is now {oct((st.st_mode & ~loose) & 0o777)}")
    return path


# ----------------------------------------------------------------------------- the user's key

_keys: dict[Path, bytes] = {}


def user_key(base: Optional[Path] = None) -> bytes:
    """The per-user MAC key (`<base>/key`, created 0600 on first use; accepted only at 0600 or
    0400 and owned by the user: a key others could read could sign a planted entry). `base`: a
    private folder kept apart from the cache folder (its entries signed by its own key)."""
    base = base_dir() if base is None else base
    key = _keys.get(base)
    if key is None:
        key = _keys[base] = _load_key(base / "key")
    return key


def _load_key(path: Path) -> bytes:
    for _ in range(3):
        key = _read_private(path, KEY_BYTES + 1, closed=0o077)
        if key is not None:
            if len(key) != KEY_BYTES:
                raise Unavailable(f"{path} is not a key of this program; remove it")
            return key
        # create it whole under a temporary name, then link it into place (never replacing one)
        fd, tmp = _mkstemp(path.parent, ".key-", "")
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.close(fd)
            try:
                os.link(tmp, path)
                note(f"created the cache key {path}")
            except FileExistsError:
                pass                        # another process made one first: use that
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    raise Unavailable(f"cannot create the cache key {path}")


def _read_private(path: Path, limit: int, closed: int = 0o022) -> Optional[bytes]:
    """The bytes of a regular file this user owns and nobody else can write (with `closed`
    0o077, as for the key: nobody else can read either), opened without following a symlink;
    None when there is none. Unavailable for a file that is not ours."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise Unavailable(f"cannot read {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & closed:
            raise Unavailable(f"{path} is not a private file of this user (mode {stat.filemode(st.st_mode)}, "
                              f"owner uid {st.st_uid}); remove it and a new one is made")
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- entries

def _mac(kind: str, inputs: str, payload: bytes, keyed: Optional[Path] = None) -> str:
    h = blake2b(key=user_key(keyed), digest_size=32, person=b"rulesdsl-entry")
    h.update(f"{kind}\0{inputs}\0".encode("utf-8", "surrogateescape"))
    h.update(payload)
    return h.hexdigest()


def _mkstemp(folder: Path, prefix: str, suffix: str) -> tuple[int, str]:
    """tempfile.mkstemp (a new file only this user may read, opened for writing, never one that
    exists or a symlink) without importing tempfile, whose import (random, hashlib's OpenSSL) is
    a tenth of a process that writes one cache entry."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def write_entry(path: Path, kind: str, inputs: str, payload: bytes, keyed: Optional[Path] = None) -> bool:
    """Write a cache entry atomically; False (and a note) when it cannot be written. `keyed`: the
    private folder whose key signs it (user_key), if not the cache folder."""
    try:
        header = FORMAT + b" " + kind.encode() + b" " + _mac(kind, inputs, payload, keyed).encode() + b"\n"
        fd, tmp = _mkstemp(path.parent, f".{path.name}.", ".tmp")
    except (OSError, Unavailable) as e:
        note(f"not writing {path.name}: {e}")
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            f.write(payload)
        os.replace(tmp, path)
        return True
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if not isinstance(e, OSError):
            raise
        note(f"not writing {path.name}: {e.strerror or e}")
        return False


def read_entry(path: Path, kind: str, inputs: str, limit: int = 1 << 31,
               keyed: Optional[Path] = None) -> Optional[bytes]:
    """The payload of a cache entry written by `write_entry` for this kind and these inputs (and
    key: `keyed`); None (with a note saying why) when there is none or it does not verify."""
    try:
        data = _read_private(path, limit)
    except Unavailable as e:
        note(f"ignoring {path.name}: {e}")
        return None
    if data is None:
        return None
    head, nl, payload = data.partition(b"\n")
    parts = head.split(b" ")
    if not nl or len(parts) != 4 or b" ".join(parts[:2]) != FORMAT or parts[2] != kind.encode():
        note(f"ignoring {path.name}: not a {kind} entry of this version; rebuilding it")
        return None
    try:
        expected = _mac(kind, inputs, payload, keyed)
    except Unavailable as e:
        note(f"ignoring {path.name}: {e}")
        return None
    if not compare_digest(parts[3], expected.encode()):
        note(f"ignoring {path.name}: it does not match what it claims to be built from "
             "(stale, damaged or edited); rebuilding it")
        return None
    return payload


def read_json(path: Path, kind: str, inputs: str):
    payload = read_entry(path, kind, inputs)
    if payload is None:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        note(f"ignoring {path.name}: not JSON")
        return None


def write_json(path: Path, kind: str, inputs: str, value) -> bool:
    return write_entry(path, kind, inputs, json.dumps(value, ensure_ascii=False).encode("utf-8"))


# ----------------------------------------------------------------------------- freshness

def content_digest(data: bytes) -> str:
    return blake2b(data, digest_size=20).hexdigest()


class Digests:
    """Content digests of files, each remembered with the file's size, mtime_ns, ctime_ns and
    inode and the time it was taken, so that an unchanged file is not read again (see the
    module's docstring for when a record is trusted). Kept per knowledge base, as an entry."""

    def __init__(self, path: Optional[Path]) -> None:
        self.path, self._known, self.seen, self.trees_seen = path, None, {}, {}
        trees = read_json(path.with_name(path.name + "-trees"), "trees", "") if path else None
        self.trees: dict[str, list] = trees if isinstance(trees, dict) else {}

    @property
    def known(self) -> dict:        # read on first need: a warm run may need none of it
        if self._known is None:
            known = read_json(self.path, "files", "") if self.path else None
            self._known = known if isinstance(known, dict) else {}
        return self._known

    def _trusted(self, p: str, st: os.stat_result) -> Optional[str]:
        rec = self.seen.get(p) or self.known.get(p)
        try:
            if (rec[0] == st.st_size and rec[1] == st.st_mtime_ns and rec[2] == st.st_ctime_ns
                    and rec[3] == st.st_ino and st.st_ctime_ns < rec[5] - SLACK_NS and len(rec) == 6
                    and isinstance(rec[4], str)):
                self.seen[p] = rec
                return rec[4]
        except (TypeError, IndexError, KeyError):
            pass                            # no record, or not one of ours
        return None

    def trusted(self, p: str) -> Optional[str]:
        """The remembered digest of `p` if its record can be trusted now, without reading it."""
        try:
            return self._trusted(p, looked(p)[1])
        except OSError:
            return None

    def digest(self, p: str, data: Optional[bytes] = None) -> str:
        """The content digest of the file at `p` ("missing", "not-a-file" or "unreadable" when
        there is none); `data`, when given, is its content as just read."""
        try:
            taken, st = looked(p)
        except OSError:
            return "missing"
        if data is None:
            known = self._trusted(p, st)
            if known is not None:
                return known
            if not stat.S_ISREG(st.st_mode):
                return "not-a-file"
            try:
                data = read_whole(p)
            except OSError:
                return "unreadable"
            keep_read(p, data, d := content_digest(data))      # for this command's loader to read
        else:           # the bytes this command's key read and hashed, or others
            d = kept_digest(p, data) or content_digest(data)
        if st.st_ctime_ns < taken - SLACK_NS:
            # a record is kept only if it can ever be trusted: a file changed within SLACK_NS of
            # its hashing (a judge's question written just before it is asked) is hashed again
            # whenever it is needed, so keeping its record would only rewrite the whole record
            self.seen[p] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, d, taken]
        return d

    def save(self) -> None:
        if self.path is None:
            return
        if any(self.trees.get(k) != v for k, v in self.trees_seen.items()):
            self.trees = {**self.trees, **self.trees_seen}
            write_json(self.path.with_name(self.path.name + "-trees"), "trees", "", self.trees)
        if all(self.known.get(k) == v for k, v in self.seen.items()):
            return                          # nothing learnt: the record on disk says it all
        merged = {**self.known, **self.seen}
        if len(merged) > len(self.seen) + KEEP_UNSEEN:     # e.g. many judges' files over time
            older = sorted((k for k in self.known if k not in self.seen),
                           key=lambda k: self.known[k][5] if len(self.known[k]) == 6 else 0)
            for k in older[:len(merged) - len(self.seen) - KEEP_UNSEEN]:
                del merged[k]
        if write_json(self.path, "files", "", merged):
            self._known = merged

    def tree(self, h, base: Path, suffixes: Optional[tuple] = None) -> None:
        """Feed `h` the relative path and digest of every file under `base` (or of `base`). A folder's
        feed is remembered with a digest of its files' names, sizes, times and inodes, and trusted
        on the same condition as each file's record, checked for the whole folder at once."""
        if not os.path.isdir(base):
            h.update(str(base).encode("utf-8", "surrogateescape") + b"\0" + self.digest(str(base)).encode())
            return
        taken, listed, sig, newest = time.time_ns(), walk(base, suffixes), blake2b(digest_size=20), 0
        for rel, full in listed:
            try:
                moment, st = looked(full)
                taken = min(taken, moment)      # a file looked at earlier in this command: then
                sig.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n"
                           .encode("utf-8", "surrogateescape"))
                newest = max(newest, st.st_ctime_ns)
            except OSError:
                sig.update(f"{rel}\0-\n".encode("utf-8", "surrogateescape"))
                newest = taken              # never remembered: the next run looks again
        name, signature = f"{base}\0{suffixes}", sig.hexdigest()
        rec = self.trees_seen.get(name) or self.trees.get(name)
        if isinstance(rec, list) and len(rec) == 2 and rec[0] == signature and isinstance(rec[1], str):
            self.trees_seen[name] = rec     # every file as when its feed was taken: that feed
            h.update(b"tree\0" + rec[1].encode())
            return
        feed = blake2b(b"".join(rel.encode("utf-8", "surrogateescape") + b"\0" + self.digest(full).encode() + b"\n"
                                for rel, full in listed), digest_size=20).hexdigest()
        if newest < taken - SLACK_NS:       # else a file changed too recently to remember the folder by
            self.trees_seen[name] = [signature, feed]
        h.update(b"tree\0" + feed.encode())


_digests: dict[Optional[Path], Digests] = {}


def digests(root: Optional[Path]) -> Digests:
    """The process's record of file digests for the knowledge base at `root` (in memory only
    when its cache folder cannot be used)."""
    try:
        path = kb_dir(root) / "files" if root is not None else None
    except Unavailable as e:
        note(f"no cache: {e}")
        path = None
    found = _digests.get(path)
    if found is None:
        found = _digests[path] = Digests(path)
    return found


def code_digest(d: Optional[Digests] = None) -> str:
    """A digest of this package's code: outputs, snapshots and servers are valid for it only."""
    h = blake2b(FORMAT, digest_size=20)
    (d or Digests(None)).tree(h, Path(__file__).resolve().parents[1], (".py", ".lark"))
    return h.hexdigest()


# ----------------------------------------------------------------------------- command outputs

Globals = namedtuple("Globals", "command root no_cache verbose")
Globals.__doc__ = "The command (a str or None) and the global options before it: root (str or None), no_cache, verbose."


def globals_of(argv: Sequence[str]) -> Globals:
    """The command and the global options given before it (`--root`, `--no-cache`, `--verbose`),
    read exactly as the command line's parser reads them (abbreviations are off there): any
    other option before the command — `--help`, a typo, an abbreviation such as `--ro=B` or
    `--no-c` — gives command None, so that nothing is kept or asked of a server and the
    parser reports it."""
    root, no_cache, verbose, i = None, False, False, 0
    while i < len(argv):
        a = argv[i]
        if a == "--root":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                break                       # the parser says a value is missing
            root, i = argv[i + 1], i + 2
            continue
        if a.startswith("--root="):
            root = a.split("=", 1)[1]
        elif a == "--no-cache":
            no_cache = True
        elif a == "--verbose" or (len(a) > 1 and a == "-" + "v" * (len(a) - 1)):
            verbose = True                  # -v, -vv, …: a flag repeated
        elif a.startswith("-"):
            break
        else:
            return Globals(a, root, no_cache, verbose)
        i += 1
    return Globals(None, root, no_cache, verbose)


OutputKey = namedtuple("OutputKey", "root path key code")
OutputKey.__doc__ = ("Where a command's output is kept: the knowledge base's root (Path), the file (Path), "
                     "the digest of everything the output depends on and the code's digest.")


# What a command's output depends on besides its arguments: the variables it reads.
ENV_READ = ("RULESDSL_ROOT", "RULESDSL_NO_CACHE", "NO_COLOR")


def kept_root(argv: Sequence[str]) -> Optional[tuple[Path, Path]]:
    """The knowledge base's root and its private cache folder when this command line's output
    is kept (see `output_key`), else None."""
    g = globals_of(argv)
    if g.command not in READ_ONLY or g.no_cache or os.environ.get("RULESDSL_NO_CACHE"):
        return None
    root = Path(os.path.realpath(g.root if g.root is not None else find_root()))
    if not root.is_dir():
        return None                         # the command says what is wrong with it
    try:
        return root, kb_dir(root)
    except Unavailable as e:
        note(f"no cache: {e}")
        return None


def output_key(argv: Sequence[str], code: Optional[str] = None) -> Optional[OutputKey]:
    """Where the output of this command line is kept and under which key, or None when it is
    not kept (another command, --no-cache, no usable cache folder, an unusable root). `code`:
    the digest of the code that will compute the output, when the caller holds it (a server's
    own, taken when it started); by default this package's files on disk are digested."""
    g = globals_of(argv)
    found = kept_root(argv)
    if found is None:
        return None
    root, folder = found
    d = digests(root)
    code = code or code_digest(d)
    h = blake2b(FORMAT, digest_size=20)
    # the day, local time, as datetime.date.today() reads it (datetime is not imported for it)
    h.update(json.dumps([list(argv), os.getcwd(), str(root), time.strftime("%Y-%m-%d"),
                         [os.environ.get(k, "") for k in ENV_READ]]).encode("utf-8", "surrogateescape"))
    h.update(code.encode())
    for name in KB_DIRS:
        if (root / name).is_dir():
            d.tree(h, root / name)
    skip = {g.root} if g.root is not None else set()
    for a in argv:  # files named on the command line, inside the knowledge base or not
        if a.startswith("-") or a in skip:
            continue
        try:
            if os.path.exists(a):
                d.tree(h, Path(os.path.abspath(a)), (".rules",) if os.path.isdir(a) else None)
        except (OSError, ValueError):
            return None
    d.save()
    key = h.hexdigest()
    return OutputKey(root, folder / "out" / f"{key}.json", key, code)


def recall(k: OutputKey) -> Optional[dict]:
    """The kept output for this key, if there is one that verifies."""
    value = read_json(k.path, "output", k.key)
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("code"), int) or not all(
            isinstance(value.get(f), str) for f in ("stdout", "stderr")):
        note(f"ignoring {k.path.name}: not an output")
        return None
    note(f"output of this command line found ({k.path.name})")
    return value


def remember(k: OutputKey, result: dict) -> None:
    if result.get("code") == 70:        # an internal error is never remembered
        return
    try:
        k.path.parent.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return
    write_json(k.path, "output", k.key, result)
