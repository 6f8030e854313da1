"""The プレシャスメモリーズ interpreter on the game-neutral runner: set-up, actions,
expectations and the board. The rules themselves are in `plays`, `cost`, `approach`, `turn`,
`effects` and `victory`; every step cites the rule section or the ruling that makes it so."""

from __future__ import annotations

from typing import Any, Optional

from ...engine.context import Context, EngineError
from ...engine.registry import GameEngine
from ...engine.resume import graph_copier
from ...kb.knowledge import ScenarioInfo
from ...lang.vocab import Call, CardRef
from . import approach as approaches
from . import board as boards
from . import deck as decks
from . import effects as fx
from . import plays, turn, victory
from .common import illegal
from .cost import matches
from .state import PHASE_JA, PLAYERS, Approach, Card, Play, State

SETTLE = "_settle"          # a last action: whatever still waits (a play, an approach) is finished
LEGALITY = ("illegal", "legal", "can_approach", "can_interfere", "deck_valid")
PLACE_JA = {"deck": "デッキ", "hand": "手札", "main_area": "メインエリア", "support_area": "サポートエリア",
            "point_zone": "ポイント置き場", "graveyard": "捨て札", "set": "キャラクターカードにセット",
            "pending": "プレイ中（解決待ち）", "left": "場・手札の外（行き先の規定なし）", "nowhere": "ゲームの外"}


class PmEngine(GameEngine):
    game_id = "pm"
    # a copy of the state to resume a run from (engine.resume): new cards and containers
    # wherever they are held; card declarations, calls and locations shared
    copy_state = staticmethod(graph_copier(State, Card, Play, Approach))

    # -- set-up -------------------------------------------------------------------------
    def subjects(self, st: State, call: Call) -> tuple[str, ...]:
        """An approach is about its approaching and interfering characters until it is done."""
        own = super().subjects(st, call)
        a = st.approach
        if a is None or a.stage == "done":
            return own
        return (*own, *(c.code for c in (a.attacker, a.interferer) if c is not None))

    def actions(self, info: ScenarioInfo):
        """The scenario's actions and a last one that finishes what still waits (made once)."""
        return self.per_scenario(info, "actions", self._own_actions)

    def _own_actions(self, info: ScenarioInfo) -> list[Call]:
        acts = list(super().actions(info))
        if acts:
            acts.append(Call("action", SETTLE, {}, acts[-1].loc))
        return acts

    def setup(self, ctx: Context, info: ScenarioInfo) -> State:
        try:
            return self._setup(ctx, info)
        except EngineError as e:
            if e.loc is None:
                e.loc = info.scenario.loc
            raise

    def _setup(self, ctx: Context, info: ScenarioInfo) -> State:
        st = State()
        decks_: dict[str, list[Card]] = {}
        hands: dict[str, list[Card]] = {}
        for p in PLAYERS:
            decks_[p], hands[p] = [], []
        sizes: dict[tuple[str, str], tuple[int, Call]] = {}
        for call in info.calls:
            if call.kind != "setup":
                continue
            p = call.params
            name = call.name
            if name == "first":
                st.first = p["player"]
            elif name == "turn":
                st.active = p["player"]
                st.turns[p["player"]] = p.get("count") or 1
            elif name == "phase":
                st.phase = p["phase"]
            elif name in ("deck", "hand"):
                zone = decks_ if name == "deck" else hands
                into = zone[p["player"]]
                for r in p.get("cards") or ():
                    into.append(self.new_card(ctx, st, info, r, p["player"], call))
                if name == "deck":
                    st.deck_known[p["player"]] = True
            elif name in ("deck_size", "hand_size"):
                sizes[(name, p["player"])] = (p["count"], call)
                if name == "deck_size":
                    st.deck_known[p["player"]] = True
            elif name in ("main", "support"):
                card = self.new_card(ctx, st, info, p["card"], p["player"], call)
                card.resting = p["state"] == "resting"
                if name == "main" and (card.fact("ap") == "none" or card.fact("dp") == "none"):
                    raise EngineError(f"{card.label} has no AP or DP, so it cannot be in the main area", call.loc,
                                      "only characters with AP and DP may be put in the main area (pm/main/enter); "
                                      f'put it in the support area: support {p["player"]} "{card.name}" {p["state"]}')
                (st.main if name == "main" else st.support)[p["player"]].append(card)
            elif name == "set_on":
                holder = self.on_field(st, p["character"], call)
                card = self.new_card(ctx, st, info, p["card"], holder.owner, call)
                card.set_on = holder
                holder.supports.append(card)
            elif name == "point":
                card = self.new_card(ctx, st, info, p["card"], p["player"], call)
                card.face = p["face"]
                st.points[p["player"]].append(card)
            elif name == "points":
                for _ in range(p["count"]):
                    card = fx.filler(st, p["player"])
                    card.face = p.get("face") or "up"
                    card.placed = call.loc
                    st.points[p["player"]].append(card)
            elif name == "graveyard":
                st.grave[p["player"]] += [self.new_card(ctx, st, info, r, p["player"], call) for r in p.get("cards") or ()]
            elif name in ("entered", "approached"):
                card = self.on_field(st, p["card"], call)
                (st.entered if name == "entered" else st.approached).add(card.uid)
            elif name == "priority":
                st.priority = p["player"]
            elif name == "decklist":
                card = self.new_card(ctx, st, info, p["card"], p["player"], call, listed=False)
                st.decklists[p["player"]].append((card, p["count"], call.loc))
            elif name == "decklist_other":
                for i in range(p["count"]):
                    card = fx.filler(st, p["player"])
                    card.code = f"（異なるカード{i + 1}）"
                    st.decklists[p["player"]].append((card, 1, call.loc))
            elif name == "same_name":
                a, b = p["card"], p["other"]
                shared = st.names.get(_code(a), a.text.strip("《》"))
                st.names[_code(a)] = st.names[_code(b)] = shared
        for (name, player), (count, call) in sizes.items():
            zone = (decks_ if name == "deck_size" else hands)[player]
            if len(zone) > count:
                raise EngineError(f"{player}'s {'deck' if name == 'deck_size' else 'hand'} lists {len(zone)} cards, "
                                  f"more than the {count} it is said to hold", call.loc)
            for _ in range(count - len(zone)):
                card = fx.filler(st, player)
                card.placed = call.loc
                zone.append(card)
        for player in PLAYERS:
            st.deck[player] = decks_[player]
            st.hand[player] = hands[player]
        if st.active is not None:
            st.phase = st.phase or "main"
            if st.priority is None and st.phase in ("main", "approach"):
                st.priority = st.active
            ctx.step(f"{st.active}の{st.turns[st.active]}回目のターン・{PHASE_JA[st.phase]}（場面の指定）",
                     ctx.section("pm/turn/phases"))
        elif st.phase is not None:
            raise EngineError("the set-up gives a phase but no turn", None, "say whose turn it is: turn P1 2")
        for player in PLAYERS:
            if st.decklists[player]:
                self.check_deck(ctx, st, player)
        victory.check(ctx, st)
        self.set_up(ctx, info, st)
        return st

    def check_deck(self, ctx: Context, st: State, player: str) -> None:
        """Deck construction, as a step: the answer to `expect deck_valid` is decided here."""
        used = []

        def work_variant() -> str:
            value, cite = ctx.point("deck.work_variant")
            used.append(cite)
            return value
        entries = [(decks.desc_of(st, c), n, loc) for c, n, loc in st.decklists[player]]
        total, found = decks.problems(entries, work_variant)
        st.deck_checks[player] = (total, found)
        ctx.step(decks.words_ja(player, total, found) + ("：構築条件を満たす" if not found else "：構築条件を満たさない"),
                 ctx.section("pm/deck/size"), ctx.section("pm/deck/copies"), ctx.section("pm/deck/card-identity"),
                 *used[:1])

    def new_card(self, ctx: Context, st: State, info: ScenarioInfo, ref: CardRef, owner: str, call: Call,
                 listed: bool = True) -> Card:
        game, code = ref.key or ("", ref.text)
        if game == "":
            card_info, hypothetical = info.cards[code], True
            where = card_info.card.loc
        else:
            card_info = info.cards.get(code) or ctx.kb.card(game, code)
            hypothetical = False
            where = self.block_of(info, code, call.loc)
        card_info = card_info.at(ctx.day)
        card = Card(st.next_uid, card_info.name, code, owner, hypothetical, card_info.facts, card_info.effects,
                    where, call.loc)
        st.next_uid += 1
        if listed:
            st.cards.append(card)
        return card

    def on_field(self, st: State, ref: CardRef, call: Call) -> Card:
        for card in st.cards:
            if matches(card, ref) and (card in st.main[card.owner] or card in st.support[card.owner]):
                return card
        raise EngineError(f"《{ref.text}》 is not on the field in the set-up", call.loc,
                          f'put it there first: main P1 "{ref.text}" active')

    # -- actions ------------------------------------------------------------------------
    def act(self, ctx: Context, st: State, call: Call) -> None:
        self.acting(st)
        try:
            self._act(ctx, st, call)
        except EngineError as e:
            if e.loc is None:    # what the question lacks is located at the action that needed it
                e.loc = call.loc
            raise

    def _act(self, ctx: Context, st: State, call: Call) -> None:
        name = call.name
        p = call.params
        if st.result:
            if name == SETTLE:
                return
            raise illegal(f"ゲームはすでに終了している（{boards.result_words(st)}）", ctx.section("pm/victory/simultaneous")
                                if st.result == "draw" else ctx.section("pm/victory/points"))
        if name != "break":
            fx.decide_breaks(ctx, st)
            if st.result:
                return self._act(ctx, st, call)
        if name == SETTLE:
            settle_all(ctx, st)
        elif name == "start_game":
            turn.start_game(ctx, st)
        elif name == "mulligan":
            turn.mulligan(ctx, st, p["player"], p.get("cards"))
        elif name in ("start_turn", "draw_step", "stand_step", "end_turn"):
            settle_all(ctx, st)
            if not st.result:
                getattr(turn, name)(ctx, st, p["player"])
        elif name == "to_phase":
            settle_all(ctx, st)
            if not st.result:
                turn.to_phase(ctx, st, p["phase"])
        elif name == "enter":
            card = plays.find_in_hand(ctx, st, p["player"], p["card"], "登場させられる")
            plays.enter(ctx, st, p["player"], card, p["area"], p.get("cost"))
        elif name == "set_support":
            card = plays.find_in_hand(ctx, st, p["player"], p["card"], "セットできる")
            target = plays.find_on_field(ctx, st, p["target"], p["player"])
            plays.set_support(ctx, st, p["player"], card, target, p.get("cost"))
        elif name == "play_event":
            card = plays.find_in_hand(ctx, st, p["player"], p["card"], "使用できる")
            target = plays.find_on_field(ctx, st, p["target"]) if p.get("target") is not None else None
            plays.play_event(ctx, st, p["player"], card, target, p.get("cost"))
        elif name == "use_text":
            card = plays.find_on_field(ctx, st, p["card"], p["player"])
            target = plays.find_on_field(ctx, st, p["target"]) if p.get("target") is not None else None
            plays.use_text(ctx, st, p["player"], card, target)
        elif name == "approach":
            plays.settle_chain(ctx, st)
            approaches.close(ctx, st)
            if not st.result:
                approaches.declare(ctx, st, p["player"], self.card(st, p["card"], call, p["player"]))
        elif name in ("interfere", "not_interfere"):
            plays.settle_chain(ctx, st)
            if name == "interfere":
                approaches.interfere(ctx, st, p["player"], self.card(st, p["card"], call, p["player"]))
            else:
                approaches.not_interfere(ctx, st, p["player"])
        elif name == "break":
            self.use_break(ctx, st, p["player"], self.card(st, p["card"], call, p["player"]))
        elif name == "pass":
            plays.pass_priority(ctx, st, p["player"])
        else:
            raise EngineError(f"the プレシャスメモリーズ interpreter has no handler for the action {name}", call.loc)

    def use_break(self, ctx: Context, st: State, player: str, card: Card) -> None:
        if card in st.break_pending and card.owner == player:
            st.break_pending.remove(card)
            fx.activate_break(ctx, st, card)
            return
        if card.uid in st.breaks and card.owner == player:
            _, cite = ctx.point("break.activation")
            ctx.step(f"{card.label}のブレイク能力はすでに発動している", ctx.section("pm/approach/break"), cite)
            return
        raise illegal(f"{card.label}は今ポイント置き場に置かれたブレイク能力を持つカードではない："
                            "ブレイク能力は、妨害を受けずにポイント置き場に置かれたカードを裏向きにして発動する",
                            ctx.section("pm/approach/break"))

    def card(self, st: State, ref: CardRef, call: Call, owner: Optional[str] = None) -> Card:
        """The card a reference names (the acting player's copy first, when both have one)."""
        first = None
        for c in st.cards:
            if matches(c, ref):
                if c.owner == owner:
                    return c
                if first is None:
                    first = c
        if first is not None:
            return first
        raise EngineError(f"《{ref.text}》 is not in the set-up", call.loc,
                          f'put it somewhere first, e.g. main P1 "{ref.text}" active')

    # -- expectations -------------------------------------------------------------------
    def expect(self, ctx: Context, st: State, call: Call, illegal: Optional[str]):
        try:
            return self._expect(ctx, st, call, illegal)
        except EngineError as e:
            if e.loc is None:
                e.loc = call.loc
            raise

    def _expect(self, ctx: Context, st: State, call: Call, illegal: Optional[str]):
        p = call.params
        name = call.name
        if name == "illegal":
            return illegal is not None, (f"この操作はルール上できない：{illegal}" if illegal else "すべての操作はルール上できる")
        if name == "legal":
            return illegal is None, (f"この操作はルール上できない：{illegal}" if illegal else "すべての操作はルール上できる")
        if illegal is not None and name not in LEGALITY:
            return None
        if name == "deck_valid":
            if p["player"] not in st.deck_checks:
                raise EngineError(f"the set-up lists no deck for {p['player']}", call.loc,
                                  f'list it: decklist {p["player"]} "カード" 4; decklist_other {p["player"]} 56')
            total, found = st.deck_checks[p["player"]]
            return not found, decks.words_ja(p["player"], total, found)
        if name in ("priority", "generated", "orders", "phase", "winner", "outcome") or name.endswith("_count"):
            return self._expect_game(ctx, st, name, p)
        card = self.card(st, p["card"], call)
        if name == "can_approach":
            why = approaches.why_not_approach(ctx, st, st.active or card.owner, card)
            return why is None, (f"{card.label}はアプローチできる" if why is None else why[0])
        if name == "can_interfere":
            defender = card.owner
            why = approaches.why_not_interfere(ctx, st, defender, card)
            return why is None, (f"{card.label}は妨害できる" if why is None else why[0])
        if name == "exits":
            gone = card.uid in st.exited
            return gone, (f"{card.label}は退場した" if gone else f"{card.label}は退場していない（{PLACE_JA[st.place_of(card)]}にある）")
        if name == "in_zone":
            place = st.place_of(card)
            return place == p["place"], f"{card.label}は{PLACE_JA[place]}にある"
        if name == "face":
            return card.face == p["face"], f"{card.label}は{'表向き' if card.face == 'up' else '裏向き'}"
        if name == "state":
            if not st.on_field(card):
                return False, f"{card.label}は場にない（{PLACE_JA[st.place_of(card)]}にある）"
            state = "resting" if card.resting else "active"
            return state == p["state"], f"{card.label}は{'休息状態' if card.resting else '活動状態'}"
        if name == "value":
            from .values import stat
            if p["stat"] in ("ap", "dp"):
                value, _, _ = stat(ctx, st, card, p["stat"])
            else:
                value = card.fact(p["stat"])
            label = {"ap": "AP", "dp": "DP", "cost": "使用コスト", "generated_cost": "発生コスト"}[p["stat"]]
            return value == p["value"], f"{card.label}の{label}は{'なし' if value is None else value}"
        if name == "set_on":
            holder = self.card(st, p["character"], call)
            ok = card.set_on is holder
            where = f"{card.set_on.label}にセットされている" if card.set_on is not None else f"{PLACE_JA[st.place_of(card)]}にある"
            return ok, f"{card.label}は{where}"
        if name == "resolved_before":
            other = self.card(st, p["other"], call)
            order = st.resolved
            if card.uid not in order or other.uid not in order:
                missing = card if card.uid not in order else other
                return False, f"{missing.label}の効果は解決されていない"
            first = card if order.index(card.uid) < order.index(other.uid) else other
            second = other if first is card else card
            return first is card, f"{first.label}の効果が{second.label}の効果より先に解決された"
        raise EngineError(f"the プレシャスメモリーズ interpreter cannot check the expectation {name}", call.loc)

    def _expect_game(self, ctx: Context, st: State, name: str, p: dict):
        if name == "priority":
            holder = st.priority
            return holder == p["player"], (f"{holder}が優先権を持つ" if holder else "優先権を持つプレイヤーはいない")
        if name == "generated":
            g = st.generated
            return g == p["amount"], ("コストは払われていない" if g is None else f"発生したコストは{g}")
        if name == "orders":
            who = st.orderers
            return p["player"] in who, (f"{'・'.join(dict.fromkeys(who))}が効果の発動順を決めた" if who
                                        else "発動順を決める場面はなかった")
        if name == "phase":
            now = "ターン終了後" if st.turn_over else PHASE_JA.get(st.phase or "", "ターンの外")
            return st.phase == p["phase"] and not st.turn_over, f"今は{now}"
        if name == "winner":
            return st.winner == p["player"], boards.result_words(st)
        if name == "outcome":
            result = st.result or "undecided"
            return result == p["result"], boards.result_words(st)
        player = p["player"]
        if name == "point_count":
            zone = st.points[player]
            up = sum(1 for c in zone if c.face == "up")
            return len(zone) == p["count"], f"{player}のポイント置き場のカードは{len(zone)}枚（表向き{up}枚・裏向き{len(zone) - up}枚）"
        if name == "hand_count":
            n = len(st.hand[player])
            return n == p["count"], f"{player}の手札は{n}枚"
        if name == "graveyard_count":
            n = len(st.grave[player])
            return n == p["count"], f"{player}の捨て札は{n}枚"
        if name == "deck_count":
            n = len(st.deck[player])
            if not st.deck_known[player]:
                return False, f"{player}のデッキの枚数は場面にない"
            return n == p["count"], f"{player}のデッキは{n}枚"
        raise EngineError(f"the プレシャスメモリーズ interpreter cannot check the expectation {name}", None)

    # -- describing the state -----------------------------------------------------------
    def board(self, st: State) -> dict[str, Any]:
        return self.board_before(st, boards.build)

    def render_board(self, board: dict[str, Any]) -> str:
        return boards.render(board)

    def outcome(self, st: State, illegal: Optional[str]) -> str:
        if illegal:
            return f"ルール上できない: {illegal}"
        parts = []
        for p in PLAYERS:
            for label, zone in (("メイン", st.main), ("サポート", st.support)):
                if zone[p]:
                    parts.append(f"{p}{label}=" + _area_words(zone[p]))
            if st.points[p]:
                up = 0
                for c in st.points[p]:
                    if c.face == "up":
                        up += 1
                parts.append(f"{p}ポイント={len(st.points[p])}（表{up}）")
            for label, zone in (("手札", st.hand), ("捨て札", st.grave)):
                named = []      # loops, not comprehensions: an area holds a card or a few
                for c in zone[p]:
                    if not c.filler:
                        named.append(c.label)
                if named:
                    parts.append(f"{p}{label}=" + "・".join(named))
        if st.left:
            parts.append("行き先不明=" + "・".join(c.label for c in st.left))
        head = boards.result_words(st)
        return f"{head}; {' '.join(parts)}" if parts else head

    def validate_deck(self, kb, deck):
        return decks.validate(kb, deck)


def settle_all(ctx: Context, st: State) -> None:
    """Finish everything still waiting, in order: break choices, plays, the approach."""
    while not st.result and (st.break_pending or st.chain or st.approach is not None):
        fx.decide_breaks(ctx, st)
        if st.chain:
            plays.settle_chain(ctx, st)
        elif st.approach is not None:
            approaches.close(ctx, st)


def _code(ref: CardRef) -> str:
    return (ref.key or ("", ref.text))[1]


def _area_words(cards: list[Card]) -> str:
    """「A活+B・C休」: an area's cards, resting or active, with the supports set under each."""
    words = []
    for c in cards:     # loops: an area holds a card or a few
        w = c.label + ("休" if c.resting else "活")
        for s in c.supports:
            w += "+" + s.label
        words.append(w)
    return "・".join(words)
