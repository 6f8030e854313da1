"""Victory and loss (勝利条件, ジャッジフェイズ): when life or the royal cards decide the game, and
what the game allows once it is decided."""

from __future__ import annotations

from ...engine.context import Context, IllegalAction
from .points import reading
from .state import State, other


def players_in_order(st: State) -> tuple[str, str]:
    """The turn player first."""
    a = st.active or "P1"
    return (a, other(a))


def life_zero(ctx: Context, st: State, p: str):
    how, cite = reading(ctx, st.readings, "life.zero")
    life = st.life[p]
    if life > 0:
        return False, cite
    return (life <= 0 if how == "zero_or_less" else life == 0), cite


def check_now(ctx: Context, st: State, players: tuple[str, ...] = ()) -> None:
    """After life or royal cards change, and at a judge phase for the other player: is the game
    decided now, or at that player's own judge phase (victory.timing)?"""
    if st.result:
        return
    for p in players or players_in_order(st):
        five = len(st.faced_up_royals(p)) >= 5
        # whether a life below 0 counts as 0 is a reading (life.zero)
        zero, zero_cite = life_zero(ctx, st, p) if st.life[p] <= 0 else (False, None)
        if not five and not zero:
            continue
        timing, cite = reading(ctx, st.readings, "victory.timing")
        if timing == "judge_phase":
            what = "・".join(([] if not five else ["ロイヤルカード5枚が公開されている"])
                             + ([] if not zero else [f"ライフポイントが{st.life[p]}になった"]))
            met = ([ctx.section("royal/victory/conditions")] if five else []) + \
                  ([zero_cite, ctx.section("royal/victory/life")] if zero else [])
            ctx.step(f"{p}は{what}が、勝敗は{p}自身の次のジャッジフェイズに判定する", cite,
                     ctx.section("royal/phase/judge"), *met)
            continue
        if five and zero:
            result, cite2 = reading(ctx, st.readings, "judge.both_conditions")
            if result == "win":
                win(ctx, st, p, "ロイヤルカード5枚を公開した", cite, cite2)
            else:
                lose(ctx, st, p, f"ライフポイントが{st.life[p]}になった", cite, cite2)
        elif five:
            win(ctx, st, p, "ロイヤルカード5枚を公開した", cite, ctx.section("royal/victory/conditions"))
        elif zero:
            lose(ctx, st, p, f"ライフポイントが{st.life[p]}になった", cite, zero_cite, ctx.section("royal/victory/life"))
        if st.result:
            return


def win(ctx: Context, st: State, p: str, why: str, *cites) -> None:
    st.result, st.winner, st.loser, st.result_note = "win", p, other(p), f"{p}の勝利: {why}"
    ctx.step(f"{p}の勝利（{why}）", *cites)


def lose(ctx: Context, st: State, p: str, why: str, *cites) -> None:
    st.result, st.winner, st.loser, st.result_note = "win", other(p), p, f"{p}の強制敗北: {why}"
    ctx.step(f"{p}の強制敗北、{other(p)}の勝利（{why}）", *cites)


def not_over(ctx: Context, st: State) -> None:
    if st.result:
        raise IllegalAction(f"ゲームはすでに終了している（{st.result_note}）", ctx.section("royal/victory/conditions"))
