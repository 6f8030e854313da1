"""Card effects: which effects are in force, effective weight, moving cards, triggers, targets,
and the registry `VERBS` that the handlers of the GRM vocabulary's verbs join (verbs.py)."""

from __future__ import annotations

from itertools import permutations
from operator import attrgetter
from typing import Callable, Optional

from ...engine.context import Context, EngineError
from ...engine.trace import Cite
from ...lang.vocab import UNKNOWN, Call, in_words
from .continuous import (  # noqa: F401  (used as fx.… by play and verbs)
    SCOPED,
    mutual,
    mutual_scoped,
    nullified,
    nullified_words,
    nullifier_of,
    permanent_active,
    permanents,
    scope,
    scoped_nullifications,
)
from .state import Card, State, neighbours

_LABEL = attrgetter("label")        # a card's label, for `map` (no generator made per list of cards)

TRIGGERED = ("on_battle", "on_flipped", "battle_replacement")
SINGLE_TARGET = {"self", "battle_opponent", "opponent_card", "own_card", "field_card", "facedown_card",
                 "adjacent_card"}

Handler = Callable[[Context, State, Card, Call, dict], None]
VERBS: dict[str, Handler] = {}


def say(ctx: Context, text: str, *cites: Cite) -> None:
    """A trace step citing each thing once. A rule point's default cites the section that
    defines it, which the step may also name for its own words: the weaker of the two is kept
    (the reading, with its reason), so the answer's status is never raised by the merge."""
    if len(cites) < 2:      # nothing to merge (most steps)
        ctx.step(text, *cites)
        return
    unique: dict[tuple, Cite] = {}
    for c in cites:
        key = (c.kind, c.ref)
        had = unique.get(key)
        # the same citation, or one of the same status, is no weaker: ranks compared otherwise only
        if had is None or (c.status is not had.status and c.status.rank > had.status.rank):
            unique[key] = c
    ctx.step(text, *unique.values())


def card_cites(ctx: Context, card: Card) -> tuple[Cite, ...]:
    """A card's own citation, with the gaps the sources leave about that card (the rulings its
    card file refers to that record a gap): noted with the answer, never relied on."""
    out = [ctx.card_cite(card.code, card.hypothetical)]
    if not card.hypothetical:
        for ref in card.info.card.refs:
            r = ctx.kb.rulings.get(ref.target)
            if r is not None and r.gap:
                out.append(ctx.gap(ref.target))
    return tuple(out)


def verb(name: str):
    def register(fn: Handler) -> Handler:
        VERBS[name] = fn
        return fn
    return register


# ----------------------------------------------------------------------------- what is in force

def lost(ctx: Context, st: State, card: Card, what: str) -> Optional[tuple[str, tuple[Cite, ...]]]:
    """Why the card's permanent effect (`what`, in words) is not in force now — it left the
    field, is face-down, covered or nullified (「永続効果（カードがオモテ向きである限り継続する効果）
    は、裏向き・スタック・無効化のいずれによっても失われる」, grm/effects/kinds) — as (words,
    citations); None while it is in force. Every permanent verb is read through this."""
    kinds = ctx.section("grm/effects/kinds")
    if not st.on_field(card):
        where = ctx.section("grm/state/destruction") if card in st.grave[card.owner] else ctx.section("grm/state/return")
        return (f"{card.label}はフィールドを離れたため、その永続効果（{what}）は終わっている",
                (kinds, where, *card_cites(ctx, card)))
    if card.face == "down":
        return (f"{card.label}は裏向きのため、その永続効果（{what}）は失われている",
                (kinds, ctx.section("grm/state/face"), *card_cites(ctx, card)))
    if not st.is_top(card):
        return (f"{card.label}は下に重なっているため、その永続効果（{what}）は失われている",
                (kinds, ctx.section("grm/stack/definition"), *card_cites(ctx, card)))
    source = nullifier_of(st, card)
    if source is not False:
        return (f"{card.label}は{nullified_words(st, card, source)}ため、その永続効果（{what}）は失われている",
                (kinds, nullify_cite(ctx)[1], *card_cites(ctx, card), *mutual_cites(ctx, st, card, source)))
    return None


def mutual_cites(ctx: Context, st: State, card: Card, source) -> tuple[Cite, ...]:
    return (ctx.ruling("grm/reading/mutual-nullification"),) if mutual(st, card, source) else ()


def nullify_cite(ctx: Context) -> tuple[str, Cite]:
    """What a nullification reaches on the run's day (effects.nullify_scope): all of the card's
    text from the summer-2026 unified ruling, the old classification before it (whose details
    the sources do not give: the knowledge base's reading)."""
    return ctx.point("effects.nullify_scope")


def can_trigger(ctx: Context, st: State, card: Card) -> bool:
    """Whether the card's triggered effects fire: not while it is nullified. Under the
    summer-2026 unified ruling all of its text is blank; before it the old classification
    decided, which the knowledge base reads as reaching triggered effects too (only rule
    effects such as treat-as-weight stayed; grm/effects/classification)."""
    source = nullifier_of(st, card)
    if source is False:
        return True
    reach, cite = nullify_cite(ctx)
    why, also = nullified_words(st, card, source), mutual_cites(ctx, st, card, source)
    if reach == "all_text":
        say(ctx, f"{card.label}は{why}: 全効果テキストが白紙化されているため、その誘発効果は発動しない", cite,
            ctx.section("grm/effects/kinds"), *also)
    else:
        say(ctx, f"{card.label}は{why}ため、その誘発効果は発動しない（旧分類による読み）", cite, *also)
    return False


def weight(ctx: Context, st: State, card: Card, where, quiet: bool = False) -> Optional[float]:
    """The card's weight for a comparison: None when face-down (it has none). `quiet` computes
    it without a step (the 0 kg check before the comparison that will say it)."""
    if card.face == "down":
        return None
    if card.lasting_weight is not None:
        return card.lasting_weight
    for e in card.effects("permanent"):
        for v in e.body or ():
            if v.name != "treat_as_weight" or not st.is_top(card):
                continue
            w = float(v.params["weight"])
            source = nullifier_of(st, card)
            if source is False:
                if not quiet:
                    say(ctx, f"{card.label}は永続効果により体重{_kg(w)}として扱う",
                        ctx.section("grm/effects/kinds"), *card_cites(ctx, card))
                return w
            reach, cite = nullify_cite(ctx)
            why = nullified_words(st, card, source)
            if reach == "by_kind":
                if not quiet:
                    say(ctx, f"{card.label}は{why}が、「体重Ｘとして扱う」ルール効果は効果の種類により残る: "
                        f"体重{_kg(w)}", cite, *mutual_cites(ctx, st, card, source))
                return w
            if not quiet:
                say(ctx, f"{card.label}は{why}: 全効果テキストが白紙化されているため、体重欄本来の体重で扱う", cite,
                    ctx.section("grm/effects/kinds"), *mutual_cites(ctx, st, card, source))
    printed = card.fact("weight")
    if printed is UNKNOWN:
        raise EngineError(
            f"the sources do not give the weight of {card.code}{card.label}, and this question needs it",
            card.loc, f"give it in the scenario: assume card {card.code} {{ weight 50kg }}" if not card.hypothetical
            else f'give the hypothetical card a weight: card "{card.code}" {{ weight 50kg }}', code="missing-weight")
    return float(printed)


def _kg(value) -> str:
    value = float(value)
    return f"{int(value) if value.is_integer() else value}kg"


def ex_limit(ctx: Context, st: State, player: str) -> tuple[Optional[int], list[tuple[str, tuple[Cite, ...]]]]:
    """How many EX cards the player may have on the field (None: no limit), and what decides
    it beyond the rule of one: (the words, the citations) of each effect that changes it or has
    lost its power to. The caller prints them with the check they decide."""
    if st.ex_unlimited:   # the set-up's step says so once; the check cites the rule again
        return None, []
    limit = 1
    why: list[tuple[str, tuple[Cite, ...]]] = []
    if ctx.mode == "tournament":
        why.append(("トーナメントだが、EX制限を撤廃する特別ルールは適用されていない", (ctx.section("grm/ex/tournament"),)))
    lasting = st.ex_limits.get(player)
    if lasting is not None:
        limit, source = lasting
        cites = (ctx.section("grm/ex/limit-change"), *card_cites(ctx, source))
        if source.face == "down" or nullified(st, source) or not st.on_field(source):
            why.append((f"{source.label}の持続効果により{player}のEXカードの上限は{limit}枚"
                        "（持続効果は一度発動すれば、カードの状態変化や無効化によっても失われない）",
                        (*cites, ctx.section("grm/effects/kinds"))))
        else:
            why.append((f"{source.label}の効果により{player}のEXカードの上限は以後{limit}枚", cites))
    for stack in st.cells.values():
        for card in stack:
            if card.owner != player or not card.info.effects:     # most cards: no effect at all
                continue
            for e in card.effects("unspecified"):
                if any(v.name == "ex_limit" for v in e.body or ()):
                    raise _unspecified(card, e)
    for card, v in permanents(st, "ex_limit"):
        if card.owner != player:
            continue
        gone = lost(ctx, st, card, "EXカードの上限")
        if gone is not None:
            why.append(gone)
            continue
        limit = max(limit, int(v.params["limit"]))
        why.append((f"{card.label}の永続効果により{player}のEXカードの上限は{v.params['limit']}枚",
                    (ctx.section("grm/ex/limit-change"), ctx.section("grm/effects/kinds"), *card_cites(ctx, card))))
    for card in st.grave[player]:   # a card that lies there from the start (one that left the field is said above)
        if any(v.name == "ex_limit" for e in card.info.effects or () for v in e.body or ()) \
                and not any(card is c for c, _ in permanents(st, "ex_limit")):
            why.append((f"墓地の{card.label}はゲームに影響を与えない（EXカードの上限を変えない）",
                        (ctx.section("grm/state/destruction"), *card_cites(ctx, card))))
    return limit, why


def _unspecified(card: Card, effect: Call) -> EngineError:
    verbs = " ".join(v.name for v in effect.body or ())
    return EngineError(
        f"the sources do not say when {card.code}{card.label}'s effect ({verbs}) applies, and this question needs it",
        card.loc, f"define it in the scenario, e.g. assume card {card.code} {{ effect on_play {{ {verbs} … }} }}",
        code="unknown-effect")


def ended(ctx: Context, st: State, card: Card, why: str, *cites: Cite) -> None:
    """Say that the card's permanent effects end now (`why`: it turned face-down, was covered,
    left the field), when it has any: from this moment nothing of them applies (grm/effects/kinds)."""
    verbs = []
    for e in card.effects("permanent"):     # loops: most cards have none
        verbs.extend(v for v in e.body or () if v.name != "unknown_effect")
    if not verbs:
        return
    words = "・".join(f"「{_verb_words(ctx, v)}」" for v in verbs)
    say(ctx, f"{card.label}は{why}ため、その永続効果（{words}）はこの時点で終わる", ctx.section("grm/effects/kinds"),
        *cites, *card_cites(ctx, card))


def permanent_nullify(ctx: Context, st: State, card: Card, scoped: bool) -> None:
    """Start the card's permanent nullifications: those over a scope (`scoped`) as it is placed,
    those aimed at one card when its effects resolve (the target is chosen then). A card whose
    own permanent effects are lost starts none, unless the one nullifying it is nullified by
    it in turn (both apply: grm/reading/mutual-nullification)."""
    for e in card.effects("permanent"):
        for v in e.body or ():
            if v.name != "nullify" or (v.params.get("target") in SCOPED) != scoped:
                continue
            source = nullifier_of(st, card)
            if source is not False and not mutual_scoped(st, card, source):
                gone = lost(ctx, st, card, "無効化")
                if gone is not None:
                    say(ctx, gone[0], *gone[1])
                    continue
            run_effect(ctx, st, card, e._replace(body=(v,)), {"controller": card.owner, "trigger": "permanent"})


def settle(ctx: Context, st: State) -> None:
    """After any change of the state: a permanent special victory whose card is in force wins
    at once (「特定の条件を満たした場合、9マスが埋まる前に即時勝利となる」) — the condition is read
    from the state as it stands, so it holds from the moment its card is in force (played, or a
    nullifier gone) and never while the card is face-down, covered or nullified."""
    if st.result:
        return
    for card, _ in permanents(st, "special_victory"):
        if st.on_field(card) and lost(ctx, st, card, "特殊勝利") is None:
            st.winner, st.result = card.owner, "win"
            st.result_note, st.result_rule = f"{card.label}による特殊勝利", "grm/victory/special"
            say(ctx, f"{st.cell_of(card)}の{card.label}の永続効果の条件が満たされている: {card.owner}は即時に特殊勝利する",
                ctx.section("grm/victory/special"), ctx.section("grm/effects/kinds"), *card_cites(ctx, card))
            return


def special_victory_withheld(ctx: Context, st: State, card: Card) -> None:
    """Say why a permanent special victory of a card in play does not win now."""
    for c, _ in permanents(st, "special_victory"):
        if c is card:
            gone = lost(ctx, st, card, "特殊勝利")
            if gone is not None:
                say(ctx, gone[0] + ": 特殊勝利しない", *gone[1], ctx.section("grm/victory/special"))
            return


# ----------------------------------------------------------------------------- moving cards

def exposed(ctx: Context, st: State, cell: str) -> None:
    """After the top of a stack leaves, the card beneath is exposed as it was (grm/stack/face-state)."""
    top = st.top(cell)
    if top is None:
        return
    rule, cite = ctx.point("stack.exposed_face")
    if rule == "face_up" and top.face == "down":
        top.face = "up"
        say(ctx, f"{cell}で新たに一番上となった{top.label}はオモテ向きになる", cite)
    else:
        face = "表向き" if top.face == "up" else "裏向き"
        say(ctx, f"{cell}で新たに一番上となった{top.label}は、それまでの表裏状態（{face}）のまま露出する", cite)


def take_from_field(ctx: Context, st: State, card: Card, verb_ja: str) -> list[Card]:
    """Remove a field card for an effect (destroy, return, send to the graveyard). An effect
    sees only the top of a stack — the cards beneath are treated as absent — so the top card
    alone leaves, and the card beneath is exposed in its own face state (grm/stack/definition,
    grm/stack/face-state: the sources decide this, it is not a reading)."""
    cell = st.cell_of(card)
    stack = st.cells[cell]
    stack.remove(card)
    card.left_field = True
    st.links = [link for link in st.links if link.target != card.uid]
    if card.face == "up":
        ended(ctx, st, card, "フィールドを離れた")
    if stack:
        say(ctx, f"{cell}はスタック: 効果が及ぶのは一番上の{card.label}のみで、{card.label}だけを{verb_ja}"
            "（下に重なったカードは存在しないものとして扱う）", ctx.section("grm/stack/definition"),
            ctx.section("grm/stack/face-state"))
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
            say(ctx, f"{cell}はスタック: 裏返す・オモテにする効果は一番上の{stack[-1].label}のみに作用し、"
                f"下のカードはそれぞれの表裏状態を保つ", cite)
        else:
            targets = list(stack)
            say(ctx, f"{cell}のスタック全体（{len(stack)}枚）が裏返る", cite)
    turned = []
    for c in targets:
        if c.face != face:
            c.face = face
            if face == "down":
                turned.append(c)
    face_ja = "裏向き" if face == "down" else "表向き"
    names = "・".join(map(_LABEL, targets))
    say(ctx, f"{cell}の{names}を{face_ja}にする（{cause}）", *cites)
    for c in turned:
        if st.is_top(c):
            ended(ctx, st, c, "裏向きになった", ctx.section("grm/state/face"))
    return turned


# ----------------------------------------------------------------------------- triggers

def fire(ctx: Context, st: State, trigger: str, cards: list[Card], env: dict) -> None:
    """Run every `trigger` effect of `cards`; simultaneous ones in the order the rules give."""
    pending = []
    for card in cards:
        if not card.effects(trigger) or not can_trigger(ctx, st, card):
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
    """Simultaneous triggered effects: the turn player's first (an unofficial convention the
    source records); the order among one player's own the sources leave to nobody."""
    rule, cite = ctx.point("triggers.simultaneous_order")
    if rule == "active_player_first":
        first = st.active or "P1"
        groups = [[p for p in pending if p[0].owner == first], [p for p in pending if p[0].owner != first]]
        say(ctx, f"同時に発生した誘発効果は、ターンプレイヤー（{first}）側を先に解決する", cite,
            ctx.section("grm/effects/simultaneous-triggers"), ctx.gap("grm/gap/trigger-order-unofficial"))
        out = []
        for group in groups:
            out.extend(_choose_order(ctx, group))
        return out
    say(ctx, "同時に発生した誘発効果の解決順に規定はない: 全ての順を調べる", cite)
    return _choose_order(ctx, pending, cite)


def _choose_order(ctx: Context, items: list, cite: Optional[Cite] = None) -> list:
    """The order of simultaneous triggered effects that no rule orders: nobody is given the
    choice (grm/gap/same-side-trigger-order), so every order is explored."""
    if len(items) <= 1:
        return items
    orders = list(permutations(range(len(items))))
    labels = ["→".join(f"{items[i][0].label}" for i in order) for order in orders]
    pick = ctx.choose(None, "誘発効果の解決順", labels, cite=cite or ctx.gap("grm/gap/same-side-trigger-order"))
    return [items[i] for i in orders[pick]]


def name_chooser(ctx: Context, chooser: Optional[str], label: str, cite: Cite) -> None:
    """A choice a rule gives to `chooser` that cannot change this answer (no effect can react
    to the order): the answer still names who chooses, without exploring every option."""
    ctx.assigned.append((chooser, label, cite))


def run_effect(ctx: Context, st: State, card: Card, effect: Call, env: dict) -> None:
    if effect.name == "unspecified":
        raise _unspecified(card, effect)
    trigger = ctx.kb.games[ctx.game].vocab.label("trigger", effect.name) or effect.name
    actions = list(effect.body or ())
    if "optional" in effect.modifiers:
        rule = ctx.section("grm/effects/optional-mandatory")
        partial, cite = ctx.point("optional.partial_execution")
        if partial == "allowed" and len(actions) > 1:
            say(ctx, f"{card.label}の任意効果（{trigger}）: 複数のアクションのうち一部のみを実行できる", cite, rule)
            kept = []
            for v in actions:
                if ctx.choose(card.owner, f"{card.label}の任意効果「{_verb_words(ctx, v)}」を実行するか",
                              ["実行する", "実行しない"], cite=cite) == 0:
                    kept.append(v)
            actions = kept
            if not kept:
                say(ctx, f"{card.owner}は{card.label}の任意効果のどのアクションも実行しない", rule)
                return
        else:
            if len(actions) > 1:
                say(ctx, f"{card.label}の任意効果（{trigger}）: 全て実行するか、発動しないかを選ぶ", cite, rule)
            if ctx.choose(card.owner, f"{card.label}の任意効果（{trigger}）を発動するか", ["発動する", "発動しない"],
                          cite=rule) == 1:
                say(ctx, f"{card.owner}は{card.label}の任意効果を発動しない", rule)
                return
    mandatory = (ctx.section("grm/effects/optional-mandatory"),) if "mandatory" in effect.modifiers else ()
    say(ctx, f"{card.label}の{'強制' if mandatory else ''}効果（{trigger}）を解決する", *card_cites(ctx, card),
        ctx.section("grm/effects/resolution-order"), *mandatory)
    for v in actions:
        if card.uid in env.get("gone", ()):
            break
        handler = VERBS.get(v.name)
        if handler is None:
            raise EngineError(f"the GRM interpreter has no handler for the verb {v.name}", v.loc)
        handler(ctx, st, card, v, env)
        settle(ctx, st)
        if st.result:
            break


def _verb_words(ctx: Context, call: Call) -> str:
    return in_words(call, ctx.kb.games[ctx.game].vocab)


# ----------------------------------------------------------------------------- targets

def need(card: Card, call: Call, *params: str) -> None:
    for p in params:
        if call.params.get(p) is UNKNOWN:
            raise EngineError(
                f"the sources do not say the {p} of {card.code}{card.label}'s {call.name} effect, and this question needs it",
                card.loc, f"define the effect in the scenario, e.g. assume card {card.code} "
                          "{ effect on_battle { move battle_opponent adjacent_empty } }",
                code="unknown-effect")


def is_name(ctx: Context, selector: str) -> bool:
    """Whether an effect's target names a card (「《X》を破壊する」) rather than a kind of card."""
    return selector not in ctx.kb.games[ctx.game].vocab.enums["selector"].values


def named(ctx: Context, st: State, name: str) -> list[Card]:
    """The field cards an effect naming 《name》 finds: a face-down card has no name, and a
    covered card is treated as absent."""
    found, nameless = [], []
    for cell, c in st.field_cards():
        if c.face == "down":
            nameless.append(cell)
        elif c.name == name:
            found.append(c)
    if nameless:
        say(ctx, f"裏向きのカード（{'・'.join(nameless)}）は名前を持たないため、《{name}》として扱わない",
            ctx.section("grm/state/face"))
    covered = [cell for cell, stack in st.cells.items() if any(c.name == name for c in stack[:-1])]
    if covered:
        say(ctx, f"{'・'.join(covered)}の下に重なった《{name}》は存在しないものとして扱う",
            ctx.section("grm/stack/definition"))
    return found


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
    elif is_name(ctx, selector):
        found = named(ctx, st, selector.strip("《》"))
    else:
        raise EngineError(f"unknown target {selector}", None)
    for c in found:     # a loop, not `any(...)`: a target or a few
        if c.face == "down":
            say(ctx, "裏向きのカードも、フィールド上のカードを対象とする効果の対象にできる", ctx.section("grm/state/face"))
            break
    if card in found:
        rule, cite = ctx.point("self_target", card.code)
        if rule == "forbidden":
            found.remove(card)
            say(ctx, f"{card.label}は自身を対象にできない", cite)
        else:
            extra = (ctx.gap("grm/gap/self-target-list"), ctx.gap("grm/gap/duplicated-lines")) \
                if cite.kind == "section" else ()
            say(ctx, f"{card.label}は自身も対象に選べる（テキストの読みどおり）", cite, *extra)
    return found


def targets(ctx: Context, st: State, card: Card, call: Call, env: dict, param: str = "target") -> list[Card]:
    need(card, call, param)
    selector = call.params[param]
    found = candidates(ctx, st, card, selector, env)
    if not found:
        say(ctx, f"{card.label}の効果の対象がない", ctx.section("grm/effects/optional-mandatory"))
        return []
    if selector in SINGLE_TARGET or is_name(ctx, selector):
        labels = [f"{st.cell_of(c)}{c.label if c.face == 'up' else '（裏向き）'}" for c in found]
        return [found[ctx.choose(env.get("controller", card.owner), f"{card.label}の効果の対象", labels,
                                 cite=ctx.card_cite(card.code, card.hypothetical))]]
    return order_targets(ctx, st, found)


def order_targets(ctx: Context, st: State, found: list[Card]) -> list[Card]:
    """Several cards targeted at once: the targeted player chooses the order
    (grm/effects/resolution-order); explored only when an effect can react to it."""
    if len(found) <= 1:
        return found
    owners = {c.owner for c in found}
    chooser = owners.pop() if len(owners) == 1 else None
    rule = ctx.section("grm/effects/resolution-order")
    who = f"対象側のプレイヤー（{chooser}）" if chooser else "対象側のプレイヤー（両者のカードが対象: 選ぶプレイヤーの規定はない）"
    if not any(c.effects(t) for c in found for t in TRIGGERED):
        say(ctx, f"同一の効果で複数のカードが同時に対象となった: {who}が解決順を選ぶ（どの順でも結果は変わらない）", rule)
        name_chooser(ctx, chooser, "対象の解決順", rule)
        return found
    say(ctx, f"同一の効果で複数のカードが同時に対象となった: {who}が解決順を選ぶ", rule)
    orders = list(permutations(found))
    pick = ctx.choose(chooser, "対象の解決順", ["→".join(f"{st.cell_of(c)}" for c in o) for o in orders], cite=rule)
    return list(orders[pick])


# ----------------------------------------------------------------------------- drawing and discarding


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


