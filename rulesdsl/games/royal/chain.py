"""Casting and standing, and the chain: who may answer which activation (speed, the kind of
ability, whose turn), the links in the order they are activated, and their resolution from the
last activated (royal/chain/lifo). Responses a scenario does not fix are the players' choices."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context, IllegalAction
from ...engine.trace import Cite, unique_cites
from ...lang.vocab import CardRef
from . import effects as fx
from .points import reading
from .royals import clear_candidates, clear_check, mission_words
from .state import ABILITY_JA, KIND_JA, PHASE_JA, SKILL_ZONE_MAX, ZONE_JA, Card, Link, State, other

MAGIC = ("magic_skill", "magic_effect", "magic_function")
TRIGGER = ("trigger_skill", "trigger_effect", "trigger_function")
SOUL = ("soul_skill", "soul_effect")
CAST = ("magic_skill", "trigger_skill", "soul_skill", "soul_effect")
SECTION = {"magic_skill": "royal/skill/magic-skill", "trigger_skill": "royal/skill/trigger-skill",
           "soul_skill": "royal/skill/soul-skill", "magic_effect": "royal/guardian/magic-effect",
           "trigger_effect": "royal/guardian/trigger-effect", "soul_effect": "royal/guardian/soul-effect",
           "eternal_function": "royal/royal/eternal-function", "magic_function": "royal/royal/magic-function",
           "trigger_function": "royal/royal/trigger-function"}
KIND_OF = {"magic_skill": "skill", "trigger_skill": "skill", "soul_skill": "skill", "magic_effect": "guardian",
           "trigger_effect": "guardian", "soul_effect": "guardian", "eternal_function": "royal",
           "magic_function": "royal", "trigger_function": "royal"}
KIND_SPEED = {"skill": 1, "guardian": 2, "royal": 3}
# where an ability is cast from, and in which phases one of one's own turn is activated (the others: cast, summon)
HOME = {"magic_skill": "hand", "trigger_skill": "hand", "soul_skill": "blank_zone", "soul_effect": "blank_zone"}
PHASES_OF = {"magic_skill": ("cast",), "soul_skill": ("soul",), "soul_effect": ("soul",)}

Refusal = tuple   # (message, the rule that forbids it, further rules the refusal rests on…)
VERB_SECTION = {"cast": "royal/terms/cast", "stand": "royal/terms/stand"}
TEXTS = {"skill": ("スキル", ("royal/skill/overview", "royal/cards/skill")),
         "guardian": ("エフェクト", ("royal/guardian/effects",))}


# ----------------------------------------------------------------------------- speed

def speed_of(ctx: Context, st: State, card: Card, ability: str, unit: Optional[Card] = None) -> tuple[int, list[Cite]]:
    """The speed of an activation (royal 3, guardian 2, skill 1) and the readings it rests on."""
    cites: list[Cite] = []
    if unit is not None:
        how, cite = reading(ctx, st.readings, "speed.unit")
        cites.append(cite)
        return (2 if how == "guardian" else 1), cites
    if ability in SOUL:
        how, cite = reading(ctx, st.readings, "speed.soul")
        cites.append(cite)
        if how == "one":
            return 1, cites
    return KIND_SPEED[KIND_OF[ability]], cites


def slower(ctx: Context, st: State, new: tuple[int, str], old: Link) -> tuple[bool, list[Cite]]:
    """Whether `new` (speed, ability) is slower than the link `old`. Within one speed, whether a
    trigger is faster than a magic is a reading (speed.levels)."""
    if new[0] != old.speed[0]:
        return new[0] < old.speed[0], []
    levels, cite = reading(ctx, st.readings, "speed.levels")
    if levels == "trigger_above_magic":
        return (new[1] not in TRIGGER and old.ability in TRIGGER), [cite]
    return False, [cite]


# ----------------------------------------------------------------------------- legality

def answered_link(st: State, player: str, refs: list[CardRef]) -> Optional[Link]:
    """The link a response answers: the opponent's link the action names, else the opponent's
    most recent one."""
    theirs = []
    for l in st.chain:
        if l.player != player:
            theirs.append(l)
    for ref in refs:
        named = [l for l in theirs if fx.matches(l.card, ref) or fx.matches(l.text_card, ref)]
        if named:
            return named[-1]
    return theirs[-1] if theirs else None


def check(ctx: Context, st: State, player: str, card: Card, ability: str, how: str,
          unit: Optional[Card], refs: list[CardRef]) -> tuple[Optional[Link], int, list[Refusal], list[Cite]]:
    """Whether `player` may activate `ability` of `card` now: (the link it answers, its speed,
    the refusals, the rules checked). Checks in the order a judge would give the reason."""
    refuse: list[Refusal] = []
    cites: list[Cite] = [ctx.section(SECTION[ability]), ctx.section(VERB_SECTION[how])]
    if unit is not None:    # the guardian stands the effect its unit's equip card gives it
        cites += [ctx.section("royal/terms/unit"), ctx.section("royal/cards/equip")]
    what = f"{card.label}の{ABILITY_JA[ability]}" if unit is None else f"{card.label}のユニット{unit.label}の{ABILITY_JA[ability]}"

    if st.result:
        refuse.append((f"ゲームはすでに終了している（{st.result_note}）", ctx.section("royal/victory/conditions")))
        return None, 0, refuse, cites
    # cast or stand, and from where
    if ability == "eternal_function":
        refuse.append(("エターナルファンクションはクリアーされている限り続く効果であり、スタンドするものではない",
                       ctx.section("royal/royal/eternal-function")))
    want = "cast" if ability in CAST else "stand"
    if how != want:
        refuse.append((f"{what}は{'キャスト' if want == 'cast' else 'スタンド'}するものである（キャストは手札・ブランクゾーンのカード、"
                       "スタンドはガーディアンゾーン・ロイヤルゾーンのカード）", ctx.section("royal/play/cast-vs-stand")))
    kind = card.kind
    need = KIND_OF[ability]
    if unit is None and kind != need:
        if kind == "equip" and need == "skill":
            refuse.append((f"{card.label}はイグイップカード: キャストするのではなく手札からセットする", ctx.section("royal/cards/equip")))
        elif kind is not None and isinstance(kind, str):
            refuse.append((f"{card.label}は{KIND_JA.get(kind, kind)}であり、{ABILITY_JA[ability]}を持たない", ctx.section("royal/play/cast-vs-stand")))
    home = HOME.get(ability)
    if home and card.zone != home:
        where = "手札" if home == "hand" else "ブランクゾーン"
        refuse.append((f"{what}は{where}からキャストする（{card.label}は{ZONE_JA[card.zone]}にある）",
                       ctx.section("royal/play/cast-vs-stand"), ctx.section("royal/terms/cast")))
    if need == "guardian" and ability != "soul_effect" and card.zone not in ("guardian_zone", "skill_zone"):
        refuse.append((f"{card.label}は場に出ていない: スタンドできるのは場に出ているガーディアンの効果である",
                       ctx.section("royal/terms/stand")))
    if need == "royal" and not (card.zone == "royal_zone" and card.face == "up"):
        refuse.append((f"{card.label}はクリアーされていない: スタンドできるのはクリアーされているロイヤルカードの効果である",
                       ctx.section("royal/terms/stand")))
    if card.owner != player:
        refuse.append((f"{card.label}は{card.owner}のカードである", ctx.section("royal/play/cast-vs-stand")))

    # the chain: what it answers
    answered: Optional[Link] = None
    speed, speed_cites = speed_of(ctx, st, card, ability, unit)
    if not st.chain:
        if ability in TRIGGER:
            if st.last_set is not None and any(fx.matches(st.last_set, r) for r in refs):
                refuse.insert(0, (f"{st.last_set.label}はキャストではなくセットされた: セットに対して相手はトリガーを使用できない",
                                  ctx.section("royal/cards/equip")))
            else:
                refuse.append((f"{ABILITY_JA[ability]}は相手のカードの発動に対して発動するが、応答する発動がない",
                               ctx.section(SECTION[ability])))
    else:
        answered = answered_link(st, player, refs)
        if ability in MAGIC or ability in SOUL:
            mode, cite = reading(ctx, st.readings, "response.magic")
            cites.append(cite)
            if mode == "forbidden":
                # the reading rests on the ability's own section, which says only when it is used
                refuse.append((f"{ABILITY_JA[ability]}は他のカードの発動に対して発動できない（チェーン{st.chain[-1].n}が処理を待っている）",
                               cite, ctx.section(SECTION[ability])))
        if answered is None:
            refuse.append(("応答する相手の発動がない（チェーンにあるのは自分の発動だけ）", ctx.section("royal/speed/levels")))
        else:
            if ability in TRIGGER and answered.ability in TRIGGER:
                refuse.insert(0, (f"相手のトリガー（{answered.words}）にトリガーを発動することはできない",
                                  ctx.section("royal/speed/no-trigger-on-trigger")))
            elif ability == "trigger_skill":
                if answered.ability in ("magic_function", "trigger_function", "eternal_function"):
                    refuse.append((f"ロイヤルカードのスタンド（{answered.words}）に合わせてトリガースキルは発動できない",
                                   ctx.section("royal/royal/function")))
                elif answered.ability == "soul_skill":
                    allowed, cite = reading(ctx, st.readings, "trigger_skill.soul_phase")
                    cites.append(cite)
                    if allowed != "allowed":
                        refuse.append(("ソウルスキルはキャストオフすることができず、ソウルフェイズにトリガースキルを発動できるのは"
                                       "ソウルスキルをキャストオフする場合だけである", cite))
                elif answered.ability != "magic_skill":
                    refuse.append((f"トリガースキルはマジックスキルのキャストに対してキャストする（{answered.words}には応答できない）",
                                   ctx.section("royal/skill/trigger-skill")))
            if answered.player == player:
                refuse.append(("自分の発動には応答できない", ctx.section(SECTION[ability])))
            reference = answered
            if st.chain[-1] is not answered:
                ref_mode, cite = reading(ctx, st.readings, "chain.speed_reference")
                cites.append(cite)
                if ref_mode == "top":
                    reference = st.chain[-1]
            too_slow, level_cites = slower(ctx, st, (speed, ability), reference)
            cites += speed_cites + level_cites
            cites.append(ctx.section("royal/speed/levels"))
            if too_slow:
                refuse.append((f"{what}（スピード{speed}）は{reference.words}（チェーン{reference.n}・スピード{reference.speed[0]}）"
                               "より遅い: カードの発動に対してはそのカードのスピード以上のカードしか発動できない",
                               ctx.section("royal/speed/levels")))
            for earlier in st.chain:    # the player's first answer to this link, if any (a loop, not a list)
                if earlier.answers is answered and earlier.player == player:
                    break
            else:
                earlier = None
            if earlier is not None:
                many, cite = reading(ctx, st.readings, "chain.multiple_responses")
                cites.append(cite)
                if many == "one_per_link":
                    refuse.append((f"{answered.words}にはすでに{earlier.words}で応答している", cite))

    # whose turn, which phase
    mine = st.active == player
    # a skill card's own section also says on whose turn each of its skills is used (スキルカード)
    kind_rule = ("royal/cards/skill",) if ability in ("magic_skill", "trigger_skill") else ()
    if ability in MAGIC or ability in SOUL:
        if not mine:
            refuse.append((f"{ABILITY_JA[ability]}は自分のターンに発動する（いまは{st.active}のターン）", ctx.section(SECTION[ability]),
                           *(ctx.section(r) for r in kind_rule)))
        allowed_phases = PHASES_OF.get(ability, ("cast", "summon"))
        if st.phase not in allowed_phases:
            # the phase's own rule: casting from the hand in the cast phase, grave effects in the soul phase
            phase_rule = {"magic_skill": ("royal/phase/cast",), "soul_skill": ("royal/phase/soul",),
                          "soul_effect": ("royal/phase/soul",)}.get(ability, ())
            refuse.append((f"{ABILITY_JA[ability]}を発動できるのは{'・'.join(PHASE_JA[p] for p in allowed_phases)}"
                           f"（いまは{PHASE_JA.get(st.phase or '', 'フェイズの外')}）", ctx.section(SECTION[ability]),
                           *(ctx.section(r) for r in phase_rule)))
    elif ability in TRIGGER:
        if mine:
            refuse.append((f"{ABILITY_JA[ability]}は相手ターンに発動する（いまは{player}自身のターン）", ctx.section(SECTION[ability]),
                           *(ctx.section(r) for r in kind_rule)))
        if ability == "trigger_skill" and st.phase not in ("cast", "soul"):
            refuse.append((f"トリガースキルは相手ターンのキャストフェイズに（ソウルスキルをキャストオフする場合はソウルフェイズに）キャストする"
                           f"（いまは{PHASE_JA.get(st.phase or '', 'フェイズの外')}）", ctx.section("royal/skill/trigger-skill")))
        if ability == "trigger_skill" and st.phase == "cast":
            cites.append(ctx.gap("royal/gap/cast-turn"))

    # once per turn, same names, the skill zone's room
    name_key = card.name
    if ability == "magic_skill" and (player, "magic_skill", name_key) in st.used:
        refuse.append((f"同名カード{card.label}のマジックスキルはこのターンすでにキャストしている: 同名カードの効果は1ターンに1枚しかキャストできない",
                       ctx.section("royal/skill/magic-skill")))
    elif ability == "trigger_skill" and (player, "trigger_skill", name_key) in st.used:
        refuse.append((f"同名カード{card.label}のトリガースキルはこのターンすでにキャストしている: 同名カードは1ターンに1度しかキャストできない",
                       ctx.section("royal/skill/trigger-skill-duration")))
        cites.append(ctx.section("royal/skill/trigger-skill-duration"))
    elif ability in ("magic_effect", "trigger_effect", "magic_function", "trigger_function"):
        source = unit or card
        if (player, ability, source.uid) in st.used:
            turn = "このターン" if ability.startswith("magic") else "この相手ターン"
            refuse.append((f"{what}は{turn}すでにスタンドしている: 1ターンに1度", ctx.section(SECTION[ability])))
    if ability in ("magic_skill", "trigger_skill") and card.zone == "hand":
        n = len(st.cards(player, "skill_zone"))
        cites.append(ctx.section("royal/zones/skill-zone"))
        if n >= SKILL_ZONE_MAX:
            refuse.append((f"{player}のスキルゾーンにはすでに{n}枚ある: スキルゾーンに置けるのは最大5枚", ctx.section("royal/zones/skill-zone")))
    return answered, speed, refuse, unique_cites(cites)


def refused(refuse: list[Refusal]) -> IllegalAction:
    """The answer to a forbidden activation: every reason, with every rule each rests on."""
    cites = unique_cites([c for r in refuse for c in r[1:]])
    return IllegalAction("；".join(r[0] for r in refuse), cites[0], also=cites[1:])


# ----------------------------------------------------------------------------- activating

def activate(ctx: Context, st: State, player: str, card: Card, ability: str, how: str,
             refs: list[CardRef], unit: Optional[Card] = None, untouched: bool = False) -> Link:
    """Put the activation on the chain, or refuse it. `untouched`: nothing of the state has
    changed in the action so far (the action is this activation), so a refusal says so
    (IllegalAction.untouched): `check` changes nothing but an unspecified point's reading, taken
    once per run."""
    answered, speed, refuse, cites = check(ctx, st, player, card, ability, how, unit, refs)
    if refuse:
        e = refused(refuse)
        e.untouched = untouched
        raise e
    text_card = unit or card
    if unit is None and card.texts_used and ability not in card.texts_used and card.kind in TEXTS:
        noun, rules = TEXTS[card.kind]
        ctx.step(f"{card.label}はすでに{'・'.join(ABILITY_JA[a] for a in card.texts_used)}を使ったカードだが、1枚のカードには"
                 f"3つの{noun}があり、{ABILITY_JA[ability]}はそれとは別に使える", *(ctx.section(r) for r in rules))
    if unit is None and ability not in card.texts_used:
        card.texts_used += (ability,)
    link = Link(len(st.chain) + 1, player, card, text_card, ability, how, (speed, ability), answers=answered)
    effect = text_card.effect(ability)
    if unit is not None:
        fx.send_units(ctx, st, [unit], f"{card.label}はユニット")
    fx.declare_targets(ctx, st, link, refs, effect)
    if ability in ("magic_skill", "trigger_skill"):
        st.move(card, "skill_zone")
        card.lasting = ability == "trigger_skill"
    link.origin = card.zone
    if ability in ("magic_skill", "trigger_skill"):
        st.used.add((player, ability, card.name))
    elif ability not in SOUL:
        st.used.add((player, ability, text_card.uid))
    st.last_set = None
    st.chain.append(link)
    st.passed = set()
    verb = "キャスト" if how == "cast" else "スタンド"
    against = (f"{answered.words}（チェーン{answered.n}・スピード{answered.speed[0]}）に対して" if answered else "")
    where = "（スキルゾーンに置く）" if ability in ("magic_skill", "trigger_skill") else ""
    ctx.step(f"チェーン{link.n}: {player}が{against}{link.what}（スピード{speed}）を{verb}する{where}",
             *cites, fx.card_cite(ctx, text_card))
    if ability == "trigger_skill":
        ctx.step(f"{card.label}はキャストした後、次の{player}のターンのエンドフェイズまでスキルゾーンに残る",
                 ctx.section("royal/skill/trigger-skill-duration"))
    return link


def responses(ctx: Context, st: State, player: str) -> list[tuple[Card, str, Optional[Card]]]:
    """What `player` could activate now in answer to the chain (for the unfixed-response choice).
    Only abilities the scenario writes out are offered."""
    found = []
    pool: list[tuple[Card, str, Optional[Card]]] = []
    for c in st.cards(player, "hand"):
        for ab in ("trigger_skill", "magic_skill"):
            if c.effect(ab) is not None:
                pool.append((c, ab, None))
    g = st.guardian(player)
    if g is not None:
        for ab in ("trigger_effect", "magic_effect"):
            if g.effect(ab) is not None:
                pool.append((g, ab, None))
        for u in st.cards(player, "unit"):
            for ab in ("trigger_effect", "magic_effect"):
                if u.effect(ab) is not None:
                    pool.append((g, ab, u))
    for r in st.faced_up_royals(player):
        for ab in ("trigger_function", "magic_function"):
            if r.effect(ab) is not None:
                pool.append((r, ab, None))
    seen = set()
    for card, ab, unit in pool:
        key = (card.name, ab, unit.name if unit else None) if ab.endswith("skill") else (card.uid, ab, unit.uid if unit else None)
        if key in seen:
            continue
        seen.add(key)
        how = "cast" if ab in CAST else "stand"
        _, _, refuse, _ = check(ctx, st, player, card, ab, how, unit, [])
        if not refuse:
            found.append((card, ab, unit))
    return found


def pass_(ctx: Context, st: State, player: str) -> None:
    if not st.chain:
        ctx.step(f"{player}は応答しない（処理を待つ発動はない）", ctx.section("royal/speed/levels"), kind="choice")
        return
    st.passed.add(player)
    ctx.step(f"{player}はチェーン{len(st.chain)}（{st.chain[-1].words}）に応答しない", ctx.section("royal/speed/levels"),
             kind="choice")
    for p in (st.active or "P1", other(st.active or "P1")):     # a loop, not `all(...)`: two players
        if p not in st.passed and responses(ctx, st, p):
            return
    resolve(ctx, st)


def close(ctx: Context, st: State) -> None:
    """Before anything else happens, the open chain is answered or resolves: a player who has not
    passed and could still respond chooses whether to (and with what)."""
    while st.chain and not st.result:
        last = st.chain[-1].player
        progressed = False
        for p in (other(last), last):
            if p in st.passed:
                continue
            options = responses(ctx, st, p) if not st.passive else []
            if not options:
                st.passed.add(p)
                continue
            labels = ["応答しない"] + [_option(c, ab, u) for c, ab, u in options]
            i = ctx.choose(p, f"チェーン{len(st.chain)}（{st.chain[-1].words}）に応答するか", labels,
                       ctx.section("royal/speed/levels"))
            if i == 0:
                st.passed.add(p)
                continue
            card, ab, unit = options[i - 1]
            activate(ctx, st, p, card, ab, "cast" if ab in CAST else "stand", [], unit)
            progressed = True
            break
        if not progressed:
            resolve(ctx, st)


def _option(card: Card, ability: str, unit: Optional[Card]) -> str:
    via = f"（ユニット{unit.label}）" if unit else ""
    return f"{card.label}{via}の{ABILITY_JA[ability]}"


# ----------------------------------------------------------------------------- resolving

def resolve(ctx: Context, st: State) -> None:
    links = list(reversed(st.chain))
    words = []      # a loop: a chain of a link or a few
    for l in links:
        words.append(f"{l.n}. {l.words}（スピード{l.speed[0]}）")
    stack = "／".join(words)
    cites = [ctx.section("royal/chain/lifo")]
    if len(links) >= 2:
        cites.append(ctx.section("royal/chain/example"))
    ctx.step(f"チェーンを最後に発動したカードから処理する（上から）: {stack}", *cites)
    waiting: list[Card] = []    # royal cards whose mission was met between two links
    while st.chain and not st.result:
        link = st.chain[-1]
        resolve_link(ctx, st, link)
        st.chain.pop()
        met = clear_candidates(ctx, st) if st.chain and not st.result else []
        if met:
            when, cite = reading(ctx, st.readings, "clear_check.after_effect")
            if when == "after_each_link":
                clear_check(ctx, st, f"チェーン{link.n}の効果処理後", cite)
                continue
            new = [r for r in met if r not in waiting]
            if new:
                waiting += new
                ctx.step(f"チェーン{link.n}の処理後、{'・'.join(f'{r.owner}の{r.label}' for r in new)}のミッションは達成されているが、"
                         "クリアーチェック（カードの効果処理後）はチェーン全体の処理の後に行う",
                         ctx.section("royal/royal/clear-timing"), cite)
    st.chain.clear()
    st.passed = set()
    if st.result:
        return
    if waiting:
        now = clear_candidates(ctx, st)
        for r in waiting:
            if r.face == "down" and r not in now:
                ctx.step(f"カードの効果処理後のクリアーチェック: {r.owner}の{r.label}のミッション（{mission_words(r)}）は"
                         "もう達成されていないため、クリアーできない", ctx.section("royal/royal/clear-check"),
                         ctx.section("royal/royal/clear-timing"), ctx.section("royal/royal/trial-mission"))
    clear_check(ctx, st, "カードの効果処理後")


def resolve_link(ctx: Context, st: State, link: Link) -> None:
    if link.negated:
        what = "キャストオフ" if link.card.kind == "skill" else "スタンドオフ"
        ctx.step(f"チェーン{link.n}: {link.words}は{what}されたため処理されない",
                 ctx.section("royal/terms/cast-off" if what == "キャストオフ" else "royal/terms/stand-off"))
        return
    card = link.card
    left = card.zone != link.origin or (card.kind == "royal" and card.face != "up")
    if left:
        how, cite = reading(ctx, st.readings, "chain.source_left")
        if how == "no_effect":
            ctx.step(f"チェーン{link.n}: {link.words}は、発動した{card.label}が処理までに{ZONE_JA[link.origin]}を離れたため処理されない",
                     cite)
            _after(ctx, st, link)
            return
        ctx.step(f"チェーン{link.n}: {card.label}は{ZONE_JA[link.origin]}を離れたが、発動した効果は処理される", cite)
    ctx.step(f"チェーン{link.n}: {link.words}を処理する", ctx.section("royal/chain/lifo"))
    fx.resolve_effect(ctx, st, link, link.text_card.effect(link.ability))
    st.resolved.append(link.text_card)
    _after(ctx, st, link)


def _after(ctx: Context, st: State, link: Link) -> None:
    card = link.card
    if link.ability == "soul_skill" and card.zone == "blank_zone":
        st.move(card, "lost_zone")
        ctx.step(f"キャストしたソウルスキルの{card.label}をブランクゾーンからバニッシュする（ロストゾーンに置く）",
                 ctx.section("royal/skill/soul-skill"), ctx.section("royal/phase/soul"), *fx.banished(ctx),
                 ctx.gap("royal/gap/cast-definition"))   # 【キャスト】 names no skill card of the blank zone
    elif link.ability == "soul_effect" and card.zone == "blank_zone":
        where, cite = reading(ctx, st.readings, "guardian.soul_effect_after")
        if where == "banished":
            st.move(card, "lost_zone")
            ctx.step(f"ソウルエフェクトをキャストした{card.label}をバニッシュする（ロストゾーンに置く）", cite, *fx.banished(ctx))
        else:
            ctx.step(f"ソウルエフェクトをキャストした{card.label}はブランクゾーンに残る", cite)
