"""The set-up and the turn: seats, dealing and placing, replenish, recover, elimination, the end
of a turn and victory. Each step cites the rule section (or the recorded reading) that decides it.
"""

from __future__ import annotations

from itertools import permutations
from typing import Optional

from ...engine.chance import Distribution
from ...engine.context import Context, EngineError, IllegalAction
from ...engine.trace import Cite
from ...lang.vocab import UNKNOWN
from .state import ALL_CARDS, HAND_SIZE, ON_FIELD, PLACES, ROW_JA, VICTORY_SCORE, Char, Side, State

STEPS = ("replenish", "recover", "attack")
STEP_JA = {"replenish": "補充", "recover": "回復", "attack": "攻撃"}


def where(row: str, column: int) -> str:
    return f"{ROW_JA[row]}・左から{column}番目"


def illegal(st: State, act: str, message: str, *cites) -> IllegalAction:
    """An action the rules forbid (an answer, not an error); remembers which act it was."""
    st.illegal_act = act
    st.acts[act] = message
    return IllegalAction(message, cites[0] if cites else None)


# ----------------------------------------------------------------------------- placement

def check_arrangement(ctx: Context, st: State, side: Side, act: str = "placement") -> None:
    """前列・後列の配置ルール: a back-row character only behind a front-row one; six at most."""
    lonely = []
    for c in side.back:
        if c not in side.front:
            lonely.append(c)
    lonely.sort()
    if lonely:
        # the diagrams illustrate the rule of thgm/placement/rows, which decides: their reading
        # is shown with the answer, not relied on
        ctx.step("配置の例（ＮＧ）はどれも、前列のいない場所の後ろに後列キャラがいる",
                 ctx.section("thgm/placement/ng-examples"), ctx.gap("thgm/gap/placement-diagrams"))
        raise illegal(st, act, f"{side.player}の後列・左から{'・'.join(map(str, lonely))}番目のキャラの前に前列キャラが"
                               "いない: 後列には前列がいる場所の後ろにしか置けない",
                      ctx.section("thgm/placement/rows"), ctx.section("thgm/placement/ng-examples"))
    if side.count() > ON_FIELD:
        raise illegal(st, act, f"{side.player}の場のキャラが{side.count()}人いる: 場に配置するのは９枚の中から選んだ６枚",
                      ctx.section("thgm/setup/placement"))


def arrangement_ok(ctx: Context, st: State, side: Side) -> None:
    fronts, backs = len(side.front), len(side.back)
    ctx.step(f"{side.player}の配置: 前列{fronts}人・後列{backs}人。後列のキャラはどれも前列キャラの後ろにいる",
             ctx.section("thgm/placement/rows"), ctx.section("thgm/placement/ok-examples"),
             ctx.gap("thgm/gap/placement-diagrams"))


# ----------------------------------------------------------------------------- seats and dealing

def decide_seats(ctx: Context, st: State, loc) -> None:
    players = st.players()
    if not 2 <= len(players) <= 4:
        raise EngineError(f"the game is for 2 to 4 players; the scenario has {len(players)}", loc,
                          "name the players: seats P1 P2 P3 (thgm/overview/players: ２人から４人)")
    orders = Distribution([(p, 1) for p in permutations(players)])
    cite = ctx.section("thgm/setup/seating")
    ctx.step(f"席順と開始プレイヤーを確率的に公平な方法で決める（{len(orders)}通りの席順が等しい確率）", cite)
    order, _ = ctx.chance("席順（開始プレイヤーから）", orders, lambda v: v,
                          lambda k, d: "→".join(k), loc, (cite,), by="席決め")
    st.seats = list(order)
    st.seats_given = st.seats_drawn = True
    ctx.step(f"開始プレイヤーは{order[0]}。ターンは{'→'.join(order)}の順に回る", cite, ctx.section("thgm/turn/order"))


def deal(ctx: Context, st: State, loc) -> None:
    players = st.players()
    if not 2 <= len(players) <= 4:
        raise EngineError(f"the game is for 2 to 4 players; the scenario has {len(players)}", loc,
                          "name the players: seats P1 P2 P3 (thgm/overview/players: ２人から４人)")
    if st.dealt:
        raise illegal(st, "placement", "カードはすでに配られている", ctx.section("thgm/setup/deal"))
    for p in players:
        side = st.side(p)
        if side.count() or side.stock:
            raise EngineError(f"{p} already has cards on the side or in the stock; dealing starts the game",
                              loc, "leave characters and stock out of a scenario that deals")
    ctx.step(f"{len(players)}人でプレイする（２人から４人）", ctx.section("thgm/overview/players"))
    ctx.step(f"東方グランドメレーの全カード36枚をシャッフルし、{len(players)}人の各プレイヤーに９枚ずつ配る",
             ctx.section("thgm/setup/deal"), ctx.section("thgm/overview/card-count"), ctx.section("thgm/overview/components"))
    for p in players:
        side = st.side(p)
        side.dealt = side.to_place = HAND_SIZE
    st.dealt = True
    st.unused = ALL_CARDS - HAND_SIZE * len(players)
    ctx.step(f"余った{st.unused}枚はこのゲーム中は使用しない" if st.unused else "余るカードはない（全36枚を使う）",
             ctx.section("thgm/setup/deal"))
    ctx.step("手札という概念はない: ストック以外の自分のカードは全て場に配置する",
             ctx.section("thgm/placement/no-hand"))


def place(ctx: Context, st: State, player: str, char: Char, row: str, column: int, loc) -> None:
    side = st.side(player)
    check_place(column, loc)
    if not st.dealt:
        raise EngineError("cards are placed from the nine dealt: the scenario deals no cards", loc,
                          "add `deal` before the placements, or give the characters as set-up: character P1 front 1")
    if side.placed >= ON_FIELD:
        raise illegal(st, "placement", f"{player}はすでに６枚を配置している: 場に配置するのは９枚の中から選んだ６枚",
                      ctx.section("thgm/setup/placement"))
    if side.at(row, column) is not None:
        raise illegal(st, "placement", f"{player}の{where(row, column)}にはすでにキャラがいる",
                      ctx.section("thgm/placement/rows"))
    char.face = "down"
    side.row(row)[column] = char
    side.placed += 1
    side.to_place -= 1
    st.acts.setdefault("placement", None)
    ctx.step(f"{player}は{char.label}を{where(row, column)}に裏向きで配置する",
             ctx.section("thgm/setup/placement"), ctx.section("thgm/placement/hidden"),
             ctx.section("thgm/placement/rows"))
    if side.placed == ON_FIELD:
        check_arrangement(ctx, st, side)
        arrangement_ok(ctx, st, side)
        side.stock, side.stock_given, side.to_place = side.to_place, True, 0
        ctx.step(f"{player}の残りの{side.stock}枚は好きな順番で裏向きの山として場の脇に置く（ストック）",
                 ctx.section("thgm/setup/placement"))


def setup_complete(ctx: Context, st: State) -> None:
    """Before play: every player who was dealt cards has placed six of them."""
    for p in st.players():
        side = st.side(p)
        if side.dealt and side.placed < ON_FIELD:
            raise illegal(st, "placement", f"{p}はまだ{side.placed}枚しか配置していない: ストック以外の自分のカードは"
                                           "全て場に配置しなければならない（９枚の中から６枚を場に、３枚をストックに）",
                          ctx.section("thgm/placement/no-hand"), ctx.section("thgm/setup/placement"))
    if st.dealt and st.active is None:
        start = st.players()[0]
        st.active, st.step, st.step_done = start, "replenish", False
        ctx.step(f"準備が終わり、開始プレイヤー{start}のターンから始まる", ctx.section("thgm/turn/order"))


def check_place(column: int, loc) -> None:
    if not 1 <= column <= PLACES:
        raise EngineError(f"there is no place {column} on a side: places are numbered 1 to {PLACES} from the left",
                          loc, "a side holds at most six characters, so six places (1–6) always suffice")


# ----------------------------------------------------------------------------- the turn

def next_player(st: State, player: str) -> Optional[str]:
    order = st.players()
    if player not in order:
        return None
    i = order.index(player)
    for k in range(1, len(order) + 1):
        p = order[(i + k) % len(order)]
        if not st.side(p).eliminated:
            return p
    return None


def reach(ctx: Context, st: State, player: str, step: str, act: str) -> None:
    """Bring the turn to `player`'s `step` (the steps go replenish, recover, attack), or say why
    the rules do not allow acting there now."""
    setup_complete(ctx, st)
    if st.over:
        raise illegal(st, act, f"ゲームはすでに終了している（{st.winner}の勝利）", ctx.section("thgm/victory"))
    if st.victory_unknown is not None:
        raise unknown_score(st.victory_unknown)
    if st.side(player).eliminated:
        raise illegal(st, act, f"{player}はゲームから脱落している", ctx.section("thgm/turn/elimination"))
    if st.active is None:
        st.active, st.step, st.step_done = player, step, False
        ctx.step(f"{player}のターンの{STEP_JA[step]}の手順（場面の指定による）", ctx.section("thgm/turn/order"))
        return
    if st.active != player:
        raise illegal(st, act, f"いまは{st.active}のターン（{STEP_JA[st.step]}の手順）: 各プレイヤーは自分のターンに行動する",
                      ctx.section("thgm/turn/order"))
    now, want = STEPS.index(st.step), STEPS.index(step)
    if want < now:
        raise illegal(st, act, f"{player}のターンはすでに{STEP_JA[st.step]}の手順に進んでいる: "
                               f"{STEP_JA[step]}は手順{want + 1}（補充→回復→攻撃の順に行う）",
                      ctx.section("thgm/turn/order"), ctx.section(f"thgm/turn/{_section_of(step)}"))
    while STEPS.index(st.step) < want:
        leave_step(ctx, st, act)
        st.step = STEPS[STEPS.index(st.step) + 1]
        st.step_done = False
        ctx.step(f"{player}のターンの{STEP_JA[st.step]}の手順", ctx.section("thgm/turn/order"))
    if step == "attack":
        enter_attack_step(ctx, st, act)


def _section_of(step: str) -> str:
    return {"replenish": "replenish", "recover": "recover", "attack": "attack"}[step]


def leave_step(ctx: Context, st: State, act: str) -> None:
    """Moving past a step: replenish is not optional while the stock lasts."""
    side = st.side(st.active)
    if st.step == "replenish" and not st.step_done and side.count() < ON_FIELD and side.stock > 0:
        raise illegal(st, act, f"{st.active}の場のキャラは{side.count()}人でストックが{side.stock}枚ある: "
                               "補充の手順で６人になるまでストックから補充しなければならない",
                      ctx.section("thgm/turn/replenish"), ctx.section("thgm/turn/order"))


def unknown_score(char: Char) -> EngineError:
    return EngineError(f"whether the game has ended depends on the score of {char.label}, which neither the "
                       "sources nor the scenario give", char.loc,
                       f'supply it in the scenario: card "{char.name}" {{ score 4 }}')


# ----------------------------------------------------------------------------- 1. replenish

def replenish_step(ctx: Context, st: State, player: str) -> None:
    reach(ctx, st, player, "replenish", "replenish")
    side = st.side(player)
    sec = ctx.section("thgm/turn/replenish")
    if side.count() >= ON_FIELD:
        ctx.step(f"{player}の場のキャラは{side.count()}人: 補充はない", sec)
    while side.count() < ON_FIELD:
        if side.stock <= 0:
            ctx.step(f"{player}のストックは尽きている: それ以上の補充はない（場のキャラは{side.count()}人）", sec)
            break
        options = replenish_options(ctx, side)
        if not options:   # only where 「誰もいない列」 is read as the row: every front character has one behind
            ctx.step(f"{player}の前列キャラはどれも後ろに後列キャラがいる: 「誰もいない列」を前列（横の並び）と読むと、前列に"
                     f"キャラがいる間は新しく前列キャラとして置けず、置き方がないので補充はここまで（場のキャラは{side.count()}人）",
                     ctx.section("thgm/placement/replenish-options"), empty_column_allows(ctx, side)[1])
            break
        labels = [_option_words(how, col) for how, col in options]
        ctx.step(f"{player}の場のキャラは{side.count()}人（６人未満）: ストックから１枚補充する", sec,
                 ctx.section("thgm/placement/replenish-options"))
        pick = ctx.choose(player, "補充するキャラの置き方", labels, cite=ctx.section("thgm/placement/replenish-options"))
        how, col = options[pick]
        put_from_stock(ctx, st, side, how, col)
    st.step_done = True


def replenish_options(ctx: Context, side: Side) -> list[tuple[str, int]]:
    """The three ways of placing a replenished character. Places differ only in name
    (distances depend on the rows), so a new place is offered once: the leftmost free one."""
    out: list[tuple[str, int]] = []
    free = [c for c in range(1, PLACES + 1) if c not in side.front and c not in side.back]
    if free and empty_column_allows(ctx, side)[0]:
        out.append(("new_column", free[0]))
    for col in sorted(side.front):
        if col not in side.back:
            out.append(("behind", col))
            out.append(("push_back", col))
    return out


def empty_column_allows(ctx: Context, side: Side) -> tuple[bool, Cite]:
    """Whether 「誰もいない列に新しく前列キャラとして配置する」 is open to `side` now: the 列 read as
    a place (front and back empty there: always, while a place is free) or as the row (no front
    character at all), rule point replenish.empty_column."""
    how, cite = ctx.point("replenish.empty_column")
    return how == "place" or not side.front, cite


def _option_words(how: str, col: int) -> str:
    return {"new_column": f"誰もいない左から{col}番目に前列キャラとして置く",
            "behind": f"左から{col}番目の前列キャラの後ろに後列キャラとして置く",
            "push_back": f"左から{col}番目の前列キャラを後列に下げ、前列に置く"}[how]


def replenish_one(ctx: Context, st: State, player: str, how: str, col: int, loc) -> None:
    reach(ctx, st, player, "replenish", "replenish")
    check_place(col, loc)
    side = st.side(player)
    if side.count() >= ON_FIELD:
        raise illegal(st, "replenish", f"{player}の場のキャラはすでに６人: 補充は６人になるまで",
                      ctx.section("thgm/turn/replenish"))
    if side.stock <= 0:
        raise illegal(st, "replenish", f"{player}のストックは尽きている: それ以上の補充はない",
                      ctx.section("thgm/turn/replenish"))
    front, back = side.at("front", col), side.at("back", col)
    opts = ctx.section("thgm/placement/replenish-options")
    if how == "new_column":
        allowed, cite = empty_column_allows(ctx, side)
        if not allowed:
            raise illegal(st, "replenish", f"{player}の前列にはキャラがいる: 「誰もいない列」を前列（横の並び）と読むと、"
                          "新しく前列キャラとして置けるのは前列に誰もいないときだけ", opts, cite)
        if front or back:
            raise illegal(st, "replenish", f"左から{col}番目にはキャラがいる: 新しく前列キャラとして置けるのは誰もいない場所",
                          opts, cite)
    if how in ("behind", "push_back") and not (front and not back):
        what = "誰もいない" if not front else "後列キャラがすでにいる"
        raise illegal(st, "replenish", f"左から{col}番目は{what}: この置き方ができるのは前列キャラだけがいるところ", opts)
    put_from_stock(ctx, st, side, how, col)
    st.acts["replenish"] = None
    if side.count() >= ON_FIELD or side.stock <= 0:
        st.step_done = True


def put_from_stock(ctx: Context, st: State, side: Side, how: str, col: int) -> None:
    char = Char(st.next_uid, None, side.player, "down", True, None, None)
    st.next_uid += 1
    opts = ctx.section("thgm/placement/replenish-options")
    if how == "new_column":
        side.front[col] = char
        ctx.step(f"ストックの一番上のカードを、誰もいない左から{col}番目に前列キャラとして裏向きで置く", opts,
                 empty_column_allows(ctx, side)[1], ctx.section("thgm/placement/hidden"))
    elif how == "behind":
        side.back[col] = char
        ctx.step(f"ストックの一番上のカードを、前列キャラだけがいる左から{col}番目の後列に裏向きで置く", opts,
                 ctx.section("thgm/placement/hidden"))
    else:
        side.back[col] = side.front[col]
        side.front[col] = char
        ctx.step(f"左から{col}番目の前列キャラ{side.back[col].label}を後列に移し、ストックの一番上のカードを前列に裏向きで置く",
                 opts, ctx.section("thgm/placement/hidden"))
    side.stock -= 1


# ----------------------------------------------------------------------------- 2. recover

def can_recover(ctx: Context, st: State, side: Side, char: Char) -> list:
    """Citations of what gives `char` 「回復」 now (empty: nothing does)."""
    why = []
    if any(trig == "sp" for trig, _ in char.verbs("recover")):
        why += [ctx.card_cite(char.code, char.hypothetical), ctx.section("thgm/card/ability")]
    for holder, call in st.turn_effects:
        if call.name == "recover" and holder is char:
            why.append(ctx.card_cite(holder.code, holder.hypothetical))
    for _, _, other in side.chars():
        grants = [v for trig, v in other.verbs("grant_recover") if trig == "sp"]
        grants += [v for h, v in st.turn_effects if h is other and v.name == "grant_recover"]
        for v in grants:
            target = v.params.get("target")
            if target is UNKNOWN:
                raise EngineError(f"{other.label} gives 「回復」 to characters the sources do not name", other.loc,
                                  "say whom: grant_recover own_side (自軍のキャラ) or other_own (自軍の他のキャラ)")
            if target == "own_side" or (target == "other_own" and other is not char):
                why.append(ctx.card_cite(other.code, other.hypothetical))
    return why


def recover_step(ctx: Context, st: State, player: str) -> None:
    reach(ctx, st, player, "recover", "recover")
    side = st.side(player)
    sec = ctx.section("thgm/turn/recover")
    hurt = [(r, c, ch) for r, c, ch in side.chars() if ch.injured]
    if not hurt:
        ctx.step(f"{player}の場に負傷状態のキャラはいない", sec)
    for row, col, ch in hurt:
        why = can_recover(ctx, st, side, ch)
        if not why:
            ctx.step(f"{where(row, col)}の{ch.label}は「回復」を持たず、他のキャラからも得ていない: 回復できない", sec)
            continue
        ctx.step(f"{where(row, col)}の{ch.label}は「回復」を持つ（または得ている）: このタイミングで負傷状態から回復できる",
                 sec, *why)
        if ctx.choose(player, f"{where(row, col)}の{ch.label}を回復させるか", ("回復させる", "回復させない"), cite=sec) == 0:
            ch.injured = False
            st.recovered.add(ch.uid)
            ctx.step(f"{ch.label}は負傷状態から回復する（縦向きに戻す）", sec)
    st.step_done = True


def recover_one(ctx: Context, st: State, player: str, row: str, col: int, loc) -> None:
    side = st.side(player)
    check_place(col, loc)
    char = side.at(row, col)
    if char is None:
        raise EngineError(f"{player} has no character at {where(row, col)}", loc, "check the row and the place")
    sec = ctx.section("thgm/turn/recover")
    if st.active == player and st.step == "attack":
        raise illegal(st, "recover", "回復できるのは回復の手順（ターンの手順2）だけ: いまは攻撃の手順", sec,
                      ctx.section("thgm/turn/order"))
    reach(ctx, st, player, "recover", "recover")
    if not char.injured:
        raise illegal(st, "recover", f"{char.label}は負傷状態ではない", sec)
    why = can_recover(ctx, st, side, char)
    if not why:
        raise illegal(st, "recover", f"{char.label}は特殊能力「回復」を持たず、他のキャラの特殊能力によって「回復」を得てもいない",
                      sec)
    char.injured = False
    st.recovered.add(char.uid)
    st.acts["recover"] = None
    ctx.step(f"{where(row, col)}の{char.label}は「回復」により負傷状態から回復する", sec, *why)


# ----------------------------------------------------------------------------- 3. attack: elimination

def enter_attack_step(ctx: Context, st: State, act: str) -> None:
    """The attack step begins: a turn player without an uninjured character is eliminated."""
    if st.step_done:
        return
    st.step_done = True
    player = st.active
    side = st.side(player)
    fit = [c for _, _, c in side.chars() if not c.injured]
    if fit:
        ctx.step(f"{player}の場に負傷状態ではないキャラが{len(fit)}人いる: 脱落せず、１人を選んで攻撃宣言をする",
                 ctx.section("thgm/turn/attack"), ctx.section("thgm/turn/elimination"))
        return
    ctx.step(f"{player}の場に負傷状態ではないキャラが１人もいない: {player}はゲームから脱落する",
             ctx.section("thgm/turn/elimination"))
    eliminate(ctx, st, player)
    if act not in ("step",):
        raise illegal(st, act, f"{player}は攻撃の手順で脱落した（負傷状態ではないキャラが１人もいない）",
                      ctx.section("thgm/turn/elimination"))


def eliminate(ctx: Context, st: State, player: str) -> None:
    side = st.side(player)
    side.eliminated = True
    st.eliminated_now.append(player)
    gone = [c.label for _, _, c in side.chars()]
    score = side.score()
    cards = len(side.score_cards)
    side.front.clear()
    side.back.clear()
    side.score_cards.clear()
    side.base_score = 0
    st.removed.append(player)
    points = "不明" if score is None else f"{score}点"
    held = f"、スコアカード{cards}枚" if cards else ""
    ctx.step(f"脱落した{player}のキャラ（{len(gone)}人）とスコア（{points}{held}）は全てゲームから除外される",
             ctx.section("thgm/turn/elimination"))
    if side.stock:
        ctx.step(f"{player}のストック{side.stock}枚も以後使われない（本文はストックに触れていない）",
                 ctx.ruling("thgm/gap/eliminated-stock"))
        side.stock = 0
    left = st.in_game()
    if len(left) == 1:
        st.winner = left[0]
        ctx.step(f"１人を除いて全てのプレイヤーが脱落した（全ての敵陣営から戦闘力を奪った）: その時点で{left[0]}の勝利となり"
                 "ゲームは終了する", ctx.section("thgm/victory"), ctx.section("thgm/overview"))
        return
    ctx.step(f"残るプレイヤーは{len(left)}人（{'・'.join(left)}）: まだ勝者は決まらず、ゲームは続く", ctx.section("thgm/victory"))
    end_turn(ctx, st, player)


def end_turn(ctx: Context, st: State, player: str) -> None:
    nxt = next_player(st, player)
    st.turn_over = True
    st.turn_effects.clear()
    st.recovered.clear()
    if nxt is None or st.over:
        return
    cite = ctx.section("thgm/turn/order")
    if player in st.in_game():
        ctx.step(f"攻撃が終わったので{player}のターンは終了する", ctx.section("thgm/turn/end"))
    else:
        ctx.step(f"脱落した{player}のターンは終わる", ctx.section("thgm/turn/elimination"))
    how = "" if st.seats_given else "（席順の指定がないため、P1から番号順とする）"
    order = st.players()
    skipped = [order[(order.index(player) + k) % len(order)] for k in range(1, len(order))]
    skipped = skipped[:skipped.index(nxt)] if nxt in skipped else []
    if skipped:
        ctx.step(f"{'・'.join(skipped)}は脱落しているのでターンは回らない", ctx.section("thgm/turn/elimination"))
    ctx.step(f"席順で次の{nxt}のターンになる{how}", cite)
    st.active, st.step, st.step_done = nxt, "replenish", False
    st.attack = None


def check_victory(ctx: Context, st: State, player: str, defeated: Char) -> None:
    side = st.side(player)
    total = side.score()
    if total is None:
        if defeated.fact("score") is UNKNOWN:
            ctx.step(f"{defeated.label}のスコアは資料にも場面にもない: {player}の陣営のスコアの合計はわからない",
                     ctx.section("thgm/card/score"))
            st.victory_unknown = defeated
        else:
            st.victory_unknown = next(c for c in side.score_cards if not isinstance(c.fact("score"), int))
        return
    if total >= VICTORY_SCORE:
        st.winner = player
        ctx.step(f"{player}の陣営のスコアの合計は{total}点（30点以上）: その時点で{player}の勝利となりゲームは終了する。"
                 "２位以下に順位はない", ctx.section("thgm/victory"))
    else:
        ctx.step(f"{player}の陣営のスコアの合計は{total}点（30点未満）: ゲームは続く", ctx.section("thgm/victory"))
