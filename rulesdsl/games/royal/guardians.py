"""Guardians and royal cards in play: the summon and its cost (equip cards become units), setting
an equip card, clearing a royal card by paying its mission's cost, and the battle phase."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context, EngineError, IllegalAction
from ...lang.vocab import UNKNOWN
from . import effects as fx
from .chain import refused
from .points import reading
from .royals import clear as reveal
from .royals import mission_met, mission_words
from .state import KIND_JA, PHASE_JA, SKILL_ZONE_MAX, ZONE_JA, Card, State, other
from .victory import not_over


def _illegal(refuse: list) -> None:
    if refuse:
        raise refused(refuse)


def _int_fact(card: Card, fact: str, hint: str) -> int:
    value = card.fact(fact)
    if value is UNKNOWN or not isinstance(value, int) or isinstance(value, bool):
        raise EngineError(f"the {fact} of {card.label} is not given", card.loc,
                          f'add it to the card: card "{card.name}" {{ {hint} }}')
    return value


# ----------------------------------------------------------------------------- summon

def summon(ctx: Context, st: State, player: str, card: Card, costs: list[Card]) -> None:
    not_over(ctx, st)
    refuse = []
    sec = ctx.section("royal/guardian/summon")
    if card.kind != "guardian":
        refuse.append((f"{card.label}は{KIND_JA.get(card.kind, 'ガーディアンカードでないカード')}: サモンするのはガーディアンカードである", sec))
    if st.active != player or st.phase != "summon":
        now = f"{st.active}の{PHASE_JA.get(st.phase or '', 'ターンの外')}"
        refuse.append((f"サモンは自分のサモンフェイズに行う（いまは{now}）", sec, ctx.section("royal/phase/summon")))
    if st.summoned and st.active == player:
        refuse.append(("このサモンフェイズにはすでにサモンしている: 自分のサモンフェイズに1度しかサモンできない", sec))
    if card.zone != "extra_deck":
        refuse.append((f"{card.label}は{ZONE_JA[card.zone]}にある: ガーディアンカードはエクストラデッキからサモンする", sec))
    _illegal(refuse)
    rank = _int_fact(card, "rank", "rank N")
    rank_cite = ctx.section("royal/guardian/rank")
    for c in costs:
        if c.zone != "skill_zone" or c.owner != player:
            refuse.append((f"{c.label}は{player}のスキルゾーンにない: コストにするのはスキルゾーンのスキルカードである",
                           ctx.section("royal/terms/cost")))
        elif c.kind not in ("skill", "equip"):
            refuse.append((f"{c.label}はスキルカードではない: コストにするのはスキルゾーンのスキルカードである",
                           ctx.section("royal/terms/cost")))
    if len({c.uid for c in costs}) != len(costs):
        refuse.append(("同じカードを二度コストにすることはできない", ctx.section("royal/terms/cost")))
    if len(costs) != rank:
        refuse.append((f"{card.label}はランク{rank}: スキルゾーンのスキルカードを{rank}枚コストにしないとサモンできない"
                       f"（コストは{len(costs)}枚）", rank_cite, sec))
    _illegal(refuse)

    dest, dest_cite = reading(ctx, st.readings, "summon.destination")
    # サモン names the act; where the guardian goes is a reading: the guardian zone's own rule
    # (EXデッキゾーンからガーディアンカードを置く場所) when it is the guardian zone
    where = [ctx.section("royal/terms/summon")]
    if dest == "guardian_zone":
        where.append(ctx.section("royal/zones/guardian-zone"))
    for old in [c for c in st.cards(player, dest) if c.kind == "guardian"]:
        fx.leave_field(ctx, st, old)
        st.move(old, "extra_deck")
        ctx.step(f"{player}の{ZONE_JA[dest]}にはすでに{old.label}がいるため、それをEXデッキに戻してサモンする", sec,
                 ctx.section("royal/zones/guardian-zone"))
    units = [c for c in costs if c.kind == "equip"]
    paid = [c for c in costs if c.kind != "equip"]
    cost_zone, cost_cite = reading(ctx, st.readings, "summon.cost_zone") if paid else ("blank_zone", None)
    for c in paid:
        st.move(c, cost_zone)
    for c in units:
        st.move(c, "unit")
    st.move(card, dest)
    st.summoned = True
    names = "・".join(c.label for c in costs) or "なし"
    cites = [sec, rank_cite, ctx.section("royal/phase/summon"), *where, dest_cite]
    ctx.step(f"{player}がスキルゾーンの{names}をコストにして、EXデッキから{card.label}（ランク{rank}）を{ZONE_JA[dest]}にサモンする",
             *cites, fx.card_cite(ctx, card))
    if paid:
        ctx.step(f"コストにした{'・'.join(c.label for c in paid)}を{ZONE_JA[cost_zone]}に送る", ctx.section("royal/terms/cost"),
                 cost_cite)
    if units:
        ctx.step(f"コストにしたイグイップカード{'・'.join(c.label for c in units)}はブランクゾーンには行かず、"
                 f"{card.label}の下に重ねられてユニットになる", ctx.section("royal/cards/equip"), ctx.section("royal/terms/unit"))


# ----------------------------------------------------------------------------- equip cards

def set_equip(ctx: Context, st: State, player: str, card: Card) -> None:
    not_over(ctx, st)
    refuse = []
    sec = ctx.section("royal/cards/equip")
    if card.kind != "equip":
        refuse.append((f"{card.label}はイグイップカードではない: 手札からセットするのはイグイップカードである", sec))
    if card.zone != "hand":
        refuse.append((f"{card.label}は{ZONE_JA[card.zone]}にある: イグイップカードは手札からセットする", sec))
    timing, cite = reading(ctx, st.readings, "equip.set_timing")
    phases = ("cast",) if timing == "cast_phase" else ("cast", "summon")
    if st.active != player or st.phase not in phases:
        refuse.append((f"イグイップカードをセットできるのは自分の{'・'.join(PHASE_JA[p] for p in phases)}"
                       f"（いまは{st.active}の{PHASE_JA.get(st.phase or '', 'ターンの外')}）", cite, sec))
    n = len(st.cards(player, "skill_zone"))
    if n >= SKILL_ZONE_MAX:
        refuse.append((f"{player}のスキルゾーンにはすでに{n}枚ある: 最大5枚", ctx.section("royal/zones/skill-zone")))
    _illegal(refuse)
    st.move(card, "skill_zone")
    st.last_set = card
    ctx.step(f"{player}が手札の{card.label}をスキルゾーンにセットする（キャストではないため効果は発動されず、相手はトリガーを使用できない）",
             sec, cite, ctx.section("royal/zones/skill-zone"), fx.card_cite(ctx, card))


# ----------------------------------------------------------------------------- clearing by paying

def clear(ctx: Context, st: State, player: str, royal: Card, costs: list[Card]) -> None:
    not_over(ctx, st)
    refuse = []
    if royal.kind != "royal" or royal.zone != "royal_zone" or royal.owner != player:
        refuse.append((f"{royal.label}は{player}のロイヤルゾーンのロイヤルカードではない", ctx.section("royal/terms/clear")))
    elif royal.face == "up":
        refuse.append((f"{royal.label}はすでにクリアーされている", ctx.section("royal/terms/clear")))
    if st.phase == "judge":
        refuse.append(("ジャッジフェイズにはクリアーチェックがない", ctx.section("royal/royal/clear-timing")))
    if (player, royal.name) in st.cleared_names:
        refuse.append((f"{royal.label}はこのターンすでにクリアーしている: 同名カードのクリアーは1ターンに1度しかできない",
                       ctx.section("royal/royal/clear-once")))
    _illegal(refuse)
    kind = royal.fact("mission_type")
    if kind == "cost":
        sec = ctx.section("royal/royal/cost-mission")
        if st.active != player:
            refuse.append(("コストミッションは自分のターンに自らコストを支払ってクリアーする", sec))
        need = _int_fact(royal, "mission_cost", "mission_cost N")
        for c in costs:
            if c.zone != "skill_zone" or c.owner != player:
                refuse.append((f"{c.label}は{player}のスキルゾーンにない: コストにするのはスキルゾーンのカードである",
                               ctx.section("royal/terms/cost")))
        if len(costs) != need:
            refuse.append((f"{royal.label}のミッションのコストはスキルゾーンのカード{need}枚（支払ったのは{len(costs)}枚）", sec))
        _illegal(refuse)
        for c in costs:
            st.move(c, "blank_zone")
        names = "・".join(c.label for c in costs)
        reveal(ctx, st, royal, f"{player}はスキルゾーンの{names}をコストにして（ブランクゾーンに送り）、"
                                   f"コストミッションの{royal.label}をクリアーする（公開する）",
                   sec, ctx.section("royal/terms/cost"), fx.card_cite(ctx, royal))
    elif kind == "trial":
        sec = ctx.section("royal/royal/trial-mission")
        if costs:
            refuse.append(("トライヤルミッションはコストを支払わず、条件を満たすとクリアーする", sec,
                           ctx.section("royal/royal/mission-types")))
        if not mission_met(ctx, st, royal):
            refuse.append((f"{royal.label}のミッション（{mission_words(royal)}）は達成されていない: クリアーはミッションを達成して"
                           "ロイヤルカードを公開する事", sec, ctx.section("royal/terms/clear"), ctx.section("royal/terms/mission")))
        _illegal(refuse)
        reveal(ctx, st, royal, f"{player}はミッションを達成した{royal.label}をクリアーする（公開する）",
                   sec, ctx.section("royal/royal/clear-check"), fx.card_cite(ctx, royal))
    else:
        raise EngineError(f"the mission type of {royal.label} is not given", royal.loc,
                          f'add it to the card: card "{royal.name}" {{ mission_type cost; mission_cost 2 }}')


# ----------------------------------------------------------------------------- battle

def attack(ctx: Context, st: State, player: str, card: Card) -> None:
    not_over(ctx, st)
    refuse = []
    sec = ctx.section("royal/battle/attack-step")
    if st.active != player or st.phase != "battle":
        why = "先攻1ターン目にはバトルフェイズが存在しない" if st.first_turn() else \
            f"いまは{st.active}の{PHASE_JA.get(st.phase or '', 'ターンの外')}"
        refuse.append((f"アタックはターンプレイヤーが自分のバトルフェイズに行う（{why}）", ctx.section("royal/phase/battle"), sec))
    if st.attacked and st.active == player:
        refuse.append(("このバトルフェイズではすでにアタックを宣言している", ctx.section("royal/phase/battle")))
    if card.owner != player or card.zone != "guardian_zone" or card.kind != "guardian":
        refuse.append((f"{card.label}は{player}のガーディアンゾーンにいない: 戦わせるのはガーディアンゾーンに出ているガーディアンである",
                       ctx.section("royal/phase/battle")))
    defender = other(player)
    target = st.guardian(defender)
    if target is None:
        how, cite = reading(ctx, st.readings, "battle.no_defender")
        if how == "no_attack":
            refuse.append((f"{defender}のガーディアンゾーンにガーディアンがいないため、アタックできない", cite))
    _illegal(refuse)
    st.attacked = True
    st.attacker = card
    st.step = "block"
    ctx.step(f"アタックステップ: {player}が{card.label}を戦わせることを宣言する", sec, ctx.section("royal/phase/battle"))


def block(ctx: Context, st: State, player: str, accept: bool) -> None:
    not_over(ctx, st)
    sec = ctx.section("royal/battle/block-step")
    if st.step != "block" or st.attacker is None:
        raise IllegalAction("アタックが宣言されていない: バトルを受けるか選ぶのはアタックステップの後のブロックステップである", sec)
    if player != other(st.active):
        raise IllegalAction("バトルを受けるか選ぶのは非ターンプレイヤーである", sec)
    if st.guardian(player) is None:
        _, cite = ctx.point("battle.no_defender")
        if accept:
            raise IllegalAction(f"{player}のガーディアンゾーンにバトルを受けるガーディアンがいない", cite)
        ctx.step(f"ブロックステップ: {player}のガーディアンゾーンにガーディアンがいないため、バトルを受けることはできない",
                 sec, cite)
    else:
        ctx.step(f"ブロックステップ: {player}はバトルを{'受ける' if accept else '受けない'}", sec, kind="choice")
    battle_step(ctx, st, accept)


def block_choice(ctx: Context, st: State) -> None:
    """The block the scenario leaves open is the non-active player's choice."""
    defender = other(st.active)
    sec = ctx.section("royal/battle/block-step")
    if st.guardian(defender) is None:
        _, cite = ctx.point("battle.no_defender")
        ctx.step(f"ブロックステップ: {defender}のガーディアンゾーンにガーディアンがいないため、バトルを受けることはできない",
                 sec, cite)
        battle_step(ctx, st, accepted=False)
        return
    accept = ctx.choose(defender, f"{st.attacker.label}のアタックに対してバトルを受けるか", ["受ける", "受けない"], sec) == 0
    battle_step(ctx, st, accept)


def battle_step(ctx: Context, st: State, accepted: bool) -> None:
    attacker = st.attacker
    st.step = "battle"
    defender = other(attacker.owner)
    if accepted:
        guard = st.guardian(defender)
        fa, fd = fx.force(ctx, st, attacker), fx.force(ctx, st, guard)
        sec = ctx.section("royal/battle/accepted")
        fcite = ctx.section("royal/guardian/force")
        head = f"バトルステップ: {attacker.label}（フォース{fa}）と{guard.label}（フォース{fd}）"
        if fa != fd:
            win, lose = (attacker, guard) if fa > fd else (guard, attacker)
            st.battle_winners.append(win)
            fx.to_blank(ctx, st, lose, f"{head}: フォースの多い{win.label}が勝利し、負けた{lose.label}はトラッシュされる（ブランクゾーンに置く）",
                        sec, fcite, ctx.section("royal/terms/trash"))
        else:
            how, cite = reading(ctx, st.readings, "battle.equal_force")
            if how == "both_trashed":
                ctx.step(f"{head}: フォースが等しいため、両方のガーディアンがトラッシュされる", sec, cite)
                for g in (attacker, guard):
                    fx.to_blank(ctx, st, g, f"{g.owner}の{g.label}をトラッシュする（ブランクゾーンに置く）", ctx.section("royal/terms/trash"))
            else:
                ctx.step(f"{head}: フォースが等しいため勝敗はなく、どちらもトラッシュされない", sec, cite)
    else:
        fa = fx.force(ctx, st, attacker)
        ctx.step(f"バトルステップ: {defender}はバトルを受けなかったため、攻撃する{attacker.label}のフォースの数（{fa}）だけダメージを受ける",
                 ctx.section("royal/battle/not-accepted"), ctx.section("royal/guardian/force"))
        fx.damage(ctx, st, defender, fa, ctx.section("royal/battle/not-accepted"))
    st.attacker = None
    st.step = None


def mandatory_attack(ctx: Context, st: State) -> None:
    """Leaving the battle phase without an attack: whether the turn player had to attack is a reading."""
    g: Optional[Card] = st.guardian(st.active)
    if g is None or st.first_turn():
        return
    how, cite = reading(ctx, st.readings, "attack.declaration")
    if how == "optional":
        ctx.step(f"{st.active}はアタックを宣言しない（アタックするかはターンプレイヤーが選べる）", cite,
                 ctx.section("royal/battle/attack-step"))
        return
    ctx.step(f"{st.active}はガーディアンゾーンに{g.label}がいるため、アタックしなければならない", cite)
    attack(ctx, st, st.active, g)
