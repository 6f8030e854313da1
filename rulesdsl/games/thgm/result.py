"""The attack's result: the defense that applies, the comparison, and the three results
(撃破, 負傷, 失敗) with what each does to the characters and the score (see attack.py)."""

from __future__ import annotations

from typing import Any

from ...engine.context import Context, EngineError
from ...lang.vocab import UNKNOWN
from . import dice as D
from .abilities import offer_nullify
from .attack import _missing
from .rolls import bat_holders, observe
from .state import Attack, Side, State
from .tendencies import TENDENCIES
from .turn import check_victory, end_turn, where


def defense_of(ctx: Context, atk: Attack) -> tuple[str, Any, Any]:
    """("base"|"special", value or "immune", citation) for the target against the means used."""
    target = atk.target
    special = target.fact("special_defense")
    if special is UNKNOWN:
        raise _missing(target, "the 特殊防御力 field", 'special_defense none; base_defense 9')
    against = special.get("against", ()) if isinstance(special, dict) else ()
    values = special.get("values", ()) if isinstance(special, dict) else ()
    if against and against[0] is UNKNOWN:
        raise _missing(target, "the 特殊防御力 field", 'special_defense none; base_defense 9')
    for i, name in enumerate(against):
        if name == atk.means:
            v = values[i] if i < len(values) else UNKNOWN
            if v is UNKNOWN:
                raise _missing(target, f"the 特殊防御力 against 「{name}」", f'special_defense "{name}" 7')
            return "special", v, ctx.section("thgm/card/special-defense")
    base = target.fact("base_defense")
    if base is UNKNOWN:
        raise _missing(target, "the 基本防御力", "base_defense 9")
    return "base", base, ctx.section("thgm/card/base-defense")


def resolve(ctx: Context, st: State) -> None:
    """The attack value is final: compare it with the defense and apply the result; the turn ends."""
    atk = st.attack
    if atk is None or not atk.rolled or atk.resolved:
        return
    atk.resolved = True
    holders = bat_holders(ctx, st, atk) if not atk.nullify_decided and st.open_nullify else None
    if holders:
        timing, cite = ctx.point("bat_transformation.timing")
        ctx.step("コウモリ変化を使うタイミング: " + {"after_spell_card": "攻撃力が確定した後",
                                               "before_spell_card": "スペルカードの使用の有無を決める前",
                                               "unspecified": "規定なし（振りなおしの後の出目について使う）"}[timing], cite)
        offer_nullify(ctx, st, atk, holders)
    if atk.result == "nullified":
        ctx.step("攻撃は無効になり、何も起きない", ctx.section("thgm/abilities/bat-transformation"))
        no_reveal(ctx, atk, "無効")
        end_turn(ctx, st, atk.player)
        return
    atk.spell_decided = True
    bonus = 1 if atk.spell else 0
    defense = ctx.section("thgm/attack/defense")
    try:
        kind, value, cite = defense_of(ctx, atk)
    except EngineError as e:
        ctx.step("攻撃対象の防御力は資料にも場面にもない: 攻撃の結果は決まらない", defense)
        st.blocked = e.with_traceback(None)   # kept: not its frames (a cycle through this one)
        return
    atk.defense = (kind, value)
    tendency_note(ctx, atk)
    lo, hi = D.value_range(atk.roll, bonus)
    final = f"攻撃力は{D.range_words(lo, hi)}" + ("（スペルカードの＋１を含む）" if bonus else "") + "で確定する"
    ctx.step(f"{final}。{atk.target.owner}は{atk.target.label}の防御力と比較する", defense)
    if kind == "special":
        shown = "「−」" if value == "immune" else str(value)
        ctx.step(f"攻撃手段「{atk.means}」は特殊防御力欄に記述されている: 特殊防御力{shown}を参照する", defense, cite)
    else:
        ctx.step(f"攻撃手段「{atk.means}」は特殊防御力欄にない: 基本防御力{value}を参照する", defense, cite)
    if value == "immune":
        ctx.step("参照した特殊防御力欄に「−」が書かれている: 攻撃はかならず失敗し、何も起きない",
                 ctx.section("thgm/attack/result/failed"))
        settle(ctx, st, atk, "failed")
        return
    if lo < hi and hi <= value:
        ctx.step(f"攻撃力は最大でも{hi}で防御力{value}を上回らない: 撃破にはならない",
                 ctx.section("thgm/attack/result/defeated"))
    if lo < hi and lo >= value:
        ctx.step(f"攻撃力は最小でも{lo}で防御力{value}を下回らない: 失敗にはならない",
                 ctx.section("thgm/attack/result/failed"))
    outcome = observe(ctx, st, atk, f"攻撃力と防御力{value}の比較",
                      lambda v: _compare(D.value_of(v) + bonus, value),
                      lambda k, d: _compare_words(k, value, *D.value_range(d, bonus)), defense,
                      memo=("compare", value - bonus))
    settle(ctx, st, atk, outcome)


def tendency_note(ctx: Context, atk: Attack) -> None:
    """What 001 says of the target's attribute and this means: a play aid the trace mentions,
    never a value (the card's fields decide)."""
    attribute = atk.target.fact("attribute")
    if not isinstance(attribute, str) or attribute not in TENDENCIES:
        return
    section, table, _ = TENDENCIES[attribute]
    kind = table.get(atk.means)
    if kind:
        words = {"strong": "に強い", "weak": "に弱い", "immune": "が無効", "effective": "が効く"}[kind]
        ctx.step(f"（参考）属性が{ctx.kb.games[ctx.game].vocab.enum_label('attribute', attribute)}のキャラは{atk.means}{words}傾向がある"
                 "（傾向であって規則ではない。比べるのはカードの防御力の値）", ctx.section(section), kind="note")


def _compare(v: int, defense: int) -> str:
    return "failed" if defense > v else ("injured" if defense == v else "defeated")


def _compare_words(k: str, defense: int, lo: int, hi: int) -> str:
    r = D.range_words(lo, hi)
    return {"failed": f"攻撃力{r}（防御力{defense}より小さい）", "injured": f"攻撃力{r}（防御力{defense}と等しい）",
            "defeated": f"攻撃力{r}（防御力{defense}より大きい）"}[k]


def no_reveal(ctx: Context, atk: Attack, result: str) -> None:
    """A concealed attack (幻視・暗闇) whose result is neither 撃破 nor 負傷: no reveal is due,
    for the source asks it only 「その攻撃の結果が撃破か負傷になった場合」."""
    if atk.claim is None:
        return
    ctx.step(f"攻撃の結果は{result}で、撃破でも負傷でもない: 正しい位置を宣言する必要はない"
             "（正しい位置の宣言は「その攻撃の結果が撃破か負傷になった場合」）", ctx.section("thgm/abilities/conceal"))


def settle(ctx: Context, st: State, atk: Attack, outcome: str) -> None:
    target = atk.target
    side = st.side(target.owner)
    row, col = side.place_of(target) or atk.target_place
    lo, hi = D.value_range(atk.roll, 1 if atk.spell else 0)
    value = D.range_words(lo, hi)
    d = atk.defense[1] if atk.defense else None
    if outcome == "failed":
        if d != "immune":
            ctx.step(f"防御力{d}＞攻撃力{value}: 攻撃は失敗で、何も起きない", ctx.section("thgm/attack/result/failed"))
        atk.result = "failed"
    elif outcome == "injured" and not target.injured:
        ctx.step(f"防御力{d}＝攻撃力{value}: {target.label}は負傷する（横に９０度倒して置く）",
                 ctx.section("thgm/attack/result/injured"))
        target.injured = True
        atk.result = "injured"
    else:
        if outcome == "injured":
            ctx.step(f"防御力{d}＝攻撃力{value}で、{target.label}はすでに負傷状態: 撃破される",
                     ctx.section("thgm/attack/result/injured"))
        else:
            ctx.step(f"防御力{d}＜攻撃力{value}: {target.label}は撃破される", ctx.section("thgm/attack/result/defeated"))
        atk.result = "defeated"
        defeat(ctx, st, atk, side, row, col)
    if atk.result == "failed":
        no_reveal(ctx, atk, "失敗")
    if atk.result in ("injured", "defeated") and atk.claim is not None:
        atk.must_reveal = True
        ctx.step(f"攻撃の結果が{'撃破' if atk.result == 'defeated' else '負傷'}なので、{atk.player}はその時点で"
                 f"「実はここから攻撃していました」と正しい位置（{where(*atk.place)}）を宣言しなければならない",
                 ctx.section("thgm/abilities/conceal"))
    if not st.over and st.victory_unknown is None:
        end_turn(ctx, st, atk.player)
    elif st.victory_unknown is not None:
        st.turn_over = True


def defeat(ctx: Context, st: State, atk: Attack, side: Side, row: str, col: int) -> None:
    target = atk.target
    del side.row(row)[col]
    target.injured = False
    target.face = "up"
    winner = st.side(atk.player)
    winner.score_cards.append(target)
    score = target.fact("score")
    shown = f"（スコア{score}）" if isinstance(score, int) else ""
    ctx.step(f"撃破された{target.label}{shown}は「スコアカード」として攻撃を行ったキャラのプレイヤー{atk.player}に与えられ、"
             "場の脇に表向きで置かれる", ctx.section("thgm/attack/result/defeated"), ctx.section("thgm/card/score"))
    if winner.stock:   # 「スタックとは別に」: read as the stock, which the score card must not join
        ctx.step(f"スコアカードは{atk.player}のストック（{winner.stock}枚）とは別に置き、ストックには加えない",
                 ctx.section("thgm/attack/result/defeated"), ctx.ruling("thgm/gap/score-card-stack"))
    if any(e.name == "sp" for e in (target.info.effects if target.info else ())):
        ctx.step(f"{target.label}は場を離れたので、そのＳＰはもう効果を発揮しない（ＳＰは場にいる限り効果を発揮する）",
                 ctx.section("thgm/abilities/sp"))
    if row == "front" and col in side.back:
        mover = side.back.pop(col)
        side.front[col] = mover
        ctx.step(f"後列の前にいた前列キャラが撃破されたので、後列の{mover.label}は強制的に前列の位置（左から{col}番目）に移動する",
                 ctx.section("thgm/placement/forced-move"))
    if not side.count():
        ctx.step(f"{side.player}の場のキャラはいなくなったが、脱落するかは{side.player}自身のターンの攻撃の手順で決まる",
                 ctx.section("thgm/turn/elimination"), ctx.gap("thgm/gap/victory-overview"))
    check_victory(ctx, st, atk.player, target)
