"""A picture of a board for a scenario page, drawn from what an interpreter describes
(`GameEngine.board`, contract 5 in CONTRACTS.md), generically — nothing here names a game:

* `"cells"`: {cell: [card, …] bottom first} — a grid (columns a, b, c … left to right, rows 1, 2,
  3 … top to bottom); each cell's top card with its owner and face (表 face-up, 裏 face-down, drawn
  differently) and the cards beneath it;
* `"areas"`: [{"label", "cards"}, …] — labelled rows of cards (a player's rows, zones, a chain);
* `"info"`: [[label, value], …] — scalars (life, score, turn, phase …);
* `"hands"`, `"decks"`, `"graveyards"`: {player: [name …] or a count}; `"active"`, `"turn"`.

A card is {"name", "code", "owner", "face": "up"|"down", "hypothetical", "note"?}; any other
numeric key (a weight …) is shown on the card too. Everything is HTML-escaped.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .escape import esc

_CELL = re.compile(r"^([A-Za-z]+)(\d+)$")
FACE_JA = {"up": "表", "down": "裏"}
ZONES = (("hands", "手札"), ("decks", "山札"), ("graveyards", "墓地"))
CARD_KEYS = frozenset({"name", "code", "owner", "face", "hypothetical", "note"})
# how a card's numeric facts read when the board gives them (any other key: "key value")
FACT_FORMAT = {"weight": "{}kg"}

Href = Callable[[str], Optional[str]]


def _owner_class(owner: Any, players: list[str]) -> str:
    text = str(owner)
    if text in players:
        return f"rd-owner-{players.index(text) % 4 + 1}"
    return "rd-owner-x"


def _card_label(card: dict, href: Href) -> str:
    name = esc(f"《{card.get('name', '')}》")
    if not card.get("hypothetical"):
        url = href(str(card.get("code", "")))
        if url:
            return f'<a href="{esc(url)}">{name}</a>'
    return name


def _facts(card: dict) -> str:
    """The card's other numeric facts (a weight …), and its note."""
    facts = []
    for k, v in card.items():
        if k in CARD_KEYS or isinstance(v, bool) or not isinstance(v, (int, float, str)):
            continue
        if isinstance(v, str) and k not in FACT_FORMAT:
            continue
        fmt = FACT_FORMAT.get(k)
        facts.append(esc(fmt.format(v) if fmt else f"{k} {v}"))
    out = f'<span class="rd-card-facts">{" ・ ".join(facts)}</span>' if facts else ""
    if card.get("note"):
        out += f'<span class="rd-card-note">{esc(card["note"])}</span>'
    return out


def _card_box(card: dict, players: list[str], href: Href) -> str:
    face = str(card.get("face", "up"))
    face_ja = FACE_JA.get(face, face)
    owner = card.get("owner")
    meta = f"{esc(owner)}・{esc(face_ja)}向き" if owner not in (None, "") else f"{esc(face_ja)}向き"
    cls = f"rd-card {_owner_class(owner, players)} rd-face-{'down' if face == 'down' else 'up'}"
    return (f'<div class="{cls}"><span class="rd-card-meta">{meta}</span>'
            f'<span class="rd-card-name">{_card_label(card, href)}</span>{_facts(card)}</div>')


def _players(board: dict) -> list[str]:
    owners: set[str] = set()
    cells = board.get("cells")
    if isinstance(cells, dict):
        owners |= {str(c.get("owner")) for stack in cells.values() if isinstance(stack, list)
                   for c in stack if isinstance(c, dict)}
    for area in board.get("areas") or ():
        if isinstance(area, dict):
            owners |= {str(c.get("owner")) for c in area.get("cards") or () if isinstance(c, dict)}
    owners |= {str(p) for key, _ in ZONES for p in (board.get(key) or {})}
    owners.discard("None")
    return sorted(owners)


def render_board(board: Any, card_href: Href = lambda code: None, caption: str = "") -> str:
    """The board as HTML (empty when the interpreter describes nothing this can draw)."""
    if not isinstance(board, dict):
        return ""
    players = _players(board)
    parts = [_grid(board.get("cells"), players, card_href), _areas(board.get("areas"), players, card_href),
             _zones(board, card_href)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    out = ['<figure class="rd-board">', *parts]
    if caption:
        out.append(f"<figcaption>{esc(caption)}</figcaption>")
    out.append("</figure>")
    return "".join(out)


def _grid(cells: Any, players: list[str], href: Href) -> str:
    if not isinstance(cells, dict) or not cells:
        return ""
    parsed = {name: _CELL.match(str(name)) for name in cells}
    if not all(parsed.values()):
        return ""
    columns = sorted({m.group(1) for m in parsed.values()})
    rows = sorted({m.group(2) for m in parsed.values()}, key=int)
    out = ['<table class="rd-grid" aria-label="盤面"><thead><tr><td class="rd-corner"></td>']
    out += [f'<th scope="col">{esc(c)}</th>' for c in columns]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append(f'<tr><th scope="row">{esc(r)}</th>')
        for c in columns:
            name = f"{c}{r}"
            out.append(_cell(name, cells.get(name) or [], players, href))
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _cell(name: str, stack: list, players: list[str], href: Href) -> str:
    stack = [c for c in stack if isinstance(c, dict)]
    if not stack:
        return f'<td class="rd-cell rd-empty" data-cell="{esc(name)}"><span class="rd-cell-name">{esc(name)}</span></td>'
    parts = [f'<td class="rd-cell" data-cell="{esc(name)}"><span class="rd-cell-name">{esc(name)}</span>',
             f'<div class="rd-stack" data-size="{len(stack)}">']
    if len(stack) > 1:
        parts.append('<div class="rd-layers" aria-hidden="true">' + '<span></span>' * min(len(stack) - 1, 4) + '</div>')
    parts.append(_card_box(stack[-1], players, href))
    if len(stack) > 1:
        below = "".join(
            f'<li><span class="rd-mini {_owner_class(c.get("owner"), players)}">'
            f'{esc(FACE_JA.get(str(c.get("face")), c.get("face")))}</span>{esc(c.get("owner"))}{_card_label(c, href)}'
            f'{_facts(c)}</li>'
            for c in reversed(stack[:-1]))
        parts.append(f'<div class="rd-under">下に{len(stack) - 1}枚（上から）<ul>{below}</ul></div>')
    parts.append("</div></td>")
    return "".join(parts)


def _areas(areas: Any, players: list[str], href: Href) -> str:
    if not isinstance(areas, list) or not areas:
        return ""
    out = ['<div class="rd-areas">']
    for area in areas:
        if not isinstance(area, dict):
            continue
        cards = [c for c in area.get("cards") or () if isinstance(c, dict)]
        body = ("".join(f"<li>{_card_box(c, players, href)}</li>" for c in cards) if cards
                else '<li class="rd-area-empty">なし</li>')
        out.append(f'<div class="rd-area"><p class="rd-area-label">{esc(area.get("label", ""))}</p>'
                   f'<ul class="rd-area-cards">{body}</ul></div>')
    out.append("</div>")
    return "".join(out)


def _zones(board: dict, href: Href) -> str:
    rows = []
    for item in board.get("info") or ():
        if isinstance(item, (list, tuple)) and len(item) == 2:
            rows.append(f"<tr><th>{esc(item[0])}</th><td>{esc(item[1])}</td></tr>")
    for key, label in ZONES:
        zone = board.get(key)
        if not isinstance(zone, dict):
            continue
        for player, content in zone.items():
            if isinstance(content, (list, tuple)):
                value = "、".join(esc(f"《{x}》") for x in content) or "なし"
            elif content is None:
                value = "不明"
            else:
                value = f"{esc(content)}枚"
            rows.append(f"<tr><th>{esc(player)}の{label}</th><td>{value}</td></tr>")
    if board.get("active"):
        turn = f"（ターン{esc(board['turn'])}）" if board.get("turn") else ""
        rows.append(f"<tr><th>手番</th><td>{esc(board['active'])}{turn}</td></tr>")
    if not rows:
        return ""
    return '<table class="rd-zones"><tbody>' + "".join(rows) + "</tbody></table>"
