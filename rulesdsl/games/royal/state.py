"""The state of a スキル・ロイヤル・ガーディアンTCG（仮称） game (source 003): each player's zones,
life and turn, the chain of activations waiting to resolve, and what the turn has used up."""

from __future__ import annotations

from typing import Any, Optional

from ...kb.knowledge import CardInfo
from ...lang.model import Loc
from ...lang.vocab import UNKNOWN, Call

PLAYERS = ("P1", "P2")
PHASES = ("charge", "soul", "judge", "cast", "summon", "battle", "end")
FIRST_TURN_PHASES = ("cast", "summon", "end")   # 先攻1ターン目: no charge, soul, judge or battle phase
ZONES = ("hand", "main_deck", "extra_deck", "skill_zone", "royal_zone", "guardian_zone", "unit",
         "blank_zone", "lost_zone")
SKILL_ZONE_MAX = 5
LIFE = 10                                       # 互いのライフポイントは10 (royal/setup/life)

PHASE_JA = {"charge": "チャージフェイズ", "soul": "ソウルフェイズ", "judge": "ジャッジフェイズ",
            "cast": "キャストフェイズ", "summon": "サモンフェイズ", "battle": "バトルフェイズ",
            "end": "エンドフェイズ"}
PHASE_SECTION = {p: f"royal/phase/{p}" for p in PHASES}
ZONE_JA = {"hand": "手札", "main_deck": "メインデッキ", "extra_deck": "EXデッキ", "skill_zone": "スキルゾーン",
           "royal_zone": "ロイヤルゾーン", "guardian_zone": "ガーディアンゾーン", "unit": "ガーディアンの下（ユニット）",
           "blank_zone": "ブランクゾーン", "lost_zone": "ロストゾーン"}
ABILITY_JA = {"magic_skill": "マジックスキル", "trigger_skill": "トリガースキル", "soul_skill": "ソウルスキル",
              "magic_effect": "マジックエフェクト", "trigger_effect": "トリガーエフェクト",
              "soul_effect": "ソウルエフェクト", "eternal_function": "エターナルファンクション",
              "magic_function": "マジックファンクション", "trigger_function": "トリガーファンクション"}
KIND_JA = {"skill": "スキルカード", "royal": "ロイヤルカード", "guardian": "ガーディアンカード",
           "equip": "イグイップカード"}


def other(player: str) -> str:
    return "P2" if player == "P1" else "P1"


class Card:
    """One physical card. `zone` is where it is now; `face` matters for royal cards (down until
    cleared); `lasting` marks a trigger skill cast on the opponent's turn (it stays until its
    owner's next end phase); `texts_used` the abilities of its own text it has activated (one card
    carries three, each used at its own time)."""

    __slots__ = ("uid", "info", "owner", "hypothetical", "loc", "placed", "zone", "face", "lasting", "texts_used",
                 "code", "name", "label")

    def __init__(self, uid: int, info: Optional[CardInfo], owner: str, hypothetical: bool, loc: Optional[Loc],
                 placed: Optional[Loc], zone: str, face: str = "up") -> None:
        self.uid = uid
        self.info = info            # None for a card the scenario only counts (hand_count, main_deck_count)
        self.owner = owner
        self.hypothetical = hypothetical
        self.loc = loc              # where a missing fact would be supplied
        self.placed = placed        # the set-up statement that put it in the game
        self.zone = zone
        self.face = face
        self.lasting = False
        self.texts_used: tuple[str, ...] = ()
        # its printed code and name never change (nor its info): read at every step, made once
        if info is None:
            self.code, self.name, self.label = "", "（カード）", "カード"
        else:
            self.code = info.code
            self.name = name = info.name
            self.label = f"《{name}》"

    def fact(self, name: str) -> Any:
        return self.info.facts.get(name, UNKNOWN) if self.info else UNKNOWN

    @property
    def kind(self) -> Any:
        return self.fact("kind")

    def clone(self) -> "Card":
        """The same card, to change on its own (State.copy)."""
        twin = Card.__new__(Card)
        twin.uid, twin.info, twin.owner, twin.hypothetical, twin.loc = self.uid, self.info, self.owner, self.hypothetical, self.loc
        twin.placed, twin.zone, twin.face, twin.lasting, twin.texts_used = \
            self.placed, self.zone, self.face, self.lasting, self.texts_used
        twin.code, twin.name, twin.label = self.code, self.name, self.label
        return twin

    def effect(self, ability: str) -> Optional[Call]:
        if self.info is None:
            return None
        for e in self.info.effects:
            if e.name == ability:
                return e
        return None


class Link:
    """One activation on the chain: `card` activated it (the guardian for a unit's effect, whose
    text is on `text_card`), answering `answers` (None for the link that opened the chain)."""

    __slots__ = ("n", "player", "card", "text_card", "ability", "how", "speed", "answers", "targets",
                 "negated", "origin")

    def __init__(self, n: int, player: str, card: Card, text_card: Card, ability: str, how: str,
                 speed: tuple[int, int], answers: Optional["Link"]) -> None:
        self.n = n
        self.player = player
        self.card = card
        self.text_card = text_card
        self.ability = ability
        self.how = how                  # "cast" or "stand"
        self.speed = speed              # (speed, rank within the speed) — see chain.speed_of
        self.answers = answers
        self.targets: list[Optional[tuple[Card, str, Any]]] = []   # per verb: (card, zone, link) or None
        self.negated = False
        self.origin = card.zone         # where the activating card was when it activated

    @property
    def what(self) -> str:
        via = f"（ユニット{self.text_card.label}）" if self.text_card is not self.card else ""
        return f"{self.card.label}{via}の{ABILITY_JA[self.ability]}"

    @property
    def words(self) -> str:
        return f"{self.player}{self.what}"


def _zones() -> dict[str, list[Card]]:
    """A player's zones, empty, in the order of ZONES: written out, as a state is made for every
    question (a comprehension is a call of its own; tests/test_royal_engine.py pins the order)."""
    return {"hand": [], "main_deck": [], "extra_deck": [], "skill_zone": [], "royal_zone": [], "guardian_zone": [],
            "unit": [], "blank_zone": [], "lost_zone": []}


class State:
    def __init__(self) -> None:
        one, two = PLAYERS
        self.zones: dict[str, dict[str, list[Card]]] = {one: _zones(), two: _zones()}
        self.life = dict.fromkeys(PLAYERS, LIFE)
        self.life_given = dict.fromkeys(PLAYERS, False)   # the scenario sets the life (else 10, royal/setup/life)
        self.damage = dict.fromkeys(PLAYERS, 0)
        self.first: Optional[str] = None
        self.active: Optional[str] = None
        self.turn_no = dict.fromkeys(PLAYERS, 0)
        self.phase: Optional[str] = None
        self.procedure_done = False      # the current phase's own procedure (draw, judge, discard) is done
        self.step: Optional[str] = None  # battle step
        self.phases_seen: dict[str, list[str]] = {one: [], two: []}
        self.chain: list[Link] = []
        self.passed: set[str] = set()
        self.resolved: list[Card] = []  # cards whose effect was processed, in order
        self.used: set[tuple] = set()   # once-per-turn uses: (player, kind, key)
        self.cleared_names: set[tuple[str, str]] = set()   # (player, name) cleared this turn
        self.summoned = False
        self.attacked = False
        self.attacker: Optional[Card] = None
        self.battle_winners: list[Card] = []
        self.mission_met: set[int] = set()
        self.last_set: Optional[Card] = None
        self.deck_lists: dict[str, dict[str, list[tuple[CardInfo, int, Loc, bool]]]] = {
            one: {"main": [], "extra": []}, two: {"main": [], "extra": []}}
        self.deck_problems: dict[str, list] = {one: [], two: []}
        self.starts_game = False
        self.result: Optional[str] = None   # "win", "undecided"
        self.winner: Optional[str] = None
        self.loser: Optional[str] = None
        self.result_note = ""
        self.deck_given = dict.fromkeys(PLAYERS, False)   # the scenario says what the main deck holds
        self.readings: dict[str, str] = {}   # unspecified rule points decided in this run
        self.passive = False                 # take_turn: the players make no optional choices
        self.next_uid = 1
        self.fresh: Optional[tuple] = None   # the set-up's, while no action has run (GameEngine.board_before)
        self.names_twice = True              # a player holds two named cards of one name (else, as the set-up
                                             # finds, RoyalEngine.check_in_play has nothing to look at)

    def copy(self) -> "State":
        """A copy a run may change without changing this one (GameEngine.copy_state): its own
        cards in its own zones, its own chain of links (pointing at its own cards), its own
        dicts, lists and sets; card infos, locations and the deck lists' entries are shared, and
        so is what only the set-up writes (`SET_UP_ONLY`: the deck lists and their problems,
        whether the scenario gives the life and the deck, the missions met), which a copy —
        made once the set-up is done — never sees change."""
        twin = State.__new__(State)
        twin.__dict__.update(self.__dict__)
        twin.zones = {p: {z: [c.clone() for c in cards] if cards else [] for z, cards in held.items()}
                      for p, held in self.zones.items()}
        if self.chain or self.resolved or self.attacker or self.battle_winners or self.last_set:
            self._point_at(twin)
        else:
            twin.chain, twin.resolved, twin.battle_winners = [], [], []
        twin.life, twin.damage = dict(self.life), dict(self.damage)
        twin.turn_no, twin.readings = dict(self.turn_no), dict(self.readings)
        twin.passed, twin.used, twin.cleared_names = set(self.passed), set(self.used), set(self.cleared_names)
        twin.phases_seen = {p: list(v) for p, v in self.phases_seen.items()}
        return twin

    # written by the set-up (RoyalEngine.setup, check_decks), only read once it is done: a copy shares them
    SET_UP_ONLY = ("deck_lists", "deck_problems", "life_given", "deck_given", "mission_met")

    def _point_at(self, twin: "State") -> None:
        """The copy's chain, resolved cards, attacker… pointing at its own cards (State.copy)."""
        made = {c.uid: c for c in twin.all_cards()}
        links: dict[int, Link] = {}
        twin.chain = [_link_copy(link, made, links) for link in self.chain]
        twin.resolved = [_card_copy(c, made) for c in self.resolved]
        twin.attacker, twin.last_set = _card_copy(self.attacker, made), _card_copy(self.last_set, made)
        twin.battle_winners = [_card_copy(c, made) for c in self.battle_winners]

    # -- where cards are --------------------------------------------------------------
    def cards(self, player: str, zone: str) -> list[Card]:
        return self.zones[player][zone]

    def guardian(self, player: str) -> Optional[Card]:
        g = self.zones[player]["guardian_zone"]
        return g[0] if g else None

    def move(self, card: Card, zone: str, top: bool = False) -> None:
        """Move `card` to its owner's `zone` (a deck's top when `top`)."""
        self.zones[card.owner][card.zone].remove(card)
        card.zone = zone
        card.lasting = False
        dest = self.zones[card.owner][zone]
        if top:
            dest.insert(0, card)
        else:
            dest.append(card)

    def deck_top(self, player: str) -> Optional[Card]:
        """The top card of the main deck; a deck the scenario does not describe yields cards
        nobody has named (a question about an effect's draw need not count the deck)."""
        deck = self.zones[player]["main_deck"]
        if not deck and not self.deck_given[player]:
            deck.append(Card(self.next_uid, None, player, True, None, None, "main_deck"))
            self.next_uid += 1
        return deck[0] if deck else None

    def all_cards(self):
        for p in PLAYERS:
            for zone in ZONES:
                yield from self.zones[p][zone]

    def faced_up_royals(self, player: str) -> list[Card]:
        out = []    # a loop: a royal zone holds a card or a few
        for c in self.zones[player]["royal_zone"]:
            if c.face == "up":
                out.append(c)
        return out

    def first_turn(self) -> bool:
        """The first player's first turn, which has no charge, soul, judge or battle phase."""
        return self.active is not None and self.active == self.first and self.turn_no[self.active] == 1

    def turn_phases(self) -> tuple[str, ...]:
        return FIRST_TURN_PHASES if self.first_turn() else PHASES


# a state's copy (State.copy): module functions, not closures — a nested function that calls
# itself is a cycle, and an answer is freed by reference counting (tests/test_answer_cycles.py)
def _card_copy(card: Optional[Card], made: dict[int, Card]) -> Optional[Card]:
    if card is None:
        return None
    new = made.get(card.uid)
    if new is None:
        new = made[card.uid] = card.clone()
    return new


def _link_copy(link: Optional[Link], made: dict[int, Card], links: dict[int, Link]) -> Optional[Link]:
    if link is None:
        return None
    new = links.get(id(link))
    if new is None:
        new = links[id(link)] = Link.__new__(Link)
        for name in Link.__slots__:
            setattr(new, name, getattr(link, name))
        new.card, new.text_card = _card_copy(link.card, made), _card_copy(link.text_card, made)
        new.answers = _link_copy(link.answers, made, links)
        new.targets = [None if t is None else (_card_copy(t[0], made), t[1], _link_copy(t[2], made, links))
                       for t in link.targets]
    return new
