"""A game's vocabulary: the words its cards and scenarios may use, and their argument types.

A game declares its vocabulary in its `game` block:

    vocabulary {
      enum face "表裏" { up "表向き"; down "裏向き" }
      fact weight "体重" { arg value kg unknown }
      trigger on_play "プレイ時"
      modifier optional "任意"
      verb draw "カードを{count}枚引く" { arg count int }
      setup field "{cell}に{player}の{card}を{face}で置く" {
        arg cell cell; arg player player; arg card card; arg face face }
      action play "{player}が{card}を{cell}にプレイする" { ... }
      expect face "{cell}の一番上のカードは{face}" { ... }
    }

Each entry kind says where its words may appear: `fact` and `effect` in cards, `verb` inside
effects, `setup` and `action` in scenarios, `expect` after `expect`. An `arg` lists the types
it accepts (any of them) and may end with `optional` or `many`. The template's `{arg}` holes
render the statement in Japanese words for the wiki.

This module is game-neutral: it validates clauses against whatever a game declares and turns
them into typed `Call`s; the game's engine gives the calls their meaning.
"""

from __future__ import annotations

import re
from _string import formatter_parser    # what string.Formatter.parse runs: `string` compiles a pattern at import
from typing import Any, Callable, NamedTuple, Optional

from ..base.record import Record, field

from .argplan import CHECKED, plan_of, typed_by
from .diagnostics import Diagnostic, did_you_mean
from .model import Atom, Clause, Loc


class _Unknown:
    """The explicit `unknown` of the data: a fact the sources do not give."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "unknown"

    __str__ = __repr__

    def __reduce__(self):
        return (_Unknown, ())


UNKNOWN = _Unknown()


class CardRef(Record, frozen=True):
    """A card named in a scenario or an effect: by code, or by its quoted name. A frozen record, not
    a declared model: the validator makes it, nothing validates or dumps it, and the engines read
    it on every question (a model's field read takes CPython's slow attribute path)."""

    text: str                       # as written
    key: Optional[tuple[str, str]] = None   # (game, code) for a knowledge-base card,
                                            # ("", code) for a scenario's own card

    def __init__(self, text: str, key: Optional[tuple[str, str]] = None) -> None:
        # written out (one per card named in a scenario, ~42,000 at 10,000 cards; Record's own
        # constructor is about twice as slow); set past its own refusal, as it is frozen
        put = object.__setattr__
        put(self, "text", text), put(self, "key", key)


class Call(NamedTuple):
    """A validated clause: the vocabulary entry it uses and its typed arguments. A named tuple,
    not a model: there is one per clause of the knowledge base, and the validator has already
    checked everything in it."""

    kind: str                       # fact, effect, verb, setup, action, expect
    name: str
    params: dict[str, Any]
    loc: Loc
    modifiers: tuple[str, ...] = ()  # effects only
    body: Optional[tuple["Call", ...]] = None


_tnew = tuple.__new__     # a named tuple made from its fields in order, as its constructor makes them


BUILTIN_TYPES = {
    "int": "a whole number",
    "number": "a number",
    "string": 'a quoted string',
    "word": "a word",
    "kg": "a weight like 60kg",
    "dice": "a number of dice like 3d",
    "cell": "a cell",
    "player": "a player (P1, P2, …)",
    "card": 'a card (its code, or its "name")',
    "unknown": "unknown",
    "bool": "yes or no",
    "section": "a rule section id",
    "ruling": "a ruling id",
}
ENTRY_KINDS = ("enum", "fact", "trigger", "modifier", "verb", "setup", "action", "expect", "deck")
FLAGS = ("optional", "many")


class Param(Record):
    name: str
    types: tuple[str, ...]
    optional: bool = False
    many: bool = False
    loc: Optional[Loc] = None


class Entry(Record):
    kind: str
    name: str
    label: Optional[str]            # the Japanese label or template
    params: tuple[Param, ...] = ()
    body: Optional[str] = None      # entry kind allowed in a block ("verb"), if any
    loc: Optional[Loc] = None


class Enum(Record):
    name: str
    label: Optional[str]
    values: dict[str, Optional[str]]
    loc: Optional[Loc] = None


class Vocabulary(Record):
    game: str
    entries: dict[str, dict[str, Entry]] = field(default_factory=lambda: {k: {} for k in ENTRY_KINDS if k != "enum"})
    enums: dict[str, Enum] = field(default_factory=dict)
    cells: tuple[str, ...] = ()
    players: tuple[str, ...] = ()

    def type_words(self, t: str) -> str:
        if t in self.enums:
            e = self.enums[t]
            vals = list(e.values)
            shown = ", ".join(vals[:-1]) + " or " + vals[-1] if len(vals) > 1 else vals[0]
            return f"{e.label or t} ({shown})"
        if t == "cell" and self.cells:
            return f"a cell ({self.cells[0]}…{self.cells[-1]})"
        return BUILTIN_TYPES.get(t, t)

    def label(self, kind: str, name: str) -> Optional[str]:
        entry = self.entries.get(kind, {}).get(name)
        return entry.label if entry else None

    def enum_label(self, enum: str, value: str) -> Optional[str]:
        e = self.enums.get(enum)
        return e.values.get(value) if e else None


_LETTERS = "abcdefghijklmnopqrstuvwxyz"      # string.ascii_lowercase


def grid_cells(columns: int, rows: int) -> tuple[str, ...]:
    """Cell names of a grid: a column letter and a row number, a1 … c3 for 3×3."""
    return tuple(f"{_LETTERS[c]}{r + 1}" for c in range(columns) for r in range(rows))


# ----------------------------------------------------------------------------- building

def build_vocabulary(game: str, clauses: tuple[Clause, ...], cells: tuple[str, ...],
                     players: tuple[str, ...]) -> tuple[Vocabulary, list[Diagnostic]]:
    """Read a game's `vocabulary { … }` block; report malformed entries with their location."""
    vocab = Vocabulary(game=game, cells=cells, players=players)
    errors: list[Diagnostic] = []

    def err(loc: Loc, msg: str, hint: Optional[str] = None) -> None:
        errors.append(Diagnostic(code="vocabulary", message=msg, loc=loc, hint=hint))

    for c in clauses:
        if c.head not in ENTRY_KINDS:
            err(c.loc, f'unknown vocabulary entry "{c.head}"',
                did_you_mean(c.head, ENTRY_KINDS) or "entries are " + ", ".join(ENTRY_KINDS))
            continue
        if not c.args or c.args[0].kind != "name":
            err(c.loc, f"a {c.head} entry needs a name: `{c.head} NAME \"label\"`")
            continue
        name = str(c.args[0].value)
        label = None
        if len(c.args) > 1:
            if c.args[1].kind != "string" or len(c.args) > 2:
                err(c.args[1].loc, f"after the {c.head}'s name only a quoted label or template may follow")
                continue
            label = str(c.args[1].value)
        if c.head == "enum":
            values: dict[str, Optional[str]] = {}
            for v in c.body or ():
                if v.args and (v.args[0].kind != "string" or len(v.args) > 1):
                    err(v.loc, f'an enum value is a word with an optional quoted label: `{v.head} "ラベル"`')
                values[v.head] = str(v.args[0].value) if v.args else None
            if not values:
                err(c.loc, f"enum {name} has no values", 'list them in its block: `{ up "表向き"; down "裏向き" }`')
            if name in vocab.enums or name in BUILTIN_TYPES:
                err(c.args[0].loc, f"type {name} is declared twice")
            vocab.enums[name] = Enum(name=name, label=label, values=values, loc=c.loc)
            continue
        params: list[Param] = []
        body = None
        for a in c.body or ():
            if a.head == "body" and len(a.args) == 1 and a.args[0].kind == "name":
                body = str(a.args[0].value)
                continue
            if a.head != "arg" or len(a.args) < 2 or any(x.kind != "name" for x in a.args):
                err(a.loc, "an argument is declared `arg NAME TYPE… [optional] [many]`",
                    "or `body verb` for an entry that takes a block of effect verbs")
                continue
            pname = str(a.args[0].value)
            words = [str(x.value) for x in a.args[1:]]
            flags = {w for w in words if w in FLAGS}
            types = tuple(w for w in words if w not in FLAGS)
            if not types:
                err(a.loc, f"argument {pname} has no type")
                continue
            params.append(Param(pname, types, "optional" in flags, "many" in flags, a.loc))
        if name in vocab.entries[c.head]:
            err(c.args[0].loc, f"{c.head} {name} is declared twice")
        vocab.entries[c.head][name] = Entry(c.head, name, label, tuple(params), body, c.loc)

    # second pass: every type an argument names must exist; templates name real arguments
    for kind, entries in vocab.entries.items():
        for entry in entries.values():
            names = {p.name for p in entry.params}
            problem = template_problem(entry.label) if entry.label else None
            if problem:
                err(entry.loc, f"the template of {kind} {entry.name} {problem}",
                    "holes are written {name} with the name of an argument; write {{ and }} for braces")
                entry.label = entry.label.replace("{", "{{").replace("}", "}}")   # shown as written
                continue
            for p in entry.params:
                for t in p.types:
                    if t not in BUILTIN_TYPES and t not in vocab.enums:
                        err(p.loc, f'unknown type "{t}" for argument {p.name} of {kind} {entry.name}',
                            did_you_mean(t, list(BUILTIN_TYPES) + list(vocab.enums))
                            or "types are the builtins (" + ", ".join(BUILTIN_TYPES) + ") or an enum")
            if entry.label and kind in ("verb", "setup", "action", "expect"):
                for hole in _holes(entry.label):
                    if hole not in names:
                        err(entry.loc, f'the template of {kind} {entry.name} names "{{{hole}}}", which is not an argument')
            if entry.body and entry.body not in vocab.entries:
                err(entry.loc, f'`body {entry.body}`: the block kind must be one of ' + ", ".join(vocab.entries))
    return vocab, errors


def _holes(template: str) -> list[str]:
    return [f for _, f, _, _ in formatter_parser(template) if f]


def template_problem(template: str) -> Optional[str]:
    """What is wrong with a label template, or None: a template is Japanese text with holes
    `{argument}` (a plain name; no index, attribute, conversion or format), and braces doubled."""
    try:
        parts = list(formatter_parser(template))
    except ValueError as e:
        return f"is not well formed ({e})"
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            shown = "{" + field + ("!" + conversion if conversion else "") + (":" + spec if spec else "") + "}"
            return f'has the hole "{shown}", which is not a plain argument name'
    return None


# ----------------------------------------------------------------------------- validating

CardResolver = Callable[[Atom], tuple[Optional[CardRef], Optional[str], Optional[str]]]
RefResolver = Callable[[str, str], bool]   # (kind, id) -> exists


class Validator:
    """Checks clauses against one game's vocabulary and produces typed calls."""

    def __init__(self, vocab: Vocabulary, resolve_card: Optional[CardResolver] = None,
                 ref_exists: Optional[RefResolver] = None, plans: Optional[dict] = None) -> None:
        self.vocab = vocab
        self.resolve_card = resolve_card
        self.ref_exists = ref_exists
        self.errors: list[Diagnostic] = []
        # id(argument or entry) -> (it, its plan: `plan`, `entry_plan`), kept with it; validators
        # of one vocabulary may share them (a build makes one per scenario): plans read it alone
        self.plans: dict[int, tuple] = {} if plans is None else plans

    def err(self, loc: Loc, msg: str, hint: Optional[str] = None, width: int = 1) -> None:
        self.errors.append(Diagnostic(code="vocabulary", message=msg, loc=loc, hint=hint, width=width))

    # -- clauses ------------------------------------------------------------------------
    def clause(self, c: Clause, kinds: tuple[str, ...], where: str) -> Optional[Call]:
        """Validate `c` as an entry of one of `kinds` (e.g. ("fact",) in a card)."""
        if "effect" in kinds and c.head == "effect":
            return self.effect(c)
        entries = self.vocab.entries
        for kind in kinds:
            entry = entries.get(kind, _NONE).get(c.head)
            if entry is not None:
                return self.call(c, entry)
        known = [n for k in kinds for n in self.vocab.entries.get(k, {})]
        if "effect" in kinds:
            known.append("effect")
        self.err(c.loc, f'"{c.head}" is not a {where} statement of {self.vocab.game}',
                 did_you_mean(c.head, known) or (
                     "known here: " + ", ".join(sorted(known)) if known else
                     f"the {self.vocab.game} vocabulary declares no {where} statements"),
                 width=len(c.head))
        return None

    def effect(self, c: Clause) -> Optional[Call]:
        triggers = self.vocab.entries["trigger"]
        modifiers = self.vocab.entries["modifier"]
        if not c.args or c.args[0].kind != "name" or c.args[0].value not in triggers:
            loc = c.args[0].loc if c.args else c.loc
            found = c.args[0].display() if c.args else "nothing"
            self.err(loc, f"an effect starts with its trigger; found {found}",
                     (did_you_mean(str(c.args[0].value), triggers) if c.args else None)
                     or "triggers: " + ", ".join(triggers))
            return None
        mods = []
        for a in c.args[1:]:
            if a.kind == "name" and a.value in modifiers:
                mods.append(str(a.value))
            else:
                self.err(a.loc, f"{a.display()} is not an effect modifier",
                         did_you_mean(str(a.value), modifiers) or "modifiers: " + ", ".join(modifiers))
        if c.body is None:
            self.err(c.loc, "an effect needs a block of verbs: `effect on_play { draw 1 }`")
            return None
        return _tnew(Call, ("effect", str(c.args[0].value), {}, c.loc, tuple(mods),     # (as in `call`)
                            self.clauses(c.body, ("verb",), "effect")))

    def clauses(self, clauses, kinds: tuple[str, ...], where: str) -> tuple[Call, ...]:
        """The calls of the valid clauses (`clause` of each, in order: the entry looked up in the
        kinds' tables read once; `clause` itself says what no entry names)."""
        calls = []
        effects = "effect" in kinds
        entries = self.vocab.entries
        tables = [entries.get(kind, _NONE) for kind in kinds]
        for c in clauses:
            head = c.head
            if effects and head == "effect":
                call = self.effect(c)
            else:
                for table in tables:
                    entry = table.get(head)
                    if entry is not None:
                        call = self.call(c, entry)
                        break
                else:
                    call = self.clause(c, kinds, where)
            if call is not None:
                calls.append(call)
        return tuple(calls)

    def call(self, c: Clause, entry: Entry) -> Optional[Call]:
        params: dict[str, Any] = {}
        args = c.args
        n = len(args)
        i = 0
        ok = True
        kept = self.plans.get(id(entry))
        if kept is None or kept[0] is not entry:
            kept = self.entry_plan(entry)
        for p, name, many, optional, plan in kept[1]:
            if many:
                values = []
                if i < n and args[i].kind == "array":
                    for item in args[i].value:  # type: ignore[union-attr]
                        v = self.convert(item, p)
                        ok &= v is not _BAD
                        values.append(v)
                    i += 1
                else:
                    while i < n and self.matches(args[i], p):
                        values.append(self.convert(args[i], p))
                        i += 1
                if not values and not optional:
                    ok = False
                    self.missing(c, entry, p, args, i)
                params[name] = tuple(values)
                continue
            if i >= n:
                if not optional:
                    ok = False
                    self.missing(c, entry, p, args, i)
                continue
            # `convert` (and `matches` first for an optional argument) written out over the plan
            a = args[i]
            found = typed_by(a, plan)
            if found is None:
                if optional:
                    continue
                v = self.convert(a, p)          # the error
            else:
                t, v = found
                if t in CHECKED:
                    v = self.value(a, t, v)
            if v is _BAD:
                ok = False
            params[name] = v
            i += 1
        for extra in args[i:] if i < n else ():
            ok = False
            self.err(extra.loc, f"unexpected {extra.display()}: {self.signature(entry)}", self.beyond(extra),
                     width=len(extra.display()))
        body = None
        if entry.body:
            if c.body is not None:
                body = self.clauses(c.body, (entry.body,), entry.body)
        elif c.body is not None:
            ok = False
            self.err(c.loc, f"{entry.kind} {entry.name} takes no block")
        if not ok:
            return None
        # Call(kind=…, name=…, params=…, body=…, loc=c.loc), without the named tuple's constructor
        return _tnew(Call, (kept[2], kept[3], params, c.loc, (), body))

    def beyond(self, atom: Atom) -> Optional[str]:
        """A hint for a player name past the game's last player (P5 in a game for 2–4)."""
        players = self.vocab.players
        if atom.kind == "name" and players and re.fullmatch(r"P\d+", str(atom.value)) and atom.value not in players:
            return f"{self.vocab.game} is played by at most {len(players)} players: {players[0]}–{players[-1]}"
        return None

    def missing(self, c: Clause, entry: Entry, p: Param, args, i) -> None:
        loc = args[i - 1].loc if i and i <= len(args) else c.loc
        self.err(loc, f"{entry.kind} {entry.name} needs {self.words(p)} for {p.name}",
                 self.signature(entry))

    def signature(self, entry: Entry) -> str:
        parts = []
        for p in entry.params:
            t = "|".join(p.types)
            parts.append(f"[{p.name}:{t}]" if p.optional else f"{p.name}:{t}{'…' if p.many else ''}")
        return f"written `{entry.name} {' '.join(parts)}`".rstrip()

    def words(self, p: Param) -> str:
        return " or ".join(self.vocab.type_words(t) for t in p.types)

    # -- atoms --------------------------------------------------------------------------
    def plan(self, p: Param) -> dict:
        """p's plan (argplan.plan_of), made once per argument and kept in `plans`."""
        kept = self.plans.get(id(p))
        if kept is None or kept[0] is not p:
            kept = self.plans[id(p)] = (p, plan_of(self.vocab, p.types, _BUILTIN_TESTS, _test_types))
        return kept[1]

    def entry_plan(self, entry: Entry) -> tuple:
        """(entry, its arguments' (Param, name, many, optional, plan), kind, name): read once."""
        steps = tuple((p, p.name, p.many, p.optional, self.plan(p)) for p in entry.params)
        kept = self.plans[id(entry)] = (entry, steps, entry.kind, entry.name)
        return kept

    def typed(self, atom: Atom, p: Param) -> Optional[tuple[str, Any]]:
        """(the first of `p`'s types that takes the atom, its value as one), or None: by p's plan."""
        return typed_by(atom, self.plan(p))

    def matches(self, atom: Atom, p: Param) -> bool:
        return self.typed(atom, p) is not None

    def convert(self, atom: Atom, p: Param) -> Any:
        found = self.typed(atom, p)
        if found is not None:
            t, value = found
            return self.value(atom, t, value) if t in CHECKED else value
        # build the best message from the first type's complaint
        hint = None
        if atom.kind == "name":
            words = [w for t in p.types for w in self._choices(t)]
            hint = did_you_mean(str(atom.value), words)
        self.err(atom.loc, f"expected {self.words(p)} for {p.name}, found {atom.display()}", hint or self.beyond(atom),
                 width=len(atom.display()))
        return _BAD

    def value(self, atom: Atom, t: str, value: Any) -> Any:
        """The value of an atom typed as a card (its reference, resolved), a section or a ruling
        (which must exist), or _BAD with the error said."""
        if t == "card":
            if self.resolve_card is None:
                return CardRef(str(value))
            ref, problem, hint = self.resolve_card(atom)
            if problem:
                self.err(atom.loc, problem, hint, width=len(atom.display()))
                return _BAD
            return ref
        if self.ref_exists and not self.ref_exists(t, value):
            self.err(atom.loc, f"unknown {t} {value}", width=len(atom.display()))
            return _BAD
        return value

    def _choices(self, t: str) -> list[str]:
        if t in self.vocab.enums:
            return list(self.vocab.enums[t].values)
        return {"cell": list(self.vocab.cells), "player": list(self.vocab.players),
                "unknown": ["unknown"], "bool": ["yes", "no"]}.get(t, [])


class _Bad:
    pass


_BAD = _Bad()
_NO = _Bad()        # an atom that is not of the type tried (`Validator.typed`)

# Each built-in type's test of an atom's (kind, value, unit): the value it gives, or _NO. A card's
# reference is made by `convert`, not for every match tried.
_BUILTIN_TESTS: dict[str, Callable[[Vocabulary, str, Any, Optional[str]], Any]] = {
    "int": lambda vocab, k, v, u: v if k == "number" and isinstance(v, int) else _NO,
    "number": lambda vocab, k, v, u: v if k == "number" else _NO,
    "string": lambda vocab, k, v, u: v if k == "string" else _NO,
    "word": lambda vocab, k, v, u: v if k == "name" else _NO,
    "kg": lambda vocab, k, v, u: v if k == "quantity" and (u or "").lower() == "kg" else _NO,
    "dice": lambda vocab, k, v, u: v if k == "quantity" and (u or "").lower() == "d" else _NO,
    "cell": lambda vocab, k, v, u: v if k == "name" and v in vocab.cells else _NO,
    "player": lambda vocab, k, v, u: v if k == "name" and v in vocab.players else _NO,
    "card": lambda vocab, k, v, u: v if k == "string" or (k == "name" and v != "unknown") else _NO,
    "unknown": lambda vocab, k, v, u: UNKNOWN if k == "name" and v == "unknown" else _NO,
    "bool": lambda vocab, k, v, u: v == "yes" if k == "name" and v in ("yes", "no") else _NO,
    "section": lambda vocab, k, v, u: v if k == "name" else _NO,
    "ruling": lambda vocab, k, v, u: v if k == "name" else _NO,
}


def _test_types(vocab: Vocabulary, types: tuple, kind: str, v: Any, unit: Optional[str]) -> Optional[tuple]:
    """(the first of `types` that takes the atom (kind, v, unit), its value), or None: each type's
    own test, in order: what a plan (argplan.plan_of) is made from."""
    for t in types:
        test = _BUILTIN_TESTS.get(t)
        if test is not None:
            value = test(vocab, kind, v, unit)
            if value is not _NO:
                return t, value
        elif kind == "name":
            e = vocab.enums.get(t)
            if e is not None and v in e.values:
                return t, v
    return None


# ----------------------------------------------------------------------------- rendering

def in_words(call: Call, vocab: Vocabulary, card_name: Callable[[CardRef], str] = lambda r: r.text) -> str:
    """A call in Japanese words from its entry's template (for the wiki)."""
    if call.kind == "effect":
        head = vocab.label("trigger", call.name) or call.name
        mods = "・".join(vocab.label("modifier", m) or m for m in call.modifiers)
        inner = "。".join(in_words(b, vocab, card_name) for b in call.body or ())
        return f"【{head}{'・' + mods if mods else ''}】{inner}"
    entry = vocab.entries.get(call.kind, _NONE).get(call.name)
    if entry is None or not entry.label:
        return call.name
    values = _Default()     # filled in place: not a dict copied into a _Default for format_map
    given = call.params
    for p in entry.params:
        v = given.get(p.name)
        values[p.name] = "" if v is None else _value_words(v, p, vocab, card_name)
    text = entry.label.format_map(values)     # str.format_map: string.Formatter in C
    if call.body:
        text += "：" + "。".join(in_words(b, vocab, card_name) for b in call.body)
    return text


class _Default(dict):
    def __missing__(self, key):
        return ""


_NONE: dict = {}     # the entries of a kind no entry has (read only: not a new dict per call)


def _value_words(v: Any, p: Param, vocab: Vocabulary, card_name) -> str:
    if isinstance(v, str):      # most values (a player, a cell, an enum's value): its label, if it has one
        for t in p.types:
            label = vocab.enum_label(t, v)
            if label:
                return label
        return v
    if v is None:
        return ""
    if isinstance(v, tuple):
        return "、".join(_value_words(x, p, vocab, card_name) for x in v)
    if isinstance(v, CardRef):
        return card_name(v)
    if v is UNKNOWN:
        return "不明"
    if isinstance(v, bool):
        return "はい" if v else "いいえ"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
