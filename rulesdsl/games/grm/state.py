"""The state of a GRM game: the 3×3 field (each cell a stack, bottom first), hands, decks
(top first), graveyards, and what lasts between plays."""

from __future__ import annotations

from typing import Any, Optional

from ...base.record import Record, field
from ...kb.knowledge import CardInfo
from ...lang.model import Loc
from ...lang.vocab import UNKNOWN, Call

COLUMNS = "abc"
ROWS = "123"
CELLS = tuple(f"{c}{r}" for c in COLUMNS for r in ROWS)
PLAYERS = ("P1", "P2")


def _per_player() -> dict[str, list]:
    """An empty zone of each player (P1, P2), made without a comprehension (one per state and zone)."""
    return {PLAYERS[0]: [], PLAYERS[1]: []}


def any_triggered(cards, triggers: tuple[str, ...]) -> bool:
    """Has one of `cards` an effect one of `triggers` triggers? (Loops: a card or a few, an
    effect or two each.)"""
    for c in cards:
        for e in c.info.effects:
            if e.name in triggers:
                return True
    return False


def other(player: str) -> str:
    return "P2" if player == "P1" else "P1"


def neighbours(cell: str, diagonal: bool = False) -> list[str]:
    """Cells next to `cell`: up, down, left, right (and the diagonals when asked), in a fixed order."""
    return list(_NEIGHBOURS[cell, diagonal])


def _neighbours(cell: str, diagonal: bool) -> list[str]:
    c, r = COLUMNS.index(cell[0]), ROWS.index(cell[1])
    out = []
    for dc, dr in ((0, -1), (-1, 0), (1, 0), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1))[: 8 if diagonal else 4]:
        nc, nr = c + dc, r + dr
        if 0 <= nc < 3 and 0 <= nr < 3:
            out.append(f"{COLUMNS[nc]}{ROWS[nr]}")
    return out


_NEIGHBOURS = {(cell, diagonal): tuple(_neighbours(cell, diagonal)) for cell in CELLS for diagonal in (False, True)}


class Card:
    """One physical card in the game."""

    __slots__ = ("uid", "info", "owner", "face", "nullified", "hypothetical", "loc", "placed", "lasting_weight",
                 "left_field", "code", "name", "label")

    def __init__(self, uid: int, info: CardInfo, owner: str, face: str, hypothetical: bool, loc: Loc,
                 placed: Loc):
        self.uid = uid
        self.info = info
        self.owner = owner
        self.face = face
        self.nullified = False       # by a one-shot nullification
        self.hypothetical = hypothetical
        self.loc = loc               # where a missing fact would be supplied
        self.placed = placed         # the set-up statement that put it in the game
        self.lasting_weight: Optional[float] = None  # from a continuous treat-as-weight
        self.left_field = False      # it was on the field and left it (destroyed, returned…)
        # its printed code and name never change (nor its info): read at every step, made once
        self.code = info.code
        self.name = info.name
        self.label = f"《{self.name}》"

    def fact(self, name: str) -> Any:
        return self.info.facts.get(name, UNKNOWN)

    def effects(self, trigger: Optional[str] = None) -> list[Call]:
        effects = self.info.effects
        if not effects:         # most cards: asked at every check of every play
            return []
        if trigger is None:
            return list(effects)
        out = []    # a loop, not a comprehension (a function made and called at every ask)
        for e in effects:
            if e.name == trigger:
                out.append(e)
        return out

    def clone(self) -> "Card":
        """The same card, to change on its own (State.copy)."""
        twin = Card.__new__(Card)
        twin.uid, twin.info, twin.owner, twin.face, twin.nullified = self.uid, self.info, self.owner, self.face, self.nullified
        twin.hypothetical, twin.loc, twin.placed = self.hypothetical, self.loc, self.placed
        twin.lasting_weight, twin.left_field = self.lasting_weight, self.left_field
        twin.code, twin.name, twin.label = self.code, self.name, self.label
        return twin

    def has_verb(self, verb: str) -> bool:
        return any(v.name == verb for e in self.info.effects for v in (e.body or ()))


class Link(Record):
    """A nullification: `source` (None for a one-shot effect) nullifies `target`."""

    source: Optional[int]
    target: int

    def __init__(self, source: Optional[int], target: int) -> None:    # one per link, per copy
        self.source, self.target = source, target


class State(Record):
    cells: dict[str, list[Card]] = field(default_factory=lambda: {c: [] for c in CELLS})
    hand: dict[str, list[Card]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    deck: dict[str, list[Card]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    grave: dict[str, list[Card]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    first: Optional[str] = None
    active: Optional[str] = None
    turn: int = 0
    logo_active: bool = False                  # a logo card's effect is active this turn
    ex_unlimited: bool = False                 # the tournament special rule
    ex_limits: dict[str, tuple[int, "Card"]] = field(default_factory=dict)   # lasting EX limits per player, and the card that set them
    links: list[Link] = field(default_factory=list)
    battles: list[tuple[str, str]] = field(default_factory=list)   # (attacker cell, defender cell)
    extra_plays: int = 0
    played_this_turn: bool = False
    passes_in_a_row: int = 0
    drawn_by: Optional[str] = None             # who started the current turn with its draw ("start_game", "draw_phase")
    winner: Optional[str] = None
    result: Optional[str] = None               # "win", "draw", "undecided"
    result_note: str = ""
    result_rule: str = "grm/victory/normal"    # the rule section that ended the game
    next_uid: int = 1
    permanent: set[int] = field(default_factory=set)     # the uids of the game's cards with a permanent effect
    fresh: Optional[tuple] = field(default=None, repr=False, compare=False)   # the set-up's, while no action has run (GameEngine.board_before)

    def __init__(self, cells=None, hand=None, deck=None, grave=None, first=None, active=None, turn=0,
                 logo_active=False, ex_unlimited=False, ex_limits=None, links=None, battles=None,
                 extra_plays=0, played_this_turn=False, passes_in_a_row=0, drawn_by=None, winner=None,
                 result=None, result_note="", result_rule="grm/victory/normal", next_uid=1, permanent=None,
                 fresh=None) -> None:
        # written out (one per run): Record's own constructor is slower than this
        if cells is None:       # (loops: a comprehension is a function made per state and zone)
            cells = {}
            for c in CELLS:
                cells[c] = []
        self.cells = cells
        self.hand = _per_player() if hand is None else hand
        self.deck = _per_player() if deck is None else deck
        self.grave = _per_player() if grave is None else grave
        self.first = first
        self.active = active
        self.turn = turn
        self.logo_active = logo_active
        self.ex_unlimited = ex_unlimited
        self.ex_limits = {} if ex_limits is None else ex_limits
        self.links = [] if links is None else links
        self.battles = [] if battles is None else battles
        self.extra_plays = extra_plays
        self.played_this_turn = played_this_turn
        self.passes_in_a_row = passes_in_a_row
        self.drawn_by = drawn_by
        self.winner = winner
        self.result = result
        self.result_note = result_note
        self.result_rule = result_rule
        self.next_uid = next_uid
        self.permanent = set() if permanent is None else permanent
        self.fresh = fresh

    def copy(self) -> "State":
        """A copy a run may change without changing this one (GameEngine.copy_state): its own
        cards, in its own cells and zones, its own links and lists; the rest is plain values."""
        twin = State.__new__(State)
        twin.__dict__.update(self.__dict__)
        twin.cells = {cell: [c.clone() for c in stack] if stack else [] for cell, stack in self.cells.items()}
        twin.hand, twin.deck, twin.grave = ({p: [c.clone() for c in cards] if cards else [] for p, cards in zone.items()}
                                            for zone in (self.hand, self.deck, self.grave))
        if self.ex_limits:      # the card that set a limit is one of the cards: its copy
            made = {c.uid: c for c in twin.all_cards()}
            twin.ex_limits = {p: (n, made.get(c.uid) or c.clone()) for p, (n, c) in self.ex_limits.items()}
        else:
            twin.ex_limits = {}
        twin.links = [Link(link.source, link.target) for link in self.links]
        twin.battles = list(self.battles)
        twin.permanent = set(self.permanent)
        return twin

    # -- where cards are --------------------------------------------------------------
    def top(self, cell: str) -> Optional[Card]:
        stack = self.cells[cell]
        return stack[-1] if stack else None

    def opposing(self, cells: list[str], owner: str) -> list[str]:
        """The cells among `cells` whose top card is not `owner`'s. (Loops here and in `mixed`,
        not comprehensions: a cell has four to eight neighbours.)"""
        out = []
        for c in cells:
            stack = self.cells[c]
            if stack and stack[-1].owner != owner:
                out.append(c)
        return out

    def mixed(self, cells: list[str]) -> list[str]:
        """The cells among `cells` whose stack holds both players' cards."""
        out = []
        for c in cells:
            stack = self.cells[c]
            if len(stack) > 1 and len({x.owner for x in stack}) > 1:    # a card alone is one owner's
                out.append(c)
        return out

    def cell_of(self, card: Card) -> Optional[str]:
        for cell, stack in self.cells.items():
            if card in stack:
                return cell
        return None

    def on_field(self, card: Card) -> bool:
        return self.cell_of(card) is not None

    def is_top(self, card: Card) -> bool:
        cell = self.cell_of(card)
        return cell is not None and self.cells[cell][-1] is card

    def field_cards(self) -> list[tuple[str, Card]]:
        """Top cards of every occupied cell, in cell order (a1, a2, …, c3)."""
        out = []    # asked at every check of every play: a loop, not a comprehension's function
        for c, s in self.cells.items():
            if s:
                out.append((c, s[-1]))
        return out

    def top_triggered(self, trigger: str) -> bool:
        """Has a top card of the field an effect `trigger` triggers?"""
        for s in self.cells.values():
            if s:
                for e in s[-1].info.effects:
                    if e.name == trigger:
                        return True
        return False

    def all_cards(self):
        for stack in self.cells.values():
            yield from stack
        for zone in (self.hand, self.deck, self.grave):
            for cards in zone.values():
                yield from cards

    def full(self) -> bool:
        return all(self.cells.values())
