"""Game start and the turn (pm/start/*, pm/turn-start/*, pm/turn-end/*): shuffle, who goes
first, the opening hand and its one redraw; each turn's draw (one card on the first player's
first turn), standing the field, the phases in order, and the end of the turn."""

from __future__ import annotations

from ...engine.context import Context, EngineError
from . import effects as fx
from . import victory
from .common import assumed, choose, illegal
from .plays import new_timing
from .state import PHASE_JA, PHASES, PLAYERS, State, other

OPENING_HAND = 7
HAND_LIMIT = 7


def start_game(ctx: Context, st: State) -> None:
    if st.started or st.active is not None:
        raise illegal("ゲームはすでに始まっている", ctx.section("pm/start/shuffle"))
    for p in PLAYERS:
        ctx.step(f"{p}は自分のデッキをシャッフルし、相手がそれを軽くカットする（シャッフル後の順番は場面の指定どおりとする）",
                 ctx.section("pm/start/shuffle"), assumed(f"{p}のデッキの順番"))
    if st.first is None:
        # the winner of じゃんけん is not known before the game: whoever it is decides
        st.first = PLAYERS[choose(ctx, "じゃんけんの勝者", "先攻・後攻", [f"{p}が先攻" for p in PLAYERS],
                                  ctx.section("pm/start/first-player"))]
    else:
        ctx.step(f"じゃんけんの勝者が先攻・後攻を決め、先攻は{st.first}（場面の指定）", ctx.section("pm/start/first-player"),
                 assumed("先攻のプレイヤー"))
    for p in PLAYERS:
        fx.draw(ctx, st, p, OPENING_HAND, ctx.section("pm/start/opening-hand"))
        if st.result:
            return
    ctx.step("各プレイヤーは自分のデッキから7枚引いた（最初の手番のドローは、先攻のターン開始時に行う）",
             ctx.section("pm/start/opening-hand"), ctx.ruling("pm/gap/opening-hand-typo"))
    st.started = True


def mulligan(ctx: Context, st: State, player: str, refs) -> None:
    if not st.started or st.active is not None:
        raise illegal("ひき直しはゲーム開始時、7枚引いた直後にだけできる", ctx.section("pm/start/mulligan"))
    if player in st.mulligans:
        raise illegal(f"{player}はすでにひき直しをした：ひき直しは1回まで", ctx.section("pm/start/mulligan"))
    hand = st.hand[player]
    back = list(hand)
    procedure = ctx.ruling("pm/gap/mulligan-procedure")
    cites = [ctx.section("pm/start/mulligan"), procedure]
    if refs:
        from .cost import matches
        chosen = []
        for ref in refs:
            found = [c for c in hand if matches(c, ref) and c not in chosen]
            if not found:
                raise EngineError(f"《{ref.text}》 is not in {player}'s hand", None, "name cards of the opening hand")
            chosen.append(found[0])
        if len(chosen) < len(hand):
            rule, cite = ctx.point("start.mulligan_scope")
            if cite.key() != procedure.key():   # the same gap ruling records the procedure and sets the point
                cites.append(cite)
            if rule == "whole_hand":
                raise illegal("ひき直しでは引いた7枚すべてをデッキの一番下に戻す（一部だけを戻すことはできない）", *cites)
        back = chosen
    for c in back:
        hand.remove(c)
    st.deck[player].extend(back)
    st.mulligans.add(player)
    ctx.step(f"{player}は{len(back)}枚をデッキの一番下に戻す（シャッフルはしない）", *cites)
    fx.draw(ctx, st, player, len(back), ctx.section("pm/start/mulligan"))


def start_turn(ctx: Context, st: State, player: str) -> None:
    if st.active is not None and not st.turn_over:
        raise illegal(f"{st.active}のターンがまだ終わっていない", ctx.section("pm/turn/phases"))
    st.turns[player] += 1
    st.active = player
    st.phase = "turn_start"
    st.turn_over = False
    st.drew = False
    st.entered.clear()
    st.approached.clear()
    st.priority = None
    ctx.step(f"{player}の{st.turns[player]}回目のターンが始まる（ターン開始）", ctx.section("pm/turn/phases"))
    draw_step(ctx, st, player)
    if not st.result:
        stand_step(ctx, st, player)


def draw_step(ctx: Context, st: State, player: str) -> None:
    _in_turn_start(ctx, st, player, "カードを引く")
    if st.drew:
        raise illegal("ターン開始時のドローはすでに行った", ctx.section("pm/turn-start/draw"))
    first_turn = st.turns[player] <= 1
    if first_turn and st.first is None:
        raise EngineError(f"whether {player} goes first decides how many cards they draw on their first turn, "
                          "and the set-up does not say", None, "add `first P1` (or `first P2`) to the set-up")
    n = 1 if first_turn and st.first == player else 2
    st.drew = True
    fx.draw(ctx, st, player, n, ctx.section("pm/turn-start/draw"))
    if n == 1:
        ctx.step(f"{player}は先攻の1ターン目なので1枚だけ引く", ctx.section("pm/turn-start/draw"))


def stand_step(ctx: Context, st: State, player: str) -> None:
    _in_turn_start(ctx, st, player, "場のカードを活動状態にする")
    mine = [c for c in st.field(player) if c.resting]
    theirs = [c for c in st.field(other(player)) if c.resting]
    for c in mine:
        c.resting = False
    ctx.step(f"{player}の場の休息状態のカード" + ("（" + "・".join(c.label for c in mine) + "）" if mine else "")
             + "を活動状態に戻す", ctx.section("pm/turn-start/stand"))
    if theirs:
        rule, cite = ctx.point("turn_start.stand_scope")
        if rule == "both_fields":
            for c in theirs:
                c.resting = False
            ctx.step(f"{other(player)}の場の休息状態のカード（{'・'.join(c.label for c in theirs)}）も活動状態に戻す",
                     ctx.section("pm/turn-start/stand"), cite)
        else:
            ctx.step(f"{other(player)}の場の{'・'.join(c.label for c in theirs)}は休息状態のまま（戻すのは手番プレイヤーの場のカード）",
                     ctx.section("pm/turn-start/stand"), cite)
    to_phase(ctx, st, "main")


def _in_turn_start(ctx: Context, st: State, player: str, what: str) -> None:
    if st.active is None:
        st.active, st.phase = player, "turn_start"
        st.turns[player] = max(st.turns[player], 1)
    if st.active != player or st.phase != "turn_start":
        raise illegal(f"「{what}」は{player}のターン開始に行う：今は{st.active}のターンの{PHASE_JA.get(st.phase, '終わり')}",
                            ctx.section("pm/turn/phases"))


def to_phase(ctx: Context, st: State, phase: str) -> None:
    if st.active is None:
        raise EngineError("the question moves to a phase, but the set-up gives no turn", None, "add: turn P1 2")
    current = st.phase or "turn_start"
    if st.turn_over:
        raise illegal(f"{st.active}のターンはすでに終わっている", ctx.section("pm/turn/phases"))
    if phase == current:
        return
    if PHASES.index(phase) < PHASES.index(current):
        raise illegal(f"フェイズは順に進む：{PHASE_JA[current]}から{PHASE_JA[phase]}には戻れない",
                            ctx.section("pm/turn/phases"))
    if phase == "turn_end":
        end_turn(ctx, st, st.active)
        return
    if st.phase == "turn_start" and not st.drew and phase != "main":
        draw_step(ctx, st, st.active)
    st.phase = phase
    new_timing(st)
    ctx.step(f"{PHASE_JA[phase]}に入る：手番プレイヤー{st.active}が最初にプレイできる", ctx.section("pm/turn/phases"),
             ctx.section("pm/priority"))


def end_turn(ctx: Context, st: State, player: str) -> None:
    if st.active != player:
        raise illegal(f"今は{st.active}のターン：{player}のターンを終えることはできない", ctx.section("pm/turn/phases"))
    if st.turn_over:
        raise illegal(f"{player}のターンはすでに終わっている", ctx.section("pm/turn/phases"))
    st.phase = "turn_end"
    st.priority = None
    ctx.step(f"{player}のターン終了", ctx.section("pm/turn/phases"))
    pending = [(card, e) for p in (player, other(player)) for holder in st.field(p)
               for card in (holder, *holder.supports) for e in card.effects_of("turn_end")]
    held = [(card, e) for p in (player, other(player)) for card in st.hand[p] for e in card.effects_of("turn_end")]
    where = ()
    if held:   # whose turn-end effects fire, the field's only or the hand's too, is a reading
        rule, cite = ctx.point("turn_end.effect_zone")
        if rule == "field_and_hand":
            pending += held
            where = (cite,)
        else:
            ctx.step(f"手札の{'・'.join(dict.fromkeys(c.label for c, _ in held))}の「ターン終了時」の効果は発動しない（発動するのは場のカードの効果）",
                     ctx.section("pm/turn-end/triggers"), cite)
    if pending:
        ctx.step("ターン終了時に発動する効果を発動する", ctx.section("pm/turn-end/triggers"), *where)
        for card, e in fx.order_effects(ctx, st, pending):
            if st.result:
                return
            with ctx.nested():
                fx.run_effect(ctx, st, card, e, {"controller": card.owner})
    hand = st.hand[player]
    if len(hand) >= HAND_LIMIT + 1:
        n = len(hand) - HAND_LIMIT
        who, who_cite = ctx.point("hand_adjustment.chooser")    # the source does not say who chooses
        chooser = player if who == "active_player" else other(player)
        for c in fx.pick_cards(ctx, st, chooser, hand, n, "手札調整で捨て札にするカード", who_cite):
            hand.remove(c)
            st.grave[player].append(c)
        ctx.step(f"{player}の手札は{n + HAND_LIMIT}枚：7枚になるように{n}枚を捨て札にする",
                 ctx.section("pm/turn-end/hand-adjustment"))
    else:
        ctx.step(f"{player}の手札は{len(hand)}枚（8枚以上ではない）：手札調整はしない", ctx.section("pm/turn-end/hand-adjustment"))
    if st.mods or any(st.pool.values()):
        st.mods.clear()
        st.pool = {p: 0 for p in PLAYERS}
        ctx.step("ターン終了時まで有効な効果（このターンの数値の変化）を終了させる", ctx.section("pm/turn-end/expiry"),
                 ctx.section("pm/effects/duration"))
    resident = [card for p in PLAYERS for holder in st.field(p) for card in (holder, *holder.supports)
                if card.effects_of("resident")]
    if resident:   # the duration rule is checked, and does not end them
        ctx.step(f"{'・'.join(c.label for c in resident)}の常駐型テキストはターン終了時まで有効な効果ではなく、"
                 "そのカードが場にある間有効なので終了しない", ctx.section("pm/turn-end/expiry"),
                 ctx.section("pm/effects/duration"), ctx.section("pm/effects/kinds"), ctx.ruling("pm/gap/effect-kinds"))
    st.turn_over = True
    victory.check(ctx, st)
