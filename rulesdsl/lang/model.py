"""The syntax-level model: what a `.rules` file says, node by node, each node with its location.

These models are produced by the parser and are game-neutral. Game-specific statements (card
facts and effects, scenario set-up, actions and expectations) stay generic `Clause`s here; the
knowledge base validates them against the game's vocabulary and keeps the typed results.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal, NamedTuple, Optional, Union

from ..base.declared import BaseModel, ConfigDict
from .dates import PartialDate


class Node(BaseModel):
    # defer_build: a model's validator is built when first used, not at import, which keeps the
    # command line's start-up short (most runs read parsed files from the cache).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Loc(NamedTuple):
    """A position in a source file: 1-based line and column, columns counted in characters.
    A named tuple rather than a model: every node has one, so it must be cheap to build and
    to load from the parse cache."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col}

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        # accepted as it is (the parser makes every one), dumped as a tuple
        from pydantic_core import core_schema
        return core_schema.is_instance_schema(cls)


class Status(str, Enum):
    """How far a ruling revision can be relied on, strongest first."""

    confirmed = "confirmed"        # 公式裁定 / 確認済み / 統一裁定
    provisional = "provisional"    # the source's 暫定裁定
    unofficial = "unofficial"      # 暫定ルール・非公式: a community convention
    unconfirmed = "unconfirmed"    # ※未確定: this knowledge base's own interpretation
    retracted = "retracted"        # withdrawn

    @property
    def rank(self) -> int:
        """Higher is weaker; `weakest()` takes the maximum."""
        return _RANK_OF_VALUE[self._value_]     # by the value: an Enum member hashes in Python code

    @property
    def ja(self) -> str:
        return _STATUS_JA[self]


_STATUS_RANK = {Status.confirmed: 0, Status.provisional: 1, Status.unofficial: 2,
                Status.unconfirmed: 3, Status.retracted: 4}
_STATUS_JA = {Status.confirmed: "確定", Status.provisional: "暫定裁定", Status.unofficial: "※暫定ルール・非公式",
              Status.unconfirmed: "※未確定", Status.retracted: "撤回"}


_RANK_OF_VALUE = {s.value: rank for s, rank in _STATUS_RANK.items()}
_WEAKEST_FIRST = sorted(_STATUS_RANK, key=_STATUS_RANK.__getitem__, reverse=True)


def weakest(statuses) -> Status:
    """The weakest of the given statuses (confirmed when there are none). Looked for weakest
    first in a list, which compares without hashing (an Enum member hashes in Python code)."""
    seen = statuses if isinstance(statuses, (list, tuple)) else list(statuses)
    for status in _WEAKEST_FIRST:
        if status in seen:
            return status
    return Status.confirmed


# ------------------------------------------------------------------------- generic clauses

def _plain_schema(cls, source, handler):
    """The pydantic schema of the syntax nodes that are named tuples rather than models (the
    commonest ones, so that parsing, the parse cache and memory stay cheap): an instance is
    accepted as it is and dumped as a dict, like a model."""
    from pydantic_core import core_schema
    return core_schema.is_instance_schema(
        cls, serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.as_dict()))


class Atom(NamedTuple):
    """One argument of a generic clause, as written."""

    kind: str                      # name, string, number, quantity, array
    value: Union[str, int, float, tuple["Atom", ...]]
    loc: Loc
    unit: Optional[str] = None     # for quantities: 60kg -> value 60, unit "kg"

    def display(self) -> str:
        if self.kind == "array":
            return "[" + ", ".join(a.display() for a in self.value) + "]"  # type: ignore[union-attr]
        if self.kind == "string":
            return '"' + str(self.value) + '"'
        if self.kind == "quantity":
            return f"{_num(self.value)}{self.unit}"
        if self.kind == "number":
            return _num(self.value)
        return str(self.value)

    def as_dict(self) -> dict:
        value = [a.as_dict() for a in self.value] if self.kind == "array" else self.value  # type: ignore[union-attr]
        return {"kind": self.kind, "value": value, "unit": self.unit, "loc": self.loc}

    __get_pydantic_core_schema__ = classmethod(_plain_schema)


def _num(v) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


class Clause(NamedTuple):
    """`head arg* { clause* }?`: a game-vocabulary statement."""

    head: str
    loc: Loc
    args: tuple[Atom, ...] = ()
    body: Optional[tuple["Clause", ...]] = None

    def as_dict(self) -> dict:
        return {"head": self.head, "args": [a.as_dict() for a in self.args],
                "body": None if self.body is None else [c.as_dict() for c in self.body],
                "loc": self.loc}

    __get_pydantic_core_schema__ = classmethod(_plain_schema)


# ------------------------------------------------------------------------- shared statements

class Citation(Node):
    """`source "000_a437c75d0e53c518.txt §バトルの勝敗"`: a document and a heading in it."""

    raw: str
    document: str
    heading: Optional[str] = None
    loc: Loc

    def __str__(self) -> str:
        return self.raw


class RevRef(Node):
    """A reference to a ruling, rule section, card or scenario; `@date` picks one revision."""

    target: str
    date: Optional[PartialDate] = None
    undated: bool = False          # `@undated`: the revision without a date
    loc: Loc

    def __str__(self) -> str:
        if self.undated:
            return f"{self.target}@undated"
        return f"{self.target}@{self.date}" if self.date else self.target


class Quote(Node):
    """A passage of the source quoted verbatim (checked against the document)."""

    text: str
    loc: Loc


class Text(Node):
    value: Optional[str]            # None: written as `text unknown`
    loc: Loc


# ------------------------------------------------------------------------- rulings

class Setting(Node):
    """`set point = value` or `set card(CODE).point = value`."""

    point: str
    card: Optional[str] = None
    value: str
    loc: Loc

    def target(self) -> str:
        return f"card({self.card}).{self.point}" if self.card else self.point


class Revision(Node):
    date: Optional[PartialDate]     # None: `undated`
    status: Status
    source: Optional[Citation] = None
    text: Optional[Text] = None
    quotes: tuple[Quote, ...] = ()
    reason: Optional[str] = None
    notes: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    supersedes: tuple[RevRef, ...] = ()
    refs: tuple[RevRef, ...] = ()
    scenarios: tuple["Scenario", ...] = ()
    loc: Loc

    @property
    def date_label(self) -> str:
        return str(self.date) if self.date else "undated"

    @property
    def date_ja(self) -> str:
        return self.date.ja() if self.date else "日付不明"


class Ruling(Node):
    id: str
    title: str
    gap: Optional[str] = None       # this ruling records a gap or contradiction of the sources
    gap_loc: Optional[Loc] = None
    refs: tuple[RevRef, ...] = ()
    notes: tuple[str, ...] = ()
    revisions: tuple[Revision, ...] = ()
    scenarios: tuple["Scenario", ...] = ()
    loc: Loc

    @property
    def game(self) -> str:
        return self.id.split("/", 1)[0]


class Section(Node):
    id: str
    title: str
    source: Optional[Citation] = None
    text: Optional[Text] = None
    notes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    defines_loc: Optional[Loc] = None
    refs: tuple[RevRef, ...] = ()
    revisions: tuple[Revision, ...] = ()
    loc: Loc

    @property
    def game(self) -> str:
        return self.id.split("/", 1)[0]


# ------------------------------------------------------------------------- cards

class Errata(Node):
    """A dated revision of a card's printed facts, effects or text."""

    date: Optional[PartialDate]
    status: Status
    source: Optional[Citation] = None
    text: Optional[Text] = None
    notes: tuple[str, ...] = ()
    refs: tuple[RevRef, ...] = ()
    clauses: tuple[Clause, ...] = ()
    loc: Loc


class Card(Node):
    """`card GAME CODE "name" { ... }`; inside a scenario, `card CODE-or-"name" { ... }` with
    game None defines a hypothetical card or completes a known card's unknown facts."""

    game: Optional[str]
    code: str
    name: Optional[str] = None
    source: Optional[Citation] = None
    text: Optional[Text] = None
    notes: tuple[str, ...] = ()
    refs: tuple[RevRef, ...] = ()
    errata: tuple[Errata, ...] = ()
    clauses: tuple[Clause, ...] = ()
    assumed: bool = False           # `assume card …` in a scenario: its facts are the scenario's assumption
    loc: Loc


# ------------------------------------------------------------------------- games

class PointValue(Node):
    name: str
    label: Optional[str] = None
    loc: Loc


class PointDefault(Node):
    value: str
    status: Status = Status.confirmed
    section: str
    loc: Loc


class Point(Node):
    """A rule point: a named decision that rulings set, with its allowed values and default."""

    name: str
    label: Optional[str] = None
    values: tuple[PointValue, ...] = ()
    default: Optional[PointDefault] = None
    per: Optional[str] = None       # "card": the point can be set for one card
    per_loc: Optional[Loc] = None
    notes: tuple[str, ...] = ()
    reason: Optional[str] = None
    unsettled: Optional[str] = None  # the gap ruling recording why the sources leave it open
    unsettled_loc: Optional[Loc] = None
    loc: Loc

    @property
    def readings(self) -> tuple[str, ...]:
        """The values an answer is tried under when the point is unsettled (default first)."""
        names = [v.name for v in self.values]
        if self.default and self.default.value in names:
            names.remove(self.default.value)
            names.insert(0, self.default.value)
        return tuple(names)


class Game(Node):
    id: str
    name: str
    source: Optional[Citation] = None
    text: Optional[Text] = None
    notes: tuple[str, ...] = ()
    points: tuple[Point, ...] = ()
    vocabulary: tuple[Clause, ...] = ()
    vocabulary_loc: Optional[Loc] = None
    clauses: tuple[Clause, ...] = ()
    loc: Loc


# ------------------------------------------------------------------------- scenarios

class Probability(Node):
    """`probability >= 1/2` before an expectation: a bound on the exact chance that it holds
    (over the dice a scenario leaves unfixed). `value` is kept as written (77/216, 1, 0.5)."""

    op: Literal["=", ">=", "<="]
    value: str
    loc: Loc
    best_for: Optional[str] = None      # `best for P1`: under the best play for that player
    plan: tuple[str, ...] = ()          # `plan "振りなおさない"`: under the plan choosing these options

    def fraction(self) -> Fraction:
        from fractions import Fraction      # only here: fractions (and decimal) at import were 3 ms of a question
        return Fraction(self.value)

    def holds(self, p: Fraction) -> bool:
        bound = self.fraction()
        return p == bound if self.op == "=" else (p >= bound if self.op == ">=" else p <= bound)

    def __str__(self) -> str:
        policy = f" best for {self.best_for}" if self.best_for else \
            "".join(f' plan "{o}"' if i == 0 else f' "{o}"' for i, o in enumerate(self.plan))
        return f"probability{policy} {self.op} {self.value}"


class Expectation(Node):
    modality: Optional[Literal["always", "possible", "never"]] = None
    probability: Optional[Probability] = None
    form: str
    args: tuple[Atom, ...] = ()
    valid_from: Optional[PartialDate] = None
    valid_until: Optional[PartialDate] = None
    loc: Loc


class StatusExpectation(Node):
    """`expect status confirmed` (exactly), `expect status at_least provisional` (that or
    stronger): the status of the answer, after the test of what decides it."""

    status: Status
    at_least: bool = False
    valid_from: Optional[PartialDate] = None
    valid_until: Optional[PartialDate] = None
    loc: Loc


class Scenario(Node):
    id: str
    title: str
    source: Optional[Citation] = None
    notes: tuple[str, ...] = ()
    question: Optional[str] = None
    answer: Optional[str] = None    # the scenario's own answer sentence(s), used when every expectation holds
    answer_loc: Optional[Loc] = None
    as_of: Optional[PartialDate] = None
    as_of_loc: Optional[Loc] = None
    mode: Optional[str] = None
    mode_loc: Optional[Loc] = None
    pins: tuple[RevRef, ...] = ()
    cards: tuple[Card, ...] = ()
    clauses: tuple[Clause, ...] = ()
    expects: tuple[Expectation, ...] = ()
    status_expects: tuple[StatusExpectation, ...] = ()
    loc: Loc

    @property
    def game(self) -> str:
        return self.id.split("/", 1)[0]


class Deck(Node):
    """`deck GAME/… "name" { add CODE COUNT … }`: a deck list to validate."""

    id: str
    title: str
    source: Optional[Citation] = None
    notes: tuple[str, ...] = ()
    cards: tuple[Card, ...] = ()
    clauses: tuple[Clause, ...] = ()
    loc: Loc

    @property
    def game(self) -> str:
        return self.id.split("/", 1)[0]


Decl = Union[Game, Section, Card, Ruling, Scenario, Deck]


class Document(Node):
    """One parsed `.rules` file."""

    path: str
    decls: tuple[Decl, ...] = ()
    digest: str = ""                # of the file's path and bytes (set by the loader)

