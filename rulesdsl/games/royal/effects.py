"""Card effects: the targets an activation declares, one handler per verb of the royal vocabulary
(registered in `VERBS`), and what lasts while a royal card is cleared (eternal functions)."""

from __future__ import annotations

from typing import Callable, Optional

from ...engine.context import Context, EngineError, IllegalAction
from ...lang.vocab import UNKNOWN, Call, CardRef, in_words
from .points import reading
from .state import ZONE_JA, Card, Link, State, other
from .victory import check_now

# selector -> (whose, zone); "self" and "responded" are handled apart
SELECTORS = {
    "own_guardian": ("own", "guardian_zone"), "opponent_guardian": ("opp", "guardian_zone"),
    "own_skill": ("own", "skill_zone"), "opponent_skill": ("opp", "skill_zone"),
    "own_royal": ("own", "royal_zone"), "opponent_royal": ("opp", "royal_zone"),
    "own_blank": ("own", "blank_zone"), "opponent_blank": ("opp", "blank_zone"),
}
TARGETED = {"trash", "banish", "cast_off", "stand_off", "unclear", "return_to_extra", "force_plus"}
LASTING_ONLY = {"force_plus"}       # verbs that only make sense as a lasting (eternal) effect

Handler = Callable[[Context, State, Link, Call, Optional[tuple]], None]
VERBS: dict[str, Handler] = {}


def verb(name: str):
    def register(fn: Handler) -> Handler:
        VERBS[name] = fn
        return fn
    return register


def wanted(ref: CardRef) -> tuple[str, bool]:
    """What `matches` compares a card with: the code `ref` names, and whether it names a card of
    the scenario's own (hypothetical); read once by a search over many cards."""
    game, code = ref.key or ("", ref.text)
    return code, game == ""


def matches(card: Card, ref: CardRef) -> bool:
    if card.info is None:
        return False
    code, hypothetical = wanted(ref)
    return card.code == code and card.hypothetical == hypothetical


def card_cite(ctx: Context, card: Card):
    return ctx.card_cite(card.code, card.hypothetical)


# ----------------------------------------------------------------------------- targets

def candidates(st: State, player: str, selector: str) -> list[Card]:
    whose, zone = SELECTORS[selector]
    owner = player if whose == "own" else other(player)
    cards = st.cards(owner, zone)
    if selector == "opponent_royal":
        return [c for c in cards if c.face == "up"]
    if selector in ("own_guardian", "opponent_guardian"):
        return [c for c in st.cards(owner, "guardian_zone") + st.cards(owner, "skill_zone") if c.kind == "guardian"]
    return list(cards)


def declare_targets(ctx: Context, st: State, link: Link, refs: list[CardRef], effect: Optional[Call]) -> None:
    """The targets of each verb, declared when the card is activated: the cards the action names,
    in order, else the controller's choice among the candidates. `responded` is the link answered."""
    refs = list(refs)
    if link.answers is not None:
        refs = [r for r in refs if not matches(link.answers.card, r) and not matches(link.answers.text_card, r)]
    for v in (effect.body if effect else ()) or ():
        target = v.params.get("target")
        if v.name not in TARGETED or target is None:
            link.targets.append(None)
            continue
        if target == "self":
            link.targets.append((link.card, link.card.zone, None))
        elif target == "responded":
            answered = link.answers
            if answered is None:
                raise IllegalAction(f"{link.text_card.label}の効果は応答した発動を対象にとるが、{link.words}は何にも応答していない",
                                    card_cite(ctx, link.text_card))
            # the two terms split the activations between them: skill cards are cast off, guardians
            # and royal cards stood off
            if v.name == "cast_off" and answered.card.kind != "skill":
                raise IllegalAction(f"キャストオフできるのは相手のスキルカードの発動だけである（{answered.words}は対象にできない。"
                                    "ガーディアン・ロイヤルカードの効果の発動を無効にするのはスタンドオフ）",
                                    ctx.section("royal/terms/cast-off"), also=(ctx.section("royal/terms/stand-off"),))
            if v.name == "stand_off" and answered.card.kind not in ("guardian", "royal"):
                raise IllegalAction(f"スタンドオフできるのはガーディアン・ロイヤルカードの効果の発動だけである（{answered.words}は対象にできない。"
                                    "スキルカードの発動を無効にするのはキャストオフ）",
                                    ctx.section("royal/terms/stand-off"), also=(ctx.section("royal/terms/cast-off"),))
            link.targets.append((answered.card, answered.card.zone, answered))
        else:
            pool = candidates(st, link.player, target)
            given = next((r for r in refs if any(matches(c, r) for c in pool)), None)
            if given is None and refs and v is _first_targeted(effect):
                named = refs[0]
                raise IllegalAction(f"《{named.text}》は{link.text_card.label}の効果の対象にできない"
                                    f"（対象は{_selector_words(ctx, target)}）", card_cite(ctx, link.text_card))
            if given is not None:
                refs.remove(given)
                card = next(c for c in pool if matches(c, given))
            elif not pool:
                card = None
                ctx.step(f"{link.text_card.label}の効果の対象となるカード（{_selector_words(ctx, target)}）がない",
                         card_cite(ctx, link.text_card), *_no_target_cites(ctx))
            else:
                i = ctx.choose(link.player, f"{link.text_card.label}の効果の対象", [c.label for c in pool],
                           card_cite(ctx, link.text_card))
                card = pool[i]
            link.targets.append((card, card.zone, None) if card else None)


def _first_targeted(effect: Call) -> Optional[Call]:
    return next((v for v in effect.body or () if v.name in TARGETED and v.params.get("target") in SELECTORS), None)


def _selector_words(ctx: Context, selector: str) -> str:
    return ctx.kb.games[ctx.game].vocab.enum_label("selector", selector) or selector


def _no_target_cites(ctx: Context):
    _, cite = ctx.point("effect.no_target")
    return (cite,)


# ----------------------------------------------------------------------------- resolution

def resolve_effect(ctx: Context, st: State, link: Link, effect: Optional[Call]) -> None:
    if effect is None:
        ctx.step(f"{link.words}の内容は場面に書かれていない（処理の中身は問わない）", card_cite(ctx, link.text_card))
        return
    body = effect.body or ()
    gone = [i for i, v in enumerate(body) if link.targets[i] is not None and not _present(st, link.targets[i])] \
        + [i for i, v in enumerate(body) if v.name in TARGETED and v.params.get("target") not in ("self",)
           and link.targets[i] is None]
    if gone:
        how, cite = reading(ctx, st.readings, "effect.no_target")
        if how == "whole_fizzles":
            ctx.step(f"{link.words}の対象がないため、効果全体が処理されない", cite)
            return
    for i, v in enumerate(body):
        if v.name in LASTING_ONLY:
            raise EngineError(f"{link.text_card.label}: `{v.name}` is a lasting effect; it can only be written in an "
                              "eternal_function (エターナルファンクション)", v.loc,
                              "write it as `effect eternal_function { … }`, or give the one-time effect instead")
        if i in gone:
            _, cite = ctx.point("effect.no_target")
            ctx.step(f"{link.words}の「{_words(ctx, v)}」は、対象がないため処理されない", cite)
            continue
        handler = VERBS.get(v.name)
        if handler is None:
            raise EngineError(f"the royal interpreter has no handler for the verb {v.name}", v.loc)
        handler(ctx, st, link, v, link.targets[i])
        if st.result:
            return


def _present(st: State, target: tuple) -> bool:
    card, zone, answered = target
    if answered is not None:
        return answered in st.chain and not answered.negated
    return card.zone == zone


def _words(ctx: Context, v: Call) -> str:
    return in_words(v, ctx.kb.games[ctx.game].vocab, card_name=lambda r: f"《{r.text}》")


@verb("nothing")
def _nothing(ctx, st, link, v, target):
    ctx.step(f"{link.words}: 何もしない", card_cite(ctx, link.text_card))


@verb("printed")
def _printed(ctx, st, link, v, target):
    ctx.step(f"{link.words}: 「{v.params['text']}」を処理する（書かれた文のまま。盤面には反映しない）",
             card_cite(ctx, link.text_card))


@verb("condition")
def _condition(ctx, st, link, v, target):
    ctx.step(f"{link.words}の条件「{v.params['text']}とき」は満たされているものとする（場面の前提）",
             card_cite(ctx, link.text_card))


def _players(link: Link, who: str) -> list[str]:
    """The players a verb's `who` (you / opponent / each) names, from the activating player."""
    return {"you": [link.player], "opponent": [other(link.player)], "each": [link.player, other(link.player)]}[who]


@verb("draw")
def _draw(ctx, st, link, v, target):
    for p in _players(link, v.params.get("who") or "you"):
        draw(ctx, st, p, v.params["count"], card_cite(ctx, link.text_card))


def draw(ctx: Context, st: State, player: str, count: int, *cites) -> None:
    """An effect's draw: from the top of the main deck; an empty deck is a reading (draw.empty_deck)."""
    drawn = 0
    for _ in range(count):
        if st.deck_top(player) is None:
            how, cite = reading(ctx, st.readings, "draw.empty_deck")
            if how == "refill" and st.cards(player, "blank_zone"):
                refill(ctx, st, player, cite)
            if not st.cards(player, "main_deck"):
                if how != "refill" and st.cards(player, "blank_zone"):
                    # the refill is written only for the charge phase: checked, and not applied here
                    ctx.step(f"{player}のメインデッキが0枚のため、残り{count - drawn}枚はドローできない"
                             "（ブランクゾーンのカードをデッキに戻してシャッフルするのはチャージフェイズの手順）",
                             cite, ctx.section("royal/phase/charge"))
                else:
                    ctx.step(f"{player}のメインデッキが0枚のため、残り{count - drawn}枚はドローできない", cite)
                break
        st.move(st.deck_top(player), "hand")
        drawn += 1
    if drawn:
        unknown = "" if st.deck_given[player] else "（メインデッキの中身は場面に書かれていない）"
        ctx.step(f"{player}はカードを{drawn}枚ドローする{unknown}: 手札{len(st.cards(player, 'hand'))}枚", *cites)


def refill(ctx: Context, st: State, player: str, *cites) -> None:
    """ブランクゾーンのカードをデッキに戻してシャッフルする (royal/phase/charge); which cards is a reading."""
    scope, cite = reading(ctx, st.readings, "charge.refill_scope")
    back = [c for c in st.cards(player, "blank_zone")
            if scope == "all_cards" or c.kind not in ("guardian", "royal")]
    for c in back:
        st.move(c, "main_deck")
    kept = len(st.cards(player, "blank_zone"))
    ctx.step(f"{player}はブランクゾーンのカード{len(back)}枚をメインデッキに戻してシャッフルする"
             + (f"（ガーディアンカード{kept}枚はブランクゾーンに残る）" if kept else "")
             + "（どのカードを引くかはシャッフルによる）",
             ctx.section("royal/phase/charge"), cite, *cites)


@verb("trash")
def _trash(ctx, st, link, v, target):
    card = target[0]
    to_blank(ctx, st, card, f"{link.words}で{card.owner}の{card.label}をトラッシュする",
             ctx.section("royal/terms/trash"), card_cite(ctx, link.text_card))


@verb("banish")
def _banish(ctx, st, link, v, target):
    card = target[0]
    leave_field(ctx, st, card)
    st.move(card, "lost_zone")
    ctx.step(f"{link.words}で{card.owner}の{card.label}をバニッシュする（ロストゾーンに置く）",
             *banished(ctx), card_cite(ctx, link.text_card))


def banished(ctx: Context) -> tuple:
    """What puts a banished card in the lost zone: バニッシュ (ゲームから除外する事。ロストゾーンに置かれる)
    and the zone itself (ゲームから除外されたカードを置く場所)."""
    return ctx.section("royal/terms/banish"), ctx.section("royal/zones/lost-zone")


@verb("return_to_extra")
def _return_to_extra(ctx, st, link, v, target):
    card = target[0]
    leave_field(ctx, st, card)
    st.move(card, "extra_deck")
    ctx.step(f"{link.words}で{card.owner}の{card.label}をEXデッキに戻す", card_cite(ctx, link.text_card))


@verb("unclear")
def _unclear(ctx, st, link, v, target):
    card = target[0]
    unclear(ctx, st, card, f"{link.words}で", card_cite(ctx, link.text_card))


@verb("cast_off")
def _cast_off(ctx, st, link, v, target):
    answered: Link = target[2]
    answered.negated = True
    card = answered.card
    where = "ブランクゾーンに送る"
    if card.zone != "blank_zone":
        st.move(card, "blank_zone")
    else:
        where = "ブランクゾーンに置いたままとする（バニッシュされない）"
    cites = [ctx.section("royal/terms/cast-off"), card_cite(ctx, link.text_card)]
    if answered.ability == "soul_skill":
        cites.append(ctx.ruling("royal/gap/soul-phase-trigger"))
    ctx.step(f"{link.words}で{answered.words}（チェーン{answered.n}）をキャストオフする: 発動は無効になり、{card.label}を{where}",
             *cites)


@verb("stand_off")
def _stand_off(ctx, st, link, v, target):
    answered: Link = target[2]
    answered.negated = True
    card = answered.card
    if card.kind == "royal":
        ctx.step(f"{link.words}で{answered.words}（チェーン{answered.n}）をスタンドオフする: 発動は無効になる",
                 ctx.section("royal/terms/stand-off"), card_cite(ctx, link.text_card))
        unclear(ctx, st, card, "スタンドオフにより", ctx.section("royal/terms/stand-off"))
    else:
        ctx.step(f"{link.words}で{answered.words}（チェーン{answered.n}）をスタンドオフする: 発動は無効になる",
                 ctx.section("royal/terms/stand-off"), card_cite(ctx, link.text_card))
        if card.zone in ("guardian_zone", "skill_zone"):
            to_blank(ctx, st, card, f"スタンドオフにより{card.owner}の{card.label}をブランクゾーンに送る",
                     ctx.section("royal/terms/stand-off"))


@verb("set")
def _set(ctx, st, link, v, target):
    source = v.params["source"]
    pool = [c for c in st.cards(link.player, source) if c.kind != "royal"]
    cite = card_cite(ctx, link.text_card)
    if not pool:
        ctx.step(f"{link.player}の{ZONE_JA[source]}にセットできるカードがない", cite)
        return
    if len(st.cards(link.player, "skill_zone")) >= 5:
        ctx.step(f"{link.player}のスキルゾーンはすでに5枚あるため、セットできない", ctx.section("royal/zones/skill-zone"), cite)
        return
    i = ctx.choose(link.player, f"{ZONE_JA[source]}からセットするカード", [c.label for c in pool], cite)
    card = pool[i]
    st.move(card, "skill_zone")
    ctx.step(f"{link.player}は{ZONE_JA[source]}の{card.label}をスキルゾーンにセットする（効果は発動されない）",
             ctx.section("royal/terms/set"), cite)


@verb("damage")
def _damage(ctx, st, link, v, target):
    for p in _players(link, v.params["who"]):
        damage(ctx, st, p, v.params["amount"], card_cite(ctx, link.text_card))


# ----------------------------------------------------------------------------- shared moves

def damage(ctx: Context, st: State, player: str, amount: int, *cites) -> None:
    """Damage and life: the source never says in words that damage lowers life (damage.life)."""
    how, cite = reading(ctx, st.readings, "damage.life")
    before = st.life[player]
    st.damage[player] += amount
    st.life[player] = before - amount if how == "by_amount" else max(0, before - amount)
    start = () if st.life_given[player] else (ctx.section("royal/setup/life"),)   # life began at 10 by the rule
    ctx.step(f"{player}は{amount}ダメージを受ける: ライフポイント{before}→{st.life[player]}", *cites, cite, *start)
    check_now(ctx, st)


def to_blank(ctx: Context, st: State, card: Card, text: str, *cites) -> None:
    leave_field(ctx, st, card)
    st.move(card, "blank_zone")
    if card.kind == "skill":    # ブランクゾーン: 破棄されたスキルカードを置く場所
        cites += (ctx.section("royal/zones/blank-zone"),)
    ctx.step(text, *cites)


def leave_field(ctx: Context, st: State, card: Card) -> None:
    """A guardian leaving the field takes its units with it; where they go is a reading."""
    if card.kind == "guardian" and card.zone in ("guardian_zone", "skill_zone") and st.cards(card.owner, "unit"):
        units = list(st.cards(card.owner, "unit"))
        send_units(ctx, st, units, f"{card.label}が場を離れるため、その下のユニット")


def send_units(ctx: Context, st: State, units: list[Card], what: str) -> None:
    if not units:
        return
    dest, cite = reading(ctx, st.readings, "unit.destination")
    for u in units:
        st.move(u, dest)
    ctx.step(f"{what}{'・'.join(u.label for u in units)}を{ZONE_JA[dest]}に置く", ctx.section("royal/terms/unit"), cite)


def unclear(ctx: Context, st: State, card: Card, how: str, *cites) -> None:
    if card.face != "up":
        ctx.step(f"{card.label}はすでに裏側表示である", ctx.section("royal/terms/unclear"), *cites)
        return
    card.face = "down"
    ctx.step(f"{how}{card.owner}の{card.label}をアンクリアする（再び裏側表示に戻す）",
             ctx.section("royal/terms/unclear"), *cites)


# ----------------------------------------------------------------------------- lasting effects

def force(ctx: Context, st: State, card: Card, trace: bool = True) -> int:
    """A guardian's force: its printed force plus what the eternal functions of its owner's
    cleared royal cards give it (royal/royal/eternal-function)."""
    base = card.fact("force")
    if base is UNKNOWN or base is None or not isinstance(base, int):
        raise EngineError(f"the force of {card.label} is not given", card.loc,
                          f"add it to the card: card \"{card.name}\" {{ force N }}")
    total = base
    for royal in st.cards(card.owner, "royal_zone") + st.cards(other(card.owner), "royal_zone"):
        e = royal.effect("eternal_function")
        for v in (e.body if e else ()) or ():
            if v.name != "force_plus":
                continue
            target = v.params["target"]
            applies = (target == "own_guardian" and royal.owner == card.owner) or \
                      (target == "opponent_guardian" and royal.owner != card.owner)
            if not applies:
                continue
            if royal.face != "up":
                if trace:
                    ctx.step(f"{royal.owner}の{royal.label}はクリアーされていない（裏側）ため、そのエターナルファンクション"
                             f"（{card.label}のフォース{v.params['amount']:+d}）は働かない",
                             ctx.section("royal/royal/eternal-function"), card_cite(ctx, royal))
                continue
            total += v.params["amount"]
            if trace:
                ctx.step(f"{royal.owner}の{royal.label}はクリアーされているため、そのエターナルファンクションにより"
                         f"{card.label}のフォースは{v.params['amount']:+d}（{base}→{total}）",
                         ctx.section("royal/royal/eternal-function"), card_cite(ctx, royal))
    return total
