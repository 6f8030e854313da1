"""A picture of a board for a scenario page: an HTML grid of the field's cells (columns a, b, c …
left to right, rows 1, 2, 3 … top to bottom), each cell's stack with the top card's owner and face
(表 face-up, 裏 face-down, drawn differently) and the cards beneath it; then the players' zones.

It reads the board as an interpreter describes it (`GameEngine.board`): `{"cells": {cell: [card,
…] bottom first}, "hands": {player: [name …]}, "decks": {player: count}, "graveyards": …,
"active": player, "turn": n}`, each card `{"name", "code", "owner", "face", "hypothetical"}`.
Nothing here names a game: any grid-shaped board is drawn the same way.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .escape import esc

_CELL = re.compile(r"^([A-Za-z]+)(\d+)$")
FACE_JA = {"up": "表", "down": "裏"}
ZONES = (("hands", "手札"), ("decks", "山札"), ("graveyards", "墓地"))


def _owner_class(owner: Any, players: list[str]) -> str:
    text = str(owner)
    if text in players:
        return f"rd-owner-{players.index(text) + 1}"
    return "rd-owner-x"


def _card_label(card: dict, href: Callable[[str], Optional[str]]) -> str:
    name = esc(f"《{card.get('name', '')}》")
    if not card.get("hypothetical"):
        url = href(str(card.get("code", "")))
        if url:
            return f'<a href="{esc(url)}">{name}</a>'
    return name


def render_board(board: Any, card_href: Callable[[str], Optional[str]] = lambda code: None,
                 caption: str = "") -> str:
    """The board as HTML (empty when the interpreter gives no grid)."""
    if not isinstance(board, dict) or not isinstance(board.get("cells"), dict):
        return ""
    cells: dict[str, list] = board["cells"]
    parsed = {name: _CELL.match(name) for name in cells}
    if not cells or not all(parsed.values()):
        return ""
    columns = sorted({m.group(1) for m in parsed.values()})
    rows = sorted({m.group(2) for m in parsed.values()}, key=int)
    players = sorted({str(c.get("owner")) for stack in cells.values() for c in stack}
                     | {str(p) for key, _ in ZONES for p in (board.get(key) or {})})

    out = ['<figure class="rd-board"><table class="rd-grid" aria-label="盤面">'
           '<thead><tr><th class="rd-corner"></th>']
    out += [f'<th scope="col">{esc(c)}</th>' for c in columns]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append(f'<tr><th scope="row">{esc(r)}</th>')
        for c in columns:
            name = f"{c}{r}"
            stack = cells.get(name, [])
            out.append(_cell(name, stack, players, card_href))
        out.append("</tr>")
    out.append("</tbody></table>")
    zones = _zones(board, card_href)
    if zones:
        out.append(zones)
    if caption:
        out.append(f"<figcaption>{esc(caption)}</figcaption>")
    out.append("</figure>")
    return "".join(out)


def _cell(name: str, stack: list, players: list[str], href) -> str:
    if not stack:
        return f'<td class="rd-cell rd-empty" data-cell="{esc(name)}"><span class="rd-cell-name">{esc(name)}</span></td>'
    top = stack[-1]
    face = str(top.get("face"))
    face_ja = FACE_JA.get(face, face)
    cls = f"rd-card {_owner_class(top.get('owner'), players)} rd-face-{'down' if face == 'down' else 'up'}"
    parts = [f'<td class="rd-cell" data-cell="{esc(name)}"><span class="rd-cell-name">{esc(name)}</span>',
             f'<div class="rd-stack" data-size="{len(stack)}">']
    if len(stack) > 1:
        parts.append('<div class="rd-layers" aria-hidden="true">' + '<span></span>' * min(len(stack) - 1, 4) + '</div>')
    parts.append(f'<div class="{cls}"><span class="rd-card-meta">{esc(top.get("owner"))}・{esc(face_ja)}向き</span>'
                 f'<span class="rd-card-name">{_card_label(top, href)}</span></div>')
    if len(stack) > 1:
        below = "".join(
            f'<li><span class="rd-mini {_owner_class(c.get("owner"), players)}">'
            f'{esc(FACE_JA.get(str(c.get("face")), c.get("face")))}</span>{esc(c.get("owner"))}{_card_label(c, href)}</li>'
            for c in reversed(stack[:-1]))
        parts.append(f'<div class="rd-under">下に{len(stack) - 1}枚（上から）<ul>{below}</ul></div>')
    parts.append("</div></td>")
    return "".join(parts)


def _zones(board: dict, href) -> str:
    rows = []
    for key, label in ZONES:
        zone = board.get(key)
        if not isinstance(zone, dict):
            continue
        for player, content in zone.items():
            if isinstance(content, (list, tuple)):
                value = "、".join(esc(f"《{x}》") for x in content) or "なし"
            else:
                value = f"{esc(content)}枚"
            rows.append(f"<tr><th>{esc(player)}の{label}</th><td>{value}</td></tr>")
    if board.get("active"):
        turn = f"（ターン{esc(board['turn'])}）" if board.get("turn") else ""
        rows.append(f"<tr><th>手番</th><td>{esc(board['active'])}{turn}</td></tr>")
    if not rows:
        return ""
    return '<table class="rd-zones"><tbody>' + "".join(rows) + "</tbody></table>"
