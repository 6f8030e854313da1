"""AP and DP as they stand: the printed value, the resident texts of cards on the field (and of
support cards set on the character), the changes made this turn, and the rule that a value an
effect takes to 0 or below counts as 0."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context, EngineError
from ...engine.trace import Cite, unique_cites
from .common import all_designates_untargetable, card_cite, need
from .state import Card, State, other

STAT_JA = {"ap": "AP", "dp": "DP"}


ALL = ("all_own_characters", "all_opponent_characters")


def resident_targets(st: State, source: Card, selector, untargetable_too: bool = False) -> list[Card]:
    """The characters a resident text of `source` designates (「対象にならない」 ones excluded,
    except the card itself)."""
    owner = source.owner
    if selector == "self":
        return [source] if source.set_on is None and st.on_field(source) else []
    if selector == "set_character":
        found = [source.set_on] if source.set_on is not None else []
    elif selector == "all_own_characters":
        found = st.field(owner)
    elif selector == "all_opponent_characters":
        found = st.field(other(owner))
    elif isinstance(selector, str) and selector not in ("own_character", "opponent_character", "any_character",
                                                         "approaching", "interfering"):
        found = [c for c in st.field(owner) if st.name_of(c) == selector]   # a card name: on one's own field
    elif selector in ("approaching", "interfering"):
        a = st.approach
        card = None if a is None else (a.attacker if selector == "approaching" else a.interferer)
        found = [card] if card is not None and st.on_field(card) else []
    else:
        raise EngineError(f"a resident text of {source.label} designates \"{selector}\": one character to be "
                          "chosen, which a resident text cannot do", source.loc,
                          "use self, set_character, all_own_characters, all_opponent_characters or a card name")
    return [c for c in found if untargetable_too or c.fact("untargetable") is not True]


def resident_changes(ctx: Context, st: State, card: Card, stat: str) -> list[tuple[int, str, Cite]]:
    """Changes to `card`'s stat from resident texts of cards on the field."""
    out = []
    verb = f"{stat}_change"
    for player in ("P1", "P2"):
        for holder in st.field(player):
            for source in (holder, *holder.supports):
                for effect in source.effects:
                    if effect.name != "resident":
                        continue
                    for v in effect.body or ():
                        if v.name != verb:
                            continue
                        if card in resident_targets(st, source, v.params["target"]):
                            out.append((v.params["amount"], f"{source.label}の常駐型テキスト",
                                        card_cite(ctx, source)))
                        elif v.params["target"] in ALL and card in resident_targets(st, source, v.params["target"],
                                                                                 untargetable_too=True):
                            included, cite = all_designates_untargetable(ctx)   # a reading decides it
                            if included:
                                out.append((v.params["amount"], f"{source.label}の常駐型テキスト", cite))
    return out


def stat(ctx: Context, st: State, card: Card, name: str) -> tuple[Optional[int], str, list[Cite]]:
    """(value, words, citations): None when the card has no such value (`ap none`)."""
    base = need(card, name, STAT_JA[name], f"{name} 3")
    if base == "none":
        return None, f"{STAT_JA[name]}なし", []
    changes = resident_changes(ctx, st, card, name)
    resident = bool(changes)
    for uid, s, amount, label in st.mods:
        if uid == card.uid and s == name:
            changes.append((amount, label, ctx.section("pm/effects/duration")))
    if not changes:
        return base, f"{STAT_JA[name]}{base}", []
    cites = unique_cites(c for _, _, c in changes)
    if resident:   # 常駐型テキスト, one of the two kinds; what it means is the knowledge base's reading
        cites += [ctx.section("pm/effects/kinds"), ctx.ruling("pm/gap/effect-kinds")]
    total = base + sum(a for a, _, _ in changes)
    running = base
    for a, _, _ in changes:
        running = max(0, running + a)
    parts = "".join(f"{a:+d}（{label}）" for a, label, _ in changes)
    words = f"{STAT_JA[name]}は{base}{parts}"
    final = max(0, total)
    if final == running:
        if total < 0:
            cites.append(ctx.section("pm/effects/negative-values"))
            return 0, f"{words}＝{total}、0以下なので0", cites
        return total, f"{words}＝{total}", cites
    rule, cite = ctx.point("values.negative_floor")
    cites += [ctx.section("pm/effects/negative-values"), cite]
    if rule == "each_change":
        return running, f"{words}：効果ごとに0以下の値を0にして{running}", cites
    return final, f"{words}＝{total}" + ("、0以下なので0" if total < 0 else "（途中で0以下になっても合計で数える）"), cites
