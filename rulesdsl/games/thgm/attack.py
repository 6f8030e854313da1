"""The attack, first part: the declaration (place, means, strength, target; distance against
range). Then rolls.py (the dice: the sum of the two highest, rerolls, looking at the dice),
abilities.py (the spell card and FUE, コウモリ変化) and result.py (the defense and the three
results). Each step cites the rule section that makes it true; where 001 is silent the engine
reads a rule point.

Dice the scenario leaves open are kept as an exact distribution (see `dice`) and split only where
a rule asks a question of them: the comparison with the defense, コウモリ変化's check for a
repeated face, a player who looks at the dice before choosing.
"""

from __future__ import annotations

from typing import Any

from ...engine.context import Context, EngineError
from ...engine.trace import unique_cites
from ...lang.vocab import UNKNOWN, Call
from .state import ROW_JA, Attack, Char, Side, State
from .turn import check_place, illegal, reach, where

DISTANCE = {("front", "front"): 1, ("front", "back"): 2, ("back", "front"): 2, ("back", "back"): 3}
MIN_STRENGTH = {"two": 2, "one": 1}


def char_at(st: State, player: str, row: str, col: int, loc, who: str = "character") -> Char:
    check_place(col, loc)
    char = st.side(player).at(row, col)
    if char is None:
        raise EngineError(f"{player} has no {who} at {where(row, col)} ({ROW_JA[row]} {col})", loc,
                          f"add it to the set-up: character {player} {row} {col} down \"…\"")
    return char


# ----------------------------------------------------------------------------- attack means

def means_of(ctx: Context, st: State, char: Char) -> list[tuple[str, Any, Any, Any]]:
    """The attack means a character can use: (name, strength, range, citation). Printed ones,
    then those its own abilities give it (thgm/abilities/own-means)."""
    printed = char.fact("attack_means")
    out = []
    if printed is UNKNOWN:
        out.append(None)
    else:
        names = printed.get("names", ())
        if names and names[0] is UNKNOWN:
            out.append(None)
        else:
            strengths, ranges = printed.get("strengths", ()), printed.get("ranges", ())
            for i, name in enumerate(names):
                out.append((name, strengths[i] if i < len(strengths) else UNKNOWN,
                            ranges[i] if i < len(ranges) else UNKNOWN, ctx.section("thgm/card/attack-means")))
    gained = [v for trig, v in char.verbs("gain_attack_means") if trig == "sp"]
    gained += [v for h, v in st.turn_effects if h is char and v.name == "gain_attack_means"]
    for v in gained:
        out.append((v.params["name"], v.params.get("strength", UNKNOWN), v.params.get("range", UNKNOWN),
                    ctx.section("thgm/abilities/own-means")))
    return out


def _missing(char: Char, what: str, example: str) -> EngineError:
    loc = char.loc or char.placed
    name = char.name if char.info is not None else "…"
    return EngineError(f"{what} of {char.label} is not given by the sources or the scenario", loc,
                       f'supply it in the scenario: card "{name}" {{ {example} }}')


# ----------------------------------------------------------------------------- declaration

def declare(ctx: Context, st: State, call: Call) -> None:
    p = call.params
    player = p["player"]
    reach(ctx, st, player, "attack", "declaration")
    if st.attack is not None and st.attack.rolled:
        raise illegal(st, "declaration", f"{player}はこのターンすでに攻撃している: 攻撃宣言はターンに１回",
                      ctx.section("thgm/turn/attack"), ctx.section("thgm/turn/end"))
    attacker = char_at(st, player, p["row"], p["column"], call.loc, "attacking character")
    target_player = p["target"]
    target = char_at(st, target_player, p["target_row"], p["target_column"], call.loc, "character to attack")
    decl = ctx.section("thgm/attack/declaration")
    place = (p["row"], p["column"])
    ctx.step(f"{player}は{where(*place)}の{attacker.label}で、{p['means']}（強さ{p['strength']}D）により"
             f"{target_player}の{where(p['target_row'], p['target_column'])}の{target.label}を攻撃すると宣言する", decl)
    if target_player == player:
        raise illegal(st, "declaration", "攻撃対象となるキャラは自分以外のプレイヤーの場にいるキャラ: 自分の場のキャラは攻撃できない",
                      ctx.section("thgm/attack/target"))
    if attacker.injured:
        raise illegal(st, "declaration", f"{attacker.label}は負傷状態: 攻撃宣言で選べるのは負傷状態ではないキャラ",
                      ctx.section("thgm/turn/attack"))
    # the means and its strength
    means = means_of(ctx, st, attacker)
    found = [m for m in means if m is not None and m[0] == p["means"]]
    if not found and None in means:
        raise _missing(attacker, "the attack means", f'attack_means "{p["means"]}" {p["strength"]}d 1')
    if not found:
        names = "、".join(m[0] for m in means if m is not None) or "なし"
        cites = [ctx.section("thgm/card/attack-means")]
        if any(v for _, _, ch in st.side(player).chars() if ch is not attacker
               for _, v in ch.verbs("gain_attack_means") if v.params.get("name") == p["means"]):
            cites.insert(0, ctx.section("thgm/abilities/own-means"))
            names += "（能力で攻撃手段を得るのは能力を持っているキャラ自身だけ）"
        raise illegal(st, "declaration", f"{attacker.label}は攻撃手段「{p['means']}」を持たない（使える攻撃手段: {names}）", *cites)
    name, printed, reach_, cite = found[0]
    strength = p["strength"]
    if strength < 1:
        raise EngineError(f"a strength of {strength} dice: the strength of an attack is the number of dice rolled",
                          call.loc, "declare at least 1 die (001 allows 2 or more: 強さを１以下にすることはできません)")
    if printed is UNKNOWN:
        raise _missing(attacker, f"the strength of the attack means 「{name}」", f'attack_means "{name}" {strength}d 1')
    if reach_ is UNKNOWN:
        raise _missing(attacker, f"the range of the attack means 「{name}」", f'attack_means "{name}" {printed}d 1')
    if strength > printed:
        raise illegal(st, "declaration", f"「{name}」の本来の強さは{printed}D: 強さは本来の強さより低く宣言できるが、高くはできない",
                      ctx.section("thgm/attack/strength"), cite)
    if strength < max(MIN_STRENGTH.values()):  # some reading of the lowest strength forbids it
        least, least_cite = ctx.point("attack.min_strength")
        if strength < MIN_STRENGTH[least]:
            raise illegal(st, "declaration", f"強さ{strength}D: 強さを１以下にすることはできない（宣言できる強さは{MIN_STRENGTH[least]}D以上）",
                          ctx.section("thgm/attack/strength"), least_cite)
        ctx.step(f"強さ{strength}Dは宣言できる強さの最低値（{MIN_STRENGTH[least]}D）以上", least_cite)
    if strength < printed:
        ctx.step(f"「{name}」の本来の強さは{printed}D: それより低い{strength}Dと宣言してよい", ctx.section("thgm/attack/strength"))
    else:
        ctx.step(f"「{name}」の強さは{printed}D（宣言する強さは本来の強さ以下）", cite, ctx.section("thgm/attack/strength"))
    # concealing the attacker's place (幻視・暗闇)
    claim = p.get("claim")
    judged = place
    if claim is not None:
        holders = conceal_holders(ctx, st, st.side(player))
        what = "宣言しない" if claim == "withheld" else f"{where(*claim)}と偽って宣言する"
        if not holders:
            raise illegal(st, "conceal", f"攻撃を行う場所を{what}ことはできない: 「幻視」「暗闇」の能力を持つキャラが自軍にいない",
                          decl, ctx.section("thgm/abilities/conceal"))
        st.acts["conceal"] = None
        ctx.step(f"「幻視」「暗闇」の能力を持つ{'・'.join(h.label for h in holders)}が自軍にいる: 攻撃を行う場所を{what}ことができる",
                 *unique_cites([ctx.section("thgm/abilities/conceal"),
                                *(c for h in holders for c in ability_cites(ctx, st, h, "conceal_position"))]))
        if claim != "withheld":
            check_place(claim[1], p.get("claim_loc", call.loc))
        scope, scope_cite = ctx.point("conceal.range_check")
        if scope == "declared_position" and claim != "withheld":
            judged = claim
            ctx.step(f"距離は宣言した（偽の）場所{where(*claim)}から判定する", scope_cite)
        else:
            ctx.step(f"距離は実際に攻撃を行う{attacker.label}の場所（{where(*place)}）から判定する", scope_cite)
    # distance against range
    target_place = (p["target_row"], p["target_column"])
    distance = DISTANCE[(judged[0], target_place[0])]
    st.attack = Attack(player=player, attacker=attacker, place=place, means=name, strength=strength, range=reach_,
                       target=target, target_place=target_place, distance=distance, loc=call.loc, claim=claim)
    st.last_attack = st.attack
    ctx.step(f"{ROW_JA[judged[0]]}から{ROW_JA[target_place[0]]}への攻撃なので距離{distance}",
             ctx.section("thgm/attack/distance"))
    if distance > reach_:
        raise illegal(st, "declaration", f"距離{distance}は「{name}」の射程{reach_}を超える: 距離が射程以下でなければ攻撃できない",
                      decl, ctx.section("thgm/attack/distance"))
    ctx.step(f"距離{distance}は射程{reach_}以下: 攻撃宣言は有効", decl)
    st.acts["declaration"] = None


def ability_cites(ctx: Context, st: State, char: Char, verb: str) -> list:
    """What makes `char`'s ability with `verb` work now: its card, and the kind of ability it is
    (an SP works while the character is on the side, face down or not; a FUE once used)."""
    out = [ctx.card_cite(char.code, char.hypothetical), ctx.section("thgm/card/ability")]
    if any(trig == "sp" for trig, _ in char.verbs(verb)):
        out += [ctx.section("thgm/abilities/sp"), ctx.section("thgm/abilities")]
    elif char.fue_used:
        out.append(ctx.section("thgm/abilities/fue"))
    return out


def conceal_holders(ctx: Context, st: State, side: Side) -> list[Char]:
    """Characters of the side that let it lie about (or keep quiet about) the attacker's place:
    「幻視」「暗闇」 as an SP (face down or not) or a FUE used this turn."""
    out = []
    for _, _, c in side.chars():
        if any(trig == "sp" for trig, _ in c.verbs("conceal_position")) or \
                any(h is c and v.name == "conceal_position" for h, v in st.turn_effects):
            out.append(c)
    return out
