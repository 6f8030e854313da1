"""Playing cards (pm/main/*, pm/priority, pm/effects/interrupt): who holds the right to play,
characters entering, support cards set, events used, texts used; plays waiting while the other
player may interrupt, interrupts of interrupts, and the order they resolve in."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context, EngineError
from ...engine.trace import Cite
from ...lang.vocab import UNKNOWN
from . import cost as payment
from . import deck as decks
from . import effects as fx
from .common import assumed, card_cite, choose, illegal, need
from .state import AREA_JA, PHASE_JA, Card, Play, State, other

KIND_JA = {"character": "キャラクターカード", "support": "サポートカード", "event": "イベントカード"}


# ----------------------------------------------------------------------------- priority

def require_priority(ctx: Context, st: State, player: str, what: str) -> None:
    if st.active is None:
        raise EngineError("the question plays a card, but the set-up gives no turn", None,
                          "say whose turn it is: turn P1 2; phase main")
    if st.window_closed:
        _, cite = ctx.point("priority.after_non_active")
        raise illegal(f"両プレイヤーが続けて優先権を放棄したので、このタイミングのプレイは終わっている：{player}は{what}できない",
                            ctx.section("pm/priority"), cite)
    holder = st.priority
    if holder == player:
        return
    if st.chain:   # a play waits: what may follow it is an interrupt, and the right to play is the holder's
        raise illegal(f"{st.chain[-1].card.label}のプレイの後、優先権は{holder}にある：{holder}が割り込むか優先権を放棄するまで、"
                            f"{player}は{what}できない", ctx.section("pm/priority"), ctx.section("pm/effects/interrupt"))
    if holder == st.active:
        raise illegal(f"各フェイズでカードを最初にプレイできるのは手番プレイヤー{holder}：{holder}がプレイするか優先権を放棄するまで、"
                            f"{player}は{what}できない", ctx.section("pm/priority"))
    _, cite = ctx.point("priority.after_non_active")
    raise illegal(f"優先権は{holder}にある：{holder}がプレイするか優先権を放棄するまで、{player}は{what}できない",
                        ctx.section("pm/priority"), cite)


def hand_over(ctx: Context, st: State, player: str, played: bool) -> None:
    """After `player` plays or gives up the right, who holds it."""
    did = "プレイした" if played else "優先権を放棄した"
    if player == st.active:
        st.priority = other(player)
        ctx.step(f"手番プレイヤー{player}が{did}ので、非手番プレイヤー{st.priority}が優先権を得る", ctx.section("pm/priority"))
        return
    rule, cite = ctx.point("priority.after_non_active")
    if played and rule == "non_active_keeps":
        ctx.step(f"非手番プレイヤー{player}はプレイしても優先権を持ち続ける", ctx.section("pm/priority"), cite)
        return
    st.priority = other(player)
    ctx.step(f"非手番プレイヤー{player}が{did}ので、優先権は{st.priority}に移る", ctx.section("pm/priority"), cite)


def give_up(ctx: Context, st: State, player: str, words: str, cites: tuple[Cite, ...]) -> None:
    """`player`, holding the right, gives it up: two in a row resolve what waits, or end the timing."""
    st.passes += 1
    ctx.step(f"{player}は{words}", *cites)
    if st.passes >= 2:
        if st.chain:
            resolve_chain(ctx, st)
        else:
            rule, cite = ctx.point("priority.after_non_active")
            st.window_closed = True
            st.priority = None
            ctx.step("両プレイヤーが続けて優先権を放棄したので、このタイミングのプレイは終わる",
                     ctx.section("pm/priority"), cite)
        return
    hand_over(ctx, st, player, played=False)


def pass_priority(ctx: Context, st: State, player: str) -> None:
    if st.chain and st.priority != player:
        settle_chain(ctx, st)   # the other player's answer to the waiting play comes first
    if st.priority != player or st.window_closed:
        if st.window_closed:
            raise illegal("このタイミングのプレイはすでに終わっている：放棄する優先権はない", ctx.section("pm/priority"))
        raise illegal(f"優先権は{st.priority}にある：{player}には放棄する優先権がない", ctx.section("pm/priority"))
    words = (f"{st.chain[-1].card.label}のプレイに割り込まず、優先権を放棄する" if st.chain else "優先権を放棄する")
    give_up(ctx, st, player, words, (ctx.section("pm/priority"),))


def new_timing(st: State) -> None:
    """A new timing (a phase, an approach, an interference): the active player plays first."""
    st.priority = st.active
    st.passes = 0
    st.window_closed = False


# ----------------------------------------------------------------------------- the chain

def announce(ctx: Context, st: State, words: str, cites: tuple[Cite, ...]) -> None:
    """The play, as it is made (before its cost is paid)."""
    if st.chain:
        words += f"（{st.chain[-1].card.label}のプレイに割り込む）"
        cites = (*cites, ctx.section("pm/effects/interrupt"))
    ctx.step(words, *cites)


def start_play(ctx: Context, st: State, play: Play) -> None:
    """The play, paid for, waits for interrupts; the right to play passes on."""
    st.chain.append(play)
    st.passes = 0
    st.window_closed = False
    hand_over(ctx, st, play.player, played=True)


def interrupt_options(ctx: Context, st: State, player: str) -> list[Card]:
    """Cards `player` could interrupt with now: interrupt-timing events they can pay for."""
    out = []
    for card in st.hand[player]:
        if card.filler or card.fact("timing") != "interrupt" or card.fact("kind") not in ("event", UNKNOWN):
            continue
        if card.fact("cost") is UNKNOWN:
            continue
        selector = fx.check_target(ctx, st, card, player, None)
        if selector is not None and not fx._targetable(ctx, st, card, fx.candidates(ctx, st, player, selector)) \
                and ctx.point("target.no_legal_target")[0] == "cannot_use":
            continue
        if payment.payments(ctx, st, player, card):
            out.append(card)
    return out


def settle_chain(ctx: Context, st: State) -> None:
    """Close the plays waiting for interrupts: a player who could still interrupt chooses whether
    to (the scenario left it open); one who cannot gives up the right."""
    if not st.chain:
        return
    options = {p: interrupt_options(ctx, st, p) for p in (st.priority, other(st.priority))}
    if not any(options.values()):
        holders = [st.priority] if st.passes else [st.priority, other(st.priority)]
        ctx.step(f"{'も'.join(holders)}も割り込みに使えるカード（使用タイミングが割り込みのカード）を手札に持たない："
                 + ("優先権を放棄し、両者が続けて放棄した" if st.passes else "両者とも優先権を放棄する"),
                 ctx.section("pm/effects/interrupt"), ctx.section("pm/priority"))
        resolve_chain(ctx, st)
        return
    while st.chain and not st.result:
        holder = st.priority
        cards = interrupt_options(ctx, st, holder)
        top = st.chain[-1]
        if cards:
            labels = ["割り込まない"] + [f"{c.label}で割り込む" for c in cards]
            pick = choose(ctx, holder, f"{top.card.label}のプレイに割り込むか", labels, ctx.section("pm/effects/interrupt"))
            if pick:
                play_event(ctx, st, holder, cards[pick - 1], None, None)
                continue
            give_up(ctx, st, holder, f"{top.card.label}のプレイに割り込まず、優先権を放棄する", (ctx.section("pm/priority"),))
        else:
            give_up(ctx, st, holder, "割り込みに使えるカードを持たないので、優先権を放棄する",
                    (ctx.section("pm/effects/interrupt"), ctx.section("pm/priority")))


def resolve_chain(ctx: Context, st: State) -> None:
    plays = list(st.chain)
    if len(plays) > 1:
        rule, cite = ctx.point("interrupt.order")
        if rule == "last_first":
            plays.reverse()
            ctx.step("後から割り込んだものから解決する：" + "→".join(p.card.label for p in plays),
                     ctx.section("pm/effects/interrupt"), cite)
        else:
            ctx.step("プレイされた順に解決する：" + "→".join(p.card.label for p in plays),
                     ctx.section("pm/effects/interrupt"), cite)
    for play in plays:
        if st.result:
            break
        st.chain.remove(play)
        with ctx.nested():
            resolve(ctx, st, play)
    st.chain.clear()
    if not st.result:
        rule, cite = ctx.point("priority.after_non_active")
        new_timing(st)
        ctx.step(f"解決待ちのプレイがなくなったので、手番プレイヤー{st.active}が改めて優先権を得る",
                 ctx.section("pm/priority"), cite)


def resolve(ctx: Context, st: State, play: Play) -> None:
    card, player = play.card, play.player
    st.resolved.append(card.uid)
    env = {"controller": player, "target": play.target, "play": play}
    if play.kind == "event" or play.kind == "text":
        effects = card.effects_of("use")
        if not effects:
            ctx.step(f"{card.label}の効果は場面で与えられていない", card_cite(ctx, card))
        for e in effects:
            fx.run_effect(ctx, st, card, e, env)
        if play.kind == "event" and not st.result:
            dest, cite = ctx.point("event.destination")
            if dest == "graveyard":
                st.grave[card.owner].append(card)
                ctx.step(f"使用した{card.label}を捨て札に置く", ctx.section("pm/main/both-players"), cite)
            else:
                st.left.append(card)
                ctx.step(f"使用した{card.label}は手札を離れる（行き先の規定はない）", ctx.section("pm/main/both-players"), cite)
        fx.victory.check(ctx, st)
    elif play.kind == "enter":
        clash = same_on_field(ctx, st, player, card)
        if clash is not None:
            st.grave[card.owner].append(card)
            ctx.step(f"{clash[0].label}がすでに場にあるので{card.label}は登場できず、捨て札に置く", ctx.section("pm/main/enter"),
                     *clash[1])
            return
        (st.main if play.area == "main" else st.support)[player].append(card)
        state, cite = ctx.point("enter.state")
        card.resting = state == "resting"
        st.entered.add(card.uid)
        ctx.step(f"{card.label}が{player}の{AREA_JA[play.area]}に{'休息' if card.resting else '活動'}状態で登場する"
                 "（このターンはアプローチできない）", ctx.section("pm/main/enter"), cite)
    elif play.kind == "support":
        target = play.target
        if target is None or not st.on_field(target) or target.set_on is not None:
            st.grave[card.owner].append(card)
            ctx.step(f"セット先のキャラがもう場にないので、{card.label}は捨て札となる", ctx.section("pm/main/support"))
            return
        card.set_on = target
        target.supports.append(card)
        ctx.step(f"{card.label}を{target.label}にセットする", ctx.section("pm/main/support"))


# ----------------------------------------------------------------------------- the plays

def find_in_hand(ctx: Context, st: State, player: str, ref, what: str) -> Card:
    for card in st.hand[player]:
        if payment.matches(card, ref):
            return card
    for card in st.cards:
        if payment.matches(card, ref):
            place = st.place_of(card)
            if place == "pending":
                raise illegal(f"{card.label}はすでにプレイされ、解決を待っている", ctx.section("pm/priority"))
            whose = f"{card.owner}の" if card.owner != player else ""
            raise illegal(f"{card.label}は{whose}{_PLACE_JA.get(place, place)}にある：{what}のは{player}の手札のカード",
                                ctx.section(_WHAT_SECTION.get(what, "pm/main/both-players")))
    raise EngineError(f"《{ref.text}》 is not in the game", None, f'add it to the set-up: hand {player} ["{ref.text}"]')


_PLACE_JA = {"main_area": "メインエリア", "support_area": "サポートエリア", "graveyard": "捨て札", "deck": "デッキ",
             "set": "キャラクターカードにセットされている", "point_zone": "ポイント置き場", "hand": "手札",
             "left": "場の外"}
_WHAT_SECTION = {"登場させられる": "pm/main/enter", "セットできる": "pm/main/support"}


def find_on_field(ctx: Context, st: State, ref, owner: Optional[str] = None) -> Card:
    """The character on the field a reference names (`owner`'s copy first, when both have one)."""
    found = [c for c in st.cards if payment.matches(c, ref) and st.on_field(c) and c.set_on is None]
    if found:
        return next((c for c in found if c.owner == owner), found[0])
    for card in st.cards:
        if payment.matches(card, ref):
            raise illegal(f"{card.label}は場のキャラではない（{_PLACE_JA.get(st.place_of(card), '場の外')}）",
                                ctx.section("pm/effects/card-designation"))
    raise EngineError(f"《{ref.text}》 is not in the game", None, f'put it on the field: main P1 "{ref.text}" active')


def kind_of(card: Card, expected: str) -> None:
    kind = need(card, "kind", "kind (カードの種類)", f"kind {expected}")
    if kind != expected:
        raise EngineError(f"{card.label} is a {kind} card, not a {expected} card", card.loc,
                          {"character": "a character enters: enter P1 \"…\" main",
                           "support": "a support card is set: set_support P1 \"…\" \"キャラ\"",
                           "event": "an event is used: play_event P1 \"…\""}[kind])


def play_event(ctx: Context, st: State, player: str, card: Card, target: Optional[Card], refs) -> None:
    kind_of(card, "event")
    timing = card.fact("timing")
    interrupt = timing == "interrupt"
    if st.chain and not interrupt:
        if player == st.priority and player != st.active:
            # the window a waiting play opens is its own rule: in it only interrupt cards are played
            words = {"main_phase": "メインフェイズ", "approach_phase": "アプローチフェイズ"}.get(timing, "割り込みではない")
            raise illegal(f"{st.chain[-1].card.label}のプレイが割り込みを待っている：このとき使用できるのは"
                          f"使用タイミングが割り込みのカードのみで、{card.label}の使用タイミングは{words}",
                          ctx.section("pm/effects/interrupt"), card_cite(ctx, card))
        settle_chain(ctx, st)
    if interrupt and not st.chain:
        raise illegal(f"{card.label}の使用タイミングは割り込み：割り込むカードのプレイがない",
                            ctx.section("pm/effects/interrupt"), card_cite(ctx, card))
    if not interrupt:
        if timing is UNKNOWN:
            ctx.step(f"{card.label}の使用タイミングは場面にない：割り込みではなく、この場面で使用できるものとする",
                     assumed(f"{card.label}の使用タイミング"))
        elif timing in ("main_phase", "approach_phase"):
            phase = timing.split("_")[0]
            if st.phase != phase:
                raise illegal(f"{card.label}の使用タイミングは{PHASE_JA[phase]}：今は{PHASE_JA.get(st.phase, 'ゲーム外')}",
                                    ctx.section("pm/main/both-players"), card_cite(ctx, card))
        else:
            raise EngineError(f"the interpreter cannot read {card.label}'s use timing \"{timing}\"", card.loc,
                              "write one of: timing interrupt / main_phase / approach_phase (or leave it out)")
        approach_window(ctx, st, card)
    require_priority(ctx, st, player, f"{card.label}を使用")
    selector = fx.check_target(ctx, st, card, player, target)
    if target is None and selector is not None and not fx._targetable(
            ctx, st, card, fx.candidates(ctx, st, player, selector)):
        fx.no_target_allowed(ctx, st, card, player, card.label)
    announce(ctx, st, f"{player}が{card.label}を使用する" + (f"（対象：{target.label}）" if target else ""),
             (ctx.section("pm/main/both-players"), card_cite(ctx, card)))
    payment.pay(ctx, st, player, card, refs)
    st.hand[player].remove(card)
    start_play(ctx, st, Play(card, player, "event", target))


def approach_window(ctx: Context, st: State, card: Card) -> None:
    """Plays in the middle of an approach depend on what 「各タイミング」 means."""
    a = st.approach
    if a is None or a.stage == "done":
        return
    rule, cite = ctx.point("approach.event_windows")
    stage = "アプローチの宣言の後" if a.stage == "declared" else "妨害の宣言の後"
    if rule == "between_approaches":
        raise illegal(f"{a.attacker.label}のアプローチの途中（{stage}）：アプローチの途中ではカードをプレイできない",
                            ctx.section("pm/approach/phase"), cite)
    ctx.step(f"アプローチの途中（{stage}）も、アプローチフェイズの「各タイミング」として{card.label}をプレイできる",
             ctx.section("pm/approach/phase"), cite)


def enter(ctx: Context, st: State, player: str, card: Card, area: str, refs) -> None:
    settle_chain(ctx, st)
    kind_of(card, "character")
    if st.phase != "main":
        raise illegal(f"キャラの登場はメインフェイズの行動：今は{PHASE_JA.get(st.phase, 'ゲーム外')}",
                            ctx.section("pm/main/enter"), ctx.section("pm/turn/phases"))
    if player != st.active:
        raise illegal(f"キャラの登場は手番プレイヤー（{st.active}）が行う行動", ctx.section("pm/main/enter"))
    if area == "main":
        for stat in ("ap", "dp"):
            if need(card, stat, stat.upper(), f"{stat} 3") == "none":
                raise illegal(f"{card.label}は{stat.upper()}を持たない：メインエリアにはAP、DPを持ったキャラのみ出せる",
                                    ctx.section("pm/main/enter"))
    clash = same_on_field(ctx, st, player, card)
    if clash is not None:
        raise illegal(f"{clash[0].label}が場にある：同じカードは場に1枚までしか存在できない", ctx.section("pm/main/enter"),
                      *clash[1])
    require_priority(ctx, st, player, f"{card.label}を登場させることは")
    announce(ctx, st, f"{player}が{card.label}を{AREA_JA[area]}に登場させる",
             (ctx.section("pm/main/enter"), card_cite(ctx, card)))
    payment.pay(ctx, st, player, card, refs)
    st.hand[player].remove(card)
    start_play(ctx, st, Play(card, player, "enter", area=area))


def same_card(ctx: Context, st: State, a: Card, b: Card) -> tuple[bool, tuple[Cite, ...]]:
    """Whether two cards in play are "the same card" (once on the field, once per character),
    and the reading it rests on when the two readings of "same" disagree."""
    by_number = decks.same_card(ctx, st, a, b)
    by_name = st.name_of(a) == st.name_of(b)
    if by_number == by_name:
        return by_number, ()
    rule, cite = ctx.point("same_card.identity")
    return (by_number if rule == "deck_rule" else by_name), (cite,)


def same_on_field(ctx: Context, st: State, player: str, card: Card) -> Optional[tuple[Card, tuple[Cite, ...]]]:
    """A card on the field that is "the same card" as `card` for the once-on-the-field rule."""
    for c in st.field(player):
        same, cites = same_card(ctx, st, c, card)
        if same and c is not card:
            return c, cites
    for c in st.field(other(player)):
        same, cites = same_card(ctx, st, c, card)
        if same:
            scope, scite = ctx.point("same_card.field_scope")
            if scope == "both_fields":
                return c, (*cites, scite)
            ctx.step(f"相手の場の{c.label}は同じカードだが数えない（自分の場に1枚まで）", ctx.section("pm/main/enter"),
                     *cites, scite)
            return None
    return None


def set_support(ctx: Context, st: State, player: str, card: Card, target: Card, refs) -> None:
    settle_chain(ctx, st)
    kind_of(card, "support")
    if st.phase == "main":
        if player != st.active:
            raise illegal(f"メインフェイズのサポートカードのプレイは手番プレイヤー（{st.active}）が行う行動",
                                ctx.section("pm/main/support"))
    elif st.phase == "approach":
        rule, cite = ctx.point("approach.support_play")
        if rule == "active_only" and player != st.active:   # as in the main phase, where it is the active player's action
            raise illegal(f"アプローチフェイズにサポートカードをプレイできるのは手番プレイヤー（{st.active}）だけ"
                          "（メインフェイズと同じく）", ctx.section("pm/approach/phase"), cite, ctx.section("pm/main/support"))
        ctx.step("アプローチフェイズの各タイミングで、サポートカードをプレイできる", ctx.section("pm/approach/phase"), cite)
        approach_window(ctx, st, card)
    else:
        raise illegal(f"サポートカードをプレイできるのはメインフェイズとアプローチフェイズ：今は{PHASE_JA.get(st.phase, 'ゲーム外')}",
                            ctx.section("pm/main/support"), ctx.section("pm/approach/phase"))
    if target.owner != player:
        raise illegal(f"{target.label}は相手のキャラ：サポートカードは対象に取った自分のキャラクターカードにセットする",
                            ctx.section("pm/main/support"))
    if fx.untargetable(target):
        rule, cite = ctx.point("target.support_set")
        if rule == "cannot":
            raise illegal(f"{target.label}は「対象にならない」：サポートカードのセット先として対象に取ることはできない",
                                ctx.section("pm/effects/target"), ctx.section("pm/main/support"), cite)
        ctx.step(f"{target.label}は「対象にならない」が、セット先の指定はテキストによる指定ではないのでセットできる",
                 ctx.section("pm/effects/target"), cite)
    for s in target.supports:
        same, cites = same_card(ctx, st, s, card)
        if same:
            raise illegal(f"{target.label}にはすでに{s.label}がセットされている：同じカードは1枚までしかセットできない",
                          ctx.section("pm/main/support"), *cites)
    for c in st.field(player):
        for s in c.supports if c is not target else ():
            same, cites = same_card(ctx, st, s, card)
            if not same:
                continue
            rule, cite = ctx.point("support.same_card_scope")
            if rule == "own_field":
                raise illegal(f"自分の場の{c.label}にすでに{s.label}がセットされている："
                              "同じカードは（自分の場全体で）1枚までしかセットできない", ctx.section("pm/main/support"),
                              *cites, cite)
            ctx.step(f"{s.label}は別のキャラ（{c.label}）にセットされているので、{target.label}にもセットできる"
                     "（制限は1枚のキャラについて）", ctx.section("pm/main/support"), *cites, cite)
    require_priority(ctx, st, player, f"{card.label}をプレイ")
    announce(ctx, st, f"{player}が{card.label}を使用し、対象に取った{target.label}にセットする",
             (ctx.section("pm/main/support"), card_cite(ctx, card)))
    payment.pay(ctx, st, player, card, refs)
    st.hand[player].remove(card)
    start_play(ctx, st, Play(card, player, "support", target))


def use_text(ctx: Context, st: State, player: str, card: Card, target: Optional[Card]) -> None:
    if card.owner != player or not st.on_field(card):
        raise illegal(f"{card.label}は{player}の場のカードではない：使用できるのは自分の場のカードのテキスト",
                            ctx.section("pm/main/both-players"), ctx.section("pm/effects/place-designation"))
    if not card.effects_of("use"):
        raise EngineError(f"{card.label} has no use-type text (使用型テキスト) in the scenario", card.loc,
                          f'give it one: card "{card.name}" {{ effect use {{ draw 1 }} }}')
    rule, cite = ctx.point("text_use.is_play")
    selector = fx.check_target(ctx, st, card, player, target)
    if target is None and selector is not None and not fx._targetable(
            ctx, st, card, fx.candidates(ctx, st, player, selector)):
        fx.no_target_allowed(ctx, st, card, player, f"{card.label}のテキスト")
    if rule == "not_play":
        ctx.step(f"{player}が{card.label}の使用型テキストを使用する：カードのプレイではないので、優先権は移らず、割り込みもできない",
                 ctx.section("pm/main/both-players"), ctx.ruling("pm/gap/effect-kinds"), cite)
        with ctx.nested():
            resolve(ctx, st, Play(card, player, "text", target, text=True))
        return
    interrupt = any("interrupt" in e.modifiers for e in card.effects_of("use"))
    if st.chain and not interrupt:
        if player == st.priority and player != st.active:
            # the window a waiting play opens is its own rule: in it only interrupt cards are played
            # a use-type text carries no timing of its own: only an `interrupt` one may answer
            raise illegal(f"{st.chain[-1].card.label}のプレイが割り込みを待っている：このとき使用できるのは"
                          f"使用タイミングが割り込みのカードのみで、{card.label}のテキストは割り込みではない",
                          ctx.section("pm/effects/interrupt"), card_cite(ctx, card))
        settle_chain(ctx, st)
    if interrupt and not st.chain:
        raise illegal(f"{card.label}のテキストは割り込み：割り込むカードのプレイがない", ctx.section("pm/effects/interrupt"))
    require_priority(ctx, st, player, f"{card.label}のテキストを使用")
    announce(ctx, st, f"{player}が{card.label}の使用型テキストを使用する（カードのプレイとして扱う）",
             (ctx.section("pm/main/both-players"), ctx.ruling("pm/gap/effect-kinds"), cite))
    start_play(ctx, st, Play(card, player, "text", target, text=True))
