"""The flow of the game: the start, the seven phases in order and what each does by itself
(the charge draw, the judge, the end-phase discard), turn changes, clear checks and victory."""

from __future__ import annotations

from ...engine.context import Context, EngineError
from . import chain
from . import effects as fx
from .guardians import block_choice, mandatory_attack
from .points import reading
from .royals import clear_check
from .state import LIFE, PHASE_JA, PHASE_SECTION, State, other
from .victory import check_now, life_zero, lose, win

OPENING_HAND = 5
HAND_TARGET = 7


# ----------------------------------------------------------------------------- starting

def start_game(ctx: Context, st: State) -> None:
    if st.first is None:
        raise EngineError("start_game needs to know who goes first", None, "add `first P1` to the set-up")
    ctx.step(f"先攻は{st.first}、後攻は{other(st.first)}（ジャンケンで決める）", ctx.section("royal/flow/start"))
    for p in (st.first, other(st.first)):
        placed(ctx, st, p)
    if not any(st.life_given.values()):
        ctx.step(f"互いのライフポイントは{LIFE}", ctx.section("royal/setup/life"))
    for p in (st.first, other(st.first)):
        n = 0
        while n < OPENING_HAND and st.deck_top(p) is not None:
            st.move(st.deck_top(p), "hand")
            n += 1
        # 「互いにメインデッキから手札を5枚引く。」 is written twice in a row: a copy artifact, one draw
        ctx.step(f"{p}はメインデッキから手札を{n}枚引く" + ("（メインデッキが足りない）" if n < OPENING_HAND else ""),
                 ctx.section("royal/flow/start"), ctx.gap("royal/gap/duplication"))
    ctx.step("ゲームスタート", ctx.section("royal/flow/start"))
    begin_turn(ctx, st, st.first)


def placed(ctx: Context, st: State, p: str) -> None:
    """What a player has put in place before the game starts, each zone under its own rule."""
    parts, cites = [], []
    deck = len(st.cards(p, "main_deck"))
    if st.deck_given[p]:
        parts.append((f"メインデッキ{deck}枚をメインデッキゾーンに", "置き", "置いている"))
        cites.append(ctx.section("royal/zones/main-deck"))
    royals = [c for c in st.cards(p, "royal_zone") if c.face == "down"]
    if royals:
        parts.append((f"ロイヤルカード{len(royals)}枚を裏側でロイヤルゾーンに", "並べ", "並べている"))
        cites += [ctx.section("royal/zones/royal-zone"), ctx.section("royal/royal/overview"), ctx.section("royal/cards/royal")]
    guardians = [c for c in st.cards(p, "extra_deck") if c.kind == "guardian"]
    if guardians:
        parts.append((f"ガーディアンカード{len(guardians)}枚をエクストラデッキとしてEXデッキゾーンに", "置き", "置いている"))
        cites += [ctx.section("royal/zones/extra-deck"), ctx.section("royal/cards/guardian"),
                  ctx.gap("royal/gap/extra-deck-senses")]     # the word's other sense: the 15 of the deck list
    if parts:   # 「…に置き、…に並べている」
        words = "、".join([what + verb for what, verb, _ in parts[:-1]] + [parts[-1][0] + parts[-1][2]])
        ctx.step(f"{p}はゲーム開始前に、{words}", *cites)


def begin_turn(ctx: Context, st: State, player: str) -> None:
    st.active = player
    st.turn_no[player] += 1
    st.phases_seen[player] = []
    st.used = set()   # 1ターンに1度: magic uses on one's own turn, trigger uses on the opponent's
    st.cleared_names = set()
    st.summoned = st.attacked = False
    st.attacker = None
    if st.first_turn():   # each of these phases says 「先攻1ターン目は存在しない」
        ctx.step(f"{player}の{st.turn_no[player]}ターン目（先攻1ターン目: チャージ・ソウル・ジャッジフェイズは存在しない）",
                 ctx.section("royal/flow/start"),
                 *(ctx.section(PHASE_SECTION[x]) for x in ("charge", "soul", "judge")))
    else:
        ctx.step(f"{player}の{st.turn_no[player]}ターン目", ctx.section("royal/flow/start"))
    enter_phase(ctx, st, st.turn_phases()[0])


# ----------------------------------------------------------------------------- phases

def enter_phase(ctx: Context, st: State, phase: str) -> None:
    st.phase = phase
    st.procedure_done = False
    st.step = None
    st.phases_seen[st.active].append(phase)
    if phase == "end" and st.first_turn():   # バトルフェイズ（先攻1ターン目には存在しない）
        ctx.step(f"{st.active}のエンドフェイズ（先攻1ターン目にはバトルフェイズが存在しないため、サモンフェイズの次）",
                 ctx.section(PHASE_SECTION[phase]), ctx.section("royal/phase/battle"), ctx.section("royal/flow/start"))
    else:
        ctx.step(f"{st.active}の{PHASE_JA[phase]}", ctx.section(PHASE_SECTION[phase]))
    if phase != "judge":
        clear_check(ctx, st, f"{PHASE_JA[phase]}の開始時")
    if not st.result and phase in ("charge", "soul", "judge", "end"):
        procedure(ctx, st)


def leave_phase(ctx: Context, st: State) -> None:
    """Finish the current phase: what it does by itself if not yet done, the clear check at its end,
    and after the end phase the change of turn."""
    settle(ctx, st)
    if st.result:
        return
    if not st.procedure_done:
        procedure(ctx, st)
    if st.phase == "battle" and not st.attacked and not st.result:
        mandatory_attack(ctx, st)
        settle(ctx, st)
    if st.result:
        return
    if st.phase != "judge":
        clear_check(ctx, st, f"{PHASE_JA[st.phase]}の終了時")
    if st.phase == "end" and not st.result:
        ctx.step(f"ターン交代: 次は{other(st.active)}のターン", ctx.section("royal/phase/end"))
        st.active = other(st.active)
        st.phase = None


def procedure(ctx: Context, st: State) -> None:
    st.procedure_done = True
    p = st.active
    if st.phase == "charge":
        charge(ctx, st, p)
    elif st.phase == "soul":
        soul(ctx, st, p)
    elif st.phase == "judge":
        judge(ctx, st, p)
    elif st.phase == "end":
        end_phase(ctx, st, p)


def settle(ctx: Context, st: State) -> None:
    """Close what is waiting for a decision: an attack waiting for the block, an open chain."""
    if st.step == "block" and st.attacker is not None:
        block_choice(ctx, st)
    if st.chain:
        chain.close(ctx, st)


def advance(ctx: Context, st: State, target: str) -> None:
    settle(ctx, st)
    if st.active is None:
        raise EngineError("advance needs a turn: whose turn it is and in which phase", None,
                          "add `turn P1 2` and `phase cast` to the set-up, or `start_game`")
    turns = 0
    while not st.result:
        if st.phase is None:
            turns += 1
            if turns > 2:
                raise EngineError(f"{PHASE_JA[target]} was not reached within two turns", None)
            begin_turn(ctx, st, st.active)
        else:
            phases = st.turn_phases()
            i = phases.index(st.phase)
            leave_phase(ctx, st)
            if st.result or st.phase is None:
                continue
            enter_phase(ctx, st, phases[i + 1])
        if st.phase == target:
            return


def take_turn(ctx: Context, st: State, player: str) -> None:
    settle(ctx, st)
    if st.active is None:
        st.active = player
    if st.active != player:
        raise EngineError(f"it is {st.active}'s turn ({PHASE_JA.get(st.phase or '', 'between turns')}), not {player}'s", None,
                          f"finish {st.active}'s turn first: take_turn {st.active}")
    st.passive = True
    try:
        if st.phase is None:
            begin_turn(ctx, st, player)
        while not st.result and st.phase is not None:
            phases = st.turn_phases()
            i = phases.index(st.phase)
            leave_phase(ctx, st)
            if st.phase is not None and not st.result:
                enter_phase(ctx, st, phases[i + 1])
    finally:
        st.passive = False


# ----------------------------------------------------------------------------- what phases do

def charge(ctx: Context, st: State, p: str) -> None:
    """自分のデッキからカードが7枚になるようにドローする — what reaches 7 is a reading (charge.draw_to)."""
    how, cite = reading(ctx, st.readings, "charge.draw_to")
    hand = st.cards(p, "hand")
    want = max(0, HAND_TARGET - len(hand)) if how == "hand_size" else HAND_TARGET
    goal = "手札が7枚になるように" if how == "hand_size" else "7枚"
    drawn = 0
    while drawn < want:
        if st.deck_top(p) is None:
            if drawn and st.cards(p, "blank_zone"):
                # the draws come first, to the last card of the deck; only then the refill
                ctx.step(f"{p}はメインデッキのカードを{drawn}枚ドローし、デッキが0枚でドローできなくなった: "
                         "ブランクゾーンのカードをデッキに戻してシャッフルし、そして7枚になるようにドローする",
                         ctx.section("royal/phase/charge"))
            if st.cards(p, "blank_zone"):
                fx.refill(ctx, st, p)
            if not st.cards(p, "main_deck"):
                end, cite2 = reading(ctx, st.readings, "charge.nothing_to_draw")
                ctx.step(f"{p}のメインデッキもブランクゾーンも0枚で、残り{want - drawn}枚はドローできない", cite2)
                if end == "lose":
                    lose(ctx, st, p, "チャージフェイズにドローできない", cite2)
                break
        st.move(st.deck_top(p), "hand")
        drawn += 1
    deck = f"メインデッキ{len(st.cards(p, 'main_deck'))}枚" if st.deck_given[p] else "メインデッキの枚数は場面に書かれていない"
    ctx.step(f"{p}は{goal}ドローする: {drawn}枚ドローし、手札{len(hand)}枚・{deck}",
             ctx.section("royal/phase/charge"), cite)


def soul(ctx: Context, st: State, p: str) -> None:
    souls = [c for c in st.cards(p, "blank_zone") if c.effect("soul_skill") or c.effect("soul_effect")]
    if not souls:
        return
    how, cite = reading(ctx, st.readings, "soul_phase.casting")
    if how == "optional":
        ctx.step(f"{p}はソウルフェイズにブランクゾーンの{'・'.join(c.label for c in souls)}のソウルの効果をキャストできる（任意）",
                 cite, ctx.section("royal/skill/soul-skill"))
        return
    ctx.step(f"{p}はブランクゾーンのスキルカードの墓地効果をすべて発動する", cite, ctx.section("royal/phase/soul"))
    cast: list = []       # each card's soul effect once in the phase: a card left in the blank zone is not cast again
    while not st.result:
        souls = [c for c in st.cards(p, "blank_zone")
                 if (c.effect("soul_skill") or c.effect("soul_effect")) and not any(c is x for x in cast)]
        if not souls:
            break
        i = ctx.choose(p, "次にキャストするソウルの効果", [c.label for c in souls], ctx.section("royal/phase/soul"))
        card = souls[i]
        cast.append(card)
        chain.activate(ctx, st, p, card, "soul_skill" if card.effect("soul_skill") else "soul_effect", "cast", [])
        chain.close(ctx, st)


def judge(ctx: Context, st: State, p: str) -> None:
    # victory is checked here: when the other player meets a condition (a life of 0 reached
    # before this phase, five royals), whether that already decided the game is victory.timing
    timing, timing_cite = reading(ctx, st.readings, "victory.timing")
    check_now(ctx, st, (other(p),))
    if st.result:
        return
    five = len(st.faced_up_royals(p)) >= 5
    zero, zero_cite = life_zero(ctx, st, p)
    cites = [ctx.section("royal/phase/judge"), timing_cite]
    if five and zero:
        result, cite = reading(ctx, st.readings, "judge.both_conditions")
        ctx.step(f"{p}のロイヤルカードは5枚公開されており、ライフポイントは{st.life[p]}", *cites, zero_cite, cite)
        if result == "win":
            win(ctx, st, p, "ジャッジフェイズにロイヤルカード5枚が公開されていた", cite)
        else:
            lose(ctx, st, p, f"ジャッジフェイズにライフポイントが{st.life[p]}だった", cite)
    elif five:
        win(ctx, st, p, "ジャッジフェイズにロイヤルカード5枚が公開されていた", *cites, ctx.section("royal/victory/conditions"))
    elif zero:
        lose(ctx, st, p, f"ジャッジフェイズにライフポイントが{st.life[p]}だった", *cites, zero_cite, ctx.section("royal/victory/life"))
    else:
        ctx.step(f"{p}のロイヤルカードの公開は{len(st.faced_up_royals(p))}枚、ライフポイントは{st.life[p]}: 勝敗は決まらない", *cites,
                 ctx.section("royal/victory/conditions"), ctx.section("royal/victory/life"))


def end_phase(ctx: Context, st: State, p: str) -> None:
    zone = st.cards(p, "skill_zone")
    gone, kept = [], []
    for c in list(zone):
        if c.kind == "equip":
            how, cite = reading(ctx, st.readings, "equip.end_phase")
            if how == "stays":
                kept.append((c, cite))
                continue
        if c.kind in ("guardian", "royal"):
            kept.append((c, ctx.section("royal/phase/end")))
            continue
        gone.append(c)
    for c in gone:
        st.move(c, "blank_zone")
    cites = [ctx.section("royal/phase/end"), ctx.section("royal/phase/cast")]
    if any(c.kind == "skill" for c in gone):   # ブランクゾーン: 破棄されたスキルカードを置く場所
        cites.append(ctx.section("royal/zones/blank-zone"))
    if any(c.kind == "equip" for c in gone):
        cites.append(ctx.point("equip.end_phase")[1])
    ctx.step(f"{p}はフィールドに出したスキルカードを全て破棄してブランクゾーンに置く: "
             + ("・".join(c.label for c in gone) if gone else "なし"), *cites)
    for c, cite in kept:
        ctx.step(f"{c.label}はスキルカードではないため、スキルゾーンに残る", cite)
    theirs = [c for c in st.cards(other(p), "skill_zone") if c.lasting]
    if theirs:   # 「全て破棄」 against 「次の自分のターンのエンドフェイズまで残り続ける」: a reading
        how, cite = reading(ctx, st.readings, "end_phase.opponent_triggers")
        names = "・".join(c.label for c in theirs)
        if how == "discarded":
            for c in theirs:
                st.move(c, "blank_zone")
            ctx.step(f"{other(p)}がこのターンにキャストしたトリガースキル{names}も、フィールドに出したスキルカードとして"
                     f"破棄してブランクゾーンに置く", ctx.section("royal/phase/end"), cite)
        else:
            ctx.step(f"{other(p)}がこのターンにキャストしたトリガースキル{names}は、"
                     f"次の{other(p)}のターンのエンドフェイズまで残る", ctx.section("royal/skill/trigger-skill-duration"),
                     cite)
