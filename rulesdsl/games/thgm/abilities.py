"""Abilities used during an attack: the spell card and FUE, and コウモリ変化 with its timing
(see attack.py)."""

from __future__ import annotations

from typing import Optional

from ...engine.context import Context
from ...lang.vocab import UNKNOWN, Call
from . import dice as D
from .attack import _missing, char_at
from .rolls import bat_holders, current, observe, see
from .state import Attack, Char, State
from .turn import illegal


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
    holders = bat_holders(ctx, st, atk) if timing == "before_spell_card" else None
    if holders:
        ctx.step("コウモリ変化はスペルカードの使用の有無を決める前に使う", cite)
        offer_nullify(ctx, st, atk, holders)


def offer_nullify(ctx: Context, st: State, atk: Attack, holders: list[Char]) -> None:
    """The defender's コウモリ変化 when the scenario does not say whether it is used: the
    defender chooses (if the dice allow it). `holders`: bat_holders, as the caller found them
    just before (asked again, they would be the same: nothing changes between)."""
    atk.nullify_decided = True
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
