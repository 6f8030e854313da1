"""Paying a card's use cost (pm/cost/*): discard cards from the hand and turn face-up cards of
the point zone face down; their generated costs must reach the use cost, and at least one of
them must share the played card's colour or work. Surplus vanishes (how widely is a reading)."""

from __future__ import annotations

from itertools import combinations
from typing import Optional

from ...engine.context import Context, EngineError
from ...lang.vocab import UNKNOWN, CardRef
from .common import choose, illegal, need
from .state import Card, State

MAX_CANDIDATES = 12


def matches(card: Card, ref: CardRef) -> bool:
    game, code = ref.key or ("", ref.text)
    return card.code == code and card.hypothetical == (game == "")


def shares_colour_or_work(played: Card, paid: list[Card]) -> Optional[bool]:
    """True / False, or None when an unknown colour or work leaves it open."""
    colour, work = played.fact("colour"), played.fact("work")
    open_ = False
    for c in paid:
        for mine, theirs in ((colour, c.fact("colour")), (work, c.fact("work"))):
            if mine is UNKNOWN or theirs is UNKNOWN:
                open_ = True
            elif mine == theirs:
                return True
    return None if open_ else False


def _generated(cards: list[Card]) -> int:
    total = 0
    for c in cards:
        total += need(c, "generated_cost", "generated cost (発生コスト)", "generated_cost 1")
    return total


def payments(ctx: Context, st: State, player: str, card: Card) -> list[tuple[list[Card], list[Card]]]:
    """The ways `player` can pay for `card` now that include no card they could leave out
    (hand cards, point cards). Cards the set-up does not name are not candidates."""
    cost = need(card, "cost", "use cost (使用コスト)", "cost 2")
    hand = [c for c in st.hand[player] if c is not card and not c.filler and c.fact("generated_cost") is not UNKNOWN]
    points = [c for c in st.points[player] if c.face == "up" and not c.filler
              and c.fact("generated_cost") is not UNKNOWN]
    need_ = cost - st.pool[player]
    if cost == 0:
        rule, _ = ctx.point("cost.zero_cost_colour")
        if rule == "not_required":
            return [([], [])]
    pool = hand + points
    if len(pool) > MAX_CANDIDATES:
        raise EngineError(f"{player} has {len(pool)} cards that could pay for {card.label}; too many ways to explore",
                          card.placed, "say which cards pay: list them after the card, e.g. [\"札1\", \"札2\"]")
    mixed_ok = True
    if hand and points:
        mixed_ok = ctx.point("cost.mixed_sources")[0] == "allowed"
    found: list[tuple[Card, ...]] = []
    for n in range(1, len(pool) + 1):
        for combo in combinations(pool, n):
            if any(set(f) <= set(combo) for f in found):
                continue
            in_hand = [c for c in combo if c in hand]
            if not mixed_ok and in_hand and len(in_hand) < len(combo):
                continue
            if _generated(list(combo)) < need_ or shares_colour_or_work(card, list(combo)) is not True:
                continue
            found.append(combo)
    return [([c for c in f if c in hand], [c for c in f if c not in hand]) for f in found]


def pay(ctx: Context, st: State, player: str, card: Card, refs: Optional[tuple]) -> None:
    """Pay for `card` with the cards the scenario names, or let the player choose how."""
    cost = need(card, "cost", "use cost (使用コスト)", "cost 2")
    if not refs:   # not named: the player chooses how to pay
        ways = payments(ctx, st, player, card)
        if not ways:
            raise illegal(f"{player}は{card.label}の使用コスト{cost}を払えない（手札とポイント置き場の表向きのカードで、"
                                "同じ色または作品のカードを含めて足りる組み合わせがない）",
                                ctx.section("pm/cost/amount"), ctx.section("pm/cost/colour"))
        labels = ["・".join(c.label for c in h + p) or "コストなし" for h, p in ways]
        hand, points = ways[choose(ctx, player, f"{card.label}のコストの払い方", labels,
                                   ctx.section("pm/cost/methods"))]
    else:
        hand, points = _named(ctx, st, player, card, refs)
    settle(ctx, st, player, card, cost, hand, points)


def _named(ctx: Context, st: State, player: str, card: Card, refs: tuple) -> tuple[list[Card], list[Card]]:
    hand: list[Card] = []
    points: list[Card] = []
    for ref in refs:
        used = hand + points + [card]
        mine = [c for c in st.hand[player] if matches(c, ref) and c not in used]
        if mine:
            hand.append(mine[0])
            continue
        mine = [c for c in st.points[player] if matches(c, ref) and c not in used]
        if mine:
            if all(c.face == "down" for c in mine):
                raise illegal(f"ポイント置き場の{mine[0].label}は裏向き：裏向きのカードはコストにできない",
                                    ctx.section("pm/cost/from-points"))
            points.append(next(c for c in mine if c.face == "up"))
            continue
        anywhere = [c for c in st.cards if matches(c, ref) and c not in used]
        if not anywhere:
            raise EngineError(f"《{ref.text}》, named to pay for {card.label}, is not in the game", card.placed,
                              f'put it in the set-up: hand {player} ["{ref.text}"] or point {player} "{ref.text}" up')
        where = anywhere[0]
        place = {"main_area": "メインエリア", "support_area": "サポートエリア", "graveyard": "捨て札",
                 "deck": "デッキ", "set": "キャラクターカードにセットされている", "hand": "手札",
                 "point_zone": "ポイント置き場"}.get(st.place_of(where), "場")
        whose = "相手の" if where.owner != player else ""
        raise illegal(f"{where.label}は{whose}{place}にある：コストにできるのは自分の手札とポイント置き場のカードだけ",
                            ctx.section("pm/cost/methods"), ctx.section("pm/cost/from-hand"),
                            ctx.section("pm/cost/from-points"))
    return hand, points


def settle(ctx: Context, st: State, player: str, card: Card, cost: int, hand: list[Card], points: list[Card]) -> None:
    paid = hand + points
    cites = [ctx.section("pm/cost/amount")]
    if hand:
        cites.append(ctx.section("pm/cost/from-hand"))
    if points:
        cites.append(ctx.section("pm/cost/from-points"))
    if hand and points:
        rule, cite = ctx.point("cost.mixed_sources")
        if rule == "forbidden":
            raise illegal("1回のコストを手札とポイント置き場の両方から払うことはできない（どちらか一方から払う）",
                                ctx.section("pm/cost/methods"), cite)
        cites += [ctx.section("pm/cost/methods"), cite]   # the two ways are listed; combining them is a reading
    if not paid:
        if cost > 0:
            raise illegal(f"{card.label}の使用コストは{cost}：コストとするカードがない"
                                "（コストとしたカードの中に同じ色または作品のカードを1枚以上含む必要もある）",
                                *cites, ctx.section("pm/cost/colour"))
        rule, cite = ctx.point("cost.zero_cost_colour")
        if rule == "required":
            raise illegal(f"使用コスト0の{card.label}でも、同じ色または作品のカードを1枚以上コストにしなければならない",
                                ctx.section("pm/cost/colour"), cite)
        ctx.step(f"{card.label}の使用コストは0：コストを払わずにプレイする", ctx.section("pm/cost/colour"), cite)
        st.generated = 0
        return
    generated = _generated(paid)
    pool = st.pool[player]
    if generated + pool < cost:
        kept = f"と残っていた余剰{pool}" if pool else ""
        raise illegal(f"{'・'.join(c.label for c in paid)}の発生コストは合わせて{generated}{kept}：使用コスト{cost}に足りない",
                            *cites)
    share = shares_colour_or_work(card, paid)
    if share is None:
        unknown = [c for c in (card, *paid) if c.fact("colour") is UNKNOWN and c.fact("work") is UNKNOWN] or [card]
        raise EngineError(f"whether the cost includes a card of {card.label}'s colour or work is open: the colour or work of "
                          f"{unknown[0].label} is not given", unknown[0].loc,
                          f'give it in the scenario: card "{unknown[0].name}" {{ colour "赤"; work "作品A" }}',
                          code="unknown-fact")
    if not share:
        raise illegal(f"コストとした{'・'.join(c.label for c in paid)}の中に、{card.label}と同じ色"
                            f"（{_fact(card, 'colour')}）または作品（{_fact(card, 'work')}）のカードが1枚もない",
                            ctx.section("pm/cost/colour"))
    cites.append(ctx.section("pm/cost/colour"))
    for c in hand:
        st.hand[player].remove(c)
        st.grave[player].append(c)
    for c in points:
        c.face = "down"
    parts = []
    if hand:
        parts.append(f"手札の{'・'.join(c.label for c in hand)}を捨て札にし")
    if points:
        parts.append(f"ポイント置き場の{'・'.join(c.label for c in points)}を裏向きにし")
    used_pool = f"（残っていた余剰{pool}を含む）" if pool else ""
    ctx.step(f"{player}は{card.label}のコストとして{'、'.join(parts)}、コスト{generated}を発生させる{used_pool}"
             f"（使用コスト{cost}）", *cites)
    st.generated = generated
    st.pool[player] = 0
    surplus = generated + pool - cost
    if surplus > 0:
        rule, cite = ctx.point("cost.surplus_scope")
        if rule == "every_payment" or points:
            ctx.step(f"余剰に発生したコスト{surplus}はその場で消滅する", ctx.section("pm/cost/surplus"), cite)
        else:
            st.pool[player] = surplus
            ctx.step(f"手札だけから払ったので、余剰のコスト{surplus}はその場では消滅せず、このターンの{player}の次の支払いに充てられる",
                     ctx.section("pm/cost/surplus"), cite)


def _fact(card: Card, name: str) -> str:
    v = card.fact(name)
    return "不明" if v is UNKNOWN else str(v)

