"""The attack: the declaration (place, means, strength, target; distance against range), the dice
(sum of the two highest; rerolls), the spell card and FUE, コウモリ変化, the defense and the
three results. Each step cites the rule section that makes it true; where 001 is silent the
engine reads a rule point.

Dice the scenario leaves open are kept as an exact distribution (see `dice`) and split only where
a rule asks a question of them: the comparison with the defense, コウモリ変化's check for a
repeated face, a player who looks at the dice before choosing.
"""

from __future__ import annotations

from typing import Any, Optional

from ...engine.context import Context, EngineError
from ...engine.trace import unique_cites
from ...lang.vocab import UNKNOWN, Call
from . import dice as D
from .state import ROW_JA, Attack, Char, Side, State
from .tendencies import TENDENCIES
from .turn import check_place, check_victory, end_turn, illegal, reach, where

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


# ----------------------------------------------------------------------------- dice

def current(ctx: Context, st: State, act: str, loc) -> Attack:
    atk = st.attack
    if atk is None or atk.resolved:
        raise EngineError("no attack has been declared in this turn", loc,
                          "declare it first: declare_attack P1 front 1 \"物理\" 3d P2 front 1")
    return atk


def roll_faces(ctx: Context, st: State, atk: Attack, faces: tuple, loc, what: str) -> tuple[tuple[int, ...], int]:
    """Fixed faces and the number of dice left open; a roll of the wrong size or a face outside
    1–6 is a located error."""
    entries = list(faces)
    if entries == ["any"] or not entries:
        return (), atk.strength
    if len(entries) != atk.strength:
        raise EngineError(f"the attack was declared with strength {atk.strength}D, so {atk.strength} dice are rolled; "
                          f"the {'reroll' if '振りなおし' in what else 'roll'} gives {len(entries)}", loc,
                          f"give {atk.strength} faces (1–6, or `any` for a die left to chance), or `any` alone")
    fixed = []
    for f in entries:
        if f == "any":
            continue
        if not 1 <= f <= 6:
            raise EngineError(f"a face of {f}: the dice are six-sided (faces 1 to 6)", loc,
                              "each face is 1, 2, 3, 4, 5 or 6 (or `any`)")
        fixed.append(f)
    return tuple(fixed), atk.strength - len(fixed)


def make_roll(ctx: Context, st: State, atk: Attack, faces: tuple, loc, what: str) -> None:
    fixed, open_dice = roll_faces(ctx, st, atk, faces, loc, what)
    full = st.needs_faces or rerolls_chosen(ctx, st, atk)
    if open_dice:
        from ...engine.chance import check_size, dice_outcomes
        check_size(ctx, dice_outcomes(open_dice), f"{atk.player}の{what}（決まっていないサイコロ{open_dice}個）", loc)
    atk.roll = D.roll(fixed, open_dice, full)
    atk.full_faces = full
    atk.roll_loc = loc
    value = ctx.section("thgm/attack/value")
    if not open_dice:
        faces_sorted = tuple(sorted(fixed, reverse=True))
        top = faces_sorted[:2]
        total = sum(top)
        how = "＋".join(map(str, top)) + f"で{total}" if len(top) == 2 else f"{total}（サイコロ１個）"
        ctx.step(f"{what}: サイコロ{atk.strength}個の出目は{D.faces_words(fixed)}。目が大きいほうから２つ選んだ合計が攻撃力: {how}",
                 value)
    else:
        shown = f"出目{D.faces_words(fixed)}と、" if fixed else ""
        ctx.step(f"{what}: サイコロ{atk.strength}個を振る。{shown}出目の決まっていないサイコロ{open_dice}個の"
                 f"{6 ** open_dice:,}通りの出目をすべて数え上げる（攻撃力は目が大きいほうから２つ選んだ合計）", value)


def rerolls_chosen(ctx: Context, st: State, atk: Attack) -> bool:
    """Whether a reroll of chosen dice may follow (then every face is kept)."""
    if not reroll_holders(ctx, st, atk) and not any(True for _ in _fue_verbs(st.side(atk.player))):
        return False
    scope, _ = ctx.point("reroll.scope", atk.attacker.code or None)
    return scope == "chosen_dice"


def _fue_verbs(side: Side):
    for _, _, c in side.chars():
        if c.face == "down" and not c.fue_used:
            for trig, v in (c.verbs("reroll") if c.info else []):
                if trig == "fue":
                    yield c, v


def roll(ctx: Context, st: State, call: Call) -> None:
    atk = current(ctx, st, "roll", call.loc)
    if atk.rolled:
        raise EngineError("the dice of this attack have already been rolled", call.loc,
                          "a second roll of the same attack is a reroll: write `reroll …`")
    make_roll(ctx, st, atk, call.params.get("faces", ()), call.loc, "攻撃のサイコロ")
    atk.rolled = True


def reroll_holders(ctx: Context, st: State, atk: Attack) -> list[Char]:
    """Characters whose ability lets this attack's dice be rerolled (rule point reroll.holder,
    read only when the attacking side has such an ability at all)."""
    able = [c for _, _, c in st.side(atk.player).chars() if any(trig == "sp" for trig, _ in c.verbs("reroll"))]
    if atk.fue_reroll is not False:
        able.append(atk.fue_reroll)
    return _holders(ctx, atk, able, "reroll.holder", "attacker", atk.attacker, "thgm/attack/reroll",
                    "振りなおしは攻撃を行ったキャラ自身の特殊能力で行う: {}は攻撃を行ったキャラではない")


def _holders(ctx: Context, atk: Attack, able: list[Char], point: str, own: str, owner: Char, section: str,
             words: str) -> list[Char]:
    """Those of `able` whose ability applies under the reading of `point`: all of them, or
    (value `own`) only `owner`'s; the first time a reading rules one out, the trace says so."""
    if not able:
        return []
    who, cite = ctx.point(point)
    out = [c for c in able if who != own or c is owner]
    if len(out) < len(able) and point not in atk.noted:
        atk.noted.add(point)
        ctx.step(words.format("・".join(c.label for c in able if c not in out)), ctx.section(section), cite)
    return out


def reroll(ctx: Context, st: State, call: Call, optional: bool = False) -> None:
    atk = current(ctx, st, "reroll", call.loc)
    sec = ctx.section("thgm/attack/reroll")
    if not atk.rolled:
        raise EngineError("the dice have not been rolled yet", call.loc, "roll them first: roll 6 2 3")
    holders = reroll_holders(ctx, st, atk)
    if not holders:
        if not any(c.verbs("reroll") for _, _, c in st.side(atk.player).chars()):
            raise illegal(st, "reroll", "攻撃側に振りなおしを行える特殊能力を持つキャラがいない", sec)
        who, who_cite = ctx.point("reroll.holder")
        whose = "攻撃を行ったキャラ自身" if who == "attacker" else "攻撃側の陣営のキャラ"
        raise illegal(st, "reroll", f"{whose}が振りなおしを行える特殊能力を持たない", sec, who_cite)
    who, who_cite = ctx.point("reroll.holder")
    count, count_cite = ctx.point("reroll.count")
    allowed = 1 if count == "once_per_attack" else len(holders)
    if atk.rerolled >= allowed:
        raise illegal(st, "reroll", f"振りなおしは{'１回' if allowed == 1 else f'{allowed}回'}だけ: この攻撃ではすでに振りなおしている",
                      sec, count_cite)
    if atk.spell_decided or atk.result:
        raise illegal(st, "reroll", "振りなおしはサイコロを振った直後（スペルカードの使用の前）に行う", sec,
                      ctx.section("thgm/attack/spell-card"))
    ctx.step(f"{'・'.join(h.label for h in holders)}の特殊能力で、サイコロを１回振りなおせる",
             *unique_cites([sec, who_cite, count_cite, *(c for h in holders for c in ability_cites(ctx, st, h, "reroll"))]))
    if optional:
        see(ctx, st, atk, "攻撃側が見た出目", sec)
        if ctx.choose(atk.player, "出目を見て振りなおすか", ("振りなおす", "振りなおさない"), cite=sec) == 1:
            ctx.step(f"{atk.player}は振りなおさない", sec)
            return
    scope, scope_cite = ctx.point("reroll.scope", atk.attacker.code or None)
    faces = call.params.get("faces", ())
    if scope == "chosen_dice" and (not faces or list(faces) == ["any"]):
        reroll_chosen(ctx, st, atk, call.loc, scope_cite)
    else:
        what = "振ったサイコロ全部を振りなおす" if scope == "all_dice" else "選んだサイコロを振りなおす"
        ctx.step(what, scope_cite)
        make_roll(ctx, st, atk, faces, call.loc, "振りなおし後のサイコロ")
    atk.rerolled += 1
    st.acts["reroll"] = None


def reroll_chosen(ctx: Context, st: State, atk: Attack, loc, cite) -> None:
    """Under the reading that only chosen dice are rerolled: the attacker looks at the faces and
    chooses which to keep; the others are rolled again."""
    faces = see_faces(ctx, st, atk)
    keeps = sorted({tuple(faces[i] for i in range(len(faces)) if mask >> i & 1)
                    for mask in range(2 ** len(faces))}, key=lambda k: (-len(k), k))
    keeps = [k for k in keeps if len(k) < len(faces)]
    labels = [("残す出目: " + D.faces_words(k)) if k else "全部振りなおす" for k in keeps]
    kept = keeps[ctx.choose(atk.player, "振りなおすサイコロを選ぶ", labels, cite=cite)]
    ctx.step(f"出目{D.faces_words(kept) or 'なし'}を残し、残りの{len(faces) - len(kept)}個を振りなおす", cite)
    atk.roll = D.roll(kept, len(faces) - len(kept), True)
    atk.full_faces = True
    atk.roll_loc = loc


# ----------------------------------------------------------------------------- looking at the dice

def observe(ctx: Context, st: State, atk: Attack, label: str, key, describe, *cites, memo=None):
    """Ask a question of the dice: split what is still open into the answers the question tells
    apart (a chance point) and go on with one; `memo` names the question for replays."""
    k, d = ctx.chance(label, atk.roll, key, describe, atk.roll_loc, cites, memo)
    atk.roll = d
    return k


def see(ctx: Context, st: State, atk: Attack, label: str, cite) -> None:
    """A player looks at the dice before choosing (under the rule `cite`, which lets them choose
    after the roll): what the rules read of the dice becomes known."""
    bonus = 1 if atk.spell else 0
    if atk.full_faces:
        observe(ctx, st, atk, label, lambda v: v, lambda k, d: f"出目{D.faces_words(k)}（攻撃力{D.value_of(k) + bonus}）",
                cite, memo=("faces",))
    elif st.open_nullify and bat_holders(ctx, st, atk):  # a repeated face matters too
        observe(ctx, st, atk, label, lambda v: (D.value_of(v), v[2]),
                lambda k, d: f"攻撃力{k[0] + bonus}" + ("・ダブりあり" if k[1] else "・ダブりなし"), cite, memo=("seen",))
    else:
        observe(ctx, st, atk, label, D.value_of, lambda k, d: f"攻撃力{k + bonus}", cite, memo=("value",))


def see_faces(ctx: Context, st: State, atk: Attack) -> tuple[int, ...]:
    if not atk.full_faces:
        raise EngineError("the faces themselves were not kept for this roll", atk.roll_loc)
    return observe(ctx, st, atk, "出目", lambda v: v, lambda k, d: f"出目{D.faces_words(k)}",
                   ctx.section("thgm/attack/reroll"), memo=("faces",))


def value_is(ctx: Context, st: State, atk: Attack, wanted: int) -> tuple[bool, int]:
    """Whether the attack value is `wanted` (splitting open dice into yes and no)."""
    bonus = 1 if atk.spell else 0
    hit = observe(ctx, st, atk, f"攻撃力が{wanted}か", lambda v: D.value_of(v) + bonus == wanted,
                  lambda k, d: f"攻撃力{wanted}" if k else f"攻撃力{D.range_words(*D.value_range(d, bonus))}",
                  ctx.section("thgm/attack/value"), memo=("value", wanted - bonus))
    lo, hi = D.value_range(atk.roll, bonus)
    return hit, lo


# ----------------------------------------------------------------------------- spell card and FUE

def spell_card(ctx: Context, st: State, call: Call, optional: bool = False) -> None:
    atk = current(ctx, st, "spell_card", call.loc)
    sec = ctx.section("thgm/attack/spell-card")
    if not atk.rolled:
        raise illegal(st, "spell_card", "スペルカードの使用はサイコロで攻撃力が決まったあと", sec)
    if atk.spell_decided:
        raise illegal(st, "spell_card", "スペルカードの使用の有無はすでに決まっている", sec)
    if atk.attacker.face != "down":
        if atk.attacker.fue_used:
            raise illegal(st, "spell_card", f"攻撃を行った{atk.attacker.label}はＦＵＥを使って表向きになっている: "
                                            "ＦＵＥとスペルカードは併用できない（スペルカードは裏向きのキャラを表向きにして使う）",
                          ctx.section("thgm/abilities/fue"), sec)
        raise illegal(st, "spell_card", f"攻撃を行った{atk.attacker.label}は表向き: スペルカードを使用できるのは攻撃を行ったキャラが裏向きの状態のとき",
                      sec)
    used = [c for c in atk_fue_users(st, atk) if c.owner == atk.player]
    if used:   # another character's FUE in this attack: whether that bars the spell card is a reading
        scope, scope_cite = ctx.point("fue.spell_card_exclusion")
        if scope == "same_attack":
            raise illegal(st, "spell_card", "この攻撃ではすでにＦＵＥを使っている: ＦＵＥとスペルカードは併用できない",
                          ctx.section("thgm/abilities/fue"), scope_cite)
        ctx.step(f"併用の禁止は同じキャラについての制限: {'・'.join(c.label for c in used)}のＦＵＥを使っていても、"
                 f"{atk.attacker.label}はスペルカードを使える", scope_cite)
    timing_first(ctx, st, atk)
    if atk.result == "nullified":
        raise illegal(st, "spell_card", "攻撃はコウモリ変化で無効になっている", ctx.section("thgm/abilities/bat-transformation"))
    if optional:
        see(ctx, st, atk, "攻撃側が見た出目", sec)
        if ctx.choose(atk.player, "攻撃力を見てスペルカードを使用するか", ("使用する", "使用しない"), cite=sec) == 1:
            atk.spell_decided = True
            ctx.step(f"{atk.player}はスペルカードを使用しない（{atk.attacker.label}は裏向きのまま）", sec)
            return
    atk.attacker.face = "up"
    atk.spell = True
    atk.spell_decided = True
    st.acts["spell_card"] = None
    ctx.step(f"スペルカードの使用: 攻撃を行った{atk.attacker.label}を表向きにし、攻撃力に＋１する", sec)


def atk_fue_users(st: State, atk: Attack) -> list[Char]:
    return [h for h, v in st.turn_effects]


def use_fue(ctx: Context, st: State, call: Call) -> None:
    p = call.params
    char = char_at(st, p["player"], p["row"], p["column"], call.loc)
    sec = ctx.section("thgm/abilities/fue")
    if st.over:
        raise illegal(st, "fue", f"ゲームはすでに終了している（{st.winner}の勝利）", ctx.section("thgm/victory"))
    if char.owner != p["player"]:
        raise illegal(st, "fue", "ＦＵＥを使えるのはそのキャラのプレイヤー", sec)
    fue = [v for trig, v in _all_verbs(char) if trig == "fue"]
    if not fue:
        if char.info is None or char.fact("abilities") is UNKNOWN and not char.info.effects:
            raise _missing(char, "the abilities", "effect fue { reroll }")
        raise illegal(st, "fue", f"{char.label}はＦＵＥを持たない", ctx.section("thgm/abilities"))
    atk = st.attack
    if atk is not None and atk.attacker is char and atk.spell:
        scope, scope_cite = ctx.point("fue.spell_card_exclusion")
        raise illegal(st, "fue", f"{char.label}はスペルカードを使用した: ＦＵＥとスペルカードは併用できない（どちらかを選ぶ）",
                      sec, scope_cite)
    if char.face != "down":
        raise illegal(st, "fue", f"{char.label}は表向き: ＦＵＥは裏向きのキャラを表向きにすることで１回だけ使用できる", sec)
    if atk is not None and atk.spell and char.owner == atk.player:
        scope, scope_cite = ctx.point("fue.spell_card_exclusion")
        if scope == "same_attack":
            raise illegal(st, "fue", "この攻撃ではすでにスペルカードを使用している: ＦＵＥとスペルカードは併用できない", sec, scope_cite)
        ctx.step(f"併用の禁止は同じキャラについての制限: {char.label}は攻撃を行ったキャラではないのでＦＵＥを使える", scope_cite)
    char.face = "up"
    char.fue_used = True
    st.acts["fue"] = None
    ctx.step(f"{p['player']}は裏向きの{char.label}を表向きにしてＦＵＥを使う（特に記述がなければ任意のタイミングで使用できる）",
             sec, ctx.card_cite(char.code, char.hypothetical))
    for v in fue:
        st.turn_effects.append((char, v))
        if v.name == "reroll" and atk is not None:
            atk.fue_reroll = char
        if v.name == "nullify_on_doubles":
            nullify(ctx, st, char.owner, call.loc, holder=char)


def _all_verbs(char: Char):
    if char.info is None:
        return []
    return [(e.name, v) for e in char.info.effects for v in (e.body or ())]


# ----------------------------------------------------------------------------- コウモリ変化

def bat_holders(ctx: Context, st: State, atk: Attack) -> list[Char]:
    """Who may nullify this attack with コウモリ変化 (rule point bat_transformation.holder,
    read only when the defending side has the ability at all)."""
    able = []
    for _, _, c in st.side(atk.target.owner).chars():
        for trig, _ in c.verbs("nullify_on_doubles"):
            if trig == "sp" or (trig == "fue" and c.face == "down" and not c.fue_used):
                able.append(c)
                break
    return _holders(ctx, atk, able, "bat_transformation.holder", "target_character", atk.target,
                    "thgm/abilities/bat-transformation",
                    "コウモリ変化で攻撃を無効にできるのは攻撃対象となったキャラ自身が持つ場合: {}は攻撃対象ではない")


def repeated_face(ctx: Context, st: State, atk: Attack) -> tuple[bool, str]:
    """Whether the faces コウモリ変化 checks (those after a reroll) show a repeated face, and
    those faces in words."""
    twice = observe(ctx, st, atk, "振られたサイコロにダブりの出目があるか", D.repeats,
                    lambda k, d: "ダブりあり" if k else "ダブりなし", ctx.section("thgm/abilities/bat-transformation"),
                    memo=("repeats",))
    faces = D.only_faces(atk.roll)
    checked = "振りなおされた後の出目" if atk.rerolled else "振られたサイコロの出目"
    return twice, checked + (f"（{D.faces_words(faces)}）" if faces else "")


def nullify(ctx: Context, st: State, player: str, loc, holder: Optional[Char] = None) -> None:
    """The defender nullifies the attack with コウモリ変化 (if the dice show a repeated face)."""
    atk = st.attack
    bat = ctx.section("thgm/abilities/bat-transformation")
    if atk is None or not atk.rolled or atk.result is not None:
        raise illegal(st, "nullify", "無効にできる攻撃がない（コウモリ変化は振られたサイコロについて使う）", bat)
    if player != atk.target.owner:
        raise illegal(st, "nullify", "コウモリ変化で攻撃を無効にできるのは防御側", bat)
    who, who_cite = ctx.point("bat_transformation.holder")
    if holder is not None:
        allowed = holder is atk.target if who == "target_character" else holder.owner == atk.target.owner
        holders = [holder] if allowed else []
    else:
        holders = bat_holders(ctx, st, atk)
    if not holders:
        why = ("攻撃対象となったキャラ自身がコウモリ変化を持たない" if who == "target_character"
               else "防御側の陣営にコウモリ変化を持つキャラがいない")
        raise illegal(st, "nullify", why, bat, who_cite)
    ctx.step(f"{atk.target.label}へのこの攻撃には{'・'.join(h.label for h in holders)}のコウモリ変化が使える", bat, who_cite)
    twice, checked = repeated_face(ctx, st, atk)
    if not twice:
        raise illegal(st, "nullify", f"{checked}にダブりがない: コウモリ変化で無効にできない", bat)
    ctx.step(f"{checked}にダブりの出目がある: 防御側はコウモリ変化で攻撃を無効にできる", bat)
    atk.nullify_decided = True
    atk.result = "nullified"
    st.acts["nullify"] = None
    user = holders[0]
    if user.face == "down" and not user.fue_used and \
            not any(trig == "sp" for trig, _ in user.verbs("nullify_on_doubles")):
        user.face, user.fue_used = "up", True
        ctx.step(f"ＦＵＥのコウモリ変化を使うため、{user.label}を表向きにする", ctx.section("thgm/abilities/fue"))
    ctx.step(f"{player}はコウモリ変化を使い、攻撃を無効にする", bat)


def timing_check(ctx: Context, st: State) -> None:
    """A defender using コウモリ変化 now: is it the time the reading of its timing allows?"""
    atk = st.attack
    if atk is None or not atk.rolled or atk.resolved:
        return
    timing, cite = ctx.point("bat_transformation.timing")
    if timing == "before_spell_card" and atk.spell_decided:
        raise illegal(st, "nullify", "コウモリ変化はスペルカードの使用の有無を決める前に使う: もう遅い",
                      ctx.section("thgm/abilities/bat-transformation"), cite)
    if timing == "after_spell_card" and not atk.spell_decided:
        atk.spell_decided = True
        ctx.step("コウモリ変化は攻撃力が確定した後に使う: 攻撃側はスペルカードを使わずに攻撃力が確定したものとする", cite)
    elif timing == "unspecified":
        ctx.step("コウモリ変化を使うタイミングは資料に規定がない（振りなおしの後の出目について使う）", cite)


def timing_first(ctx: Context, st: State, atk: Attack) -> None:
    """Under the reading that コウモリ変化 is used before the spell card is decided."""
    if atk.nullify_decided or not st.open_nullify:
        return
    timing, cite = ctx.point("bat_transformation.timing")
    if timing == "before_spell_card" and bat_holders(ctx, st, atk):
        ctx.step("コウモリ変化はスペルカードの使用の有無を決める前に使う", cite)
        offer_nullify(ctx, st, atk)


def offer_nullify(ctx: Context, st: State, atk: Attack) -> None:
    """The defender's コウモリ変化 when the scenario does not say whether it is used: the
    defender chooses (if the dice allow it)."""
    atk.nullify_decided = True
    holders = bat_holders(ctx, st, atk)
    if not holders:
        return
    bat = ctx.section("thgm/abilities/bat-transformation")
    twice, checked = repeated_face(ctx, st, atk)
    if not twice:
        ctx.step(f"{checked}にダブりがない: コウモリ変化で無効にできない", bat)
        return
    ctx.step(f"{checked}にダブりの出目がある: 防御側は{'・'.join(h.label for h in holders)}のコウモリ変化で攻撃を無効にできる", bat)
    if ctx.choose(atk.target.owner, "コウモリ変化で攻撃を無効にするか", ("無効にする", "無効にしない"), cite=bat) == 0:
        nullify(ctx, st, atk.target.owner, atk.roll_loc)
    else:
        ctx.step(f"{atk.target.owner}はコウモリ変化を使わない", bat)


def can_nullify(ctx: Context, st: State) -> tuple[bool, str]:
    """Whether the defender could nullify the last attack now (for `expect legal nullify`)."""
    atk = st.last_attack
    if atk is None or not atk.rolled:
        return False, "無効にできる攻撃がない"
    if atk.result == "nullified":
        return True, "攻撃はコウモリ変化で無効にされた"
    if not bat_holders(ctx, st, atk):
        return False, "コウモリ変化を使えるキャラがいない"
    twice, checked = repeated_face(ctx, st, atk)
    return (True, f"{checked}にダブりの出目があるので無効にできる") if twice else \
        (False, f"{checked}にダブりの出目がないので無効にできない")


# ----------------------------------------------------------------------------- the result

def defense_of(ctx: Context, atk: Attack) -> tuple[str, Any, Any]:
    """("base"|"special", value or "immune", citation) for the target against the means used."""
    target = atk.target
    special = target.fact("special_defense")
    if special is UNKNOWN:
        raise _missing(target, "the 特殊防御力 field", 'special_defense none; base_defense 9')
    against = special.get("against", ()) if isinstance(special, dict) else ()
    values = special.get("values", ()) if isinstance(special, dict) else ()
    if against and against[0] is UNKNOWN:
        raise _missing(target, "the 特殊防御力 field", 'special_defense none; base_defense 9')
    for i, name in enumerate(against):
        if name == atk.means:
            v = values[i] if i < len(values) else UNKNOWN
            if v is UNKNOWN:
                raise _missing(target, f"the 特殊防御力 against 「{name}」", f'special_defense "{name}" 7')
            return "special", v, ctx.section("thgm/card/special-defense")
    base = target.fact("base_defense")
    if base is UNKNOWN:
        raise _missing(target, "the 基本防御力", "base_defense 9")
    return "base", base, ctx.section("thgm/card/base-defense")


def resolve(ctx: Context, st: State) -> None:
    """The attack value is final: compare it with the defense and apply the result; the turn ends."""
    atk = st.attack
    if atk is None or not atk.rolled or atk.resolved:
        return
    atk.resolved = True
    if not atk.nullify_decided and st.open_nullify and bat_holders(ctx, st, atk):
        timing, cite = ctx.point("bat_transformation.timing")
        ctx.step("コウモリ変化を使うタイミング: " + {"after_spell_card": "攻撃力が確定した後",
                                               "before_spell_card": "スペルカードの使用の有無を決める前",
                                               "unspecified": "規定なし（振りなおしの後の出目について使う）"}[timing], cite)
        offer_nullify(ctx, st, atk)
    if atk.result == "nullified":
        ctx.step("攻撃は無効になり、何も起きない", ctx.section("thgm/abilities/bat-transformation"))
        end_turn(ctx, st, atk.player)
        return
    atk.spell_decided = True
    bonus = 1 if atk.spell else 0
    defense = ctx.section("thgm/attack/defense")
    try:
        kind, value, cite = defense_of(ctx, atk)
    except EngineError as e:
        ctx.step("攻撃対象の防御力は資料にも場面にもない: 攻撃の結果は決まらない", defense)
        st.blocked = e
        return
    atk.defense = (kind, value)
    tendency_note(ctx, atk)
    lo, hi = D.value_range(atk.roll, bonus)
    final = f"攻撃力は{D.range_words(lo, hi)}" + ("（スペルカードの＋１を含む）" if bonus else "") + "で確定する"
    ctx.step(f"{final}。{atk.target.owner}は{atk.target.label}の防御力と比較する", defense)
    if kind == "special":
        shown = "「−」" if value == "immune" else str(value)
        ctx.step(f"攻撃手段「{atk.means}」は特殊防御力欄に記述されている: 特殊防御力{shown}を参照する", defense, cite)
    else:
        ctx.step(f"攻撃手段「{atk.means}」は特殊防御力欄にない: 基本防御力{value}を参照する", defense, cite)
    if value == "immune":
        ctx.step("参照した特殊防御力欄に「−」が書かれている: 攻撃はかならず失敗し、何も起きない",
                 ctx.section("thgm/attack/result/failed"))
        settle(ctx, st, atk, "failed")
        return
    if lo < hi and hi <= value:
        ctx.step(f"攻撃力は最大でも{hi}で防御力{value}を上回らない: 撃破にはならない",
                 ctx.section("thgm/attack/result/defeated"))
    if lo < hi and lo >= value:
        ctx.step(f"攻撃力は最小でも{lo}で防御力{value}を下回らない: 失敗にはならない",
                 ctx.section("thgm/attack/result/failed"))
    outcome = observe(ctx, st, atk, f"攻撃力と防御力{value}の比較",
                      lambda v: _compare(D.value_of(v) + bonus, value),
                      lambda k, d: _compare_words(k, value, *D.value_range(d, bonus)), defense,
                      memo=("compare", value - bonus))
    settle(ctx, st, atk, outcome)


def tendency_note(ctx: Context, atk: Attack) -> None:
    """What 001 says of the target's attribute and this means: a play aid the trace mentions,
    never a value (the card's fields decide)."""
    attribute = atk.target.fact("attribute")
    if not isinstance(attribute, str) or attribute not in TENDENCIES:
        return
    section, table, _ = TENDENCIES[attribute]
    kind = table.get(atk.means)
    if kind:
        words = {"strong": "に強い", "weak": "に弱い", "immune": "が無効", "effective": "が効く"}[kind]
        ctx.step(f"（参考）属性が{ctx.kb.games[ctx.game].vocab.enum_label('attribute', attribute)}のキャラは{atk.means}{words}傾向がある"
                 "（傾向であって規則ではない。比べるのはカードの防御力の値）", ctx.section(section), kind="note")


def _compare(v: int, defense: int) -> str:
    return "failed" if defense > v else ("injured" if defense == v else "defeated")


def _compare_words(k: str, defense: int, lo: int, hi: int) -> str:
    r = D.range_words(lo, hi)
    return {"failed": f"攻撃力{r}（防御力{defense}より小さい）", "injured": f"攻撃力{r}（防御力{defense}と等しい）",
            "defeated": f"攻撃力{r}（防御力{defense}より大きい）"}[k]


def settle(ctx: Context, st: State, atk: Attack, outcome: str) -> None:
    target = atk.target
    side = st.side(target.owner)
    row, col = side.place_of(target) or atk.target_place
    lo, hi = D.value_range(atk.roll, 1 if atk.spell else 0)
    value = D.range_words(lo, hi)
    d = atk.defense[1] if atk.defense else None
    if outcome == "failed":
        if d != "immune":
            ctx.step(f"防御力{d}＞攻撃力{value}: 攻撃は失敗で、何も起きない", ctx.section("thgm/attack/result/failed"))
        atk.result = "failed"
    elif outcome == "injured" and not target.injured:
        ctx.step(f"防御力{d}＝攻撃力{value}: {target.label}は負傷する（横に９０度倒して置く）",
                 ctx.section("thgm/attack/result/injured"))
        target.injured = True
        atk.result = "injured"
    else:
        if outcome == "injured":
            ctx.step(f"防御力{d}＝攻撃力{value}で、{target.label}はすでに負傷状態: 撃破される",
                     ctx.section("thgm/attack/result/injured"))
        else:
            ctx.step(f"防御力{d}＜攻撃力{value}: {target.label}は撃破される", ctx.section("thgm/attack/result/defeated"))
        atk.result = "defeated"
        defeat(ctx, st, atk, side, row, col)
    if atk.result in ("injured", "defeated") and atk.claim is not None:
        atk.must_reveal = True
        ctx.step(f"攻撃の結果が{'撃破' if atk.result == 'defeated' else '負傷'}なので、{atk.player}はその時点で"
                 f"「実はここから攻撃していました」と正しい位置（{where(*atk.place)}）を宣言しなければならない",
                 ctx.section("thgm/abilities/conceal"))
    if not st.over and st.victory_unknown is None:
        end_turn(ctx, st, atk.player)
    elif st.victory_unknown is not None:
        st.turn_over = True


def defeat(ctx: Context, st: State, atk: Attack, side: Side, row: str, col: int) -> None:
    target = atk.target
    del side.row(row)[col]
    target.injured = False
    target.face = "up"
    winner = st.side(atk.player)
    winner.score_cards.append(target)
    score = target.fact("score")
    shown = f"（スコア{score}）" if isinstance(score, int) else ""
    ctx.step(f"撃破された{target.label}{shown}は「スコアカード」として攻撃を行ったキャラのプレイヤー{atk.player}に与えられ、"
             "場の脇に表向きで置かれる", ctx.section("thgm/attack/result/defeated"), ctx.section("thgm/card/score"))
    if winner.stock:   # 「スタックとは別に」: read as the stock, which the score card must not join
        ctx.step(f"スコアカードは{atk.player}のストック（{winner.stock}枚）とは別に置き、ストックには加えない",
                 ctx.section("thgm/attack/result/defeated"), ctx.ruling("thgm/gap/score-card-stack"))
    if any(e.name == "sp" for e in (target.info.effects if target.info else ())):
        ctx.step(f"{target.label}は場を離れたので、そのＳＰはもう効果を発揮しない（ＳＰは場にいる限り効果を発揮する）",
                 ctx.section("thgm/abilities/sp"))
    if row == "front" and col in side.back:
        mover = side.back.pop(col)
        side.front[col] = mover
        ctx.step(f"後列の前にいた前列キャラが撃破されたので、後列の{mover.label}は強制的に前列の位置（左から{col}番目）に移動する",
                 ctx.section("thgm/placement/forced-move"))
    if not side.count():
        ctx.step(f"{side.player}の場のキャラはいなくなったが、脱落するかは{side.player}自身のターンの攻撃の手順で決まる",
                 ctx.section("thgm/turn/elimination"))
    check_victory(ctx, st, atk.player, target)
