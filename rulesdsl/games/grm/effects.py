"""Card effects: which effects are in force, effective weight, targets, and one handler per verb
of the GRM vocabulary (registered in `VERBS`)."""

from __future__ import annotations

from itertools import permutations
from typing import Callable, Optional

from ...engine.context import Context, EngineError
from ...vocab import UNKNOWN, Call
from .state import Card, Link, State, neighbours, other

TRIGGERED = ("on_battle", "on_flipped", "battle_replacement")
SINGLE_TARGET = {"self", "battle_opponent", "opponent_card", "own_card", "field_card", "facedown_card",
                 "adjacent_card"}

Handler = Callable[[Context, State, Card, Call, dict], None]
VERBS: dict[str, Handler] = {}


def verb(name: str):
    def register(fn: Handler) -> Handler:
        VERBS[name] = fn
        return fn
    return register


# ----------------------------------------------------------------------------- what is in force

def nullified(st: State, card: Card, _seen: Optional[set] = None) -> bool:
    """Whether a nullification currently applies to the card (a one-shot one, or a permanent
    one whose source is itself in force)."""
    if card.nullified:
        return True
    seen = _seen or set()
    for link in st.links:
        if link.target != card.uid or link.source in seen:
            continue
        if link.source is None:
            return True  # a one-shot nullification lasts
        source = next((c for _, c in st.field_cards() if c.uid == link.source), None)
        if source is not None and source.face == "up" and not nullified(st, source, seen | {card.uid}):
            return True
    return False


def permanent_active(st: State, card: Card) -> bool:
    """Permanent effects last while the card is face-up, on top of its cell and not nullified
    (grm/effects/kinds)."""
    return card.face == "up" and st.is_top(card) and not nullified(st, card)


def can_trigger(ctx: Context, st: State, card: Card) -> bool:
    """Triggered effects of a nullified card do not fire: under the summer-2026 unified ruling
    all of its text is blank, and before it nullification reached triggered effects too
    (only rule effects such as treat-as-weight stayed; grm/effects/classification)."""
    return not nullified(st, card)


def weight(ctx: Context, st: State, card: Card, where) -> Optional[float]:
    """The card's weight for a comparison: None when face-down (it has none)."""
    if card.face == "down":
        return None
    if card.lasting_weight is not None:
        return card.lasting_weight
    for e in card.effects("permanent"):
        for v in e.body or ():
            if v.name != "treat_as_weight" or not st.is_top(card):
                continue
            if not nullified(st, card):
                ctx.step(f"{card.label}は永続効果により体重{_kg(v.params['weight'])}として扱う",
                         ctx.section("grm/effects/kinds"), ctx.card_cite(card.code, card.hypothetical))
                return float(v.params["weight"])
            scope, cite = ctx.point("effects.nullify_scope")
            if scope == "by_kind":
                ctx.step(f"{card.label}は無効化されているが、「体重Ｘとして扱う」ルール効果は効果の種類により残る: "
                         f"体重{_kg(v.params['weight'])}", cite)
                return float(v.params["weight"])
            ctx.step(f"{card.label}は無効化され全効果テキストが白紙化されているため、体重欄本来の体重で扱う", cite,
                     ctx.section("grm/effects/kinds"))
    printed = card.fact("weight")
    if printed is UNKNOWN:
        raise EngineError(
            f"the sources do not give the weight of {card.code}{card.label}, and this question needs it",
            card.loc, f"give it in the scenario: card {card.code} {{ weight 50kg }}" if not card.hypothetical
            else f'give the hypothetical card a weight: card "{card.code}" {{ weight 50kg }}', code="missing-weight")
    return float(printed)


def _kg(value) -> str:
    value = float(value)
    return f"{int(value) if value.is_integer() else value}kg"


def ex_limit(ctx: Context, st: State, player: str) -> Optional[int]:
    """How many EX cards the player may have on the field (None: no limit)."""
    if st.ex_unlimited:
        return None
    limit = st.ex_limits.get(player, 1)
    for card in (c for stack in st.cells.values() for c in stack):
        if card.owner != player:
            continue
        for e in card.effects():
            for v in e.body or ():
                if v.name == "ex_limit":
                    if e.name == "unspecified":
                        raise _unspecified(card, e)
                    if e.name == "permanent" and not permanent_active(st, card):
                        why = "裏向き" if card.face == "down" else ("下に重なっている" if not st.is_top(card)
                                                                   else "無効化されている")
                        ctx.step(f"{card.label}は{why}ため、その永続効果（EXカードの上限）は失われている",
                                 ctx.section("grm/effects/kinds"))
                    elif e.name == "permanent":
                        limit = max(limit, int(v.params["limit"]))
                        ctx.step(f"{card.label}の永続効果により{player}のEXカードの上限は{v.params['limit']}枚",
                                 ctx.section("grm/ex/limit-change"), ctx.ruling("grm/gap/no013-ex-limit"))
    return limit


def _unspecified(card: Card, effect: Call) -> EngineError:
    verbs = " ".join(v.name for v in effect.body or ())
    return EngineError(
        f"the sources do not say when {card.code}{card.label}'s effect ({verbs}) applies, and this question needs it",
        card.loc, f"define it in the scenario, e.g. card {card.code} {{ effect on_play {{ {verbs} … }} }}",
        code="unknown-effect")


# ----------------------------------------------------------------------------- moving cards

def exposed(ctx: Context, st: State, cell: str) -> None:
    """After the top of a stack leaves, the card beneath is exposed as it was (grm/stack/face-state)."""
    top = st.top(cell)
    if top is None:
        return
    rule, cite = ctx.point("stack.exposed_face")
    if rule == "face_up" and top.face == "down":
        top.face = "up"
        ctx.step(f"{cell}で新たに一番上となった{top.label}はオモテ向きになる", cite)
    else:
        face = "表向き" if top.face == "up" else "裏向き"
        ctx.step(f"{cell}で新たに一番上となった{top.label}は、それまでの表裏状態（{face}）のまま露出する", cite)


def take_from_field(ctx: Context, st: State, card: Card, verb_ja: str) -> list[Card]:
    """Remove a field card for an effect; a stack goes as a whole unless the top card's ruling
    says only it is affected (rule point stack_scope)."""
    cell = st.cell_of(card)
    stack = st.cells[cell]
    if len(stack) > 1 and stack[-1] is card:
        scope, cite = ctx.point("stack_scope", card.code)
        if scope == "whole_stack":
            ctx.step(f"{cell}のスタックは1枚として扱われるため、スタック全体を{verb_ja}", cite)
            taken = list(stack)
            stack.clear()
            return taken
        ctx.step(f"{card.label}はスタック内のこのカードのみが対象となるため、このカードだけを{verb_ja}", cite)
    stack.remove(card)
    exposed(ctx, st, cell)
    return [card]


def to_graveyard(ctx: Context, st: State, cards: list[Card]) -> None:
    for c in cards:
        st.grave[c.owner].append(c)


def flip_cell(ctx: Context, st: State, cell: str, face: str, cause: str, cites=()) -> list[Card]:
    """Flip the card in `cell`; on a stack only the top turns unless a ruling says otherwise.
    Returns the cards turned face-down (their on_flipped effects fire afterwards)."""
    stack = st.cells[cell]
    targets = [stack[-1]]
    if len(stack) > 1:
        scope, cite = ctx.point("stack.flip_scope")
        if scope == "top_only":
            ctx.step(f"{cell}はスタック: 裏返す・オモテにする効果は一番上の{stack[-1].label}のみに作用し、"
                     f"下のカードはそれぞれの表裏状態を保つ", cite)
        else:
            targets = list(stack)
            ctx.step(f"{cell}のスタック全体（{len(stack)}枚）が裏返る", cite)
    turned = []
    for c in targets:
        if c.face != face:
            c.face = face
            if face == "down":
                turned.append(c)
    face_ja = "裏向き" if face == "down" else "表向き"
    names = "・".join(c.label for c in targets)
    ctx.step(f"{cell}の{names}を{face_ja}にする（{cause}）", *cites)
    return turned


# ----------------------------------------------------------------------------- triggers

def fire(ctx: Context, st: State, trigger: str, cards: list[Card], env: dict) -> None:
    """Run every `trigger` effect of `cards`; simultaneous ones in the order the rules give."""
    pending = []
    for card in cards:
        if not can_trigger(ctx, st, card):
            continue
        for e in card.effects(trigger):
            pending.append((card, e))
    if not pending:
        return
    if len(pending) > 1:
        pending = order_simultaneous(ctx, st, pending)
    for card, e in pending:
        with ctx.nested():
            run_effect(ctx, st, card, e, dict(env, controller=card.owner, trigger=trigger))


def order_simultaneous(ctx: Context, st: State, pending: list) -> list:
    rule, cite = ctx.point("triggers.simultaneous_order")
    if rule == "active_player_first":
        first = st.active or "P1"
        groups = [[p for p in pending if p[0].owner == first], [p for p in pending if p[0].owner != first]]
        ctx.step(f"同時に発生した誘発効果は、ターンプレイヤー（{first}）側を先に解決する", cite,
                 ctx.gap("grm/gap/trigger-order-unofficial"))
        out = []
        for group in groups:
            out.extend(_choose_order(ctx, group[0][0].owner if group else None, group))
        return out
    ctx.step("同時に発生した誘発効果の解決順に規定はない: 全ての順を調べる", cite)
    return _choose_order(ctx, None, pending)


def _choose_order(ctx: Context, chooser: Optional[str], items: list) -> list:
    if len(items) <= 1:
        return items
    orders = list(permutations(range(len(items))))
    labels = ["→".join(f"{items[i][0].label}" for i in order) for order in orders]
    pick = ctx.choose(chooser, "誘発効果の解決順", labels)
    return [items[i] for i in orders[pick]]


def run_effect(ctx: Context, st: State, card: Card, effect: Call, env: dict) -> None:
    if effect.name == "unspecified":
        raise _unspecified(card, effect)
    trigger = ctx.kb.games[ctx.game].vocab.label("trigger", effect.name) or effect.name
    actions = list(effect.body or ())
    src = ctx.card_cite(card.code, card.hypothetical)
    if "optional" in effect.modifiers:
        partial, cite = ctx.point("optional.partial_execution")
        if partial == "allowed" and len(actions) > 1:
            kept = []
            for v in actions:
                if ctx.choose(card.owner, f"{card.label}の任意効果「{_verb_words(ctx, v)}」を実行するか",
                              ["実行する", "実行しない"]) == 0:
                    kept.append(v)
            ctx.step(f"{card.label}の任意効果（{trigger}）: 複数のアクションのうち一部のみを実行できる", cite)
            actions = kept
        else:
            if len(actions) > 1:
                ctx.step(f"{card.label}の任意効果（{trigger}）: 全て実行するか、発動しないかを選ぶ", cite)
            if ctx.choose(card.owner, f"{card.label}の任意効果（{trigger}）を発動するか", ["発動する", "発動しない"]) == 1:
                ctx.step(f"{card.owner}は{card.label}の任意効果を発動しない", ctx.section("grm/effects/optional-mandatory"))
                return
    ctx.step(f"{card.label}の効果（{trigger}）を解決する", src, ctx.section("grm/effects/resolution-order"))
    for v in actions:
        if card.uid in env.get("gone", ()):
            break
        handler = VERBS.get(v.name)
        if handler is None:
            raise EngineError(f"the GRM interpreter has no handler for the verb {v.name}", v.loc)
        handler(ctx, st, card, v, env)


def _verb_words(ctx: Context, call: Call) -> str:
    from ...vocab import in_words
    return in_words(call, ctx.kb.games[ctx.game].vocab)


# ----------------------------------------------------------------------------- targets

def need(card: Card, call: Call, *params: str) -> None:
    for p in params:
        if call.params.get(p) is UNKNOWN:
            raise EngineError(
                f"the sources do not say the {p} of {card.code}{card.label}'s {call.name} effect, and this question needs it",
                card.loc, f"define the effect in the scenario, e.g. card {card.code} {{ effect on_battle {{ move battle_opponent adjacent_empty }} }}",
                code="unknown-effect")


def candidates(ctx: Context, st: State, card: Card, selector: str, env: dict) -> list[Card]:
    controller = env.get("controller", card.owner)
    tops = st.field_cards()
    if selector == "self":
        return [card] if st.on_field(card) else []
    if selector == "battle_opponent":
        opp = env.get("opponent")
        return [opp] if opp is not None and st.on_field(opp) else []
    if selector in ("opponent_card", "all_opponent_cards"):
        found = [c for _, c in tops if c.owner != controller]
    elif selector == "own_card":
        found = [c for _, c in tops if c.owner == controller]
    elif selector == "field_card":
        found = [c for _, c in tops]
    elif selector == "facedown_card":
        found = [c for _, c in tops if c.face == "down"]
    elif selector in ("adjacent_card", "all_adjacent_cards"):
        cell = st.cell_of(card)
        near = set(neighbours(cell)) if cell else set()
        found = [c for cell_, c in tops if cell_ in near]
    else:
        raise EngineError(f"unknown target {selector}", None)
    if any(c.face == "down" for c in found):
        ctx.step("裏向きのカードも、フィールド上のカードを対象とする効果の対象にできる", ctx.section("grm/state/face"))
    if card in found:
        rule, cite = ctx.point("self_target", card.code)
        if rule == "forbidden":
            found.remove(card)
            ctx.step(f"{card.label}は自身を対象にできない", cite)
        else:
            extra = (ctx.ruling("grm/gap/self-target-list"),) if cite.kind == "section" else ()
            ctx.step(f"{card.label}は自身も対象に選べる（テキストの読みどおり）", cite, *extra)
    return found


def targets(ctx: Context, st: State, card: Card, call: Call, env: dict, param: str = "target") -> list[Card]:
    need(card, call, param)
    selector = call.params[param]
    found = candidates(ctx, st, card, selector, env)
    if not found:
        ctx.step(f"{card.label}の効果の対象がない", ctx.section("grm/effects/optional-mandatory"))
        return []
    if selector in SINGLE_TARGET:
        labels = [f"{st.cell_of(c)}{c.label if c.face == 'up' else '（裏向き）'}" for c in found]
        return [found[ctx.choose(env.get("controller", card.owner), f"{card.label}の効果の対象", labels)]]
    return order_targets(ctx, st, found)


def order_targets(ctx: Context, st: State, found: list[Card]) -> list[Card]:
    """Several cards targeted at once: the targeted player chooses the order
    (grm/effects/resolution-order); only worth exploring when an effect can react."""
    if len(found) <= 1 or not any(c.effects(t) for c in found for t in TRIGGERED):
        return found
    owners = {c.owner for c in found}
    chooser = owners.pop() if len(owners) == 1 else None
    ctx.step("同一の効果で複数のカードが同時に対象となった: 対象側のプレイヤーが解決順を選ぶ",
             ctx.section("grm/effects/resolution-order"))
    orders = list(permutations(found))
    pick = ctx.choose(chooser, "対象の解決順", ["→".join(f"{st.cell_of(c)}" for c in o) for o in orders])
    return list(orders[pick])


# ----------------------------------------------------------------------------- verbs

@verb("flip")
def _flip(ctx, st, card, call, env):
    for t in targets(ctx, st, card, call, env):
        cell = st.cell_of(t)
        if cell is None:
            continue
        turned = flip_cell(ctx, st, cell, call.params["face"], f"{card.label}の効果",
                           (ctx.card_cite(card.code, card.hypothetical),))
        fire(ctx, st, "on_flipped", turned, {"cause": card})


def _send_to_graveyard(ctx, st, card, call, env, verb_ja: str, said: str, cite) -> None:
    for t in targets(ctx, st, card, call, env):
        if not st.on_field(t):
            continue
        gone = take_from_field(ctx, st, t, verb_ja)
        to_graveyard(ctx, st, gone)
        env.setdefault("gone", set()).update(c.uid for c in gone)
        ctx.step(f"{'・'.join(c.label for c in gone)}{said}", cite)


@verb("destroy")
def _destroy(ctx, st, card, call, env):
    _send_to_graveyard(ctx, st, card, call, env, "破壊する", "は破壊され墓地に送られる",
                       ctx.section("grm/state/destruction"))


@verb("to_graveyard")
def _to_graveyard(ctx, st, card, call, env):
    _send_to_graveyard(ctx, st, card, call, env, "墓地へ送る", "を墓地へ送る",
                       ctx.card_cite(card.code, card.hypothetical))


@verb("bounce")
def _bounce(ctx, st, card, call, env):
    zone = call.params["zone"]
    position = call.params.get("position") or "top"
    for t in targets(ctx, st, card, call, env):
        if not st.on_field(t):
            continue
        gone = take_from_field(ctx, st, t, {"hand": "手札に戻す", "deck": "山札に戻す", "graveyard": "墓地へ送る"}[zone])
        env.setdefault("gone", set()).update(c.uid for c in gone)
        for c in gone:
            c.face = "up"
            if zone == "hand":
                st.hand[c.owner].append(c)
            elif zone == "graveyard":
                st.grave[c.owner].append(c)
            elif position == "bottom":
                st.deck[c.owner].append(c)
            else:
                st.deck[c.owner].insert(0, c)
        ctx.step(f"{'・'.join(c.label for c in gone)}を持ち主の{ {'hand': '手札', 'deck': '山札', 'graveyard': '墓地'}[zone]}に戻す",
                 ctx.section("grm/state/return"))


@verb("move")
def _move(ctx, st, card, call, env):
    need(card, call, "target", "destination")
    for t in targets(ctx, st, card, call, env):
        cell = st.cell_of(t)
        if cell is None:
            continue
        empty = [c for c, s in st.cells.items() if not s]
        if call.params["destination"] == "adjacent_empty":
            near = set(neighbours(cell))
            empty = [c for c in empty if c in near]
        if not empty:
            ctx.step(f"{t.label}の移動先がない", ctx.section("grm/effects/optional-mandatory"))
            continue
        dest = empty[ctx.choose(env.get("controller", card.owner), f"{t.label}の移動先", empty)]
        stack = st.cells[cell]
        moving = list(stack) if len(stack) > 1 and ctx.point("stack_scope", t.code)[0] == "whole_stack" else [t]
        for c in moving:
            stack.remove(c)
        st.cells[dest].extend(moving)
        env.setdefault("moved", set()).update(c.uid for c in moving)
        ctx.step(f"{t.label}を{cell}から{dest}に移動する", ctx.card_cite(card.code, card.hypothetical))
        if stack:
            exposed(ctx, st, cell)


@verb("nullify")
def _nullify(ctx, st, card, call, env):
    lasting_source = card.uid if env.get("trigger") == "permanent" else None
    for t in targets(ctx, st, card, call, env):
        st.links.append(_link(lasting_source, t.uid))
        ctx.step(f"{t.label}の効果を無効化する", ctx.card_cite(card.code, card.hypothetical),
                 ctx.section("grm/effects/kinds"))


def _link(source, target):
    return Link(source=source, target=target)


@verb("draw")
def _draw(ctx, st, card, call, env):
    who = call.params.get("who") or "you"
    players = {"you": [card.owner], "opponent": [other(card.owner)], "each": ["P1", "P2"]}[who]
    for p in players:
        draw(ctx, st, p, int(call.params["count"]), effect=True)


def draw(ctx: Context, st: State, player: str, count: int, effect: bool = False) -> int:
    drawn = 0
    for _ in range(count):
        if not st.deck[player]:
            ctx.step(f"{player}の山札が切れているため、{'ドロー効果' if effect else 'ドロー'}はスキップされる"
                     + (f"（{count}枚中{drawn}枚を引いた）" if count > 1 else ""),
                     ctx.section("grm/turn/draw-phase"),
                     *((ctx.section("grm/effects/optional-mandatory"),) if count > 1 else ()))
            break
        st.hand[player].append(st.deck[player].pop(0))
        drawn += 1
    if drawn:
        ctx.step(f"{player}が{drawn}枚引く", ctx.section("grm/turn/draw-phase"))
    return drawn


@verb("return_cards")
def _return_cards(ctx, st, card, call, env):
    count = int(call.params["count"])
    position = call.params.get("position") or "top"
    player = card.owner
    returned = 0
    for _ in range(count):
        hand = st.hand[player]
        if not hand:
            ctx.step(f"{player}の手札が足りないため、実行可能な範囲で{returned}枚を戻した",
                     ctx.section("grm/effects/optional-mandatory"))
            break
        names = [c.label for c in hand]
        pick = ctx.choose(player, "山札に戻すカード", names)
        c = hand.pop(pick)
        if position == "bottom":
            st.deck[player].append(c)
        else:
            st.deck[player].insert(0, c)
        returned += 1
        ctx.step(f"{player}が{c.label}を山札の{'下' if position == 'bottom' else '上'}に戻す",
                 ctx.card_cite(card.code, card.hypothetical))


@verb("discard")
def _discard(ctx, st, card, call, env):
    who = call.params.get("who") or "you"
    players = {"you": [card.owner], "opponent": [other(card.owner)], "each": ["P1", "P2"]}[who]
    discarded = []
    for p in players:
        for _ in range(int(call.params["count"])):
            if not st.hand[p]:
                break
            pick = ctx.choose(p, "捨てるカード", [c.label for c in st.hand[p]])
            discarded.append(discard(ctx, st, p, st.hand[p][pick], by_hand_limit=False, fire_now=False))
    fire(ctx, st, "on_discard", discarded, {})  # discarded together: their triggers are simultaneous


def discard(ctx: Context, st: State, player: str, c: Card, by_hand_limit: bool, fire_now: bool = True) -> Card:
    st.hand[player].remove(c)
    st.grave[player].append(c)
    sec = ctx.section("grm/effects/discard-triggers")
    if by_hand_limit:
        ctx.step(f"{player}は手札上限超過により{c.label}を捨てる: この捨てでは誘発効果は発動しない", sec)
        return c
    ctx.step(f"{player}が{c.label}を捨てる: 捨てられたカードの誘発効果は発動する", sec)
    if fire_now:
        fire(ctx, st, "on_discard", [c], {})
    return c


@verb("treat_as_weight")
def _treat_as_weight(ctx, st, card, call, env):
    if env.get("trigger") == "permanent":
        return  # read by weight() while the card is in force
    card.lasting_weight = float(call.params["weight"])
    ctx.step(f"{card.label}は以後、体重{_kg(call.params['weight'])}として扱う（持続）", ctx.section("grm/effects/kinds"))


@verb("extra_play")
def _extra_play(ctx, st, card, call, env):
    st.extra_plays += int(call.params["count"])
    ctx.step(f"{card.owner}は追加でカードを{call.params['count']}枚プレイできる（このカードのバトルと効果を完全に解決した後）",
             ctx.section("grm/effects/resolution-order"))


@verb("stack_play")
def _stack_play(ctx, st, card, call, env):
    ctx.step(f"{card.label}は既存のカードの上に重ねてプレイできる", ctx.section("grm/stack/sources"))


@verb("ex_limit")
def _ex_limit(ctx, st, card, call, env):
    if env.get("trigger") == "permanent":
        return  # read by ex_limit() while the card is in force
    st.ex_limits[card.owner] = int(call.params["limit"])
    ctx.step(f"{card.owner}のEXカードの上限は以後{call.params['limit']}枚になる", ctx.section("grm/ex/limit-change"),
             ctx.ruling("grm/gap/no013-ex-limit"))


@verb("special_victory")
def _special_victory(ctx, st, card, call, env):
    st.winner, st.result = card.owner, "win"
    st.result_note = f"{card.label}による特殊勝利"
    ctx.step(f"{card.owner}は{card.label}の効果により特殊勝利する", ctx.section("grm/victory/special"),
             ctx.card_cite(card.code, card.hypothetical))


@verb("unknown_effect")
def _unknown_effect(ctx, st, card, call, env):
    raise EngineError(
        f"the sources do not give what {card.code}{card.label}'s effect does, and this question needs it",
        card.loc, f"define it in the scenario, e.g. card {card.code} {{ effect {env.get('trigger', 'on_play')} {{ draw 1 }} }}; "
                  "an empty block { } says it does nothing here", code="unknown-effect")
