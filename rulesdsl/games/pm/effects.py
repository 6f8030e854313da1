"""Card texts and what they do: targets (「対象にならない」, card names, one's own field by
default), one handler per verb of the vocabulary (registered in `VERBS`), and the moves every
rule shares: drawing, placing a point, a break ability, a character leaving the field."""

from __future__ import annotations

from itertools import permutations
from typing import Callable, Optional

from ...engine.context import Context, EngineError
from ...engine.trace import Cite
from ...lang.vocab import UNKNOWN, Call
from . import victory
from .common import all_designates_untargetable, assumed, card_cite, choose, illegal
from .state import FILLER, PLAYERS, Card, State, other

Handler = Callable[[Context, State, Card, Call, dict], None]
VERBS: dict[str, Handler] = {}
SINGLE = ("own_character", "opponent_character", "any_character")


def verb(name: str):
    def register(fn: Handler) -> Handler:
        VERBS[name] = fn
        return fn
    return register


# ----------------------------------------------------------------------------- moving cards

def filler(st: State, owner: str) -> Card:
    card = Card(st.next_uid, FILLER, "", owner, True, {}, (), None, None)
    st.next_uid += 1
    return card


def take_top(ctx: Context, st: State, player: str) -> Optional[Card]:
    """The top card of a deck; a deck the set-up does not give is taken to hold cards."""
    if st.deck[player]:
        return st.deck[player].pop(0)
    if st.deck_known[player]:
        return None
    if player not in st.deck_out_noted:
        st.deck_out_noted.add(player)
        ctx.step(f"{player}のデッキの枚数は場面にない：カードは残っているものとする", assumed(f"{player}のデッキ"))
    return filler(st, player)


def draw(ctx: Context, st: State, player: str, count: int, cite: Cite, check: bool = True) -> bool:
    """`player` draws `count` cards; True when the deck ran out. `check`: decide the game now
    (False when other players draw at the same time: one check after all of them)."""
    drawn, empty = 0, False
    for _ in range(count):
        card = take_top(ctx, st, player)
        if card is None:
            empty = True
            break
        st.hand[player].append(card)
        drawn += 1
    if empty:
        ctx.step(f"{player}はデッキから{count}枚引こうとしたが、{drawn}枚でデッキにカードが無くなった", cite)
    else:
        ctx.step(f"{player}はデッキから{count}枚引く", cite)
    if check:
        victory.check(ctx, st, (player,) if empty else ())
    return empty


def place_point(ctx: Context, st: State, player: str, count: int, cite: Cite) -> list[Card]:
    """The top card(s) of `player`'s deck to their point zone, face up. The caller then calls
    `after_points` (victory, break abilities) once everything placed at the same time is placed."""
    placed = []
    for _ in range(count):
        card = take_top(ctx, st, player)
        if card is None:
            ctx.step(f"{player}のデッキにカードがないので、ポイント置き場に置くカードはない", cite)
            break
        card.face = "up"
        st.points[player].append(card)
        placed.append(card)
        name = "（場面で特定されていないカード）" if card.filler else card.label
        ctx.step(f"{player}のデッキの一番上のカード{name}を{player}のポイント置き場に表向きで置く"
                 f"（{player}のポイント置き場は{len(st.points[player])}枚）", cite)
    return placed


def after_points(ctx: Context, st: State, placed: list[Card]) -> None:
    """After cards are placed in point zones: the victory check and their Break abilities, in
    the order the reading of victory.break_order gives when a Break card is the winning one."""
    breaking = [c for c in placed if c.fact("break") is True]
    first = "victory_first"
    if breaking and any(len(st.points[p]) >= victory.POINTS_TO_WIN for p in st.points):
        first, cite = ctx.point("victory.break_order")
        ctx.step("ブレイク能力を持つカードがポイント置き場に置かれ、ポイント置き場は7枚以上になった："
                 + ("勝利条件を先に判定する" if first == "victory_first" else "ブレイク能力を先に決めてから勝利条件を判定する"),
                 ctx.section("pm/victory/points"), ctx.section("pm/approach/break"), cite)
    if first == "victory_first":
        victory.check(ctx, st)
    for card in placed:
        if st.result:
            return
        if card.fact("break") is True:
            rule, rcite = ctx.point("break.activation")
            if rule == "mandatory":
                ctx.step(f"{card.label}はブレイク能力を持つ：裏向きにして必ず発動する", ctx.section("pm/approach/break"), rcite)
                activate_break(ctx, st, card)
            else:
                ctx.step(f"{card.label}はブレイク能力を持つ：{card.owner}は裏向きにして発動するかを選べる",
                         ctx.section("pm/approach/break"), rcite)
                st.break_pending.append(card)
    if first == "break_first":
        decide_breaks(ctx, st)
        victory.check(ctx, st)


def activate_break(ctx: Context, st: State, card: Card) -> None:
    card.face = "down"
    st.breaks.append(card.uid)
    ctx.step(f"{card.owner}は{card.label}を裏向きにしてブレイク能力を発動する", ctx.section("pm/approach/break"),
             card_cite(ctx, card))
    effects = card.effects_of("break")
    if not effects:
        ctx.step(f"{card.label}のブレイク能力の内容は場面で与えられていない", card_cite(ctx, card))
    for e in effects:
        with ctx.nested():
            run_effect(ctx, st, card, e, {"controller": card.owner})
    victory.check(ctx, st)


def decide_breaks(ctx: Context, st: State) -> None:
    """Break abilities placed and not yet decided: their owner chooses (one reading)."""
    while st.break_pending and not st.result:
        card = st.break_pending.pop(0)
        rule, cite = ctx.point("break.activation")
        if choose(ctx, card.owner, f"{card.label}のブレイク能力を発動するか", ["発動する", "発動しない"], cite) == 0:
            activate_break(ctx, st, card)
        else:
            ctx.step(f"{card.owner}は{card.label}のブレイク能力を発動しない：表向きのまま残る",
                     ctx.section("pm/approach/break"), cite)


def leave_field(ctx: Context, st: State, cards: list[Card], how: str, cites: tuple[Cite, ...]) -> None:
    """Characters leave the field together: `how` is "exit" (退場) or "hand"; support cards set on
    them go to the discard pile."""
    if not cards:
        return
    dest, dcite = None, None
    if how == "exit":
        dest, dcite = ctx.point("exit.destination")
    for card in cards:
        st.remove(card)
        if how == "hand":
            st.hand[card.owner].append(card)
            ctx.step(f"{card.label}は場を離れ、{card.owner}の手札に戻る", *cites)
        else:
            st.exited.add(card.uid)
            if dest == "graveyard":
                st.grave[card.owner].append(card)
                ctx.step(f"{card.label}は退場し、捨て札に置かれる", *cites, dcite)
            else:
                st.left.append(card)
                ctx.step(f"{card.label}は退場して場を離れる（行き先は規定がない）", *cites, dcite)
        card.resting = False
        for s in list(card.supports):
            card.supports.remove(s)
            s.set_on = None
            st.grave[s.owner].append(s)
            ctx.step(f"セット先の{card.label}が場から離れたので、セットされていた{s.label}は捨て札となる",
                     ctx.section("pm/main/support"))


# ----------------------------------------------------------------------------- targets

def untargetable(card: Card) -> bool:
    return card.fact("untargetable") is True


def candidates(ctx: Context, st: State, controller: str, selector: str) -> list[Card]:
    """The characters a one-card selector may designate, before 「対象にならない」."""
    if selector == "opponent_character":
        return st.field(other(controller))
    return st.field(controller)


def check_target(ctx: Context, st: State, card: Card, player: str, target: Optional[Card]) -> Optional[str]:
    """The scenario's target for a played card, checked when it is played; returns the selector."""
    selector = next((v.params.get("target") for e in card.effects_of("use") for v in e.body or ()
                     if v.params.get("target") in SINGLE), None)
    if target is None:
        return selector
    if selector is None:
        raise EngineError(f"{card.label}'s text designates no single character, yet the action names a target",
                          card.loc, f"give the card a text with a target: card \"{card.name}\" "
                                    "{ effect use { ap_change opponent_character -1 } }")
    if not st.on_field(target) or target.set_on is not None:
        raise illegal(f"{target.label}は場のキャラではないので、{card.label}の対象にできない",
                            ctx.section("pm/effects/card-designation"))
    if selector == "opponent_character" and target.owner == player:
        raise illegal(f"{target.label}は{player}自身のキャラ：{card.label}の対象は相手のキャラ",
                            ctx.section("pm/effects/target"), card_cite(ctx, card))
    if selector == "own_character" and target.owner != player:
        raise illegal(f"{target.label}は相手のキャラ：{card.label}の対象は自分のキャラ",
                            ctx.section("pm/effects/target"), card_cite(ctx, card))
    if selector == "any_character" and target.owner != player:
        raise illegal(f"{card.label}のテキストは「キャラ1枚」とだけ書き、場所の記述がないので、自分の場のキャラを指す："
                            f"相手の{target.label}は指定できない", ctx.section("pm/effects/place-designation"))
    if untargetable(target):
        raise illegal(f"{target.label}は「対象にならない」：{card.label}の対象として指定することはできない",
                            ctx.section("pm/effects/target"), card_cite(ctx, target))
    return selector


def targets(ctx: Context, st: State, card: Card, call: Call, env: dict) -> list[Card]:
    selector = call.params["target"]
    controller = env["controller"]
    if selector in SINGLE:
        chosen = env.get("target")
        if chosen is not None:
            if not st.on_field(chosen):
                ctx.step(f"対象の{chosen.label}はもう場にないので、{card.label}のこの効果は何もしない",
                         ctx.section("pm/effects/card-designation"))
                return []
            return [chosen]
        found = candidates(ctx, st, controller, selector)
        if selector == "any_character":
            ctx.step(f"{card.label}のテキストは「キャラ1枚」とだけ書くので、{controller}の場のキャラを指す",
                     ctx.section("pm/effects/place-designation"))
        found = _targetable(ctx, st, card, found)
        if not found:
            ctx.step(f"{card.label}の効果で指定できるキャラがいない", ctx.section("pm/effects/target"))
            return []
        pick = choose(ctx, controller, f"{card.label}の効果の対象", [c.label for c in found],
                      ctx.section("pm/effects/target"))
        env["target"] = found[pick]
        return [found[pick]]
    if selector == "self":
        return [card] if st.on_field(card) else []
    if selector == "set_character":
        found = [card.set_on] if card.set_on is not None else []
    elif selector in ("approaching", "interfering"):
        a = st.approach
        one = None if a is None else (a.attacker if selector == "approaching" else a.interferer)
        if one is None or not st.on_field(one):
            ctx.step(f"{'アプローチをしているキャラ' if selector == 'approaching' else '妨害キャラ'}は場にいない："
                     f"{card.label}のこの効果は何もしない", ctx.section("pm/effects/card-designation"))
            return []
        found = [one]
    elif selector == "all_own_characters":
        found = st.field(controller)
    elif selector == "all_opponent_characters":
        found = st.field(other(controller))
    elif isinstance(selector, str):   # a card name: the card of that name on the field, one's own by default
        found = [c for c in st.field(controller) if st.name_of(c) == selector]
        elsewhere = [c for p in PLAYERS for zone in (st.hand, st.grave, st.deck, st.points) for c in zone[p]
                     if st.name_of(c) == selector] + [c for c in st.field(other(controller)) if st.name_of(c) == selector]
        ctx.step(f"テキストのカード名「{selector}」は場のカードを指し、場所の記述がないので{controller}の場のカードを指す："
                 + ("、".join(c.label for c in found) if found else "該当するカードはない")
                 + ("（相手の場・手札などにある同名のカードは指さない）" if elsewhere else ""),
                 ctx.section("pm/effects/card-designation"), ctx.section("pm/effects/place-designation"))
    else:
        raise EngineError(f"unknown target {selector}", call.loc)
    return _targetable(ctx, st, card, found, every=selector in ("all_own_characters", "all_opponent_characters"))


def no_target_allowed(ctx: Context, st: State, card: Card, player: str, what: str) -> None:
    """A text that designates one character finds none it may designate: whether the card can
    still be used is the knowledge base's reading (target.no_legal_target); illegal if not."""
    rule, cite = ctx.point("target.no_legal_target")
    if rule == "cannot_use":
        raise illegal(f"{what}の対象に指定できるキャラがいない", ctx.section("pm/effects/target"),
                      card_cite(ctx, card), cite)
    ctx.step(f"{what}の対象に指定できるキャラがいないが、使用できる（その効果は何もしない）",
             ctx.section("pm/effects/target"), cite)


def _targetable(ctx: Context, st: State, card: Card, found: list[Card], every: bool = False) -> list[Card]:
    out = []
    for c in found:
        if untargetable(c) and every:
            included, cite = all_designates_untargetable(ctx)
            if included:
                ctx.step(f"{c.label}は「対象にならない」が、「すべてのキャラ」のテキストは対象を指定しないので、"
                         f"{card.label}の効果を受ける", ctx.section("pm/effects/target"), cite)
                out.append(c)
                continue
            ctx.step(f"{c.label}は「対象にならない」ので、{card.label}の効果で指定することはできない",
                     ctx.section("pm/effects/target"), card_cite(ctx, c), cite)
        elif untargetable(c):
            ctx.step(f"{c.label}は「対象にならない」ので、{card.label}の効果で指定することはできない",
                     ctx.section("pm/effects/target"), card_cite(ctx, c))
        else:
            out.append(c)
    return out


# ----------------------------------------------------------------------------- running a text

def run_effect(ctx: Context, st: State, card: Card, effect: Call, env: dict) -> None:
    trigger = ctx.kb.games[ctx.game].vocab.label("trigger", effect.name) or effect.name
    if "optional" in effect.modifiers:
        if choose(ctx, env["controller"], f"{card.label}の{trigger}（任意）を使うか", ["使う", "使わない"],
                  card_cite(ctx, card)) == 1:
            ctx.step(f"{env['controller']}は{card.label}の{trigger}を使わない", card_cite(ctx, card))
            return
    ctx.step(f"{card.label}の{trigger}を解決する", card_cite(ctx, card))
    for v in effect.body or ():
        if st.result:
            return
        handler = VERBS.get(v.name)
        if handler is None:
            raise EngineError(f"the プレシャスメモリーズ interpreter has no handler for the verb {v.name}", v.loc)
        handler(ctx, st, card, v, env)


def players_of(env: dict, call: Call) -> list[str]:
    who = call.params.get("who") or "you"
    me = env["controller"]
    if who == "each":
        return [me, other(me)]
    return [me if who == "you" else other(me)]


@verb("draw")
def _draw(ctx, st, card, call, env):
    players = players_of(env, call)
    if len(players) == 1:
        draw(ctx, st, players[0], call.params["count"], card_cite(ctx, card))
        return
    # "each player" draws at the same time: one victory check after all of them, so two players
    # meeting a condition at once is a draw (「両方のプレイヤーが同時に…引き分けとなる」)
    empty = [p for p in players if draw(ctx, st, p, call.params["count"], card_cite(ctx, card), check=False)]
    ctx.step("各プレイヤーのドローは同時に行われる：勝利条件はその後にまとめて判定する",
             card_cite(ctx, card), ctx.section("pm/victory/simultaneous"))
    victory.check(ctx, st, empty)


@verb("point")
def _point(ctx, st, card, call, env):
    placed = []
    for p in players_of(env, call):   # "each player" places at the same time: one victory check after
        placed += place_point(ctx, st, p, call.params["count"], card_cite(ctx, card))
    after_points(ctx, st, placed)


@verb("discard")
def _discard(ctx, st, card, call, env):
    for p in players_of(env, call):
        n = min(call.params["count"], len(st.hand[p]))
        for c in pick_cards(ctx, st, p, st.hand[p], n, f"{card.label}の効果で捨て札にするカード",
                            card_cite(ctx, card)):
            st.hand[p].remove(c)
            st.grave[p].append(c)
        ctx.step(f"{p}は手札を{n}枚捨て札にする", card_cite(ctx, card))


def _change(stat: str):
    def handler(ctx, st, card, call, env):
        amount = call.params["amount"]
        for t in targets(ctx, st, card, call, env):
            st.mods.append((t.uid, stat, amount, f"{card.label}の効果"))
            ctx.step(f"{t.label}の{stat.upper()}に{amount:+d}（このターンの間）", card_cite(ctx, card),
                     ctx.section("pm/effects/duration"))
    return handler


VERBS["ap_change"] = _change("ap")
VERBS["dp_change"] = _change("dp")


@verb("rest")
def _rest(ctx, st, card, call, env):
    for t in targets(ctx, st, card, call, env):
        t.resting = True
        ctx.step(f"{t.label}を休息状態にする", card_cite(ctx, card))


@verb("stand")
def _stand(ctx, st, card, call, env):
    for t in targets(ctx, st, card, call, env):
        t.resting = False
        ctx.step(f"{t.label}を活動状態にする", card_cite(ctx, card))


@verb("exit")
def _exit(ctx, st, card, call, env):
    leave_field(ctx, st, targets(ctx, st, card, call, env), "exit", (card_cite(ctx, card),))


@verb("return_to_hand")
def _return(ctx, st, card, call, env):
    leave_field(ctx, st, targets(ctx, st, card, call, env), "hand", (card_cite(ctx, card),))


# ----------------------------------------------------------------------------- choosing cards

def pick_cards(ctx: Context, st: State, player: str, pool: list[Card], n: int, label: str, cite: Cite) -> list[Card]:
    """`n` cards of `pool` chosen by `player`: one choice among the distinct sets (cards that
    only differ as unnamed cards are one option)."""
    if n <= 0:
        return []
    if n >= len(pool):
        return list(pool)
    groups: dict[str, list[Card]] = {}
    for c in pool:   # copies of one card (and the unnamed cards) are interchangeable
        groups.setdefault(c.name, []).append(c)
    keys = list(groups)
    combos: list[list[str]] = []

    def walk(i: int, left: int, acc: list[str]) -> None:
        if left == 0:
            combos.append(list(acc))
            return
        if i == len(keys):
            return
        for k in range(min(left, len(groups[keys[i]])), -1, -1):
            walk(i + 1, left - k, acc + [keys[i]] * k)
    walk(0, n, [])
    walk = None     # a nested function calling itself is a cycle (function, cell): freed now, not by the gc
    if len(combos) > 200:
        raise EngineError(f"{player} has {len(combos)} ways to choose {n} of {len(pool)} cards; too many to explore",
                          None, "name fewer different cards in the hand, or fix the choice with `choose`")
    labels = ["・".join(_label(k, groups) for k in combo) for combo in combos]
    combo = combos[choose(ctx, player, label, labels, cite)]
    out, used = [], {}
    for k in combo:
        out.append(groups[k][used.get(k, 0)])
        used[k] = used.get(k, 0) + 1
    return out


def _label(key: str, groups: dict[str, list[Card]]) -> str:
    return groups[key][0].label


def order_effects(ctx: Context, st: State, pending: list[tuple[Card, Call]]) -> list[tuple[Card, Call]]:
    """Effects that arise at the same time: in the order the active player chooses
    (pm/effects/simultaneous)."""
    if len(pending) <= 1:
        return pending
    rule, cite = ctx.point("effects.simultaneous_order")
    if rule == "active_player_chooses":
        chooser = st.active
        st.orderers.append(chooser)
        ctx.step(f"同じタイミングで{len(pending)}つの効果が発生した：手番プレイヤー{chooser}が発動の順番を決める", cite)
        orders = list(permutations(range(len(pending))))
        labels = ["→".join(pending[i][0].label for i in o) for o in orders]
        return [pending[i] for i in orders[choose(ctx, chooser, "効果の発動順", labels, cite)]]
    ctx.step("それぞれの持ち主が自分の効果の発動順を決める（手番プレイヤーの効果から）", cite)
    out = []
    for p in (st.active, other(st.active)):
        mine = [x for x in pending if x[0].owner == p]
        if len(mine) > 1:
            st.orderers.append(p)
            orders = list(permutations(range(len(mine))))
            labels = ["→".join(mine[i][0].label for i in o) for o in orders]
            mine = [mine[i] for i in orders[choose(ctx, p, "自分の効果の発動順", labels, cite)]]
        out += mine
    return out


__all__ = ["VERBS", "UNKNOWN"]
