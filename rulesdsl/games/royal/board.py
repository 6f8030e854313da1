"""The board for readers: a JSON-able dict (each player's zones as areas, the chain as an ordered
area, life, turn and phase as info), a compact picture for the terminal, and a one-line summary
that tells the outcomes of different branches apart."""

from __future__ import annotations

from typing import Any, Optional

from ...lang.diagnostics import display_width
from .state import ABILITY_JA, PHASE_JA, PLAYERS, Card, State

WIDTH = 78
AREAS = (("royal_zone", "ロイヤルゾーン"), ("guardian_zone", "ガーディアンゾーン"), ("skill_zone", "スキルゾーン"),
         ("blank_zone", "ブランクゾーン"), ("lost_zone", "ロストゾーン"), ("extra_deck", "EXデッキ"))


def _card(c: Card, note: Optional[str] = None, face: Optional[str] = None) -> dict[str, Any]:
    info = c.info
    d = {"name": info.name if info else "（カード）", "code": info.code if info else "", "owner": c.owner,
         "face": face or c.face, "hypothetical": c.hypothetical}
    if note:
        d["note"] = note
    return d


def _note(c: Card) -> Optional[str]:
    zone = c.zone
    if zone == "royal_zone":
        return "クリアー" if c.face == "up" else None
    if zone == "guardian_zone" or (zone == "skill_zone" and c.kind == "guardian"):
        force = c.fact("force")
        return f"フォース{force}" if isinstance(force, int) else "ガーディアン"
    if zone == "skill_zone" and c.lasting:
        return "次の自分のエンドフェイズまで残る"
    return None


# the areas' labels, per player (built once, not per board)
_LABELS = {p: [(zone, f"{p} {label}") for zone, label in AREAS] for p in PLAYERS}


def board(st: State) -> dict[str, Any]:
    """The board for readers. Built twice per run (before the actions and after), for every
    branch and every reading tried: the cards' dicts are made directly, the labels once."""
    areas = []
    for p in PLAYERS:
        zones = st.zones[p]
        for zone, label in _LABELS[p]:
            held = zones[zone]      # most zones are empty: no comprehension (a call of its own) for them
            face = "down" if zone == "extra_deck" else None
            cards = [_card(c, _note(c), face) for c in held] if held else []
            if zone == "guardian_zone" and zones["unit"]:
                cards += [_card(u, "ユニット") for u in zones["unit"]]
            areas.append({"label": label, "cards": cards})
    if st.chain:
        areas.append({"label": "チェーン（下から。最後に発動したカードから処理する）", "cards": [
            _card(l.text_card, f"{l.n}. {ABILITY_JA[l.ability]}・スピード{l.speed[0]}" + ("・無効" if l.negated else ""))
            for l in st.chain]})
    info: list[list[Any]] = []
    if st.active:
        turn = f"{st.active}の{st.turn_no[st.active]}ターン目"
        info.append(["ターン", turn])
        info.append(["フェイズ", PHASE_JA[st.phase] if st.phase else "ターン交代"])
    for p in PLAYERS:
        info.append([f"{p} ライフポイント", st.life[p]])
    if st.result:
        info.append(["結果", st.result_note])
    hands, decks = {}, {}
    for p in PLAYERS:
        zones = st.zones[p]
        hands[p] = [c.name for c in zones["hand"]]
        decks[p] = len(zones["main_deck"]) if st.deck_given[p] else None
    return {"areas": areas, "info": info, "hands": hands, "decks": decks}


def _names(cards: list[dict]) -> list[str]:
    out = []
    for c in cards:
        if c["code"] == "":
            out.append("？")
            continue
        face = "裏" if c["face"] == "down" and not c.get("note") else ""
        note = f"({c['note']})" if c.get("note") and c["note"] != "ユニット" else ""
        unit = "ユニット" if c.get("note") == "ユニット" else ""
        out.append(f"{unit}{face}《{c['name']}》{note}")
    return out


def _wrap(head: str, items: list[str], indent: int) -> list[str]:
    lines, line = [], head
    for n, item in enumerate(items):
        if n and display_width(line) + 1 + display_width(item) > WIDTH:
            lines.append(line.rstrip())
            line = " " * indent
        line += item + " "
    lines.append(line.rstrip())
    return lines


def render(b: dict[str, Any]) -> str:
    """The opponent (P2) above, P1 below, the chain between them, as a judge would sit."""
    out: list[str] = []
    info = dict((k, v) for k, v in b["info"])
    areas = {a["label"]: a["cards"] for a in b["areas"]}
    for i, p in enumerate(("P2", "P1")):
        hand = b["hands"][p]
        named = [f"《{n}》" for n in hand if n != "（カード）"]
        rest = len(hand) - len(named)
        hand_words = "・".join(named) + (f"＋{rest}枚" if named and rest else (f"{rest}枚" if rest else "")) or "なし"
        deck = "?" if b["decks"][p] is None else b["decks"][p]
        out.append(f"{p}  ライフ{info.get(f'{p} ライフポイント')}  手札 {hand_words}  メインデッキ{deck}枚")
        empty = []
        for zone, label in AREAS:
            cards = areas.get(f"{p} {label}", [])
            if not cards:
                empty.append(label.replace("ゾーン", ""))
                continue
            out += _wrap(f"  {label}: ", _names(cards), 4)
        if empty:
            out.append(f"  （{'・'.join(empty)}は空）")
        if i == 0:
            chain = next((a for a in b["areas"] if a["label"].startswith("チェーン")), None)
            if chain:
                links = [f"{c['note'].split('.')[0]}. {c['owner']}《{c['name']}》{c['note'].split('. ', 1)[1]}"
                         for c in reversed(chain["cards"])]
                out.append("─" * 30 + " チェーン（上から処理） " + "─" * 24)
                out += _wrap("  ", links, 2)
            out.append("─" * WIDTH)
    if "ターン" in info:
        out.append(f"{info['ターン']}・{info['フェイズ']}" + (f"  {info['結果']}" if "結果" in info else ""))
    elif "結果" in info:
        out.append(info["結果"])
    return "\n".join(out)


_SUMMARY_ZONES = (("skill_zone", "スキル"), ("guardian_zone", "ガーディアン"), ("unit", "ユニット"),
                  ("blank_zone", "ブランク"), ("lost_zone", "ロスト"))


def summary(st: State) -> str:
    """The final state in one line (zones that hold cards), to tell branches apart."""
    parts = []
    for p in PLAYERS:
        held = st.zones[p]
        bits = [f"ライフ{st.life[p]}"]
        hand = held["hand"]
        if hand:
            named = [c.label for c in hand if c.info]
            bits.append("手札" + ("".join(named) if len(named) == len(hand) else f"{len(hand)}枚"))
        for zone, label in _SUMMARY_ZONES:
            cards = held[zone]
            if cards:
                named = ""      # loops, not comprehensions: a zone holds a card or a few
                for c in cards:
                    if c.info:
                        named += c.label
                if named:
                    bits.append(label + named)
        up = ""
        for c in held["royal_zone"]:
            if c.face == "up":
                up += c.label
        if up:
            bits.append("クリアー" + up)
        parts.append(f"{p}: " + "・".join(bits))
    if st.chain:
        parts.append("チェーン" + "→".join(f"{l.text_card.label}" for l in st.chain) + "が処理を待つ")
    return " / ".join(parts)
