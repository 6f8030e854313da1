"""The 3×3 field as a picture for the terminal: owner, face state and stack of every cell."""

from __future__ import annotations

from typing import Any

from ...lang.diagnostics import display_width

WIDTH = 18  # display cells per field cell


def _fit(text: str, width: int = WIDTH) -> str:
    out = ""
    for ch in text:
        if display_width(out + ch) > width:
            out = out[:-1] + "…" if display_width(out) >= width else out + "…"
            break
        out += ch
    return out + " " * (width - display_width(out))


def cell_lines(stack: list[dict]) -> list[str]:
    if not stack:
        return ["·", "", ""]
    top = stack[-1]
    face = "表" if top["face"] == "up" else "裏"
    lines = [f"{top['owner']} {face}", f"《{top['name']}》"]
    if len(stack) > 1:
        below = "/".join(("表" if c["face"] == "up" else "裏") + c["owner"] for c in reversed(stack[:-1]))
        lines.append(f"下{len(stack) - 1}枚: {below}")
    else:
        lines.append("")
    return lines


def render(board: dict[str, Any]) -> str:
    """Columns a–c left to right, rows 1–3 top to bottom; each cell shows the top card's owner
    and face (表 face-up, 裏 face-down), its name, and the cards beneath it in a stack."""
    out = [("    " + "".join(_fit(c) for c in ("a", "b", "c"))).rstrip()]
    for row in "123":
        cells = [cell_lines(board["cells"][f"{col}{row}"]) for col in "abc"]
        for i in range(3):
            if i and not any(c[i] for c in cells):
                continue
            prefix = f" {row}  " if i == 0 else "    "
            out.append((prefix + "".join(_fit(c[i]) for c in cells)).rstrip())
    hands = "  ".join(f"{p}手札: {'、'.join(h) or 'なし'}" for p, h in board["hands"].items())
    decks = "  ".join(f"{p}山札: {n}枚" for p, n in board["decks"].items())
    graves = "  ".join(f"{p}墓地: {'、'.join(g) or 'なし'}" for p, g in board["graveyards"].items())
    out += [f"    {hands}", f"    {decks}", f"    {graves}"]
    return "\n".join(out)
