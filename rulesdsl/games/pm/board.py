"""The board of a プレシャスメモリーズ game (CONTRACTS.md, contract 5): each player's main area,
support area and point zone as rows of cards, the plays waiting to resolve, and the scalars
(turn, phase, priority, points, decks); and a compact picture of it for the terminal."""

from __future__ import annotations

from typing import Any

from ...lang.diagnostics import display_width
from .state import AREA_JA, PHASE_JA, PLAYERS, Card, State

WIDTH = 78


def _card(c: Card, note: str = "") -> dict[str, Any]:
    return {"name": c.name, "code": c.code, "owner": c.owner, "face": c.face, "hypothetical": c.hypothetical,
            "note": note}


def _stats(mods: dict[tuple[int, str], int], c: Card) -> str:
    out = []
    for name in ("ap", "dp"):
        v = c.fact(name)
        if v == "none":
            continue
        mod = mods.get((c.uid, name), 0)
        base = "?" if not isinstance(v, int) else str(v)
        out.append(f"{name.upper()}{base}{f'{mod:+d}' if mod else ''}")
    return "/".join(out)


def _character_notes(st: State, mods: dict[tuple[int, str], int], c: Card) -> str:
    parts = ["休息" if c.resting else "活動"]
    stats = _stats(mods, c)
    if stats:
        parts.append(stats)
    if c.uid in st.entered:
        parts.append("登場したターン")
    if c.uid in st.approached:
        parts.append("アプローチ済み")
    return "・".join(parts)


def build(st: State) -> dict[str, Any]:
    areas = []
    mods: dict[tuple[int, str], int] = {}     # the changes in force, summed per card and value
    for uid, s, a, _ in st.mods:
        mods[uid, s] = mods.get((uid, s), 0) + a
    for p in PLAYERS:
        for area, zone in (("main", st.main), ("support", st.support)):
            cards = []
            for c in zone[p]:
                cards.append(_card(c, _character_notes(st, mods, c)))
                cards += [_card(s, f"セット→{c.label}") for s in c.supports]
            areas.append({"label": f"{p} {AREA_JA[area]}", "cards": cards})
        areas.append({"label": f"{p} ポイント置き場", "cards": [_card(c) for c in st.points[p]]})
    if st.chain:
        areas.append({"label": "解決待ちのプレイ（プレイ順）",
                      "cards": [_card(play.card, f"{play.player}のプレイ" + (f"・対象{play.target.label}" if play.target else ""))
                                for play in st.chain]})
    if st.approach is not None:
        a = st.approach
        cards = [_card(a.attacker, "アプローチ")]
        if a.interferer is not None:
            cards.append(_card(a.interferer, "妨害"))
        areas.append({"label": "アプローチ中", "cards": cards})
    if st.left:
        areas.append({"label": "場・手札を離れたカード（行き先の規定なし）", "cards": [_card(c) for c in st.left]})
    info: list[list[str]] = []
    if st.active:
        phase = "ターン終了後" if st.turn_over else PHASE_JA.get(st.phase or "", "")
        info.append(["ターン", f"{st.active}の{st.turns[st.active]}回目のターン・{phase}"])
        if st.window_closed:
            info.append(["優先権", "なし（このタイミングのプレイは終わった）"])
        elif st.priority and not st.turn_over:
            info.append(["優先権", st.priority])
    if st.first:
        info.append(["先攻", st.first])
    for p in PLAYERS:
        up = sum(1 for c in st.points[p] if c.face == "up")
        info.append([f"{p} ポイント", f"{len(st.points[p])}枚（表{up}・裏{len(st.points[p]) - up}）"])
        info.append([f"{p} デッキ", f"{len(st.deck[p])}枚" if st.deck_known[p] else "不明（場面にない）"])
    if st.result:
        info.append(["勝敗", result_words(st)])
    return {
        "areas": areas,
        "info": info,
        "hands": {p: [c.name for c in st.hand[p]] for p in PLAYERS},
        "decks": {p: len(st.deck[p]) if st.deck_known[p] else None for p in PLAYERS},
        "graveyards": {p: [c.name for c in st.grave[p]] for p in PLAYERS},
    }


def result_words(st: State) -> str:
    if st.result == "win":
        return f"{st.winner}の勝利（{st.result_note}）"
    if st.result == "draw":
        return f"引き分け（{st.result_note}）"
    return "ゲームは続く"


def _fit(text: str, width: int = WIDTH) -> str:
    out = ""
    for ch in text:
        if display_width(out + ch) > width - 1:
            return out + "…"
        out += ch
    return out


def _names(names: list[str]) -> str:
    if not names:
        return "なし"
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return "、".join(f"《{n}》" + (f"×{k}" if k > 1 else "") for n, k in counts.items())


def _row(cards: list[dict]) -> str:
    if not cards:
        return "·"
    out = []
    for c in cards:
        face = "" if c["face"] == "up" else "裏"
        out.append(f"{face}《{c['name']}》" + (f"[{c['note']}]" if c.get("note") else ""))
    return "  ".join(out)


def render(board: dict[str, Any]) -> str:
    """One block per player (P2 above, P1 below, as across a table): areas, points, hand,
    deck, discard pile; then the turn, phase, priority and anything waiting."""
    areas = {a["label"]: a["cards"] for a in board["areas"]}
    lines = []
    for p in ("P2", "P1"):
        pts = areas.get(f"{p} ポイント置き場", [])
        up = sum(1 for c in pts if c["face"] == "up")
        deck = board["decks"][p]
        block = [
            f"{p} メイン:   " + _row(areas.get(f"{p} メインエリア", [])),
            f"{p} サポート: " + _row(areas.get(f"{p} サポートエリア", [])),
            f"{p} ポイント置き場 {len(pts)}枚（表{up}・裏{len(pts) - up}）  デッキ {'不明' if deck is None else f'{deck}枚'}"
            f"  捨て札 {_names(board['graveyards'][p])}",
            f"{p} 手札: {_names(board['hands'][p])}",
        ]
        if p == "P2":   # across the table: P2's side mirrored above P1's
            block.reverse()
        lines += block
        if p == "P2":
            lines.append("─" * 39)
    for a in board["areas"]:
        if a["label"].startswith(("解決待ち", "アプローチ中", "場・手札を離れた")):
            lines.append(f"{a['label']}: {_row(a['cards'])}")
    info = "  ".join(f"{k}: {v}" for k, v in board["info"] if not k.endswith(("ポイント", "デッキ")))
    if info:
        lines.append(info)
    return "\n".join("    " + _fit(line) for line in lines)
