"""Both (or all) camps as a picture for the terminal, 78 columns: per player the front and the
back row, place by place from the left (表 face-up, 裏 face-down, 負傷 injured), then the seats,
the turn, scores, stocks and score cards."""

from __future__ import annotations

from typing import Any

from ...lang.diagnostics import display_width
from .state import ANONYMOUS

WIDTH = 78
LABEL = 9  # "P1 前列  "


def _fit(text: str, width: int) -> str:
    if display_width(text) > width:
        out = ""
        for ch in text:
            if display_width(out + ch) > width - 1:
                break
            out += ch
        text = out + "…"
    return text + " " * (width - display_width(text))


def _cell(card: dict) -> str:
    face = "表" if card.get("face") == "up" else "裏"
    note = card.get("note") or ""
    name = card.get("name", "")
    return f"{face}{'？' if name == ANONYMOUS else f'《{name}》'}{note}"


def render(board: dict[str, Any]) -> str:
    areas = board.get("areas", [])
    places = max([6] + [c.get("column", 1) for a in areas for c in a["cards"]]) if areas else 6
    used = max([1] + [c.get("column", 1) for a in areas for c in a["cards"]])
    shown = min(places, max(used, 3))
    width = max(6, min(24, (WIDTH - LABEL) // shown))
    out = [(" " * LABEL + "".join(_fit(f"{i}", width) for i in range(1, shown + 1))).rstrip()]
    last = None
    for area in areas:
        by_col = {c.get("column"): c for c in area["cards"]}
        player, row = area["label"].split(" ", 1)
        if area.get("row") == "back" and not by_col:
            continue
        head = f"{player if player != last else '':<3}{row}"
        last = player
        cells = "".join(_fit(_cell(by_col[i]) if i in by_col else "·", width) for i in range(1, shown + 1))
        out.append((_fit(head, LABEL) + cells).rstrip())
    info = board.get("info", [])
    line = ""
    for label, value in info:
        item = f"{label}: {value}"
        if line and display_width(line + "  " + item) > WIDTH - 2:
            out.append("  " + line)
            line = item
        else:
            line = f"{line}  {item}" if line else item
    if line:
        out.append("  " + line)
    return "\n".join(out)
