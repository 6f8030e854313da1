"""The royal interpreter: set-up, actions, expectations and the board, on top of the
game-neutral runner. The rules themselves are in `flow`, `chain`, `guardians` and `effects`."""

from __future__ import annotations

from typing import Any, Optional

from ...engine.context import Context, EngineError, IllegalAction
from ...engine.registry import GameEngine
from ...kb.knowledge import ScenarioInfo
from ...lang.vocab import Call, CardRef
from . import board, chain, flow, guardians, victory
from . import deck as decks
from . import effects as fx
from .state import ABILITY_JA, PHASE_JA, PLAYERS, ZONE_JA, ZONES, Card, State, other

# where an action's card is looked for first, per action
LOOK = {"cast": ("hand", "blank_zone"), "stand": ("guardian_zone", "royal_zone", "skill_zone"),
        "set": ("hand",), "summon": ("extra_deck",), "clear": ("royal_zone",), "attack": ("guardian_zone",),
        "remove_unit": ("guardian_zone", "skill_zone"), "cost": ("skill_zone",)}
# the zones searched for an action's card, in order: where the action looks first, then the rest
_SEARCH = {zones: zones + tuple(z for z in ZONES if z not in zones) for zones in (*LOOK.values(), ())}
RESPONSES = ("cast", "stand", "remove_unit", "pass")
# the deck a card of each kind is built into (a fifth copy, a second royal of one name: check_in_play)
_DECK_OF = {"skill": "main", "equip": "main", "royal": "extra", "guardian": "extra"}
IN_A_PHASE = ("cast", "stand", "remove_unit", "pass", "set", "summon", "clear", "attack", "block", "no_block")


class RoyalEngine(GameEngine):
    game_id = "royal"
    keeps_set_up = True      # the set-up made once, copied for every later run (GameEngine.kept_set_up)

    # -- set-up -------------------------------------------------------------------------
    def actions(self, info: ScenarioInfo):
        """The scenario's actions between two of the engine's own: a check of what the set-up
        puts in play (a fifth copy, a second royal of one name) and, after the last action,
        what is still open (a chain, an attack waiting for the block). The same for every run and
        reading of the scenario: made once."""
        return self.per_scenario(info, "actions", self._own_actions)

    def _own_actions(self, info: ScenarioInfo) -> list[Call]:
        acts = list(super().actions(info))
        check = Call(kind="action", name="_check", params={}, loc=info.scenario.loc)
        if not acts:
            return [check]
        return [check, *acts, Call(kind="action", name="_settle", params={}, loc=acts[-1].loc)]

    def setup(self, ctx: Context, info: ScenarioInfo) -> State:
        kept = self.kept_set_up(ctx, info)
        if kept is not None:
            return kept
        st = State()
        counts: list[tuple[str, str, int, Call]] = []
        met: list[Call] = []
        placed: list[tuple[str, str]] = []    # (owner, name) of each named card put in play
        starts = listed = False     # a start_game action; a deck list entry (checked below)
        for call in info.calls:
            if call.kind != "setup":
                if call.name == "start_game" and call.kind == "action":
                    starts = True
                continue
            p = call.params
            name = call.name
            if name == "first":
                st.first = p["player"]
            elif name == "turn":
                st.active = p["player"]
                st.turn_no[p["player"]] = p.get("number") or 1
            elif name == "phase":
                st.phase = p["phase"]
            elif name == "step":
                st.step = p["step"]
            elif name == "life":
                st.life[p["player"]] = p["value"]
                st.life_given[p["player"]] = True
            elif name in ("hand", "main_deck", "extra_deck", "skill_zone", "blank_zone", "lost_zone"):
                if name == "main_deck":
                    st.deck_given[p["player"]] = True
                for ref in p.get("cards", ()):
                    self.new_card(ctx, st, info, ref, p["player"], name, call, placed)
            elif name == "royal_zone":
                for ref in p["cards"]:
                    self.new_card(ctx, st, info, ref, p["player"], "royal_zone", call, placed).face = p["face"]
            elif name == "guardian":
                if st.guardian(p["player"]) is not None:
                    raise EngineError(f"{p['player']}'s guardian zone already holds {st.guardian(p['player']).label}; "
                                      "it holds one card (royal/zones/guardian-zone)", call.loc)
                self.new_card(ctx, st, info, p["card"], p["player"], "guardian_zone", call, placed)
            elif name == "units":
                if st.guardian(p["player"]) is None:
                    raise EngineError(f"{p['player']} has no guardian for the units to lie under", call.loc,
                                      f'put one in the guardian zone first: guardian {p["player"]} "…"')
                for ref in p["cards"]:
                    self.new_card(ctx, st, info, ref, p["player"], "unit", call, placed)
            elif name in ("hand_count", "main_deck_count"):
                if name == "main_deck_count":
                    st.deck_given[p["player"]] = True
                counts.append((p["player"], "hand" if name == "hand_count" else "main_deck", p["count"], call))
            elif name == "deck_entry":
                listed = True
                card_info = self.card_info(ctx, info, p["card"])
                st.deck_lists[p["player"]][p["deck"]].append((card_info, p["count"], call.loc, True))
            elif name == "mission_met":
                met.append(call)
            elif name == "used":
                card = self.need(st, p["player"], p["card"], name, call)
                ab = p["ability"]
                key = card.name if ab in ("magic_skill", "trigger_skill") else card.uid
                st.used.add((p["player"], ab, key))
        st.names_twice = len(set(placed)) < len(placed)
        for player, zone, n, call in counts:
            have = st.cards(player, zone)
            if len(have) > n:
                raise EngineError(f"{player}'s {ZONE_JA[zone]} already holds {len(have)} named cards, more than {n}", call.loc)
            first, loc = st.next_uid, call.loc     # the cards it only counts, made here: a deck of 40
            st.next_uid = first + n - len(have)
            for uid in range(first, st.next_uid):
                have.append(Card(uid, None, player, True, loc, loc, zone))
        for call in met:
            card = next((c for p in PLAYERS for c in st.cards(p, "royal_zone") if fx.matches(c, call.params["card"])), None)
            if card is None:
                raise EngineError(f"《{call.params['card'].text}》 is not in a royal zone", call.loc,
                                  'put it there first: royal_zone P1 down "…"')
            st.mission_met.add(card.uid)
        for p in PLAYERS:
            if len(st.cards(p, "skill_zone")) > 5:
                raise EngineError(f"{p}'s skill zone holds {len(st.cards(p, 'skill_zone'))} cards; it holds at most 5 "
                                  "(royal/zones/skill-zone)", info.scenario.loc)
        if st.active is not None and st.first is None:
            st.first = "P1"
        if st.active is not None:
            mine = st.turn_no[st.active]
            st.turn_no[other(st.active)] = mine if st.active != st.first else mine - 1
            if st.phase is not None:
                if st.phase not in st.turn_phases():
                    raise EngineError(f"the first player's first turn has no {PHASE_JA[st.phase]}", info.scenario.loc,
                                      "先攻1ターン目はチャージ・ソウル・ジャッジ・バトルフェイズが存在しない")
                phases = st.turn_phases()
                st.phases_seen[st.active] = list(phases[:phases.index(st.phase) + 1])
                ctx.step(f"{st.active}の{st.turn_no[st.active]}ターン目、{PHASE_JA[st.phase]}の開始時",
                         ctx.section(f"royal/phase/{st.phase}"))
        st.starts_game = starts
        if listed:      # some deck list has an entry
            self.check_decks(ctx, st)
        self.set_up(ctx, info, st)
        return st

    def copy_state(self, st: State) -> State:
        """A copy of the state to resume a run from (engine.resume) or to start one from a kept
        set-up: its own cards, containers and links; card declarations, calls and locations shared."""
        return st.copy()

    def card_info(self, ctx: Context, info: ScenarioInfo, ref: CardRef):
        game, code = ref.key or ("", ref.text)
        return info.cards[code] if game == "" else (info.cards.get(code) or ctx.kb.card(game, code))

    def new_card(self, ctx: Context, st: State, info: ScenarioInfo, ref: CardRef, owner: str, zone: str, call: Call,
                 placed: list) -> Card:
        """A named card of the set-up in `zone`; (owner, name) noted in `placed` (check_in_play)."""
        game, code = ref.key or ("", ref.text)
        if game == "":      # the scenario's own card (card_info, written in: a call less per card)
            card_info = info.cards[code]
            where = card_info.card.loc
        else:
            card_info = info.cards.get(code) or ctx.kb.card(game, code)
            where = self.block_of(info, code, call.loc)
        uid = st.next_uid
        st.next_uid = uid + 1
        card = Card(uid, card_info.at(ctx.day), owner, game == "", where, call.loc, zone)
        placed.append((owner, card.name))
        st.zones[owner][zone].append(card)
        return card

    def check_decks(self, ctx: Context, st: State) -> None:
        scope, cite = ctx.point("deck.colour_scope")
        for p in PLAYERS:
            lists = st.deck_lists[p]
            entries = [decks.Entry(i, n, d, loc) for d in ("main", "extra") for i, n, loc, _ in lists[d]]
            if not entries:
                continue
            problems, _ = decks.check(entries, scope)
            st.deck_problems[p] = problems
            checked = []    # (loops, not comprehensions: made once per deck)
            for s, d in (("royal/deck/main", "main"), ("royal/deck/extra", "extra")):
                if lists[d]:
                    checked.append(ctx.section(s))
            checked.append(ctx.section("royal/deck/colours"))
            kinds = set()
            for e in entries:
                kinds.add(e.info.facts.get("kind"))
            if "royal" in kinds:
                checked.append(ctx.section("royal/deck/royal-colours"))
            if not kinds.isdisjoint(("skill", "equip", "guardian")):
                checked.append(cite)
            sizes = "・".join(f"{'メイン' if d == 'main' else 'エクストラ'}デッキ{sum(n for _, n, _, _ in lists[d])}枚"
                             for d in ("main", "extra") if lists[d])
            if not problems:
                ctx.step(f"{p}のデッキ（{sizes}）は構築条件を満たす", *checked)
            for pr in problems:
                ctx.step(f"{p}のデッキ（{sizes}）: {pr.message}", ctx.section(pr.section), *(ctx.section(s) for s in pr.also),
                         *(c for c in checked if pr.code == "colours" and c is cite))
            failed = {pr.section for pr in problems}
            colours_ok = [c for c in checked if c.ref in ("royal/deck/colours", "royal/deck/royal-colours") and c.ref not in failed]
            if problems and colours_ok:   # the colour rules were checked too, and hold
                if "royal/deck/colours" not in failed and cite in checked:
                    colours_ok.append(cite)
                ctx.step(f"{p}のデッキ（{sizes}）: カラーの条件は満たす", *colours_ok)

    def find(self, st: State, player: str, ref: CardRef, zones: tuple[str, ...], skip=()) -> Optional[Card]:
        order = _SEARCH.get(zones) or zones + tuple(z for z in ZONES if z not in zones)
        held = st.zones[player]
        code, hypothetical = fx.wanted(ref)        # fx.matches, its reference read once per search
        for zone in order:
            for c in held[zone]:
                if c.code == code and c.info is not None and c.hypothetical == hypothetical and c not in skip:
                    return c
        return None

    def costs(self, st: State, player: str, refs, call: Call) -> list[Card]:
        out: list[Card] = []
        for r in refs:
            out.append(self.need(st, player, r, "cost", call, skip=out))
        return out

    def need(self, st: State, player: str, ref: CardRef, action: str, call: Call, skip=()) -> Card:
        card = self.find(st, player, ref, LOOK.get(action, ()), skip)
        if card is not None:
            return card
        theirs = self.find(st, other(player), ref, ())
        hint = (f"it is {other(player)}'s card; check which player acts" if theirs else
                f'add it to the set-up, e.g.: {"hand" if action in ("cast", "set") else "skill_zone"} {player} "{ref.text}"')
        raise EngineError(f"《{ref.text}》 is not among {player}'s cards", call.loc, hint)

    # -- actions ------------------------------------------------------------------------
    def act(self, ctx: Context, st: State, call: Call) -> None:
        self.acting(st)
        try:
            self._act(ctx, st, call)
        except EngineError as e:
            if e.loc is None:   # raised by the rules without knowing the scenario's line
                e.loc = call.loc
            raise

    def _act(self, ctx: Context, st: State, call: Call) -> None:
        p = call.params
        name = call.name
        if name == "_check":
            self.check_in_play(ctx, st)
            return
        if name == "_settle":
            flow.settle(ctx, st)
            return
        # not an answer to anything of the opponent's: the open chain is answered or resolves first
        settles = (name not in RESPONSES and name not in ("block", "no_block")) or \
            (name not in ("block", "no_block") and st.step == "block") or \
            (name in ("cast", "stand", "remove_unit") and st.chain and st.chain[-1].player == p["player"]
             and not p["ability"].startswith("trigger"))
        if settles:
            flow.settle(ctx, st)
        player = p.get("player")
        if name in IN_A_PHASE and (st.active is None or st.phase is None):
            what = "whose turn it is" if st.active is None else "which phase it is"
            raise EngineError(f"{name} needs to know {what}", call.loc,
                              "add the turn and the phase to the set-up, e.g. `turn P1 2` and `phase cast` "
                              "(or begin with `start_game`)")
        if name == "start_game":
            bad = [(q, pr) for q in PLAYERS for pr in st.deck_problems[q]]
            if bad:
                q, pr = bad[0]
                raise IllegalAction(f"{q}のデッキは構築条件を満たさないため、ゲームを始められない: "
                                    + "；".join(f"{x}: {y.message}" for x, y in bad), ctx.section(pr.section))
            flow.start_game(ctx, st)
        elif name == "take_turn":
            flow.take_turn(ctx, st, player)
        elif name == "advance":
            victory.not_over(ctx, st)
            flow.advance(ctx, st, p["phase"])
        elif name in ("cast", "stand"):
            victory.not_over(ctx, st)
            card = self.need(st, player, p["card"], name, call)
            chain.activate(ctx, st, player, card, p["ability"], name, list(p.get("targets", ())),
                           untouched=not settles)
        elif name == "remove_unit":
            victory.not_over(ctx, st)
            guard = self.need(st, player, p["card"], name, call)
            unit = next((u for u in st.cards(player, "unit") if fx.matches(u, p["unit"])), None)
            if unit is None:
                raise EngineError(f"《{p['unit'].text}》 is not a unit of {player}'s guardian", call.loc,
                                  f'add it to the set-up: units {player} "{p["unit"].text}"')
            if p["ability"] not in ("magic_effect", "trigger_effect"):
                raise IllegalAction(f"ユニットを取り除いてスタンドできるのはイグイップカードに記されたマジック・トリガーエフェクトである"
                                    f"（{ABILITY_JA[p['ability']]}ではない）", ctx.section("royal/terms/unit"))
            chain.activate(ctx, st, player, guard, p["ability"], "stand", [], unit=unit, untouched=not settles)
        elif name == "pass":
            chain.pass_(ctx, st, player)
        elif name == "set":
            guardians.set_equip(ctx, st, player, self.need(st, player, p["card"], name, call))
        elif name == "summon":
            card = self.need(st, player, p["card"], name, call)
            costs = self.costs(st, player, p["cost"], call)
            guardians.summon(ctx, st, player, card, costs)
        elif name == "clear":
            royal = self.need(st, player, p["card"], name, call)
            costs = self.costs(st, player, p.get("cost", ()), call)
            guardians.clear(ctx, st, player, royal, costs)
        elif name == "attack":
            guardians.attack(ctx, st, player, self.need(st, player, p["card"], name, call))
        elif name in ("block", "no_block"):
            guardians.block(ctx, st, player, accept=name == "block")
        else:
            raise EngineError(f"the royal interpreter has no handler for the action {name}", call.loc)

    def check_in_play(self, ctx: Context, st: State) -> None:
        """Cards in play that no legal deck could hold: a fifth copy, a second royal of one name.
        None where no player holds two named cards of one name (the set-up notes it)."""
        if not st.names_twice:
            return
        for p in PLAYERS:
            names: dict[tuple[str, str], list[Card]] = {}
            for held in st.zones[p].values():       # every zone, in the order of ZONES
                for c in held:
                    info = c.info
                    if info is None:                # a card the scenario only counts
                        continue
                    deck = _DECK_OF.get(info.facts.get("kind"))
                    if deck is None:
                        continue
                    key = (deck, c.name)            # the card's printed name (its info's, kept)
                    same = names.get(key)
                    if same is None:
                        names[key] = [c]
                    else:
                        same.append(c)
            for (deck, name), cards in names.items():
                limit = 4 if deck == "main" else 1
                if len(cards) > limit:
                    what = "メインデッキ" if deck == "main" else "エクストラデッキ"
                    kind = decks.KIND_SECTION.get(cards[0].kind)   # the card kind's own 同名カードは…枚まで
                    raise IllegalAction(f"{p}は同名カード《{name}》を{len(cards)}枚持っている: {what}に同名カードは{limit}枚まで",
                                        ctx.section("royal/deck/main" if deck == "main" else "royal/deck/extra"),
                                        also=(ctx.section(kind),) if kind else ())

    # -- expectations -------------------------------------------------------------------
    def expect(self, ctx: Context, st: State, call: Call, illegal: Optional[str]):
        p = call.params
        name = call.name
        if name == "illegal":
            return illegal is not None, (f"この操作はルール上できない（{illegal}）" if illegal else "すべての操作がルール上できた")
        if name == "legal":
            return illegal is None, (f"この操作はルール上できない（{illegal}）" if illegal else "すべての操作がルール上できた")
        if name == "speed":
            card = self.anywhere(st, p["card"])
            if card is None:
                return False, f"《{p['card'].text}》は場面にない"
            value, _ = chain.speed_of(ctx, st, card, p["ability"])
            return value == p["value"], f"{card.label}の{ABILITY_JA[p['ability']]}のスピードは{value}"
        if name in ("deck_valid", "deck_problem"):
            problems = st.deck_problems[p["player"]]
            found = "；".join(pr.message for pr in problems) or "構築条件を満たす"
            if name == "deck_valid":
                return not problems, f"{p['player']}のデッキは{found}"
            return any(pr.code == p["problem"] for pr in problems), f"{p['player']}のデッキ: {found}"
        if illegal is not None:
            return None   # not evaluated: an action was illegal (contract 3)
        if name == "life":
            return st.life[p["player"]] == p["value"], f"{p['player']}のライフポイントは{st.life[p['player']]}"
        if name == "damage":
            return st.damage[p["player"]] == p["amount"], f"{p['player']}は{st.damage[p['player']]}ダメージを受けた"
        if name == "winner":
            return st.winner == p["player"], _result_words(st)
        if name == "loser":
            return st.loser == p["player"], _result_words(st)
        if name == "no_result":
            return st.result is None, _result_words(st)
        if name == "resolution_order":
            names = [c.name for c in st.resolved]
            want = [r.text for r in p["cards"]]
            return names == want, ("効果は" + "→".join(f"《{n}》" for n in names) + "の順に処理された") if names else "処理された効果はない"
        if name == "resolved":
            done = any(fx.matches(c, p["card"]) for c in st.resolved)
            return done, f"《{p['card'].text}》の効果は{'処理された' if done else '処理されなかった'}"
        if name == "zone_of":
            cards = self.everywhere(st, p["card"])
            if not cards:
                return False, f"《{p['card'].text}》は場面にない"
            zones = sorted({c.zone for c in cards}, key=ZONES.index)
            return p["zone"] in zones, f"《{p['card'].text}》は{'・'.join(ZONE_JA[z] for z in zones)}にある"
        if name == "zone_count":
            n = len(st.cards(p["player"], p["zone"]))
            return n == p["count"], f"{p['player']}の{ZONE_JA[p['zone']]}のカードは{n}枚"
        if name == "hand_count":
            n = len(st.cards(p["player"], "hand"))
            return n == p["count"], f"{p['player']}の手札は{n}枚"
        if name == "face":
            card = self.anywhere(st, p["card"])
            if card is None:
                return False, f"《{p['card'].text}》は場面にない"
            words = "クリアーされて表向き" if card.face == "up" else "裏向き"
            return card.face == p["face"], f"{card.label}は{words}"
        if name == "battle_winner":
            won = any(fx.matches(c, p["card"]) for c in st.battle_winners)
            winners = "・".join(c.label for c in st.battle_winners)
            return won, f"{winners}がバトルに勝利した" if winners else "バトルに勝利したガーディアンはない"
        if name == "phases":
            seen = st.phases_seen[p["player"]]
            return tuple(seen) == tuple(p["phases"]), \
                f"{p['player']}のこのターンのフェイズは{'→'.join(PHASE_JA[x] for x in seen) or 'なし'}"
        if name == "force":
            card = self.anywhere(st, p["card"])
            if card is None:
                return False, f"《{p['card'].text}》は場面にない"
            value = fx.force(ctx, st, card, trace=False)
            return value == p["value"], f"{card.label}のフォースは{value}"
        if name == "chain_size":
            return len(st.chain) == p["count"], f"処理を待つ発動は{len(st.chain)}件"
        raise EngineError(f"the royal interpreter cannot check the expectation {name}", call.loc)

    def anywhere(self, st: State, ref: CardRef) -> Optional[Card]:
        found = self.everywhere(st, ref)
        return found[0] if found else None

    def everywhere(self, st: State, ref: CardRef) -> list[Card]:
        code, hypothetical = fx.wanted(ref)        # fx.matches, its reference read once
        out = []        # loops, not a comprehension: one function less per call
        for held in st.zones.values():      # State.all_cards' order
            for cards in held.values():
                for c in cards:
                    if c.code == code and c.info is not None and c.hypothetical == hypothetical:
                        out.append(c)
        return out

    # -- describing the state -----------------------------------------------------------
    def board(self, st: State) -> dict[str, Any]:
        return self.board_before(st, board.board)

    def outcome(self, st: State, illegal: Optional[str]) -> str:
        if illegal:
            return f"ルール上できない: {illegal}"
        return f"{_result_words(st)}; {board.summary(st)}"

    def render_board(self, picture: dict[str, Any]) -> str:
        return board.render(picture)

    def validate_deck(self, kb, deck):
        return decks.validate(kb, deck)


def _result_words(st: State) -> str:
    if st.result == "win":
        return st.result_note
    return "勝敗はまだ決まらない"

