"""The 東方グランドメレー interpreter: set-up, actions, expectations and the board, on top of the
game-neutral runner. The rules themselves are in `turn` (set-up and the turn) and `attack`."""

from __future__ import annotations

import re
from typing import Any, Optional

from ...engine.context import Context, EngineError
from ...engine.registry import GameEngine
from ...kb.knowledge import ScenarioInfo
from ...lang.vocab import Call, CardRef
from . import abilities as AB
from . import attack as A
from . import dice as D
from . import result as RES
from . import rolls as R
from . import turn as T
from .state import ROW_JA, Char, State, copy_state
from .tendencies import TENDENCIES

# actions that belong to the attack under way; any other action first finishes it
ATTACK_ACTIONS = {"roll", "may_reroll", "reroll", "may_use_spell_card", "spell_card", "use_fue", "use_ability"}
# expectations that can be read before the attack has a result
BEFORE_RESULT = {"legal", "illegal", "distance", "attack_value", "checked_faces", "face", "tendency",
                 "no_weakness", "dealt", "unused", "start_player", "turn_order", "visible_to", "hidden_from"}
ABILITY_VERBS = {"コウモリ変化": "nullify_on_doubles", "回復": "recover"}
RESULT_JA = {"failed": "失敗", "injured": "負傷", "defeated": "撃破", "nullified": "無効"}
STATE_JA = {"healthy": "負傷していない", "injured": "負傷状態", "empty": "キャラがいない"}
ACT_JA = {"placement": "この配置", "declaration": "この攻撃宣言", "reroll": "この振りなおし",
          "spell_card": "スペルカードの使用", "fue": "ＦＵＥの使用", "recover": "回復", "replenish": "この補充",
          "nullify": "コウモリ変化による攻撃の無効化", "conceal": "攻撃を行う場所を偽る・宣言しないこと"}
_PLAYER = re.compile(r"^P(\d)$")
_SEATS = tuple(f"P{i}" for i in range(1, 10))     # every player _PLAYER matches, in turn order


def _marker(name: str, loc) -> Call:
    return Call(kind="action", name=name, params={}, loc=loc)


class ThgmEngine(GameEngine):
    game_id = "thgm"

    copy_state = staticmethod(copy_state)     # a copy of the state to resume a run from (engine.resume)

    def static(self, info: ScenarioInfo) -> dict:
        """What a scenario's text says once and for all (its runs replay it)."""
        return self.per_scenario(info, "static", self._static_facts)

    def _static_facts(self, info: ScenarioInfo) -> dict:
        # one pass over the expectations and one over the calls (a question asked once makes these
        # once: what it reads of each call read together)
        players: set[str] = set()
        needs_faces = placement_question = False
        for _, call in info.expects:
            _players_in(call, players)
            if call.name == "checked_faces":
                needs_faces = True
            elif call.name in ("legal", "illegal") and call.params.get("act") == "placement":
                placement_question = True
        for call in info.calls:
            _players_in(call, players)
        highest = 2         # the seats P1…Pn when none are seated: two at least
        for x in players:
            n = int(x[1:])
            if n > highest:
                highest = n
        actions, open_nullify = self._actions(info)
        return {"actions": actions, "players": players, "seats": _SEATS[:highest],
                "needs_faces": needs_faces, "placement_question": placement_question,
                "open_nullify": open_nullify}

    # -- set-up -------------------------------------------------------------------------
    def subjects(self, st: State, call: Call) -> tuple[str, ...]:
        """An attack is about its attacker and its target, from the declaration to the result."""
        p = call.params
        if call.name == "declare_attack":
            chars = [st.side(p["player"]).at(p["row"], p["column"]),
                     st.side(p["target"]).at(p["target_row"], p["target_column"])]
        elif st.attack is not None and not st.attack.resolved:
            chars = [st.attack.attacker, st.attack.target]
        else:
            return super().subjects(st, call)
        return tuple(c.code for c in chars if c is not None and c.code)

    def actions(self, info: ScenarioInfo):
        return self.static(info)["actions"]

    def _actions(self, info: ScenarioInfo) -> tuple[list[Call], bool]:
        """The scenario's actions, with a claimed or withheld place folded into the declaration
        it belongs to, between the start of play and the end of the question; and whether the
        defender's コウモリ変化 is left open (no action uses an ability)."""
        out = [_marker("_begin", info.scenario.loc)]
        open_nullify = True
        for c in info.calls:
            if c.kind != "action" or c.name == "choose":
                continue
            if c.name == "use_ability":
                open_nullify = False
            if c.name in ("claim_position", "withhold_position") and out[-1].name == "declare_attack" \
                    and "claim" not in out[-1].params:
                claim = "withheld" if c.name == "withhold_position" else (c.params["row"], c.params["column"])
                out[-1] = out[-1]._replace(params={**out[-1].params, "claim": claim, "claim_loc": c.loc})
                continue
            out.append(c)
        out.append(_marker("_end", out[-1].loc))
        return out, open_nullify

    def setup(self, ctx: Context, info: ScenarioInfo) -> State:
        st = State()
        st.info = info
        facts = self.static(info)
        st.needs_faces, st.placement_question, st.open_nullify = \
            facts["needs_faces"], facts["placement_question"], facts["open_nullify"]
        for call in info.calls:
            if call.kind != "setup":
                continue
            p, name = call.params, call.name
            if name == "seats":
                players = list(p["players"])
                if len(set(players)) != len(players):
                    raise EngineError("a player is seated twice", call.loc, "name each player once: seats P1 P2 P3")
                if len(players) < 2:
                    raise EngineError("the game is for 2 to 4 players", call.loc,
                                      "name every player in turn order: seats P1 P2 (thgm/overview/players: ２人から４人)")
                st.seats, st.seats_given = players, True
                for pl in players:
                    st.side(pl)
            elif name == "turn":
                st.active, st.step, st.step_done = p["player"], p.get("step") or "replenish", False
            elif name == "character":
                T.check_place(p["column"], call.loc)
                side = st.side(p["player"])
                if side.at(p["row"], p["column"]) is not None:
                    raise EngineError(f"{p['player']} already has a character at {T.where(p['row'], p['column'])}",
                                      call.loc, "a place holds one character in each row")
                char = self.new_char(ctx, st, info, p.get("card"), p["player"], call)
                char.face = p.get("face") or "down"
                side.row(p["row"])[p["column"]] = char
            elif name == "injured":
                A.char_at(st, p["player"], p["row"], p["column"], call.loc).injured = True
            elif name == "stock":
                if not 0 <= p["count"] <= 3:
                    raise EngineError(f"a stock of {p['count']} cards: the stock is the 3 cards not placed, and only shrinks",
                                      call.loc, "give 0 to 3 (thgm/setup/placement)")
                side = st.side(p["player"])
                side.stock, side.stock_given = p["count"], True
            elif name == "score":
                side = st.side(p["player"])
                side.base_score, side.score_given = p["value"], True
            elif name == "score_card":
                st.side(p["player"]).score_cards.append(self.new_char(ctx, st, info, p["card"], p["player"], call))
                st.side(p["player"]).score_cards[-1].face = "up"
            elif name == "eliminated":
                st.side(p["player"]).eliminated = True
        # the players: those seated, else P1…Pn for the highest player the scenario names (two at least)
        named = facts["players"]
        if not st.seats:
            st.seats = list(facts["seats"])
        elif not named.issubset(st.seats):
            extra = sorted(pl for pl in named if pl not in st.seats)
            raise EngineError(f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not seated", info.scenario.loc,
                              f"add every player to the seats: seats {' '.join(st.seats + extra)}")
        for pl in st.seats:
            side = st.side(pl)
            if side.eliminated and side.count():
                raise EngineError(f"{pl} is eliminated but still has characters on the side", info.scenario.loc,
                                  "an eliminated player's characters and score are removed from the game")
        if st.active is not None and st.active not in st.seats:
            raise EngineError(f"{st.active} is not seated", info.scenario.loc)
        self.set_up(ctx, info, st)
        return st

    def new_char(self, ctx: Context, st: State, info: ScenarioInfo, ref: Optional[CardRef], owner: str,
                 call: Call) -> Char:
        if ref is None:
            char = Char(st.next_uid, None, owner, "down", True, call.loc, call.loc)
        else:
            card_info, hypothetical, where = self.scenario_card(ctx, info, ref, call.loc)
            char = Char(st.next_uid, card_info, owner, "down", hypothetical, where, call.loc)
        st.next_uid += 1
        return char

    # -- actions ------------------------------------------------------------------------
    def act(self, ctx: Context, st: State, call: Call) -> None:
        self.acting(st)
        name, p = call.name, call.params
        if st.blocked is not None and name != "_end":
            raise st.blocked
        if name not in ATTACK_ACTIONS and st.attack is not None and st.attack.rolled and not st.attack.resolved:
            RES.resolve(ctx, st)
            if st.blocked is not None and name != "_end":
                raise st.blocked
        if name == "_begin":
            self.begin(ctx, st)
        elif name == "_end":
            pass  # a pending attack was finished above
        elif name == "decide_seats":
            T.decide_seats(ctx, st, call.loc)
        elif name == "deal":
            T.deal(ctx, st, call.loc)
        elif name == "place":
            char = self.new_char(ctx, st, st.info, p.get("card"), p["player"], call)
            T.place(ctx, st, p["player"], char, p["row"], p["column"], call.loc)
        elif name == "step":
            {"replenish": T.replenish_step, "recover": T.recover_step, "attack": self.attack_step}[p["step"]](
                ctx, st, p["player"])
        elif name == "replenish":
            T.replenish_one(ctx, st, p["player"], p["how"], p["column"], call.loc)
        elif name == "recover":
            T.recover_one(ctx, st, p["player"], p["row"], p["column"], call.loc)
        elif name == "declare_attack":
            A.declare(ctx, st, call)
        elif name == "roll":
            R.roll(ctx, st, call)
        elif name in ("reroll", "may_reroll"):
            R.reroll(ctx, st, call, optional=name == "may_reroll")
        elif name in ("spell_card", "may_use_spell_card"):
            AB.spell_card(ctx, st, call, optional=name == "may_use_spell_card")
        elif name == "use_fue":
            AB.use_fue(ctx, st, call)
        elif name == "use_ability":
            self.use_ability(ctx, st, call)
        elif name in ("claim_position", "withhold_position"):
            raise EngineError(f"{name} changes an attack declaration: it follows declare_attack directly", call.loc,
                              "write it on the line after the declare_attack it belongs to")
        else:
            raise EngineError(f"the 東方グランドメレー interpreter has no handler for the action {name}", call.loc)

    def begin(self, ctx: Context, st: State) -> None:
        """The board as the scenario sets it: every side must be a legal arrangement."""
        for pl in st.players():
            side = st.side(pl)
            if not side.count():
                continue
            T.check_arrangement(ctx, st, side)
            if st.placement_question:
                T.arrangement_ok(ctx, st, side)
        if st.placement_question:
            st.acts["placement"] = None
        if st.active is not None:
            ctx.step(f"{st.active}のターンの{T.STEP_JA[st.step]}の手順", ctx.section("thgm/turn/order"))

    def attack_step(self, ctx: Context, st: State, player: str) -> None:
        T.reach(ctx, st, player, "attack", "step")
        if st.over or st.active != player:
            return
        legal = self.any_legal_attack(ctx, st, player)
        if legal:
            ctx.step(f"{player}は{legal}で攻撃宣言ができる", ctx.section("thgm/turn/attack"))
            return
        if legal == "":
            ctx.step(f"{player}は負傷状態ではないキャラを１人選んで攻撃宣言をする（攻撃手段が場面にないため、"
                     "どの攻撃ができるかは判定しない）", ctx.section("thgm/turn/attack"))
            return
        ruling, cite = ctx.point("attack.no_legal_declaration")
        ctx.step(f"{player}の負傷状態ではないキャラは、どれも距離が射程以下になる攻撃対象を選べない", ctx.section("thgm/turn/attack"),
                 ctx.section("thgm/attack/declaration"))
        if ruling == "turn_ends":
            ctx.step(f"{player}は脱落せず、攻撃をせずにターンを終える", cite)
            T.end_turn(ctx, st, player)
        else:
            st.undecided = "適法な攻撃宣言ができない場合の扱いは資料に規定がない"
            ctx.step("この場合の扱いは資料に規定がない: この先は決まらない", cite)

    def any_legal_attack(self, ctx: Context, st: State, player: str) -> Optional[str]:
        """Some legal declaration (the attacker and means, in words), "" when whether there is
        one depends on attack means the scenario does not give, or None when there is none."""
        unknown = False
        for row, col, c in st.side(player).chars():
            if c.injured:
                continue
            for m in A.means_of(ctx, st, c):
                if m is None or not isinstance(m[1], int) or not isinstance(m[2], int):
                    unknown = True
                    continue
                name, strength, reach_, _ = m
                if strength < max(A.MIN_STRENGTH.values()) and \
                        strength < A.MIN_STRENGTH[ctx.point("attack.min_strength")[0]]:
                    continue
                for other in st.in_game():
                    if other == player:
                        continue
                    for trow, tcol, _ in st.side(other).chars():
                        if A.DISTANCE[(row, trow)] <= reach_:
                            return f"{T.where(row, col)}の{c.label}の「{name}」"
        return "" if unknown else None

    def use_ability(self, ctx: Context, st: State, call: Call) -> None:
        p = call.params
        verb = ABILITY_VERBS.get(p["ability"])
        if verb is None:
            raise EngineError(f"the interpreter does not know how to use 「{p['ability']}」 as an action",
                              call.loc, "abilities used as actions: " + "、".join(ABILITY_VERBS))
        char = A.char_at(st, p["player"], p["row"], p["column"], call.loc)
        if verb == "recover":
            T.recover_one(ctx, st, p["player"], p["row"], p["column"], call.loc)
            return
        has = [trig for trig, _ in char.verbs(verb)]
        if not has:
            if char.info is None or not char.info.effects:
                raise A._missing(char, "the abilities", "effect sp { nullify_on_doubles }")
            raise T.illegal(st, "nullify", f"{char.label}はコウモリ変化を持たない", ctx.section("thgm/abilities/bat-transformation"))
        if "sp" not in has and (char.face != "down" or char.fue_used):
            raise T.illegal(st, "nullify", f"{char.label}のコウモリ変化はＦＵＥで、すでに表向き: ＦＵＥは１回だけ",
                            ctx.section("thgm/abilities/fue"))
        AB.timing_check(ctx, st)
        AB.nullify(ctx, st, p["player"], call.loc, holder=char)

    # -- expectations -------------------------------------------------------------------
    def expect(self, ctx: Context, st: State, call: Call, illegal: Optional[str]):
        name, p = call.name, call.params
        if name in ("legal", "illegal"):
            return self.legality(ctx, st, p["act"], name == "legal", illegal)
        atk = st.last_attack
        if illegal is not None and not (name == "distance" and atk is not None) and \
                not (name in ("attack_value", "checked_faces") and atk is not None and atk.rolled):
            return None  # not reached: an action before it is one the rules forbid (the declaration's
            #              distance and dice already rolled are facts of the question, and are read)
        if st.blocked is not None and name == "result" and p["result"] == "nullified":
            return atk.result == "nullified", "攻撃は無効にならない（攻撃の結果は防御力が不明なため決まらない）"
        if st.blocked is not None and name not in BEFORE_RESULT:
            raise st.blocked
        if name == "distance":
            if atk is None:
                return False, "攻撃宣言はない"
            return atk.distance == p["value"], f"距離は{atk.distance}"
        if name == "attack_value":
            if atk is None or not atk.rolled:
                return False, "攻撃のサイコロは振られていない"
            hit, lo = R.value_is(ctx, st, atk, p["value"])
            lo, hi = D.value_range(atk.roll, 1 if atk.spell else 0)
            return hit, f"攻撃力は{D.range_words(lo, hi)}"
        if name == "checked_faces":
            if atk is None or not atk.rolled:
                return False, "攻撃のサイコロは振られていない"
            want = tuple(sorted(p["faces"], reverse=True))
            hit = R.observe(ctx, st, atk, f"出目が{D.faces_words(want)}か", lambda v: v == want,
                            lambda k, d: f"出目{D.faces_words(want)}" if k else f"出目{D.faces_words(want)}以外",
                            memo=("faces=", want))
            faces = D.only_faces(atk.roll)
            return hit, f"コウモリ変化のチェック対象の出目は{D.faces_words(faces) if faces else 'それ以外'}"
        if name == "defense_used":
            if atk is None or atk.defense is None:
                return False, "防御力とは比較されていない"
            kind, value = atk.defense
            shown = "−（無敵）" if value == "immune" else value
            return (kind, value) == (p["kind"], p["value"]), \
                f"参照する防御力は{'特殊防御力' if kind == 'special' else '基本防御力'}の{shown}"
        if name == "result":
            if atk is None or not atk.resolved or atk.result is None:
                return False, "攻撃は行われていない"
            return atk.result == p["result"], f"攻撃の結果は{RESULT_JA[atk.result]}"
        if name in ("state", "occupant", "face", "visible_to", "hidden_from"):
            return self.place_expect(ctx, st, call)
        side = st.side(p["player"]) if "player" in p else None
        if name == "score_card":
            held = [pl for pl in st.players() if any(_matches(c, p["card"]) for c in st.side(pl).score_cards)]
            return p["player"] in held, (f"《{p['card'].text}》は{held[0]}のスコアカード" if held
                                         else f"《{p['card'].text}》はスコアカードになっていない")
        if name == "score":
            total = side.score()
            if total is None:
                raise T.unknown_score(next(c for c in side.score_cards if not isinstance(c.fact("score"), int)))
            return total == p["value"], f"{p['player']}の陣営のスコアは{total}点"
        if name == "character_count":
            return side.count() == p["count"], f"{p['player']}の場のキャラは{side.count()}人"
        if name == "stock_count":
            return side.stock == p["count"], f"{p['player']}のストックは{side.stock}枚"
        if name == "eliminated":
            return side.eliminated, f"{p['player']}は{'脱落している' if side.eliminated else '脱落していない'}"
        if name == "removed":
            gone = side.eliminated and not side.count() and not side.score_cards
            return gone, (f"{p['player']}のキャラとスコアはゲームから除外された" if gone
                          else f"{p['player']}のキャラ{side.count()}人・スコアカード{len(side.score_cards)}枚が残っている")
        if name in ("winner", "game_continues", "turn_player", "no_rank"):
            if st.victory_unknown is not None:
                raise T.unknown_score(st.victory_unknown)
            if name == "winner":
                return st.winner == p["player"], _game_words(st)
            if name == "game_continues":
                return not st.over, _game_words(st)
            if name == "no_rank":
                return st.over and st.winner != p["player"], (
                    f"{p['player']}は勝者" if st.winner == p["player"] else
                    (f"{st.winner}が勝者で、{p['player']}に順位はない" if st.over else "ゲームは終わっていない"))
            now = _game_words(st) if st.over else (f"{st.active}のターン（{T.STEP_JA[st.step]}の手順）"
                                                   if st.active else "まだ誰のターンでもない")
            return (not st.over and st.active == p["player"]), now
        if name == "must_reveal":
            return bool(atk and atk.must_reveal), ("正しい位置を宣言しなければならない" if atk and atk.must_reveal
                                                  else "正しい位置を宣言する必要はない")
        if name == "turn_order":
            order = st.players()
            return order == list(p["players"]), f"ターンは{'→'.join(order)}の順に回る"
        if name == "start_player":
            return st.players()[0] == p["player"], f"開始プレイヤーは{st.players()[0]}"
        if name == "dealt":
            return side.dealt == p["count"], f"{p['player']}に配られたカードは{side.dealt}枚"
        if name == "unused":
            return st.unused == p["count"], (f"使わないカードは{st.unused}枚" if st.unused is not None else "カードは配られていない")
        if name in ("tendency", "no_weakness"):
            return self.tendency(ctx, st, p, name)
        raise EngineError(f"the 東方グランドメレー interpreter cannot check the expectation {name}", call.loc)

    def legality(self, ctx: Context, st: State, act: str, want_legal: bool, illegal: Optional[str]):
        label = ACT_JA.get(act, act)
        if act in st.acts:
            why = st.acts[act]
        elif act == "nullify":
            ok, words = AB.can_nullify(ctx, st)
            why = None if ok else words
        elif illegal is not None:
            return None
        else:
            raise EngineError(f"the scenario does not try {label}, so whether it is allowed is not answered",
                              None, "add the action whose legality is asked, e.g. spell_card or use_fue P1 front 1")
        found = f"{label}はルール上できる" if why is None else f"{label}はルール上できない（{why}）"
        return (why is None) == want_legal, found

    def place_expect(self, ctx: Context, st: State, call: Call):
        p = call.params
        T.check_place(p["column"], call.loc)
        char = st.side(p["player"]).at(p["row"], p["column"])
        at = f"{p['player']}の{T.where(p['row'], p['column'])}"
        name = call.name
        if name == "state":
            now = "empty" if char is None else ("injured" if char.injured else "healthy")
            return now == p["state"], f"{at}は{STATE_JA[now]}" + (f"（{char.label}）" if char else "")
        if char is None:
            return False, f"{at}にキャラはいない"
        if name == "occupant":
            return _matches(char, p["card"]), f"{at}のキャラは{char.label}"
        if name == "face":
            return char.face == p["face"], f"{at}の{char.label}は{'表向き' if char.face == 'up' else '裏向き'}"
        sees = char.owner == p["viewer"] or char.face == "up"
        cite = ctx.section("thgm/placement/hidden")
        ctx.step(f"{p['viewer']}から{at}の{char.label}（{'表向き' if char.face == 'up' else '裏向き'}）は"
                 + ("見える" if sees else "見えない（他のプレイヤーの裏向きのカードは基本的に見ることができない）"), cite)
        words = f"{p['viewer']}は{at}のキャラの内容を見ることが{'できる' if sees else 'できない'}"
        return sees == (name == "visible_to"), words

    def tendency(self, ctx: Context, st: State, p: dict, name: str):
        section, table, no_weakness = TENDENCIES[p["attribute"]]
        if section not in st.noted:
            st.noted.add(section)
            ctx.step("属性による防御力の傾向（プレイの参考。個々の防御力はカードの欄による）", ctx.section(section),
                     ctx.section("thgm/attributes"), ctx.section("thgm/card/attribute"))
        if name == "no_weakness":
            return no_weakness, "特に弱点を持たない" if no_weakness else \
                "弱点がある: " + "、".join(f"{m}に{KIND_JA[k]}" for m, k in table.items() if k == "weak")
        kind = table.get(p["means"])
        return kind == p["kind"], (f"{p['means']}に対して「{KIND_JA[kind]}」" if kind
                                   else f"{p['means']}についての傾向は書かれていない")

    # -- describing the state -----------------------------------------------------------
    def board(self, st: State) -> dict[str, Any]:
        return self.board_before(st, _board)

    def outcome(self, st: State, illegal: Optional[str]) -> str:
        if illegal:
            return f"ルール上できない: {illegal}"
        parts = []
        if st.seats_drawn:
            parts.append(f"開始プレイヤーは{st.seats[0]}（席順{'→'.join(st.seats)}）")
        atk = st.last_attack
        if atk is not None and atk.resolved and atk.result:
            row, col = atk.target_place
            at = f"{atk.target.owner}の{ROW_JA[row]}{col}の{atk.target.label}"
            parts.append({"failed": "失敗（何も起きない）", "injured": f"負傷（{at}）",
                          "defeated": f"撃破（{at}→{atk.player}のスコアカード）",
                          "nullified": "無効（コウモリ変化）"}[atk.result])
        elif atk is not None and atk.rolled and st.blocked is not None:
            parts.append("攻撃の結果は決まらない（防御力が不明）")
        for pl in st.eliminated_now:
            parts.append(f"{pl}は脱落")
        if st.winner:
            parts.append(f"{st.winner}の勝利")
        elif st.undecided:
            parts.append(f"未決（{st.undecided}）")
        elif atk is None or not atk.resolved:
            sides = []
            for pl in st.players():
                side = st.side(pl)
                if side.count() or side.stock:
                    sides.append(_side_words(st, pl))
            parts.append("; ".join(sides))
        if not any(parts):                  # said only when nothing else happened (not after every attack)
            parts.append("ゲームは続く")
        return "; ".join(filter(None, parts))

    def render_board(self, board: dict[str, Any]) -> str:
        from .board import render
        return render(board)

    def validate_deck(self, kb, deck):
        from .deck import validate
        return validate(kb, deck)


def _board(st: State) -> dict[str, Any]:
    areas = []
    info: list[list[str]] = []
    for pl in st.players():
        side = st.side(pl)
        for row in ("front", "back"):
            areas.append({"label": f"{pl} {ROW_JA[row]}", "player": pl, "row": row,
                          "cards": [_card(c, col) for col, c in sorted(side.row(row).items())]})
    info.append(["席順", "→".join(st.players())])
    if st.winner:
        info.append(["勝者", st.winner])
    elif st.active:
        info.append(["手番", f"{st.active}（{T.STEP_JA[st.step]}の手順）"])
    for pl in st.players():
        side = st.side(pl)
        if side.eliminated:
            info.append([f"{pl}", "脱落"])
            continue
        score = side.score()
        info.append([f"{pl}のスコア", "不明" if score is None else f"{score}点"])
        info.append([f"{pl}のストック", f"{side.stock}枚"])
        if side.score_cards:
            info.append([f"{pl}のスコアカード", "・".join(c.label for c in side.score_cards)])
    if st.unused is not None:
        info.append(["使わないカード", f"{st.unused}枚"])
    return {"areas": areas, "info": info}


KIND_JA = {"strong": "強い", "weak": "弱い", "immune": "無効", "effective": "効く"}


def _card(c: Char, col: int) -> dict:
    return {"name": c.name, "code": c.code, "owner": c.owner, "face": c.face, "hypothetical": c.hypothetical,
            "note": "負傷" if c.injured else None, "column": col}


def _side_words(st: State, pl: str) -> str:
    side = st.side(pl)
    return f"{pl}: キャラ{side.count()}人（前列{len(side.front)}・後列{len(side.back)}）・ストック{side.stock}枚"


def _game_words(st: State) -> str:
    if st.winner:
        return f"{st.winner}の勝利（ゲームは終了）"
    return "ゲームは続く"


def _matches(char: Char, ref: CardRef) -> bool:
    if char.info is None:
        return False
    game, code = ref.key or ("", ref.text)
    return char.code == code and char.hypothetical == (game == "")


def _players_in(call: Call, out: set[str]) -> None:
    """Add to `out` the players a call names (a value P1, P2…, alone or in a list)."""
    match = _PLAYER.match
    for v in call.params.values():
        if isinstance(v, str):
            if v[:1] == "P" and match(v):       # most values are not players: no match tried
                out.add(v)
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, str) and x[:1] == "P" and match(x):
                    out.add(x)

