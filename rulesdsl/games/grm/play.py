"""A play and everything it sets off: placing the card, its battles, its on-play effects, the
end of the game. Each step cites the rule section or the ruling that decides it."""

from __future__ import annotations

from itertools import permutations
from typing import NamedTuple, Optional

from ...engine.context import Context, EngineError, IllegalAction
from ...lang.vocab import UNKNOWN
from . import effects as fx
from .state import Card, State, any_triggered, neighbours, other

# ----------------------------------------------------------------------------- turns

def begin(ctx: Context, st: State, player: str) -> None:
    """Make `player` the active player, starting their turn (with its draw) if it is new."""
    if st.active is None:
        st.active = player
        ctx.step(f"{player}のターン（プレイフェイズ）", ctx.section("grm/turn/play-phase"))
        return
    if st.active == player:
        if st.played_this_turn and not st.extra_plays:
            raise IllegalAction(f"{player}はこのターンすでにカードをプレイしている（プレイは1ターンに1枚）",
                                ctx.section("grm/turn/play-phase"))
        return
    if not st.played_this_turn:
        raise IllegalAction(f"{st.active}のターン中: {st.active}がプレイするかパスするまで{player}の番にならない",
                            ctx.section("grm/turn/play-phase"))
    if st.extra_plays:
        can = playable(ctx, st, st.active)
        if can:
            fx.say(ctx, f"{st.active}には追加プレイが残り、プレイできるカード（{'、'.join(can)}）がある",
                   ctx.section("grm/effects/resolution-order"), ctx.section("grm/turn/play-phase"))
            raise IllegalAction(f"{st.active}は追加プレイを残し、プレイできるカード（{'、'.join(can)}）を持つ",
                                ctx.section("grm/turn/play-phase"))
        ctx.step(f"{st.active}はプレイできるカードがないため、残りの追加プレイは行われない",
                 ctx.section("grm/turn/play-phase"))
        st.extra_plays = 0
    new_turn(ctx, st, player)


def new_turn(ctx: Context, st: State, player: str, by: str = "draw_phase") -> None:
    st.turn += 1
    st.active = player
    st.logo_active = False
    st.played_this_turn = False
    st.extra_plays = 0
    st.drawn_by = by
    if by == "start_game":
        ctx.step(f"先攻{player}の第1ターン開始: ドローフェイズに1枚ドローする（ゲームの開始に含まれる）",
                 ctx.section("grm/setup/opening-hand"), ctx.section("grm/turn/draw-phase"))
    else:
        ctx.step(f"{player}のターン開始: ドローフェイズに1枚ドローする", ctx.section("grm/turn/draw-phase"))
    fx.draw(ctx, st, player, 1)


def start_game(ctx: Context, st: State) -> None:
    """The opening hands and the first player's first turn up to its play phase, its draw
    included (so a scenario adds no `draw_phase` for it)."""
    if st.first is None:
        raise EngineError("start_game needs to know who goes first", None, "add `first P1` to the set-up")
    second = other(st.first)
    ctx.step(f"先攻は{st.first}、後攻は{second}", ctx.section("grm/setup/first-player"))
    for player, n in ((st.first, 2), (second, 3)):
        taken = st.deck[player][:n]
        del st.deck[player][:n]
        st.hand[player].extend(taken)
        ctx.step(f"{player}は初期手札{len(taken)}枚を持つ" + ("（山札が足りない）" if len(taken) < n else ""),
                 ctx.section("grm/setup/opening-hand"))
    new_turn(ctx, st, st.first, by="start_game")


# ----------------------------------------------------------------------------- legality

class Check(NamedTuple):
    """A limit checked for a play: whether it allows it, the check in words, what decides it."""

    ok: bool
    text: str
    cites: tuple
    limit: Optional[int] = None


def can_stack(card: Card) -> bool:
    return card.fact("type") in ("logo", "evolution") or card.has_verb("stack_play")


def ex_cards(ctx: Context, st: State, player: str, quiet: bool = False) -> list[Card]:
    """EX cards the player has on the field, face-up or face-down; a covered one only under
    the reading that counts it (ex.covered_cards)."""
    have: list[Card] = []       # the tops, in cell order
    covered: list[Card] = []    # the cards under them, in cell order
    for stack in st.cells.values():     # one pass (asked of every set-up and every EX play)
        if not stack:
            continue
        top = stack[-1]
        if top.owner == player and top.info.facts.get("ex") is True:     # Card.fact, read directly
            have.append(top)
        if len(stack) > 1:
            covered += [c for c in stack[:-1] if c.owner == player and c.info.facts.get("ex") is True]
    if covered:
        rule, cite = ctx.point("ex.covered_cards")
        names = "・".join(c.label for c in covered)
        if rule == "counted":
            have += covered
            if not quiet:
                fx.say(ctx, f"下に重なった{names}もフィールド上のEXカードとして数える", cite, ctx.section("grm/ex/limit"))
        elif not quiet:
            fx.say(ctx, f"下に重なった{names}は存在しないものとして扱い、EXカードに数えない", cite,
                   ctx.section("grm/stack/definition"))
    return have


def ex_check(ctx: Context, st: State, player: str, card: Card, quiet: bool = False) -> Optional[Check]:
    """The EX limit for playing `card` (None: not an EX card, no limit to check); the reasons
    that change the limit are printed as steps unless `quiet`."""
    if card.fact("ex") is not True:
        return None
    rule = ctx.section("grm/ex/limit")
    limit, why = fx.ex_limit(ctx, st, player)
    if not quiet:
        for text, cites in why:
            fx.say(ctx, text, *cites)
    if limit is None:
        return Check(True, f"{card.label}はEXカードだが、EX制限は適用されない", (ctx.section("grm/ex/tournament"),))
    have = ex_cards(ctx, st, player, quiet)
    cites = [rule]
    gone = [c for c in st.all_cards() if c.owner == player and c.left_field and c.fact("ex") is True
            and not st.on_field(c)]
    left = ""
    if gone:
        left = f"。フィールドから離れた{'・'.join(c.label for c in gone)}は数えない"
    if card.left_field:
        left += f"。{card.label}はフィールドから離れたため、再びプレイできる"
    if any(c.face == "down" for c in have):
        cites.append(ctx.section("grm/state/face"))
    n = len(have)
    if n >= limit:
        return Check(False, f"{player}のフィールド上のEXカードは{n}枚（表裏を問わない）: 上限{limit}枚に達している{left}",
                     tuple(cites), limit)
    return Check(True, f"{player}のフィールド上のEXカードは{n}枚（表裏を問わない）: 上限{limit}枚に達していない{left}",
                 tuple(cites))


def cell_check(ctx: Context, st: State, cell: str, card: Card) -> Check:
    """The cell limit of a turn in which a logo card's effect is active, for stacking `card`
    on `cell`; cited whether or not it applies."""
    rule = ctx.section("grm/stack/cell-limit")
    cites: list = [rule]
    active = st.logo_active
    if not active and card.fact("type") == "logo":
        start, cite = ctx.point("stack.cell_limit_start")
        cites.append(cite)
        if start == "whole_turn":
            active = True
    if not active:
        return Check(True, "ロゴカードの効果が有効なターンではないため、1マス3枚までの上限は適用されない", tuple(cites))
    counting, cite = ctx.point("stack.cell_limit_count")
    cites.append(cite)
    stack = st.cells[cell]
    if counting == "cards_in_cell":
        n, what = len(stack), "カード（一番下のカードを含む）"
    else:
        n, what = len(stack) - 1, "重ねたカード（一番下のカードを除く）"
    reached = "達している" if n >= 3 else "達していない"
    return Check(n < 3, f"ロゴカードの効果が有効なターン: {cell}の{what}は{n}枚で、上限の3枚に{reached}", tuple(cites))


def playable(ctx: Context, st: State, player: str, quiet: bool = False) -> list[str]:
    """Cards in hand that could be played somewhere now (labels), for the forced-pass rule;
    a card that cannot be played says why (unless `quiet`: an expectation looking at the end)."""
    out = []
    empty = [c for c, s in st.cells.items() if not s]
    for card in st.hand[player]:
        if card.fact("ex") is True:
            check = ex_check(ctx, st, player, card, quiet)
            if check is not None and not check.ok:
                if not quiet:
                    fx.say(ctx, f"{card.label}はプレイできない: {check.text}", *check.cites)
                continue
        if empty:
            out.append(card.label)
            continue
        if can_stack(card):
            checks = [cell_check(ctx, st, c, card) for c, s in st.cells.items() if s]
            if any(c.ok for c in checks):
                out.append(card.label)
                continue
            if not quiet:
                fx.say(ctx, f"{card.label}は重ねてプレイできるが、どのマスも上限に達している",
                       *[x for c in checks for x in c.cites])
    return out


# ----------------------------------------------------------------------------- playing

def play(ctx: Context, st: State, player: str, card: Card, cell: str, on_stack: bool) -> None:
    begin(ctx, st, player)
    if card not in st.hand[player]:
        raise EngineError(f"{card.label} is not in {player}'s hand", card.loc,
                          f'add it to the set-up: hand {player} "{card.name}"')
    occupied = bool(st.cells[cell])
    if on_stack:
        if not occupied:
            raise IllegalAction(f"{cell}は空いている: スタックは既存カードの上に重ねてプレイすること",
                                ctx.section("grm/stack/definition"))
        if not can_stack(card):
            raise IllegalAction(f"{card.label}は既存カードの上に重ねてプレイする効果を持たない",
                                ctx.section("grm/stack/sources"))
        kind = {"logo": "ロゴカード", "evolution": "1進化カード"}.get(card.fact("type"), "重ねてプレイする効果を持つカード")
        fx.say(ctx, f"{card.label}は{kind}であり、既存カードの上に重ねてプレイできる", ctx.section("grm/stack/sources"),
               *fx.card_cites(ctx, card))
        check = cell_check(ctx, st, cell, card)
        fx.say(ctx, check.text, *check.cites)
        if not check.ok:
            raise IllegalAction(f"ロゴカードの効果が有効なターン中、{cell}はすでに上限の3枚に達している",
                                ctx.section("grm/stack/cell-limit"))
    elif occupied:
        raise IllegalAction(f"{cell}には{st.top(cell).label}がある: カードは空いているマスにプレイする",
                            ctx.section("grm/turn/play-phase"))
    elif st.logo_active:
        ctx.step("ロゴカードの効果によるセルの上限はスタックにのみ適用され、空いているマスへのプレイには影響しない",
                 ctx.section("grm/stack/cell-limit"))
    check = ex_check(ctx, st, player, card)
    if check is not None:
        fx.say(ctx, check.text, *check.cites)
        if not check.ok:
            raise IllegalAction(f"{player}はすでにEXカードを上限まで（{check.limit}枚）フィールドに出している",
                                ctx.section("grm/ex/limit"))
    elif card.fact("ex") is UNKNOWN and not card.hypothetical and not st.ex_unlimited \
            and ex_cards(ctx, st, player, quiet=True):
        said = f"{card.label}のEXマークの有無は資料にない: EXカードでないものとして扱う"
        ctx.step(said, ctx.section("grm/ex/limit"), ctx.section("grm/card/ex-mark"),
                 ctx.assume("grm/reading/unknown-ex", said))

    if st.played_this_turn:  # begin() let a second play through: it is an extra play
        st.extra_plays -= 1
    st.hand[player].remove(card)
    card.face = "up"
    below = st.top(cell)
    st.cells[cell].append(card)
    st.played_this_turn = True
    st.passes_in_a_row = 0
    cites = [ctx.section("grm/turn/play-phase"), *fx.card_cites(ctx, card)]
    if on_stack:
        cites += [ctx.section("grm/stack/definition"), ctx.section("grm/stack/sources")]
        if card.fact("type") == "evolution":
            cites.append(ctx.ruling("grm/gap/evolution-base"))
        if below is not None and below.owner != player:
            cites.append(ctx.ruling("grm/gap/stack-ownership"))
        fx.say(ctx, f"{player}が{card.label}{_w(card)}を{cell}の{below.label if below.face == 'up' else '裏向きのカード'}の上に"
               f"重ねてプレイする（スタック: 一番上のカードのみが有効、下のカードは存在しないものとして扱う）", *cites)
        if below.face == "up":
            fx.ended(ctx, st, below, "下に重なった", ctx.section("grm/stack/definition"))
    else:
        fx.say(ctx, f"{player}が{card.label}{_w(card)}を{cell}にプレイする", *cites)
    if card.fact("type") == "logo" and not st.logo_active:
        st.logo_active = True
        ctx.step("このターン、ロゴカードの効果が有効: 1マスにつき最大3枚までスタックできる",
                 ctx.section("grm/stack/cell-limit"))

    unknown_text(ctx, card)
    # the continuous effects in force from the moment the card is: nullification first
    # (a nullified card's permanent effects are lost, grm/effects/kinds), then what it leaves
    fx.permanent_nullify(ctx, st, card, scoped=True)
    fx.special_victory_withheld(ctx, st, card)
    fx.settle(ctx, st)   # a permanent effect is in force from the moment its card is
    if st.result:
        return
    env: dict = {"controller": player, "moved": set(), "gone": set()}  # shared by every copy of env
    battles(ctx, st, card, cell, env)
    if st.result:
        return
    if st.on_field(card) and card.uid not in env.get("gone", ()):
        for e in card.effects():
            if e.name == "unspecified" and not all(v.name == "stack_play" for v in e.body or ()):
                raise fx._unspecified(card, e)
        on_play = card.effects("on_play")
        if on_play:
            ctx.step("バトルの解決後にプレイ時効果を解決する", ctx.section("grm/effects/resolution-order"))
        for e in on_play:
            fx.run_effect(ctx, st, card, e, {"controller": player, "trigger": "on_play"})
            if st.result:
                return
        for e in card.effects("continuous"):
            fx.run_effect(ctx, st, card, e, {"controller": player, "trigger": "continuous"})
            ctx.step("持続効果は一度発動すれば、カードの状態変化や無効化によっても失われない",
                     ctx.section("grm/effects/kinds"))
        fx.permanent_nullify(ctx, st, card, scoped=False)
    elif card.effects("on_play"):
        ctx.step(f"{card.label}はフィールドにないため、プレイ時効果は誘発しない", ctx.section("grm/effects/resolution-order"))
    if st.result:
        return
    if st.extra_plays:
        ctx.step(f"{player}の追加プレイ: 前のカードのバトルと効果は完全に解決済み",
                 ctx.section("grm/effects/resolution-order"))
    check_end(ctx, st)


def only_verb(effect, verb_call):
    """The effect restricted to one of its verbs."""
    return effect._replace(body=(verb_call,))


def unknown_text(ctx: Context, card: Card) -> None:
    """A known card whose effects the sources do not give is treated as having none, and the
    answer says so."""
    if not card.hypothetical and card.fact("has_effect") is UNKNOWN and not card.info.effects:
        said = f"{card.code}{card.label}の効果は資料にない: 効果を持たないものとして扱う"
        ctx.step(said, ctx.section("grm/card/effect"), ctx.assume("grm/reading/unknown-effects", said))


def _w(card: Card) -> str:
    w = card.fact("weight")
    return "" if w is UNKNOWN else f"（{int(w) if float(w).is_integer() else w}kg）"


# ----------------------------------------------------------------------------- battles

def in_range(ctx: Context, st: State, card: Card, cell: str) -> list[str]:
    rng = card.fact("range")
    if rng is UNKNOWN:
        rng = "orthogonal"  # a hypothetical card the scenario gave no range has the normal one
        if not card.hypothetical:
            said = f"{card.label}のバトル範囲は資料にない: 通常の範囲（上下左右）とする"
            ctx.step(said, ctx.section("grm/battle/range"), ctx.assume("grm/reading/unknown-range", said))
    owner = card.owner
    opponents = st.opposing(neighbours(cell), owner)
    pool = neighbours(cell, diagonal=rng == "all8") if rng != "own_side" else []
    hidden = []         # (a generator only where a stack is the card's owner's)
    for c in pool:
        if len(st.cells[c]) > 1 and st.top(c).owner == owner and any(x.owner != owner for x in st.cells[c][:-1]):
            hidden.append(c)
    if hidden:
        ctx.step(f"{'・'.join(hidden)}の下に重なった相手のカードは存在しないものとして扱う"
                 "（スタックは一番上のカードの持ち主のカード）",
                 ctx.section("grm/stack/definition"), ctx.ruling("grm/gap/stack-ownership"))
    if rng == "all8":
        fx.say(ctx, f"{card.label}は上下左右に加えて斜めを含む8方向全てに対してバトルを行う",
               ctx.section("grm/battle/range"), *fx.card_cites(ctx, card))
        return [c for c in neighbours(cell, diagonal=True) if st.cells[c] and st.top(c).owner != card.owner]
    if rng == "own_side":
        scope, cite = ctx.point("battle.own_side_scope")
        also, also_cite = ctx.point("battle.own_side_opponents")
        where = "上下左右に隣接する" if scope == "adjacent_own" else "フィールド上の"
        extra = "（範囲内の相手のカードとも）" if also == "also_opponents" else "（相手のカードとはバトルしない）"
        fx.say(ctx, f"{card.label}は{where}自陣のカードに対してバトルを行う{extra}", ctx.section("grm/battle/range"),
               *fx.card_cites(ctx, card), cite, also_cite)
        pool = neighbours(cell) if scope == "adjacent_own" else [c for c in st.cells if c != cell]
        own = [c for c in pool if st.cells[c] and st.top(c).owner == card.owner]
        return sorted(own + opponents) if also == "also_opponents" else own
    return opponents


def battles(ctx: Context, st: State, card: Card, cell: str, env: dict) -> None:
    cells = in_range(ctx, st, card, cell)
    mixed = st.mixed(cells)
    if mixed:
        ctx.step(f"スタック（{'・'.join(mixed)}）は一番上のカードの持ち主のカードとして扱う",
                 ctx.ruling("grm/gap/stack-ownership"), ctx.section("grm/stack/definition"))
    if not cells:
        ctx.step(f"{card.label}のバトル範囲に相手のカードがないため、バトルは発生しない", ctx.section("grm/battle/occurrence"))
        return
    facedown = [c for c in cells if st.top(c).face == "down"]
    if facedown:
        rule, cite = ctx.point("battle.facedown_target")
        if rule == "no_battle":
            fx.say(ctx, f"裏向きのカード（{'・'.join(facedown)}）とはバトルは発生しない", cite)
            cells = [c for c in cells if c not in facedown]
            if not cells:
                return
        else:
            fx.say(ctx, f"裏向きのカード（{'・'.join(facedown)}）ともバトルは発生する", cite)
    whose = "カード" if card.fact("range") == "own_side" else "相手カード"
    fx.say(ctx, f"{card.label}は範囲内の全ての{whose}（{'・'.join(cells)}）と強制的にバトルを行う",
           ctx.section("grm/battle/range"), ctx.section("grm/battle/occurrence"))
    order = list(cells)
    if len(order) > 1:
        order = battle_order(ctx, st, card, order)
    for target_cell in order:
        if st.result or not st.on_field(card) or card.uid in env.get("gone", ()):
            if not st.result:
                ctx.step(f"{card.label}はフィールドを離れたため、残りのバトルは行われない",
                         ctx.section("grm/effects/resolution-order"))
            return
        defender = st.top(target_cell)
        if defender is None:
            continue
        battle(ctx, st, card, cell, defender, target_cell, env)


def battle_order(ctx: Context, st: State, card: Card, cells: list[str]) -> list[str]:
    """Simultaneous battles: the targeted player chooses their order (2026-04 on); before,
    no one is named. Explored only when an effect can react to the order; the answer names
    who chooses either way."""
    defenders = [st.top(c) for c in cells]
    rule, cite = ctx.point("battle.simultaneous_order")
    owners = {d.owner for d in defenders}
    chooser = owners.pop() if rule == "defender_chooses" and len(owners) == 1 else None
    if chooser:
        who = f"対象側のプレイヤー（{chooser}）が解決順を選ぶ"
    elif rule == "defender_chooses":
        who = "両プレイヤーのカードが対象のため、解決順を選ぶプレイヤーの規定はない"
    else:
        who = "解決順を選ぶプレイヤーの規定はない"
    matters = any_triggered((card, *defenders), fx.TRIGGERED) or st.top_triggered("on_flipped")
    if not matters:
        fx.say(ctx, f"複数方向へのバトルは同時に発生する: {who}（どの順でも結果は変わらない）",
               ctx.section("grm/battle/simultaneous"), cite)
        fx.name_chooser(ctx, chooser, "バトルの解決順", cite)
        return cells
    fx.say(ctx, f"同時に複数のカードがバトルの対象: {who}" + ("" if chooser else "（全ての順を調べる）"),
           ctx.section("grm/battle/simultaneous"), cite)
    orders = list(permutations(cells))
    pick = ctx.choose(chooser, "バトルの解決順", ["→".join(o) for o in orders], cite=cite)
    return list(orders[pick])


def _facedown_fires(ctx: Context, card: Card, trigger: str) -> bool:
    """Whether a face-down card's triggered effect fires (triggers.facedown: the sources say
    only that its permanent effects are lost)."""
    rule, cite = ctx.point("triggers.facedown")
    kind = ctx.kb.games[ctx.game].vocab.label("trigger", trigger) or trigger
    if rule == "triggers":
        fx.say(ctx, f"裏向きの{card.label}の{kind}の効果も発動する", cite)
        return True
    fx.say(ctx, f"裏向きの{card.label}の{kind}の効果は発動しない", cite)
    return False


def battle(ctx: Context, st: State, attacker: Card, acell: str, defender: Card, dcell: str, env: dict) -> None:
    """One battle, then what its changes set in force (a permanent special victory)."""
    _battle(ctx, st, attacker, acell, defender, dcell, env)
    fx.settle(ctx, st)


def _battle(ctx: Context, st: State, attacker: Card, acell: str, defender: Card, dcell: str, env: dict) -> None:
    ctx.step(f"バトル: {acell}の{attacker.label} → {dcell}の{_shown(defender)}", ctx.section("grm/battle/occurrence"))
    if defender.face == "up":
        unknown_text(ctx, defender)
    # a battle at 0 kg
    if attacker.face == "up" and defender.face == "up" and (_zero(ctx, st, attacker) or _zero(ctx, st, defender)):
        rule, cite = ctx.point("battle.zero_weight")
        if rule == "no_battle":
            fx.say(ctx, "0kgのカードを含むためバトルは発生しない", cite)
            return
        fx.say(ctx, "0kgのカードを含んでもバトル自体は発生する", cite)
    st.battles.append((acell, dcell))
    # battle replacement (No.138)
    replacing = bool(defender.effects("battle_replacement")) and st.is_top(defender)
    if replacing and defender.face == "down":
        replacing = _facedown_fires(ctx, defender, "battle_replacement")
    if replacing and fx.can_trigger(ctx, st, defender):
        for e in defender.effects("battle_replacement"):
            fx.say(ctx, f"{defender.label}はバトルの解決自体を置き換える: {attacker.label}はバトルの前に処理される",
                   ctx.section("grm/effects/resolution-order"), *fx.card_cites(ctx, defender))
            st.battles.pop()
            fx.run_effect(ctx, st, defender, e, dict(env, controller=defender.owner, opponent=attacker,
                                                      trigger="battle_replacement"))
            ctx.step(f"{attacker.label}がフィールドを離れたため、このバトルもプレイ時効果も誘発しない",
                     ctx.section("grm/effects/resolution-order"))
            env.setdefault("gone", set()).add(attacker.uid)
            return
    # battle triggers are processed inside the battle
    triggered = []
    for c in (attacker, defender):
        if c.effects("on_battle") and st.is_top(c) and (c.face == "up" or _facedown_fires(ctx, c, "on_battle")):
            triggered.append(c)
    if triggered:
        ctx.step("バトルが発生した際に誘発する効果はバトル解決中に処理される", ctx.section("grm/effects/resolution-order"))
        moved_before = set(env.get("moved", ()))
        for c in _trigger_order(ctx, st, triggered):
            if not fx.can_trigger(ctx, st, c):  # asked when its turn comes: an earlier trigger may nullify it
                continue
            opp = defender if c is attacker else attacker
            for e in c.effects("on_battle"):
                fx.run_effect(ctx, st, c, e, dict(env, controller=c.owner, opponent=opp, trigger="on_battle"))
        moved = set(env.get("moved", ())) - moved_before
        left = [c for c in (attacker, defender) if c.uid in moved or not st.on_field(c)]
        if left:
            rule, cite = ctx.point("battle.skip_on_move")
            still = st.cell_of(attacker) is not None and st.cell_of(defender) is not None and \
                st.cell_of(defender) in neighbours(st.cell_of(attacker), attacker.fact("range") == "all8")
            if rule == "skip" or not still:
                st.battles.remove((acell, dcell))
                fx.say(ctx, f"バトル発生時の効果で{'・'.join(c.label for c in left)}が移動したため、このバトルはスキップされる"
                       "（移動先が範囲内でも同様）", cite, ctx.section("grm/battle/skip"))
                return
            fx.say(ctx, "移動先が依然としてバトル範囲内のため、バトルを続ける", cite)
    if st.result:
        return
    acell, dcell = st.cell_of(attacker), st.cell_of(defender)
    if acell is None or dcell is None or not st.is_top(defender):
        ctx.step("バトルするカードがフィールド上の元の位置にないため、このバトルは行われない",
                 ctx.section("grm/battle/skip"))
        return
    # the weights
    if defender.face == "down":
        ctx.step(f"{dcell}のカードは裏向きで体重を持たない: 勝敗の比較はなく、裏返しも起きない",
                 ctx.ruling("grm/gap/facedown-battle"), ctx.section("grm/state/face"))
        return
    aw = fx.weight(ctx, st, attacker, acell)
    if aw is None:
        ctx.step(f"{attacker.label}は裏向きになっており体重を持たない: バトルに勝利しない", ctx.section("grm/state/face"))
        return
    dw = fx.weight(ctx, st, defender, dcell)
    cites = [ctx.section("grm/battle/outcome")]
    stacks = [c for c in (acell, dcell) if len(st.cells[c]) > 1]
    tops = ""
    if stacks:
        cites.append(ctx.section("grm/stack/definition"))
        tops = "（" + "、".join(f"{c}はスタック: 一番上の{st.top(c).label}の体重のみが有効" for c in stacks) + "）"
    if aw > dw:
        fx.say(ctx, f"{fx._kg(aw)} > {fx._kg(dw)}{tops}: プレイしたカードが重いのでバトルに勝利する", *cites)
        turned = fx.flip_cell(ctx, st, dcell, "down", "バトルに敗れた", (ctx.section("grm/state/face"),))
        # an effect set off by losing the battle is still inside it: its battle opponent is the attacker
        fx.fire(ctx, st, "on_flipped", turned, dict(env, cause=attacker, opponent=attacker))
    else:
        relation = "同体重な" if aw == dw else "軽い"
        fx.say(ctx, f"{fx._kg(aw)} {'=' if aw == dw else '<'} {fx._kg(dw)}{tops}: {relation}のでバトルに勝利せず、裏返しは発生しない",
               *cites)


def _zero(ctx: Context, st: State, card: Card) -> bool:
    """Whether the card weighs 0 kg (as treated); a weight the sources do not give is left to
    the comparison, which asks for it (and says how the weight is reached)."""
    if card.fact("weight") is UNKNOWN and not any(
            v.name == "treat_as_weight" for e in card.effects() for v in e.body or ()):
        return False
    return fx.weight(ctx, st, card, None, quiet=True) == 0


def _trigger_order(ctx: Context, st: State, cards: list[Card]) -> list[Card]:
    if len(cards) <= 1:
        return cards
    pending = fx.order_simultaneous(ctx, st, [(c, None) for c in cards])
    return [c for c, _ in pending]


def _shown(card: Card) -> str:
    return card.label if card.face == "up" else "裏向きのカード"


# ----------------------------------------------------------------------------- the end

def check_end(ctx: Context, st: State) -> None:
    if st.result:
        return
    if not st.full():
        empty = [c for c, s in st.cells.items() if not s]
        ctx.step(f"空いているマス（{'・'.join(empty)}）があるため、通常勝利の判定はまだ行われない",
                 ctx.section("grm/victory/normal"))
        return
    counts = {p: 0 for p in ("P1", "P2")}
    stacks, mixed = [], False
    for cell, card in st.field_cards():
        if card.face == "up":
            counts[card.owner] += 1
        if len(st.cells[cell]) > 1:
            stacks.append(cell)
            mixed = mixed or len({c.owner for c in st.cells[cell]}) > 1
    cites = [ctx.section("grm/victory/normal")]
    once = ""
    if stacks:
        cites.append(ctx.section("grm/stack/definition"))
        once = f"（スタック{'・'.join(stacks)}はそれぞれ一番上のカード1枚として数える）"
    if mixed:
        cites.append(ctx.ruling("grm/gap/stack-ownership"))
    ctx.step(f"9マスが全て埋まった: オモテ向きのカードはP1が{counts['P1']}枚、P2が{counts['P2']}枚{once}", *cites)
    if counts["P1"] != counts["P2"]:
        st.winner = max(counts, key=counts.get)
        st.result, st.result_note = "win", f"オモテ向き{counts[st.winner]}枚対{counts[other(st.winner)]}枚"
        ctx.step(f"オモテ向きのカードが多い{st.winner}が勝利する", ctx.section("grm/victory/normal"))
        return
    if ctx.mode != "tournament":
        st.result, st.result_note, st.result_rule = "draw", f"オモテ向き{counts['P1']}枚ずつ", "grm/victory/draw"
        ctx.step("オモテ向きのカードが同数: 通常プレイでは引き分け", ctx.section("grm/victory/draw"))
        return
    sums = {p: 0.0 for p in ("P1", "P2")}
    for cell, card in st.field_cards():
        if card.face == "up":
            sums[card.owner] += fx.weight(ctx, st, card, cell)
    covered = "（スタックの下に重なったカードは存在しないものとして扱い、一番上のカードの体重のみを数える）" if stacks else ""
    ctx.step(f"トーナメント: オモテ向きカードの体重合計はP1が{fx._kg(sums['P1'])}、P2が{fx._kg(sums['P2'])}{covered}",
             ctx.section("grm/victory/draw"), *((ctx.section("grm/stack/definition"),) if stacks else ()))
    if sums["P1"] != sums["P2"]:
        st.winner = max(sums, key=sums.get)
        st.result, st.result_note = "win", f"同数のため体重合計{fx._kg(sums[st.winner])}対{fx._kg(sums[other(st.winner)])}"
        st.result_rule = "grm/victory/draw"
        ctx.step(f"体重合計が高い{st.winner}が勝利する", ctx.section("grm/victory/draw"))
        return
    rule, cite = ctx.point("victory.equal_weight")
    if rule == "draw":
        st.result, st.result_note, st.result_rule = "draw", "枚数も体重合計も同じ", "grm/victory/draw"
        fx.say(ctx, "体重合計も同じ: 引き分けとする", cite)
    else:
        st.result, st.result_note, st.result_rule = "undecided", "枚数も体重合計も同じで、勝敗の規定がない", "grm/victory/draw"
        fx.say(ctx, "体重合計も同じ: 勝敗を決める規定はない", cite)
