"""Completion for the language server: what may be written at the cursor, read from the text
before it (which need not parse) and the game's vocabulary.

At the start of a statement: the statements of the block the cursor is in (a card's facts and
`effect`, an effect's verbs, a scenario's set-up and actions, a revision's keywords, …); after
`expect`: the game's expectations; in a vocabulary statement's arguments: the values its
parameter's type accepts (cells, players, cards, an enum's values, yes/no); after `refs`, `pins`
and `supersedes`: the game's ids; after a revision's date: the statuses; after `set`: the
game's rule points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ..kb.knowledge import KnowledgeBase
from ..kb.lint import GAP_KINDS
from ..lang.model import Status
from .lsp_state import DECL_KINDS, game_at

# the statements the grammar gives each block, beside the game's vocabulary
KEYWORDS = {
    None: DECL_KINDS,
    "game": ("document", "source", "text", "note", "players", "grid", "zone", "mode", "term", "point",
             "vocabulary"),
    "point": ("value", "default", "per", "note", "reason", "unsettled"),
    "section": ("source", "text", "note", "defines", "refs", "revision"),
    "card": ("source", "text", "note", "refs", "errata"),
    "errata": ("source", "text", "note", "refs"),
    "ruling": ("gap", "refs", "note", "revision", "scenario"),
    "revision": ("source", "text", "quote", "reason", "note", "set", "supersedes", "refs", "scenario"),
    "scenario": ("source", "note", "question", "answer", "as of", "mode", "pins", "card", "assume card",
                 "expect"),
    "deck": ("source", "note", "card"),
    "vocabulary": ("enum", "fact", "trigger", "modifier", "verb", "setup", "action", "expect", "deck"),
}
# the vocabulary entries each block may use
ENTRIES = {"card": ("fact",), "errata": ("fact",), "scenario": ("setup", "action"), "deck": ("deck",)}
STATUSES = tuple(s.value for s in Status)
_TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*(?:"""|$)|"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[{};\n]|[^\s{};"#]+')


@dataclass
class Item:
    label: str
    kind: str                  # keyword, entry, value, id, status, card
    detail: Optional[str] = None
    insert: Optional[str] = None


@dataclass
class Context:
    blocks: list[str]          # heads of the blocks the cursor is in, outermost first
    words: list[str]           # the statement so far, before the word being typed
    prefix: str                # the word being typed


def context_at(text: str, offset: int) -> Context:
    """The blocks around `offset` in `text` and the statement being written there."""
    before = text[:offset]
    m = re.search(r"[A-Za-z0-9_.\-/]*$", before)
    prefix = m.group() if m else ""
    blocks: list[str] = []
    words: list[str] = []
    for tok in _TOKEN.findall(before[:len(before) - len(prefix)]):
        if tok == "{":
            blocks.append(_head(words))
            words = []
        elif tok == "}":
            if blocks:
                blocks.pop()
            words = []
        elif tok in (";", "\n"):
            words = []
        elif tok.startswith("#"):
            continue
        else:
            words.append(tok)
    return Context(blocks, words, prefix)


def _head(words: list[str]) -> str:
    """The kind of block a statement opens: its keyword, or a vocabulary statement's head
    (`effect on_play {`: effect; `assume card No.034 {`: card)."""
    if words[:1] == ["assume"]:
        return "card"
    return words[0] if words else ""


def complete(kb: Optional[KnowledgeBase], text: str, offset: int, lines: list[str], line: int,
             path: str = "") -> list[Item]:
    """What may be written at `offset` (a character offset) of `text`."""
    ctx = context_at(text, offset)
    game = game_at(kb, lines, line, path) if kb is not None else None
    info = kb.games.get(game) if kb is not None and game else None
    block = ctx.blocks[-1] if ctx.blocks else None
    items: list[Item] = []
    if not ctx.words:
        items += [Item(k, "keyword") for k in KEYWORDS.get(block, ())]
        if info is not None:
            kinds = _entry_kinds(info, block)
            for kind in kinds:
                items += [Item(e.name, "entry", f"{kind}: {e.label}" if e.label else kind)
                          for e in info.vocab.entries.get(kind, {}).values()]
            if "fact" in kinds:
                items.append(Item("effect", "keyword", "effect TRIGGER [modifier…] { verbs }"))
        return _filtered(items, ctx.prefix)
    if kb is None:
        return []
    head, args = ctx.words[0], ctx.words[1:]
    if head in ("revision", "errata") and len(args) == 1 or head == "default" and len(args) == 1:
        items = [Item(s, "status", Status(s).ja) for s in STATUSES]
    elif head in ("refs", "pins", "supersedes"):
        items = _ids(kb, game, head)
    elif head == "set" and not args and info is not None:
        items = [Item(p.name, "point", p.label) for p in info.points.values()]
        items += [Item(f"card({code}).", "card") for (g, code) in kb.cards if g == game]
    elif head == "set" and len(args) == 2 and info is not None:
        point = info.points.get(args[0].split(").")[-1])
        items = [Item(v.name, "value", v.label) for v in point.values] if point else []
    elif head == "mode" and not args and info is not None:
        items = [Item(m, "value", label) for m, label in info.modes.items()]
    elif head == "gap" and not args:
        items = [Item(k, "value", v) for k, v in GAP_KINDS.items()]
    elif head == "unsettled" and not args:
        items = [Item(r.id, "id", r.title) for r in kb.rulings.values() if r.game == game and r.gap]
    elif info is not None:
        if head == "expect":
            modal = [a for a in args if a in ("always", "possible", "never")]
            rest = args[len(modal):]
            if rest[:1] == ["probability"]:
                rest = rest[3:]
            if not rest:
                items = [Item(e.name, "entry", f"expect: {e.label}" if e.label else "expect")
                         for e in info.vocab.entries["expect"].values()]
                if not modal:
                    items += [Item(m, "keyword") for m in ("always", "possible", "never", "probability")]
                return _filtered(items, ctx.prefix)
            head, args = rest[0], rest[1:]
            kinds: tuple[str, ...] = ("expect",)
        else:
            kinds = _entry_kinds(info, block)
        entry = next((info.vocab.entries[k][head] for k in kinds if head in info.vocab.entries.get(k, {})), None)
        if entry is not None:
            items = _argument(kb, info, game, entry, len(args), text, offset)
    return _filtered(items, ctx.prefix)


def _entry_kinds(info, block: Optional[str]) -> tuple[str, ...]:
    if block in ENTRIES:
        return ENTRIES[block]
    if block == "effect":
        return ("verb",)
    for kind in ("verb", "setup", "action"):           # a vocabulary statement with a block
        entry = info.vocab.entries.get(kind, {}).get(block or "")
        if entry is not None and entry.body:
            return (entry.body,)
    return ()


def _argument(kb: KnowledgeBase, info, game: str, entry, index: int, text: str, offset: int) -> list[Item]:
    """The values the `index`th argument of a vocabulary statement may take (an optional
    parameter may be skipped, so the next one's values are offered too)."""
    params = list(entry.params)
    i, n = 0, index
    while i < len(params) and n > 0 and not params[i].many:
        i, n = i + 1, n - 1
    items: list[Item] = []
    while i < len(params):
        p = params[i]
        for t in p.types:
            items += _values(kb, info, game, t, text, offset)
        if not p.optional:
            break
        i += 1
    return items


def _values(kb: KnowledgeBase, info, game: str, t: str, text: str, offset: int) -> list[Item]:
    vocab = info.vocab
    if t in vocab.enums:
        return [Item(k, "value", v) for k, v in vocab.enums[t].values.items()]
    if t == "cell":
        return [Item(c, "value", "cell") for c in vocab.cells]
    if t == "player":
        return [Item(p, "value", "player") for p in vocab.players]
    if t == "bool":
        return [Item("yes", "value"), Item("no", "value")]
    if t == "unknown":
        return [Item("unknown", "value", "the sources do not give it")]
    if t == "card":
        own = re.findall(r'^\s*(?:assume\s+)?card\s+("[^"\n]*"|\S+)\s*\{', _scenario_text(text, offset), re.M)
        return [Item(c.code, "card", f"《{c.name}》") for (g, _), c in kb.cards.items() if g == game] + \
            [Item(x, "card", "this scenario's card") for x in dict.fromkeys(own) if x.startswith('"')]
    if t in ("section", "ruling"):
        table = kb.sections if t == "section" else kb.rulings
        return [Item(k, "id", v.title) for k, v in table.items() if v.game == game]
    return []


def _scenario_text(text: str, offset: int) -> str:
    """The text of the declaration the offset is in (from its header on)."""
    start = max(text.rfind("\nscenario ", 0, offset), text.rfind("\ndeck ", 0, offset), 0)
    return text[start:offset]


def _ids(kb: KnowledgeBase, game: Optional[str], head: str) -> list[Item]:
    items = [Item(r.id, "id", r.title) for r in kb.rulings.values() if r.game == game]
    if head != "supersedes":
        items += [Item(s.id, "id", s.title) for s in kb.sections.values() if s.game == game]
        items += [Item(c.code, "card", f"《{c.name}》") for (g, _), c in kb.cards.items() if g == game]
    if head == "refs":
        items += [Item(s.id, "id", s.scenario.title) for s in kb.scenarios.values() if s.game == game]
    return items


def _filtered(items: list[Item], prefix: str) -> list[Item]:
    seen: set[str] = set()
    out = []
    for it in items:
        if it.label.startswith(prefix) and it.label not in seen:
            seen.add(it.label)
            out.append(it)
    return out

