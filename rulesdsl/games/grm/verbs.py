"""The GRM effect verbs: one handler per verb of the vocabulary, registered in `effects.VERBS`
(imported by engine.py, which is what registers them)."""

from __future__ import annotations

from ...engine.context import EngineError
from .effects import (SCOPED, _kg, card_cites, discard, draw, exposed, fire, flip_cell, need, say, scope,
                      take_from_field, targets, to_graveyard, verb)
from .state import Link, neighbours, other


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
        take_from_field(ctx, st, t, verb_ja)
        to_graveyard(ctx, st, [t])
        env.setdefault("gone", set()).add(t.uid)
        say(ctx, f"{t.label}{said}", cite)


@verb("destroy")
def _destroy(ctx, st, card, call, env):
    _send_to_graveyard(ctx, st, card, call, env, "破壊する", "は破壊され墓地に送られる",
                       ctx.section("grm/state/destruction"))


@verb("to_graveyard")
def _to_graveyard(ctx, st, card, call, env):
    _send_to_graveyard(ctx, st, card, call, env, "墓地へ送る", "を墓地へ送る",
                       ctx.card_cite(card.code, card.hypothetical))


_ZONES = {"hand": ("手札に戻す", "手札", "grm/state/return"), "deck": ("山札に戻す", "山札", "grm/state/return"),
          "graveyard": ("墓地へ送る", "墓地", "grm/state/destruction")}


@verb("bounce")
def _bounce(ctx, st, card, call, env):
    zone = call.params["zone"]
    position = call.params.get("position") or "top"
    verb_ja, zone_ja, section = _ZONES[zone]
    for t in targets(ctx, st, card, call, env):
        if not st.on_field(t):
            continue
        take_from_field(ctx, st, t, verb_ja)
        env.setdefault("gone", set()).add(t.uid)
        t.face = "up"
        if zone == "hand":
            st.hand[t.owner].append(t)
        elif zone == "graveyard":
            st.grave[t.owner].append(t)
        elif position == "bottom":
            st.deck[t.owner].append(t)
        else:
            st.deck[t.owner].insert(0, t)
        where = {"top": "の一番上", "bottom": "の一番下"}.get(position, "") if zone == "deck" else ""
        say(ctx, f"{t.label}を持ち主の{zone_ja}{where}に{'送る' if zone == 'graveyard' else '戻す'}",
            ctx.section(section))


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
            say(ctx, f"{t.label}の移動先がない", ctx.section("grm/effects/optional-mandatory"))
            continue
        dest = empty[ctx.choose(env.get("controller", card.owner), f"{t.label}の移動先", empty,
                                cite=ctx.card_cite(card.code, card.hypothetical))]
        stack = st.cells[cell]
        moving = [t]
        if len(stack) > 1:
            scope, cite = ctx.point("stack_scope", t.code)
            if scope == "whole_stack":
                moving = list(stack)
                say(ctx, f"{cell}のスタックは1枚として扱われるため、スタック全体（{len(stack)}枚）が移動する", cite,
                    ctx.section("grm/stack/definition"))
            else:
                say(ctx, f"{t.label}はスタック内のこのカードのみが対象となるため、このカードだけが移動する", cite,
                    ctx.section("grm/stack/definition"), *card_cites(ctx, t))
        for c in moving:
            stack.remove(c)
        st.cells[dest].extend(moving)
        env.setdefault("moved", set()).update(c.uid for c in moving)
        say(ctx, f"{t.label}を{cell}から{dest}に移動する", *card_cites(ctx, card))
        if stack:
            exposed(ctx, st, cell)


@verb("nullify")
def _nullify(ctx, st, card, call, env):
    lasting_source = card.uid if env.get("trigger") == "permanent" else None
    if lasting_source is not None and call.params.get("target") in SCOPED:
        # a permanent effect over a scope: applied as the field stands, for as long as it lasts
        reached = scope(st, card, st.cell_of(card), call.params["target"])
        words = ctx.kb.games[ctx.game].vocab.enums["selector"].values[call.params["target"]]
        now = "・".join(f"{st.cell_of(c)}{c.label if c.face == 'up' else '（裏向き）'}" for c in reached) or "なし"
        say(ctx, f"{card.label}の永続効果: {words}の効果を無効化する（いま及ぶカード: {now}）。"
            f"{card.label}がオモテ向きで一番上にあり無効化されていない限り、後から範囲に入るカードにも及び、"
            "その条件が終われば無効化も終わる", *card_cites(ctx, card), ctx.section("grm/effects/kinds"))
        return
    for t in targets(ctx, st, card, call, env):
        st.links.append(_link(lasting_source, t.uid))
        say(ctx, f"{t.label}の効果を無効化する", *card_cites(ctx, card), ctx.section("grm/effects/kinds"))


def _link(source, target):
    return Link(source=source, target=target)


@verb("draw")
def _draw(ctx, st, card, call, env):
    who = call.params.get("who") or "you"
    players = {"you": [card.owner], "opponent": [other(card.owner)], "each": ["P1", "P2"]}[who]
    for p in players:
        draw(ctx, st, p, int(call.params["count"]), effect=True)


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
        pick = ctx.choose(player, "山札に戻すカード", names, cite=ctx.card_cite(card.code, card.hypothetical))
        c = hand.pop(pick)
        if position == "bottom":
            st.deck[player].append(c)
        else:
            st.deck[player].insert(0, c)
        returned += 1
        say(ctx, f"{player}が{c.label}を山札の{'下' if position == 'bottom' else '上'}に戻す",
            *card_cites(ctx, card))


@verb("discard")
def _discard(ctx, st, card, call, env):
    who = call.params.get("who") or "you"
    players = {"you": [card.owner], "opponent": [other(card.owner)], "each": ["P1", "P2"]}[who]
    discarded = []
    for p in players:
        for _ in range(int(call.params["count"])):
            if not st.hand[p]:
                break
            pick = ctx.choose(p, "捨てるカード", [c.label for c in st.hand[p]],
                              cite=ctx.card_cite(card.code, card.hypothetical))
            discarded.append(discard(ctx, st, p, st.hand[p][pick], by_hand_limit=False, fire_now=False))
    fire(ctx, st, "on_discard", discarded, {})  # discarded together: their triggers are simultaneous


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
    st.ex_limits[card.owner] = (int(call.params["limit"]), card)
    say(ctx, f"{card.owner}のEXカードの上限は以後{call.params['limit']}枚になる", ctx.section("grm/ex/limit-change"),
        *card_cites(ctx, card))


@verb("special_victory")
def _special_victory(ctx, st, card, call, env):
    st.winner, st.result = card.owner, "win"
    st.result_note, st.result_rule = f"{card.label}による特殊勝利", "grm/victory/special"
    say(ctx, f"{card.owner}は{card.label}の効果により特殊勝利する", ctx.section("grm/victory/special"),
        *card_cites(ctx, card))


@verb("unknown_effect")
def _unknown_effect(ctx, st, card, call, env):
    raise EngineError(
        f"the sources do not give what {card.code}{card.label}'s effect does, and this question needs it",
        card.loc, f"define it in the scenario, e.g. assume card {card.code} {{ effect {env.get('trigger', 'on_play')} {{ draw 1 }} }}; "
                  "an empty block { } says it does nothing here", code="unknown-effect")
