"""The state of a プレシャスメモリーズ game: each player's deck (top first), hand, main area,
support area, point zone and discard pile; the turn, phase and priority; plays waiting to be
resolved (interrupts); the approach under way; and what lasts until the end of the turn."""

from __future__ import annotations

import weakref
from typing import Any, Optional

from ...lang.model import Loc
from ...lang.vocab import UNKNOWN, Call

PLAYERS = ("P1", "P2")
PHASES = ("turn_start", "main", "approach", "turn_end")
PHASE_JA = {"turn_start": "ターン開始", "main": "メインフェイズ", "approach": "アプローチフェイズ",
            "turn_end": "ターン終了"}
AREAS = ("main", "support")
AREA_JA = {"main": "メインエリア", "support": "サポートエリア"}
FILLER = "（不特定のカード）"


def other(player: str) -> str:
    return "P2" if player == "P1" else "P1"


class Card:
    """One physical card. A filler (from `deck_size` / `hand_size`) has no facts at all."""

    __slots__ = ("uid", "name", "code", "owner", "hypothetical", "facts", "effects", "loc", "placed",
                 "face", "resting", "_set_on", "supports", "__weakref__")

    def __init__(self, uid: int, name: str, code: str, owner: str, hypothetical: bool,
                 facts: dict, effects: tuple, loc: Optional[Loc], placed: Optional[Loc]):
        self.uid = uid
        self.name = name
        self.code = code
        self.owner = owner
        self.hypothetical = hypothetical
        self.facts = facts
        self.effects = effects
        self.loc = loc              # where a missing fact would be supplied
        self.placed = placed        # the set-up statement that put it in the game
        self.face = "up"
        self.resting = False
        self._set_on: Optional[weakref.ref] = None
        self.supports: list["Card"] = []          # a character: the support cards set on it

    @property
    def set_on(self) -> Optional["Card"]:
        """A support card: the character it is set on. Held weakly — the character holds its
        supports, and the game's list of cards holds both — so that a finished answer's cards
        are freed by reference counting, not left as a cycle for the collector."""
        return self._set_on() if self._set_on is not None else None

    @set_on.setter
    def set_on(self, holder: Optional["Card"]) -> None:
        self._set_on = weakref.ref(holder) if holder is not None else None

    @property
    def label(self) -> str:
        return f"《{self.name}》"

    @property
    def filler(self) -> bool:
        return self.code == ""

    def fact(self, name: str) -> Any:
        return self.facts.get(name, UNKNOWN)

    def effects_of(self, trigger: str) -> list[Call]:
        out = []
        for e in self.effects:      # a loop: a card has an effect or two
            if e.name == trigger:
                out.append(e)
        return out


class Play:
    """A card played (or a text used) and waiting to be resolved."""

    __slots__ = ("card", "player", "kind", "target", "area", "text")

    def __init__(self, card: Card, player: str, kind: str, target: Optional[Card] = None,
                 area: Optional[str] = None, text: bool = False):
        self.card, self.player, self.kind, self.target, self.area, self.text = card, player, kind, target, area, text


class Approach:
    """The approach under way: the approaching character, then the interfering one."""

    __slots__ = ("attacker", "player", "defender", "interferer", "stage")

    def __init__(self, attacker: Card, player: str):
        self.attacker = attacker
        self.player = player
        self.defender = other(player)
        self.interferer: Optional[Card] = None
        self.stage = "declared"         # declared → interfered → done


class State:
    __slots__ = ("deck", "deck_known", "hand", "main", "support", "points", "grave", "left", "first",
                 "active", "turns", "phase", "priority", "passes", "window_closed", "chain", "approach",
                 "break_pending", "mods", "entered", "approached", "mulligans", "started", "winner",
                 "result", "result_note", "generated", "pool", "orderers", "resolved", "names",
                 "decklists", "next_uid", "cards", "deck_out_noted", "exited", "drew", "turn_over", "breaks", "deck_checks", "fresh")

    def __init__(self) -> None:
        self.fresh: Optional[tuple] = None   # the set-up's, while no action has run (GameEngine.board_before)
        self.deck: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.deck_known: dict[str, bool] = {"P1": False, "P2": False}   # size given by the set-up
        self.hand: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.main: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.support: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.points: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.grave: dict[str, list[Card]] = {"P1": [], "P2": []}
        self.left: list[Card] = []              # left the game to a place the sources do not give
        self.first: Optional[str] = None
        self.active: Optional[str] = None
        self.turns: dict[str, int] = {"P1": 0, "P2": 0}
        self.phase: Optional[str] = None
        self.priority: Optional[str] = None
        self.passes = 0                         # consecutive passes
        self.window_closed = False              # both passed with nothing pending: no more plays now
        self.chain: list[Play] = []             # plays waiting to be resolved, in the order played
        self.approach: Optional[Approach] = None
        self.break_pending: list[Card] = []     # point cards whose break ability awaits its owner's choice
        self.mods: list[tuple[int, str, int, str]] = []   # (card uid, stat, amount, source label), this turn
        self.entered: set[int] = set()
        self.approached: set[int] = set()
        self.mulligans: set[str] = set()
        self.started = False
        self.winner: Optional[str] = None
        self.result: Optional[str] = None       # "win", "draw"
        self.result_note = ""
        self.generated: Optional[int] = None    # cost generated by the last payment
        self.pool: dict[str, int] = {"P1": 0, "P2": 0}   # surplus kept (one reading)
        self.orderers: list[str] = []           # who ordered simultaneous effects
        self.resolved: list[int] = []           # uids of plays, in the order they resolved
        self.names: dict[str, str] = {}         # card code → the card name it shares (same_name)
        self.decklists: dict[str, list[tuple[Card, int, Loc]]] = {"P1": [], "P2": []}
        self.next_uid = 1
        self.cards: list[Card] = []             # every named card, for look-ups by reference
        self.deck_out_noted: set[str] = set()   # an empty deck already noted (one reading)
        self.exited: set[int] = set()           # uids of characters that exited (退場)
        self.drew = False                       # the turn-start draw is done
        self.turn_over = False                  # the turn has ended
        self.breaks: list[int] = []             # uids of point cards whose break ability was used
        self.deck_checks: dict[str, tuple] = {}  # player → (total, problems) of their deck list

    def name_of(self, card: Card) -> str:
        return self.names.get(card.code, card.name)

    # -- where cards are --------------------------------------------------------------
    def field(self, player: str) -> list[Card]:
        """A player's characters: main area, then support area."""
        return self.main[player] + self.support[player]

    def area_of(self, card: Card) -> Optional[str]:
        if card in self.main[card.owner]:
            return "main"
        if card in self.support[card.owner]:
            return "support"
        return None

    def on_field(self, card: Card) -> bool:
        if card.set_on is not None:
            return True
        return card in self.main[card.owner] or card in self.support[card.owner]

    def place_of(self, card: Card) -> str:
        p = card.owner
        if card.set_on is not None:
            return "set"
        for name, zone in (("main_area", self.main), ("support_area", self.support), ("hand", self.hand),
                           ("point_zone", self.points), ("graveyard", self.grave), ("deck", self.deck)):
            if card in zone[p]:
                return name
        if any(play.card is card for play in self.chain):
            return "pending"
        if card in self.left:
            return "left"
        return "nowhere"

    def remove(self, card: Card) -> None:
        """Take a card out of whatever zone holds it."""
        p = card.owner
        for zone in (self.main, self.support, self.hand, self.points, self.grave, self.deck):
            if card in zone[p]:
                zone[p].remove(card)
                return
        if card.set_on is not None:
            card.set_on.supports.remove(card)
            card.set_on = None
            return
        if card in self.left:
            self.left.remove(card)
