"""A judge's new question reads only the part of the knowledge base it can concern.

A question file outside the knowledge base that declares scenarios only concerns the games its
text names (every `game/…` it writes: its scenarios' ids and its references): a game never reaches
into another, and what the others declare are ids of their own game. So `ask` of such a file
(`only`) loads the documents of those games alone, from the parse snapshot's outline kept by game
(the *brief*: an index of every kept document's games, and one outline part per game, written
beside the snapshot the first time a new question reads the whole outline). A document whose
game cannot be told (a card of no game) is in every part; a file whose kept entry is not in the
index, or that changed, makes the load read the whole outline as before. `ask` uses the narrow
knowledge base only when it answers without a finding in the file; anything the file is refused
for is found again on the whole knowledge base, so the messages are those of a whole load.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Optional

from ..base import cache
from ..lang.model import Card, Document, Game

ONLY: Optional[frozenset] = None        # the games the load in progress is narrowed to
QUESTION: Optional[str] = None          # and the question file's name in it
ANY = "*"                               # a document of no game that can be told
_parsed: dict[tuple[str, bytes], Document] = {}


@contextlib.contextmanager
def only(games: Optional[frozenset], question: Optional[str] = None):
    """Narrow the loads inside to `games`, for the question file named `question` (see the
    module's text)."""
    global ONLY, QUESTION
    saved = ONLY, QUESTION
    ONLY, QUESTION = games, question
    try:
        yield
    finally:
        ONLY, QUESTION = saved
        _parsed.clear()


def keep_parse(shown: str, data: bytes, doc: Document) -> None:
    """Keep the question's parse for the load (`preparsed`): loader.question_games parsed it."""
    _parsed[(shown, data)] = doc


def preparsed(shown: str, data: bytes) -> Optional[Document]:
    """The document loader.question_games parsed from exactly these bytes under this name (none
    kept: no key made, whose hash would read every byte of every file a load parses)."""
    return _parsed.pop((shown, data), None) if _parsed else None


def games_of(doc: Document) -> list[str]:
    out = set()
    for d in doc.decls:
        if type(d) is Game:
            out.add(d.id)
        elif type(d) is Card:
            out.add(d.game or ANY)
        else:
            ident = getattr(d, "id", None)
            out.add(ident.split("/", 1)[0] if isinstance(ident, str) and "/" in ident else ANY)
    return sorted(out)


def _index_path(snap: Path) -> Path:
    return snap.with_name(snap.name + "-brief")


def _part_path(snap: Path, game: str) -> Path:
    return snap.with_name(f"{snap.name}-brief-{cache.blake2b(game.encode(), digest_size=8).hexdigest()}")


def write(snap: Path, salt: str, outlines: dict[str, Document]) -> None:
    """Keep the brief of these outline documents (by key): one part per game, then the index."""
    from ..lang.snapshot import SnapshotError, dumps
    games = {k: games_of(d) for k, d in outlines.items()}
    by_game: dict[str, list[str]] = {}
    for k, gs in games.items():
        for g in gs:
            by_game.setdefault(g, []).append(k)
    wild = by_game.pop(ANY, [])
    parts: dict[str, list[str]] = {}
    for g, keys in by_game.items():
        keys = keys + [k for k in wild if k not in keys]
        try:
            payload = dumps([tuple(keys), tuple(outlines[k] for k in keys)])
        except SnapshotError as e:
            cache.note(f"not keeping the outline by game: {e}")
            return
        if not cache.write_entry(_part_path(snap, g), "brief", salt, payload):
            return
        parts[g] = keys
    cache.write_json(_index_path(snap), "brief", salt, {"games": games, "parts": parts})
    cache.note(f"outline of the parse snapshot kept by game ({len(parts)} games)")


def pick(paths: list[Path], names: list[str], snap: Path, salt: str, digests, key_of, bodies,
         read_snapshot, scenarios_in) -> Optional[tuple[list[Path], list[str], dict[str, Document]]]:
    """The files of the games in ONLY and the question's file, with the kept outline documents
    of those games; None when the brief cannot tell (see the module's text), or a kept document
    holds a scenario `bodies` wants whole. (The loader's own readers are passed in: it imports
    this module.)"""
    index = cache.read_json(_index_path(snap), "brief", salt)
    if not isinstance(index, dict) or not isinstance(index.get("games"), dict):
        return None
    games, parts = index["games"], index.get("parts") or {}
    needed = ONLY or frozenset()
    kept_paths, kept_names, keys = [], [], []
    for path, name in zip(paths, names):
        known = digests.trusted(str(path))
        key = key_of(name, known) if known is not None else None
        if name == QUESTION and (key is None or key not in games):
            kept_paths.append(path)
            kept_names.append(name)
            continue
        if key is None or key not in games:
            return None
        if ANY in games[key] or needed.intersection(games[key]):
            kept_paths.append(path)
            kept_names.append(name)
            keys.append(key)
    docs: dict[str, Document] = {}
    for g in sorted(needed.intersection(parts)):
        part = read_snapshot(_part_path(snap, g), salt, "brief")
        if part is None or list(part) != parts[g]:
            return None
        docs.update(part)
    if any(k not in docs for k in keys) or any(bodies(x) for k in keys for x in scenarios_in(docs[k])):
        return None
    cache.note(f"read the outline of the parse snapshot for {', '.join(sorted(needed)) or 'no game'}")
    return kept_paths, kept_names, {k: docs[k] for k in keys}


_games_memo: dict[str, list[str]] = {}


def pick_kept(paths: list[Path], names: list[str], digests, key_of, kept: dict[str, Document]
              ) -> Optional[tuple[list[Path], list[str], dict[str, Document]]]:
    """`pick` for a resident process (`rulesdsl serve`), from the whole documents it keeps:
    the files of the games in ONLY, the question's file, and any file it does not hold."""
    needed = ONLY or frozenset()
    kept_paths, kept_names, docs = [], [], {}
    for path, name in zip(paths, names):
        known = digests.trusted(str(path))
        key = key_of(name, known) if known is not None else None
        doc = kept.get(key) if key is not None else None
        if doc is not None and name != QUESTION:
            games = _games_memo.get(key)
            if games is None:
                games = _games_memo[key] = games_of(doc)
            if ANY not in games and not needed.intersection(games):
                continue
            docs[key] = doc
        kept_paths.append(path)
        kept_names.append(name)
    return kept_paths, kept_names, docs
