"""The victory conditions (pm/victory/*): 7 cards in the opponent's point zone, the opponent's
deck out of cards, and a draw when both players meet a condition at once. Deck-out is written
twice with different timing; which one applies is the rule point deck_out.timing."""

from __future__ import annotations

from typing import Iterable

from ...engine.context import Context
from .state import PLAYERS, State, other

POINTS_TO_WIN = 7


def check(ctx: Context, st: State, drew_from_empty: Iterable[str] = ()) -> None:
    """Decide the game if a victory condition holds now. `drew_from_empty`: players who had
    to draw a card from an empty deck just now."""
    if st.result:
        return
    drew_from_empty = tuple(drew_from_empty)
    wins: dict[str, list[str]] = {}
    for player in PLAYERS:
        opp = other(player)
        zone = st.points[opp]
        if len(zone) >= POINTS_TO_WIN:
            up = sum(1 for c in zone if c.face == "up")
            words = f"{opp}のポイント置き場のカードは{len(zone)}枚（表向き{up}枚・裏向き{len(zone) - up}枚）"
            if up >= POINTS_TO_WIN:
                ctx.step(f"{words}：{player}は勝利条件（相手のポイント置き場に7枚以上）を満たす",
                         ctx.section("pm/victory/points"))
                wins.setdefault(player, []).append(f"{opp}のポイント置き場に{len(zone)}枚")
            else:
                rule, cite = ctx.point("victory.face_down_points")
                if rule == "counted":
                    ctx.step(f"{words}：裏向きのカードも数えるので、{player}は勝利条件（相手のポイント置き場に7枚以上）を満たす",
                             ctx.section("pm/victory/points"), cite)
                    wins.setdefault(player, []).append(f"{opp}のポイント置き場に{len(zone)}枚")
                else:
                    ctx.step(f"{words}：表向きのカードだけを数えるので{up}枚、{player}はまだ勝利条件を満たさない",
                             ctx.section("pm/victory/points"), cite)
        if opp in drew_from_empty or (st.deck_known[opp] and not st.deck[opp]):
            rule, cite = ctx.point("deck_out.timing")
            if rule == "any_time":
                # a draw that finds no card is also the draw rule's own loss (デッキが無くなった場合ゲームに敗北)
                drew = (ctx.section("pm/turn-start/draw"),) if opp in drew_from_empty else ()
                ctx.step(f"{opp}のデッキにカードが1枚もない：{player}は勝利条件を満たす（デッキが0枚になった時点で判定する）"
                         + ("。カードを引くときにデッキが無いので、ドローの規定でも敗北する" if drew else ""),
                         ctx.section("pm/victory/deck-out"), cite, *drew)
                wins.setdefault(player, []).append(f"{opp}のデッキ切れ")
            elif opp in drew_from_empty:
                ctx.step(f"{opp}はカードを引くときにデッキにカードが無い：{opp}はゲームに敗北し、{player}が勝利する",
                         ctx.section("pm/turn-start/draw"), cite)
                wins.setdefault(player, []).append(f"{opp}のデッキ切れ（引くカードがない）")
            elif opp not in st.deck_out_noted:
                st.deck_out_noted.add(opp)
                ctx.step(f"{opp}のデッキは0枚だが、デッキ切れはカードを引くときにだけ判定するので、まだ敗北しない",
                         ctx.section("pm/turn-start/draw"), cite)
    if not wins:
        return
    if len(wins) == 2:
        st.result, st.winner = "draw", None
        st.result_note = "、".join(n for p in PLAYERS for n in wins[p])
        ctx.step("両方のプレイヤーが同時に勝利条件を満たしたので、ゲームは引き分けとなる",
                 ctx.section("pm/victory/simultaneous"))
        return
    (winner, notes), = wins.items()
    st.result, st.winner, st.result_note = "win", winner, "、".join(notes)
    met = [ctx.section("pm/victory/points" if "ポイント" in n else "pm/victory/deck-out") for n in notes]
    if len(notes) > 1:   # one player meeting two conditions is not both players meeting one
        ctx.step(f"{winner}が2つの勝利条件を同時に満たしたが、満たしたのは一方のプレイヤーだけなので引き分けではない",
                 *met, ctx.section("pm/victory/simultaneous"))
    ctx.step(f"{winner}の勝利（{st.result_note}）", *met)
