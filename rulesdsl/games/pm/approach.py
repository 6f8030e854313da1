"""The approach phase (pm/approach/*): approaching with an active character, the opponent
interfering with one of theirs or not, the point placed when nobody interferes, and the two exit
checks, made at the same time, when someone does."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context, EngineError
from ...engine.trace import Cite, unique_cites
from . import effects as fx
from .common import choose, illegal
from .plays import new_timing
from .state import PHASE_JA, Approach, Card, State
from .values import stat


def _area_ok(ctx: Context, st: State, card: Card, verb: str) -> Optional[tuple[str, tuple[Cite, ...]]]:
    area = st.area_of(card)
    section = "pm/approach/declare" if verb == "アプローチ" else "pm/approach/interfere"
    if area is None:
        return f"{card.label}は場のキャラではない", (ctx.section(section),)
    if area == "support":
        rule, cite = ctx.point("approach.area")
        if rule == "main_only":
            return (f"{card.label}はサポートエリアのキャラ：{verb}に指定できるのはメインエリアのキャラ",
                    (ctx.section(section), cite))
        ctx.step(f"サポートエリアの{card.label}も{verb}に指定できる", ctx.section(section), cite)
        for s in ("ap", "dp"):
            if card.fact(s) == "none":
                return (f"{card.label}は{s.upper()}を持たないので退場判定ができない：{verb}に指定できない",
                        (ctx.section("pm/approach/exit-interferer"), cite))
    return None


def why_not_approach(ctx: Context, st: State, player: str, card: Card) -> Optional[tuple[str, tuple[Cite, ...]]]:
    """Why `player` may not approach with `card` now, or None."""
    if st.phase != "approach":
        return (f"アプローチはアプローチフェイズに行う：今は{PHASE_JA.get(st.phase, 'ゲーム外')}",
                (ctx.section("pm/approach/phase"), ctx.section("pm/turn/phases")))
    if player != st.active:
        return f"アプローチは手番プレイヤー（{st.active}）が自分の場のキャラで行う", (ctx.section("pm/approach/phase"),)
    if card.owner != player:
        return f"{card.label}は{player}のキャラではない", (ctx.section("pm/approach/phase"),)
    bad = _area_ok(ctx, st, card, "アプローチ")
    if bad:
        return bad
    if card.resting:
        return (f"{card.label}は休息状態：アプローチには活動状態のキャラを指定する",
                (ctx.section("pm/approach/declare"), ctx.section("pm/approach/phase")))
    if card.uid in st.entered:
        return f"{card.label}はこのターンに登場した：出したターンはアプローチできない", (ctx.section("pm/main/enter"),)
    if card.uid in st.approached:
        return (f"{card.label}はこのターンにすでにアプローチした：同じカードは1ターンに1度しかアプローチできない",
                (ctx.section("pm/approach/phase"),))
    return None


def why_not_interfere(ctx: Context, st: State, player: str, card: Card) -> Optional[tuple[str, tuple[Cite, ...]]]:
    if st.active is not None and player == st.active:
        return f"妨害を行うのはアプローチを受ける相手プレイヤー：{player}は手番プレイヤー", (ctx.section("pm/approach/interfere"),)
    if card.owner != player:
        return f"{card.label}は{player}のキャラではない", (ctx.section("pm/approach/interfere"),)
    bad = _area_ok(ctx, st, card, "妨害")
    if bad:
        return bad
    if card.resting:
        return (f"{card.label}は休息状態：妨害には活動状態のキャラを指定する", (ctx.section("pm/approach/interfere"),))
    return None


def declare(ctx: Context, st: State, player: str, card: Card) -> None:
    bad = why_not_approach(ctx, st, player, card)
    if bad:
        raise illegal(bad[0], *bad[1])
    card.resting = True
    st.approached.add(card.uid)
    st.approach = Approach(card, player)
    new_timing(st)
    ctx.step(f"{player}は活動状態の{card.label}を指定し、休息状態にしてアプローチする" + _untargetable(card),
             ctx.section("pm/approach/declare"), ctx.section("pm/approach/phase"), *_target_rule(ctx, card))


def interfere(ctx: Context, st: State, player: str, card: Card) -> None:
    a = st.approach
    if a is None or a.stage != "declared":
        raise illegal("妨害する相手のアプローチがない（妨害はアプローチに対して1度行う）", ctx.section("pm/approach/interfere"))
    bad = why_not_interfere(ctx, st, player, card)
    if bad:
        raise illegal(bad[0], *bad[1])
    card.resting = True
    a.interferer = card
    a.stage = "interfered"
    new_timing(st)
    ctx.step(f"{player}は活動状態の{card.label}を指定し、休息状態にして{a.attacker.label}のアプローチを妨害する" + _untargetable(card),
             ctx.section("pm/approach/interfere"), *_target_rule(ctx, card))


def _untargetable(card: Card) -> str:
    """A character that cannot be targeted may still approach or interfere: 対象 is a card a text
    designates, and these designations are the rules' own."""
    return ("（「対象にならない」キャラだが、アプローチ・妨害の指定はテキストによる指定（対象）ではない）"
            if card.fact("untargetable") is True else "")


def _target_rule(ctx: Context, card: Card) -> tuple[Cite, ...]:
    return (ctx.section("pm/effects/target"),) if card.fact("untargetable") is True else ()


def not_interfere(ctx: Context, st: State, player: str, chosen: bool = False) -> None:
    a = st.approach
    if a is None or a.stage != "declared":
        raise illegal("妨害するかを決めるアプローチがない", ctx.section("pm/approach/interfere"))
    if player != a.defender:
        raise illegal(f"妨害するかを決めるのはアプローチを受ける{a.defender}", ctx.section("pm/approach/interfere"))
    if not chosen:
        ctx.step(f"{player}は{a.attacker.label}のアプローチを妨害しない", ctx.section("pm/approach/point"))
    point_for(ctx, st, a)


def point_for(ctx: Context, st: State, a: Approach) -> None:
    """No interference: the top card of a deck to a point zone (whose: a reading)."""
    a.stage = "done"
    st.approach = None
    new_timing(st)
    if not st.on_field(a.attacker):
        rule, cite = ctx.point("approach.approacher_gone")
        if rule == "ends":
            ctx.step(f"アプローチをしていた{a.attacker.label}が場にいないので、アプローチは終わる（ポイントは置かれない）",
                     ctx.section("pm/approach/point"), cite)
            return
        ctx.step(f"アプローチをしていた{a.attacker.label}は場にいないが、アプローチは続く", ctx.section("pm/approach/point"), cite)
    side, cite = ctx.point("approach.point_side")
    player = a.defender if side == "defender" else a.player
    placed = fx.place_point(ctx, st, player, 1, ctx.section("pm/approach/point"))
    if placed:
        ctx.step(f"（ポイントを置くのは{'妨害しなかった' if side == 'defender' else 'アプローチした'}{player}のデッキと"
                 f"ポイント置き場）", cite)
    fx.after_points(ctx, st, placed)


def decide_interference(ctx: Context, st: State) -> None:
    """The scenario does not say whether the opponent interferes: each possibility is explored."""
    a = st.approach
    ready = [c for c in st.field(a.defender) if why_not_interfere(ctx, st, a.defender, c) is None]
    if not ready:
        ctx.step(f"{a.defender}には妨害に指定できる活動状態のキャラがいない：妨害は行われない", ctx.section("pm/approach/interfere"))
        not_interfere(ctx, st, a.defender, chosen=True)
        return
    labels = ["妨害しない"] + [f"{c.label}で妨害する" for c in ready]
    pick = choose(ctx, a.defender, f"{a.attacker.label}のアプローチを妨害するか", labels, ctx.section("pm/approach/interfere"))
    if pick == 0:
        not_interfere(ctx, st, a.defender, chosen=True)
    else:
        interfere(ctx, st, a.defender, ready[pick - 1])


def exit_check(ctx: Context, st: State) -> None:
    a = st.approach
    att, itf = a.attacker, a.interferer
    a.stage = "done"
    st.approach = None
    new_timing(st)
    if not st.on_field(itf):
        rule, cite = ctx.point("approach.interferer_gone")
        if rule == "not_interfered":
            ctx.step(f"妨害キャラの{itf.label}が退場判定の前に場を離れた：妨害は行われなかったものとする",
                     ctx.section("pm/approach/point"), cite)
            a.stage = "declared"
            point_for(ctx, st, a)
            return
        ctx.step(f"妨害キャラの{itf.label}は退場判定の前に場を離れた：妨害は行われたので、ポイントは置かれない。"
                 "比べる相手がいないので退場判定は行わない", ctx.section("pm/approach/point"),
                 ctx.section("pm/approach/exit-interferer"), cite)
        return
    if not st.on_field(att):
        rule, cite = ctx.point("approach.approacher_gone")
        ctx.step(f"アプローチをしていた{att.label}は退場判定の前に場を離れた："
                 + ("アプローチは終わる" if rule == "ends" else "比べる相手がいないので退場判定は行わない"),
                 ctx.section("pm/approach/exit-approacher"), cite)
        return
    ctx.step(f"{itf.label}が妨害したので、ポイントは置かれない：退場判定を行う", ctx.section("pm/approach/point"))
    ap_a, ap_a_w, c1 = _value(ctx, st, att, "ap")
    dp_i, dp_i_w, c2 = _value(ctx, st, itf, "dp")
    ap_i, ap_i_w, c3 = _value(ctx, st, itf, "ap")
    dp_a, dp_a_w, c4 = _value(ctx, st, att, "dp")
    first = _compare(ctx, dp_i, ap_a)
    second = _compare(ctx, dp_a, ap_i)
    ctx.step(f"退場判定：妨害キャラ{itf.label}の{dp_i_w}、アプローチをしている{att.label}の{ap_a_w}："
             + ("DPがAPを上回らなかった" if first else "DPがAPを上回った（何も起こらない）"),
             *unique_cites([ctx.section("pm/approach/exit-interferer"), *c1, *c2, *_tie(ctx, dp_i, ap_a)]))
    ctx.step(f"退場判定：アプローチをしている{att.label}の{dp_a_w}、妨害キャラ{itf.label}の{ap_i_w}："
             + ("DPがAPを上回らなかった" if second else "DPがAPを上回った（何も起こらない）"),
             *unique_cites([ctx.section("pm/approach/exit-approacher"), *c3, *c4, *_tie(ctx, dp_a, ap_i)]))
    if not (first or second):
        return
    rule, cite = ctx.point("exit.subject")
    leaving: list[Card] = []
    if first:
        leaving.append(itf if rule == "dp_side" else att)
    if second:
        who = att if rule == "dp_side" else itf
        if who not in leaving:
            leaving.append(who)
    ctx.step("2つの判定は同時に行われる：" + "・".join(c.label for c in leaving) + "が退場する"
             + ("（DPで相手のAPを上回れなかったキャラ）" if rule == "dp_side" else "（APを比べられたキャラ）"),
             ctx.section("pm/approach/exit-simultaneous"), cite)
    fx.leave_field(ctx, st, leaving, "exit", (ctx.section("pm/approach/exit-simultaneous"),))


def _value(ctx: Context, st: State, card: Card, name: str) -> tuple[int, str, list[Cite]]:
    value, words, cites = stat(ctx, st, card, name)
    if value is None:
        raise EngineError(f"{card.label} has no {name.upper()} (`{name} none`), so the exit check cannot compare it",
                          card.loc, f"give it a value: card \"{card.name}\" {{ {name} 2 }}")
    return value, words, cites


def _compare(ctx: Context, dp: int, ap: int) -> bool:
    """Whether the DP does not exceed the AP (「上回らなかった」): the card exits."""
    if dp != ap:
        return dp < ap
    rule, _ = ctx.point("exit.tie")
    return rule == "exits"


def _tie(ctx: Context, dp: int, ap: int) -> tuple[Cite, ...]:
    if dp != ap:
        return ()
    return (ctx.point("exit.tie")[1],)


def close(ctx: Context, st: State) -> None:
    """Finish the approach under way: the interference decision if it is open, then the checks."""
    while st.approach is not None and not st.result:
        if st.approach.stage == "declared":
            decide_interference(ctx, st)
        else:
            exit_check(ctx, st)
