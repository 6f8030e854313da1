"""The attack's dice: the roll (the sum of the two highest), rerolls and who may make them,
who holds コウモリ変化, and a player looking at the dice before choosing (see attack.py)."""

from __future__ import annotations

from ...engine.context import Context, EngineError
from ...engine.trace import unique_cites
from ...lang.vocab import Call
from . import dice as D
from .attack import ability_cites
from .state import Attack, Char, Side, State
from .turn import illegal


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
