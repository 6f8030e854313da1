"""The state of a 東方グランドメレー game: each player's side (characters in front and back rows,
the stock, the score cards), the seats and the turn, and the attack being carried out.

A side is a line of places numbered from the left; each place has a front-row and a back-row
position. Distances depend only on the rows (thgm/attack/distance), so a place's number only
names it. A side never holds more than six characters (thgm/setup/placement, thgm/turn/replenish),
so six places always suffice: places are numbered 1–6.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from ...base.record import Record, field
from ...engine.chance import Distribution
from ...kb.knowledge import CardInfo
from ...lang.model import Loc
from ...lang.vocab import UNKNOWN, Call

PLACES = 6
ROWS = ("front", "back")
ROW_JA = {"front": "前列", "back": "後列"}
HAND_SIZE = 9          # thgm/setup/deal: ９枚づつ配ります
ON_FIELD = 6           # thgm/setup/placement: ９枚の中から６枚を選び
ALL_CARDS = 36         # thgm/overview/card-count
VICTORY_SCORE = 30     # thgm/victory
ANONYMOUS = "（内容の指定がないキャラ）"


class Char:
    """One character (a card placed on a side)."""

    __slots__ = ("uid", "info", "owner", "face", "injured", "hypothetical", "loc", "placed", "fue_used",
                 "name", "code", "label")

    def __init__(self, uid: int, info: Optional[CardInfo], owner: str, face: str, hypothetical: bool,
                 loc: Optional[Loc], placed: Optional[Loc]) -> None:
        self.uid = uid
        self.info = info            # None: the scenario gives no card (nothing about it is known)
        self.owner = owner
        self.face = face
        self.injured = False
        self.hypothetical = hypothetical
        self.loc = loc              # where a missing fact would be supplied
        self.placed = placed        # the statement that put it on the side
        self.fue_used = False
        # its card never changes (nor its info): its name, code and label read at every step, made once
        if info is not None:
            self.name = info.name
            self.code = info.code
            self.label = f"《{info.name}》"
        else:
            self.name = self.label = ANONYMOUS
            self.code = ""

    def fact(self, name: str) -> Any:
        if self.info is None:
            return UNKNOWN
        return self.info.facts.get(name, UNKNOWN)

    def verbs(self, verb: str, trigger: Optional[str] = None) -> list[tuple[str, Call]]:
        """(trigger, verb call) of every effect verb `verb` on this card."""
        out: list[tuple[str, Call]] = []
        if self.info is None:
            return out
        for e in self.info.effects:     # a loop: a card has an effect or two
            if trigger is None or trigger == e.name:
                for v in e.body or ():
                    if v.name == verb:
                        out.append((e.name, v))
        return out


class Side(Record):
    player: str
    front: dict[int, Char] = field(default_factory=dict)
    back: dict[int, Char] = field(default_factory=dict)
    stock: int = 0
    stock_given: bool = False        # the scenario said how many cards the stock holds
    score_cards: list[Char] = field(default_factory=list)
    base_score: Optional[int] = 0    # score won before the scenario (None: not given, unknown)
    score_given: bool = False
    dealt: int = 0                   # cards dealt in the scenario (set-up flow)
    to_place: int = 0                # dealt cards not yet placed
    placed: int = 0
    eliminated: bool = False

    def __init__(self, player, front=None, back=None, stock=0, stock_given=False, score_cards=None,
                 base_score=0, score_given=False, dealt=0, to_place=0, placed=0, eliminated=False) -> None:
        # written out (one per player and run): Record's own constructor is slower than this
        self.player = player
        self.front = {} if front is None else front
        self.back = {} if back is None else back
        self.stock = stock
        self.stock_given = stock_given
        self.score_cards = [] if score_cards is None else score_cards
        self.base_score = base_score
        self.score_given = score_given
        self.dealt = dealt
        self.to_place = to_place
        self.placed = placed
        self.eliminated = eliminated

    def row(self, row: str) -> dict[int, Char]:
        return self.front if row == "front" else self.back

    def at(self, row: str, column: int) -> Optional[Char]:
        return self.row(row).get(column)

    def chars(self) -> Iterator[tuple[str, int, Char]]:
        """(row, place, character), front row first, each row from the left."""
        for row in ROWS:
            r = self.row(row)
            for col in sorted(r):
                yield row, col, r[col]

    def count(self) -> int:
        return len(self.front) + len(self.back)

    def place_of(self, char: Char) -> Optional[tuple[str, int]]:
        for row, col, c in self.chars():
            if c is char:
                return row, col
        return None

    def score(self) -> Optional[int]:
        """The side's score: what it held before plus its score cards (None if any is unknown)."""
        if self.base_score is None:
            return None
        total = self.base_score
        for c in self.score_cards:
            v = c.fact("score")
            if not isinstance(v, int):
                return None
            total += v
        return total


class Attack(Record):
    """The attack being carried out: the declaration, the dice and what follows."""

    player: str
    attacker: Char
    place: tuple[str, int]                 # where the attacker really is
    means: str
    strength: int
    range: int
    target: Char
    target_place: tuple[str, int]
    distance: int
    loc: Loc
    claim: Any = None                      # None, "withheld" or a claimed (row, place)
    roll: Optional[Distribution] = None    # over what the rules read of the faces (see dice)
    full_faces: bool = False               # the roll keeps every face (else a summary)
    rolled: bool = False
    roll_loc: Optional[Loc] = None
    rerolled: bool = False
    spell: bool = False                    # the spell card was used
    spell_decided: bool = False
    nullify_decided: bool = False
    fue_reroll: bool = False               # a FUE gave this attack a reroll
    result: Optional[str] = None           # failed, injured, defeated, nullified
    defense: Optional[tuple[str, Any]] = None   # ("base"|"special", value or "immune")
    must_reveal: bool = False
    resolved: bool = False
    noted: set = field(default_factory=set)     # readings already stated in the trace for this attack

    def __init__(self, player, attacker, place, means, strength, range, target, target_place, distance, loc,
                 claim=None, roll=None, full_faces=False, rolled=False, roll_loc=None, rerolled=False, spell=False,
                 spell_decided=False, nullify_decided=False, fue_reroll=False, result=None, defense=None,
                 must_reveal=False, resolved=False, noted=None) -> None:
        # written out, in field order (one per attack declared): Record's own constructor is slower than this
        self.player = player
        self.attacker = attacker
        self.place = place
        self.means = means
        self.strength = strength
        self.range = range
        self.target = target
        self.target_place = target_place
        self.distance = distance
        self.loc = loc
        self.claim = claim
        self.roll = roll
        self.full_faces = full_faces
        self.rolled = rolled
        self.roll_loc = roll_loc
        self.rerolled = rerolled
        self.spell = spell
        self.spell_decided = spell_decided
        self.nullify_decided = nullify_decided
        self.fue_reroll = fue_reroll
        self.result = result
        self.defense = defense
        self.must_reveal = must_reveal
        self.resolved = resolved
        self.noted = set() if noted is None else noted


class State(Record):
    sides: dict[str, Side] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)      # turn order, the start player first
    seats_given: bool = False
    seats_drawn: bool = False                           # decided in the scenario, by chance
    active: Optional[str] = None
    step: Optional[str] = None                          # replenish, recover, attack
    step_done: bool = False                             # the current step has been carried out
    attack: Optional[Attack] = None
    last_attack: Optional[Attack] = None
    turn_over: bool = False
    winner: Optional[str] = None
    undecided: Optional[str] = None                     # the rules give no answer (a reading)
    victory_unknown: Optional[Char] = None              # a score card whose score is not given
    blocked: Optional[Exception] = None                 # why the last attack has no result (a missing fact)
    placement_question: bool = False                    # the scenario asks whether a placement is allowed
    acts: dict[str, Optional[str]] = field(default_factory=dict)   # act -> None (done) / why illegal
    illegal_act: Optional[str] = None
    eliminated_now: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)    # players whose characters and score left the game
    dealt: bool = False
    unused: Optional[int] = None
    recovered: set = field(default_factory=set)         # uids recovered this turn
    turn_effects: list[tuple[Char, Call]] = field(default_factory=list)   # FUE effects lasting this turn
    needs_faces: bool = False                           # an expectation reads the faces themselves
    open_nullify: bool = True                           # the defender's コウモリ変化 is left open
    next_uid: int = 1
    noted: set = field(default_factory=set)             # notes already in the trace (said once)
    info: Any = None                                    # the scenario (its own cards)
    fresh: Optional[tuple] = field(default=None, repr=False, compare=False)   # the set-up's, while no action has run (GameEngine.board_before)

    def __init__(self, **named: Any) -> None:
        if named:       # a state given some fields (none is, in the engine): Record's own constructor
            Record.__init__(self, **named)
            return
        # written out, in field order (one per run): Record's own constructor, a loop over the
        # fields with a default or a factory each, is slower than this
        self.sides = {}
        self.seats = []
        self.seats_given = False
        self.seats_drawn = False
        self.active = None
        self.step = None
        self.step_done = False
        self.attack = None
        self.last_attack = None
        self.turn_over = False
        self.winner = None
        self.undecided = None
        self.victory_unknown = None
        self.blocked = None
        self.placement_question = False
        self.acts = {}
        self.illegal_act = None
        self.eliminated_now = []
        self.removed = []
        self.dealt = False
        self.unused = None
        self.recovered = set()
        self.turn_effects = []
        self.needs_faces = False
        self.open_nullify = True
        self.next_uid = 1
        self.noted = set()
        self.info = None
        self.fresh = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def side(self, player: str) -> Side:
        s = self.sides.get(player)
        if s is None:
            s = self.sides[player] = Side(player)
        return s

    def players(self) -> list[str]:
        return self.seats or sorted(self.sides)

    def in_game(self) -> list[str]:
        return [p for p in self.players() if not self.side(p).eliminated]

    def all_chars(self) -> Iterator[tuple[str, str, int, Char]]:
        for p in self.players():
            for row, col, c in self.side(p).chars():
                yield p, row, col, c



# A copy of the state to resume a run from (engine.resume): new characters, sides, attacks and
# containers wherever they are held (an attack's FUE reroll holds the character that gave it);
# card declarations, calls, locations and dice distributions (a roll is replaced, never
# altered) are shared. `engine.resume.graph_copier(State, Side, Attack, Char)` would find all of
# that by walking the state (every field, every item); written out field by field it costs a
# third — a dice question copies the state for nearly every run it resumes — and
# tests/test_resume.py checks, over the states of the corpus's runs, that it copies exactly
# what the walk copies.


def copy_state(st: State) -> State:
    made: dict[int, Any] = {}
    twin = State.__new__(State)
    twin.__dict__.update(st.__dict__)
    twin.sides = {p: _side(side, made) for p, side in st.sides.items()}
    twin.seats, twin.acts = list(st.seats), dict(st.acts)
    twin.attack, twin.last_attack = _attack(st.attack, made), _attack(st.last_attack, made)
    twin.eliminated_now, twin.removed = list(st.eliminated_now), list(st.removed)
    twin.recovered, twin.noted = set(st.recovered), set(st.noted)
    twin.turn_effects = [(_char(c, made), call) for c, call in st.turn_effects]
    twin.victory_unknown = _char(st.victory_unknown, made)
    return twin


def _char(c: Optional[Char], made: dict[int, Any]) -> Optional[Char]:
    if c is None:
        return None
    twin = made.get(id(c))
    if twin is None:
        twin = made[id(c)] = Char.__new__(Char)
        twin.uid, twin.info, twin.owner, twin.face, twin.injured = c.uid, c.info, c.owner, c.face, c.injured
        twin.hypothetical, twin.loc, twin.placed, twin.fue_used = c.hypothetical, c.loc, c.placed, c.fue_used
        twin.name, twin.code, twin.label = c.name, c.code, c.label
    return twin


def _side(side: Side, made: dict[int, Any]) -> Side:
    twin = Side.__new__(Side)
    twin.__dict__.update(side.__dict__)
    twin.front = {k: _char(c, made) for k, c in side.front.items()}
    twin.back = {k: _char(c, made) for k, c in side.back.items()}
    twin.score_cards = [_char(c, made) for c in side.score_cards]
    return twin


def _attack(atk: Optional[Attack], made: dict[int, Any]) -> Optional[Attack]:
    if atk is None:
        return None
    twin = made.get(id(atk))
    if twin is None:
        twin = made[id(atk)] = Attack.__new__(Attack)
        twin.__dict__.update(atk.__dict__)
        twin.attacker, twin.target = _char(atk.attacker, made), _char(atk.target, made)
        if type(atk.fue_reroll) is Char:
            twin.fue_reroll = _char(atk.fue_reroll, made)
        twin.noted = set(atk.noted)
    return twin
