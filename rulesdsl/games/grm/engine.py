"""The GRM interpreter: set-up, actions, expectations and the board, on top of the
game-neutral runner. The rules themselves are in `play` and `effects`."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Optional

from ...engine.context import Context, EngineError, IllegalAction
from ...engine.registry import GameEngine
from ...kb.knowledge import ScenarioInfo
from ...lang.vocab import Call, CardRef, in_words
from . import effects as fx
from . import play as rules
from . import verbs  # noqa: F401  (registers the effect verbs)
from .state import PLAYERS, Card, State, other


class GrmEngine(GameEngine):
    game_id = "grm"
    keeps_set_up = True      # the set-up made once, copied for every later run (GameEngine.kept_set_up)

    # -- set-up -------------------------------------------------------------------------
    def setup(self, ctx: Context, info: ScenarioInfo) -> State:
        kept = self.kept_set_up(ctx, info)
        if kept is not None:
            return kept
        st = State()
        for call in info.calls:
            if call.kind != "setup":
                continue
            p = call.params
            name = call.name
            if name == "first":
                st.first = p["player"]
            elif name == "turn":
                st.active = p["player"]
                ctx.step(f"{p['player']}のターン（プレイフェイズ）", ctx.section("grm/turn/play-phase"))
            elif name in ("field", "stack"):
                cell, card = p["cell"], self.new_card(ctx, st, info, p["card"], p["player"], call)
                card.face = p["face"]
                stack = st.cells[cell]
                if name == "field" and stack:
                    raise EngineError(f"{cell} already holds {stack[-1].label}; a cell holds one card unless cards are stacked",
                                      call.loc, f'to put a card on top of it, write: stack {cell} {p["player"]} "{card.name}" {p["face"]}')
                if name == "stack" and not stack:
                    raise EngineError(f"there is no card in {cell} to stack on", call.loc,
                                      f'put the bottom card there first: field {cell} …')
                stack.append(card)
            elif name in ("hand", "deck", "graveyard"):
                zone = {"hand": st.hand, "deck": st.deck, "graveyard": st.grave}[name]
                for ref in p.get("cards", ()):
                    zone[p["player"]].append(self.new_card(ctx, st, info, ref, p["player"], call))
            elif name == "logo_active":
                st.logo_active = True
            elif name == "ex_unlimited":
                if ctx.mode != "tournament":
                    raise EngineError("the lifted EX limit is a tournament special rule", call.loc,
                                      "add `mode tournament` to the scenario (or ask with --tournament)")
                st.ex_unlimited = True
                ctx.step("トーナメント特別ルール: EX制限は撤廃されている", ctx.section("grm/ex/tournament"))
        self.check_setup(ctx, st)
        self.set_up(ctx, info, st)
        return st

    def copy_state(self, st: State) -> State:
        """A copy of the state to resume a run from (engine.resume) or to start one from a kept
        set-up: its own cards, containers and links; card declarations, calls and locations shared."""
        return st.copy()

    def new_card(self, ctx: Context, st: State, info: ScenarioInfo, ref: CardRef, owner: str, call: Call) -> Card:
        game, code = ref.key or ("", ref.text)
        if game == "":
            card_info, hypothetical = info.cards[code], True
        else:
            card_info = info.cards.get(code) or ctx.kb.card(game, code)
            hypothetical = False
        if hypothetical:
            where = card_info.card.loc
        else:  # a known card: facts are supplied by the scenario's `card CODE { … }`, else at this line
            where = self.block_of(info, code, call.loc)
        card = Card(st.next_uid, card_info.at(ctx.day), owner, "up", hypothetical, where, call.loc)
        st.next_uid += 1
        effects = card.info.effects     # most cards: none
        for e in effects:       # continuous.permanents looks at these only
            if e.name == "permanent":
                st.permanent.add(card.uid)
                break
        return card

    def check_setup(self, ctx: Context, st: State) -> None:
        for player in PLAYERS:
            limit, _ = fx.ex_limit(ctx, st, player)
            have = rules.ex_cards(ctx, st, player, quiet=True)
            if limit is not None and len(have) > limit:
                raise EngineError(f"{player} has {len(have)} EX cards on the field "
                                  f"({'、'.join(c.label for c in have)}); the limit is {limit}",
                                  have[-1].placed, "EXマークを持つカードは各プレイヤーにつきフィールドに1枚まで"
                                  "（No.013の効果で3枚、トーナメント特別ルールで撤廃）")
        for _, card in st.field_cards():  # permanent nullifications of cards already in play
            if card.face == "up" and card.uid in st.permanent:    # only a card with a permanent effect has one
                for scoped in (True, False):
                    fx.permanent_nullify(ctx, st, card, scoped)
        fx.settle(ctx, st)

    # -- actions ------------------------------------------------------------------------
    def act(self, ctx: Context, st: State, call: Call) -> None:
        """Perform one action; an action the rules forbid raises IllegalAction, which ends the
        branch and becomes the answer (「ルール上できない：…」), cited."""
        self.acting(st)
        if st.result:
            raise IllegalAction(f"ゲームはすでに終了している（{st.result_note or st.result}）",
                                ctx.section(st.result_rule))
        p = call.params
        name = call.name
        if name in ("play", "play_on"):
            card = self.find_in_hand(ctx, st, p["player"], p["card"], call)
            rules.play(ctx, st, p["player"], card, p["cell"], on_stack=name == "play_on")
        elif name == "pass":
            if st.active != p["player"]:
                rules.begin(ctx, st, p["player"])
            can = rules.playable(ctx, st, p["player"])
            if can:
                raise IllegalAction(f"{p['player']}はプレイできるカード（{'、'.join(can)}）を持つ: "
                                    "プレイできるカードがある場合、パスを選ぶことはできない",
                                    ctx.section("grm/turn/play-phase"))
            ctx.step(f"{p['player']}はプレイできるカードがないためパスする", ctx.section("grm/turn/play-phase"))
            st.played_this_turn = True
            st.passes_in_a_row += 1
            if st.passes_in_a_row >= 2 and not any(st.deck.values()):
                st.result, st.result_note = "undecided", "両者ともプレイできず、山札もない"
                ctx.step("両プレイヤーともプレイできず山札もない: 資料に終了条件がないため未決着",
                         ctx.section("grm/victory/normal"), ctx.gap("grm/gap/no-playable-card-end"))
        elif name == "start_game":
            rules.start_game(ctx, st)
        elif name == "draw_phase":
            player = p["player"]
            if st.active == player and not st.played_this_turn:
                if st.drawn_by == "start_game":
                    raise EngineError(f"{player}'s first draw is part of start_game, which already made it",
                                      call.loc, f"remove `draw_phase {player}`: start_game deals the opening hands "
                                      "and plays the first player's turn up to its play phase, its draw included")
                raise EngineError(f"it is already {player}'s turn and its draw phase is over", call.loc,
                                  f"a new turn of {player} comes after {other(player)} plays or passes")
            rules.new_turn(ctx, st, player)
        elif name == "remove_top":
            cell = p["cell"]
            top = st.top(cell)
            if top is None:
                raise EngineError(f"{cell} is empty; there is no card to remove", call.loc)
            st.cells[cell].pop()
            st.grave[top.owner].append(top)
            top.left_field = True
            ctx.step(f"{cell}の一番上の{top.label}が除去される", ctx.section("grm/stack/face-state"))
            if top.face == "up":
                fx.ended(ctx, st, top, "フィールドを離れた")
            fx.exposed(ctx, st, cell)
        elif name in ("discard_card", "hand_limit_discard"):
            card = self.find_in_hand(ctx, st, p["player"], p["card"], call)
            if name == "hand_limit_discard" and ctx.mode != "tournament":
                ctx.step("手札の上限はない（手札上限超過による捨てはトーナメントルールにのみ現れる）",
                         ctx.section("grm/zones"), ctx.gap("grm/gap/tournament-hand-limit"))
                raise IllegalAction("通常プレイでは手札の上限はない", ctx.section("grm/zones"))
            if name == "hand_limit_discard":
                ctx.step("トーナメントの手札上限による捨て（上限の枚数は資料にない）",
                         ctx.section("grm/effects/discard-triggers"), ctx.gap("grm/gap/tournament-hand-limit"))
            fx.discard(ctx, st, p["player"], card, by_hand_limit=name == "hand_limit_discard")
        else:
            raise EngineError(f"the GRM interpreter has no handler for the action {name}", call.loc)
        fx.settle(ctx, st)   # whatever the action changed may set a permanent special victory in force

    def find_in_hand(self, ctx: Context, st: State, player: str, ref: CardRef, call: Call) -> Card:
        for card in st.hand[player]:
            if _matches(card, ref):
                return card
        where = [p for p in PLAYERS if any(_matches(c, ref) for c in st.hand[p])]
        raise EngineError(f"《{ref.text}》 is not in {player}'s hand"
                          + (f" (it is in {where[0]}'s)" if where else ""), call.loc,
                          f"check which player plays it, or move it: hand {player} \"{ref.text}\"" if where else
                          f'add it to the set-up: hand {player} "{ref.text}"')

    # -- expectations -------------------------------------------------------------------
    def expect(self, ctx: Context, st: State, call: Call, illegal: Optional[str]) -> Optional[tuple[bool, str]]:
        p = call.params
        name = call.name
        if name == "illegal":
            return illegal is not None, illegal or "すべての操作が許された"
        if illegal is not None:
            return None     # not reached: the answer says once why the action is not allowed
        if name == "face":
            top = st.top(p["cell"])
            return (top is not None and top.face == p["face"]), _cell_words(st, p["cell"])
        if name == "card_face":
            for c in st.cells[p["cell"]]:
                if _matches(c, p["card"]):
                    return c.face == p["face"], f"{c.label}は{_face(c.face)}"
            return False, f"{p['cell']}に《{p['card'].text}》はない"
        if name == "top":
            top = st.top(p["cell"])
            return (top is not None and _matches(top, p["card"])), _cell_words(st, p["cell"])
        if name == "stack_size":
            n = len(st.cells[p["cell"]])
            return n == p["count"], f"{p['cell']}は{n}枚"
        if name == "empty":
            return not st.cells[p["cell"]], _cell_words(st, p["cell"])
        if name == "owner":
            top = st.top(p["cell"])
            return (top is not None and top.owner == p["player"]), _cell_words(st, p["cell"])
        if name in ("battle", "no_battle"):
            pair = {p["cell"], p["other"]}
            happened = False
            for a, d in st.battles:
                if {a, d} == pair:
                    happened = True
                    break
            return happened == (name == "battle"), "バトルが発生した" if happened else "バトルは発生しなかった"
        if name == "hand_count":
            n = len(st.hand[p["player"]])
            return n == p["count"], f"{p['player']}の手札は{n}枚"
        if name == "deck_count":
            n = len(st.deck[p["player"]])
            return n == p["count"], f"{p['player']}の山札は{n}枚"
        if name == "in_graveyard":
            found = any(_matches(c, p["card"]) for g in st.grave.values() for c in g)
            return found, "墓地にある" if found else "墓地にない"
        if name == "in_hand":
            found = any(_matches(c, p["card"]) for c in st.hand[p["player"]])
            return found, "手札にある" if found else "手札にない"
        if name == "winner":
            return st.winner == p["player"], _result_words(st)
        if name == "outcome":
            result = st.result or "undecided"
            return result == p["result"], _result_words(st)
        if name == "must_pass":
            can = rules.playable(ctx, st, p["player"], quiet=True)
            return not can, ("プレイできるカード: " + "、".join(can)) if can else "プレイできるカードがない"
        raise EngineError(f"the GRM interpreter cannot check the expectation {name}", call.loc)

    # -- describing the state -----------------------------------------------------------
    def board(self, st: State) -> dict[str, Any]:
        return self.board_before(st, _board)

    def outcome(self, st: State, illegal: Optional[str]) -> str:
        if illegal:
            return f"ルール上できない: {illegal}"
        head = _result_words(st)
        # (once per run: `map` over the cards, not a generator resumed per card)
        parts = []
        for cell, stack in st.cells.items():
            if stack:
                parts.append(f"{cell}={'/'.join(map(_short, stack))}")
        for label, zone in (("手札", st.hand), ("山札", st.deck), ("墓地", st.grave)):
            for p in PLAYERS:
                if zone[p]:
                    parts.append(f"{p}{label}=" + "・".join(map(_label, zone[p])))   # 《name》 each
        return f"{head}; {' '.join(parts)}" if parts else head

    def describe(self, kb, call: Call) -> str:
        """An action or expectation in words; a card of the sources by its code and name
        (PROMO050《シドウ》), a scenario's own card by its name."""

        def name(ref: CardRef) -> str:
            game, code = ref.key or ("", ref.text)
            info = kb.cards.get((game, code)) if game else None
            return f"{code}《{info.name}》" if info is not None else f"《{ref.text.strip('《》')}》"
        return in_words(call, kb.games[self.game_id].vocab, card_name=name)

    def expectation_words(self, kb, call: Call, boards: list) -> Optional[str]:
        """「a1のカードは裏向き」: a cell that holds one card on every board has no top to speak of."""
        if call.name != "face":
            return None
        for b in boards:
            if _cell_size(b, call.params["cell"]) != 1:
                return None
        return f"{call.params['cell']}のカードは{_face(call.params['face'])}"

    def words_from_boards(self, call: Call) -> bool:
        return call.name == "face"      # the only expectation worded from the boards (above)

    def render_board(self, board: dict[str, Any]) -> str:
        from .board import render
        return render(board)

    def validate_deck(self, kb, deck):
        from .deck import validate
        return validate(kb, deck)


def _board(st: State) -> dict[str, Any]:
    return {
        "cells": {cell: [_card(c) for c in stack] if stack else [] for cell, stack in st.cells.items()},
        "hands": {p: [c.name for c in st.hand[p]] for p in PLAYERS},
        "decks": {p: len(st.deck[p]) for p in PLAYERS},
        "graveyards": {p: [c.name for c in st.grave[p]] for p in PLAYERS},
        "active": st.active, "turn": st.turn,
    }


def _card(c: Card) -> dict[str, Any]:
    info = c.info
    return {"name": info.name, "code": info.code, "owner": c.owner, "face": c.face, "hypothetical": c.hypothetical}


def _cell_size(final: Any, cell: str) -> int:
    """How many cards `cell` holds in what a run ended on: its state, or the board drawn from it."""
    return len(final.cells.get(cell, ())) if final.__class__ is State else len(final["cells"].get(cell, ()))


def _matches(card: Card, ref: CardRef) -> bool:
    game, code = ref.key or ("", ref.text)
    return card.code == code and card.hypothetical == (game == "")


def _face(face: str) -> str:
    return "表向き" if face == "up" else "裏向き"


_label = attrgetter("label")     # a card's 《name》


def _short(c: Card) -> str:
    return f"{c.owner}{'表' if c.face == 'up' else '裏'}《{c.name}》"


def _cell_words(st: State, cell: str) -> str:
    stack = st.cells[cell]
    if not stack:
        return f"{cell}は空"
    return f"{cell}: " + "／".join(map(_short, stack)) + ("（下から）" if len(stack) > 1 else "")


def _result_words(st: State) -> str:
    if st.result == "win":
        return f"{st.winner}の勝利（{st.result_note}）"
    if st.result == "draw":
        return f"引き分け（{st.result_note}）"
    if st.result == "undecided":
        return f"未決着（{st.result_note}）"
    return "ゲームは続く（空いているマスがある）" if not st.full() else "ゲームは続く"
