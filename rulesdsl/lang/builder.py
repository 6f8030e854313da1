"""Building the syntax model from the grammar's rules: the Lark transformer that turns each
reduced rule into a model node (it runs inline in the LALR parser, see parser.py), with the
checks its nodes need as they are made (nesting depth, repeated fields, dates, numbers).

It runs under lang/lalr.py's driver, or under Lark itself (parser.py), which call its methods alike.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, partial
from typing import Any, Optional

from ..base.patterns import LazyPattern
from ..base import declared
from .dates import DateError, PartialDate
from .diagnostics import Diagnostic, Related
from .lalr import Token
from .model import (Atom, Card, Citation, Clause, Deck, Errata, Expectation, Game, Loc, Point, PointDefault,
                    PointValue, Probability, Quote, Revision, RevRef, Ruling, Scenario, Section, Setting,
                    Status, StatusExpectation, Text)

# Blocks inside blocks and lists inside lists: real rules use three or four levels; the limit
# keeps every later walk over the nodes far from Python's recursion limit.
MAX_NESTING = 64


# ----------------------------------------------------------------------------- nodes
# The grammar already guarantees what the models' validators would check of a node the builder
# makes (its fields and their kinds), so nodes are made without validation — as pydantic's
# `model_construct` makes them, but without its general machinery (aliases, factories, extra
# fields), which cost four times the node itself: a knowledge base of 10,000 cards has a few
# hundred thousand of them. The result is the same: the same __dict__ (fields in their declared
# order, defaults filled in), the same set of fields given.

_new = object.__new__
_set = object.__setattr__
_tnew = tuple.__new__
_REQUIRED = object()


@cache          # one per class: the parse's, and the outline's bare scenarios (kb/loader.py)
def constructor(cls):
    """`cls.model_construct`, for the models of the syntax model (no default factories); a
    class that is not a pydantic model keeps its own `model_construct` (or is called as is) —
    so do the plain models of the answer path (rulesdsl/base/declared.py), which never import
    pydantic."""
    if declared.plain() or not (isinstance(cls, type) and issubclass(cls, declared.BaseModel)):
        return getattr(cls, "model_construct", cls)
    template = {}
    for name, info in cls.model_fields.items():
        if info.default_factory is not None:
            return cls.model_construct
        template[name] = _REQUIRED if info.is_required() else info.default
    required = frozenset(k for k, v in template.items() if v is _REQUIRED)
    width = len(template)

    def make(**given):
        d = template.copy()
        d.update(given)
        if len(d) != width or not required <= given.keys():
            raise TypeError(f"{cls.__name__}: unknown or missing fields in {sorted(given)}")
        node = _new(cls)
        _set(node, "__dict__", d)
        _set(node, "__pydantic_fields_set__", set(given))
        _set(node, "__pydantic_extra__", None)
        _set(node, "__pydantic_private__", None)
        return node
    return make


# Loc, Atom and Clause are built as plain tuples of their fields, in this order:
if (Loc._fields, Atom._fields, Clause._fields) != (("file", "line", "col"), ("kind", "value", "loc", "unit"),
                                                   ("head", "loc", "args", "body")):
    raise ImportError("lang/builder.py builds Loc, Atom and Clause by field order: update it with the model")

_NEW = {cls: constructor(cls) for cls in (Card, Citation, Deck, Errata, Expectation, Game, Point, PointDefault, PointValue, Probability, Quote, RevRef, Revision, Ruling, Scenario, Section, Setting, StatusExpectation, Text)}


# ----------------------------------------------------------------------------- statements
# Small carriers for statements that fill a field of the enclosing node.

class _Stmt:
    __slots__ = ("field", "value", "loc")

    def __init__(self, field: str, value: Any, loc: Loc):
        self.field, self.value, self.loc = field, value, loc


_ESCAPES = LazyPattern(r'\\(u[0-9A-Fa-f]{4}|.)', re.S)
_ESCAPE_MAP = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
ESCAPES_KNOWN = '\\n, \\t, \\", \\\\ and \\u followed by four hex digits (\\u3042)'


def _escaped(m: re.Match) -> str:
    e = m.group(1)
    return chr(int(e[1:], 16)) if len(e) == 5 else _ESCAPE_MAP.get(e, e)


def bad_escapes(token: str) -> list[tuple[int, str]]:
    """(offset in the token, the escape) of every escape that is not one of ESCAPES_KNOWN."""
    return [(m.start(), m.group()) for m in _ESCAPES.finditer(token)
            if len(m.group(1)) != 5 and m.group(1) not in _ESCAPE_MAP]


def name_form(text: str) -> str:
    """A name as it is compared: Unicode NFC, so that a name typed decomposed (as some systems
    write 《ガ》: カ and a combining mark) is the name declared composed."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def unquote(token: str) -> str:
    """The value of a STRING token: escapes resolved (an unknown one is reported by the
    builder, see `_Builder.string`); triple-quoted text dedented."""
    if token.startswith('"""'):
        body = token[3:-3]
        if body.startswith("\r\n"):
            body = body[2:]
        elif body.startswith("\n"):
            body = body[1:]
        import textwrap                     # here only: its patterns are compiled at its import
        body = textwrap.dedent(body).rstrip()
    else:
        body = token[1:-1]
    if "\\" in body:
        body = _ESCAPES.sub(_escaped, body)
    return body


def parse_citation(raw: str, loc: Loc) -> Citation:
    document, sep, heading = raw.partition("§")
    return _NEW[Citation](raw=raw, document=document.strip(), heading=heading.strip() or None if sep else None,
                    loc=loc)


class _Inlined(tuple):
    """What an inlined rule (`_name`, and Lark's helpers for `x*`, `x+` and templates) reduces to:
    its children, which Lark's child filter splices through `.children` into the rule that
    contains it. Made and read without a Python call instead of a Tree for its parent to splice.
    (lang/lalr.py's driver, seeing `inlined`, makes a plain tuple instead, which it splices itself.)"""

    __slots__ = ()
    children = property(list)


_inlined = partial(tuple.__new__, _Inlined)


class _Builder:
    """Builds model nodes bottom-up while the LALR parser reduces."""
    inlined = _inlined      # what every inlined rule reduces to (see lang/lalr.py `_inliner`)

    def __getattr__(self, name: str):
        # the parser asks for a method per rule, and per terminal: an inlined rule (lower case
        # after its underscores) has none and gets `_inlined`; a terminal (`_SEP`, `__ANON_0`)
        # gets nothing, so its tokens stay tokens
        if name[:1] == "_" and name.lstrip("_")[:1].islower():
            return _inlined
        raise AttributeError(name)

    def __init__(self) -> None:
        self.file = "<text>"
        self.errors: list[Diagnostic] = []
        self.heights: dict[int, int] = {}     # id(clause with a block, or list) -> its nesting height
        self.too_deep: Optional[Diagnostic] = None

    def reset(self, file: str) -> None:
        self.file = file
        self.errors = []
        self.heights = {}
        self.too_deep = None

    def nested(self, node, children, tok: Token, what: str):
        """Record the nesting height of `node` (one more than its tallest child); past
        MAX_NESTING, one error that ends up at the outermost block or list too deep."""
        heights = self.heights
        h = 1 + max((heights[id(c)] for c in children if id(c) in heights), default=0)
        heights[id(node)] = h
        if h > MAX_NESTING:
            self.too_deep = Diagnostic(
                code="nesting", loc=self.loc(tok), width=max(len(str(tok)), 1), fatal=True,
                message=f"{what} nested {h} deep; at most {MAX_NESTING} levels are allowed",
                hint="a real rule needs a handful of levels; check for a runaway or generated file")
        return node

    # -- helpers ------------------------------------------------------------------------
    def loc(self, tok: Token) -> Loc:
        return _tnew(Loc, (self.file, tok.line, tok.column))

    def string(self, tok: Token, name: bool = False) -> str:
        """The value of a STRING token (a name: in its NFC form); an unknown escape in it is a
        located error at its backslash."""
        raw = str(tok)
        if "\\" in raw:
            for offset, escape in bad_escapes(raw):
                before = raw[:offset]
                line = tok.line + before.count("\n")
                col = offset - before.rfind("\n") if "\n" in before else tok.column + offset
                self.errors.append(Diagnostic(
                    code="syntax", loc=Loc(self.file, line, col), width=len(escape), fatal=True,
                    message=f"unknown escape {escape} in a string",
                    hint=f"the escapes are {ESCAPES_KNOWN}; write \\\\ for a backslash"))
        value = unquote(raw)
        return name_form(value) if name else value

    def error(self, tok: Token, message: str, hint: Optional[str] = None, code: str = "syntax") -> None:
        # fatal: a file with any of these is not used at all (like a syntax error)
        self.errors.append(Diagnostic(code=code, message=message, loc=self.loc(tok),
                                      width=max(len(str(tok)), 1), hint=hint, fatal=True))

    def collect(self, kind: str, items, allowed: dict[str, str]) -> dict[str, Any]:
        """Sort body statements (top-level nodes too: `_wrap`) into fields; `allowed`: field -> one|many."""
        out: dict[str, Any] = {f: [] for f, n in allowed.items() if n == "many"}
        seen: dict[str, Loc] = {}
        for item in items:
            if type(item) is Clause:    # a body's top-level clause, as `_wrap` takes it, without its call
                field, value, loc = "clauses", item, item.loc
            else:
                item = item if type(item) is _Stmt else self._wrap(item)
                field, value, loc = item.field, item.value, item.loc
            mode = allowed.get(field)
            if mode is None:  # the grammar prevents this; keep the guard for safety
                continue
            if mode == "many":
                out[field].append(value)
            elif field in seen:
                self.errors.append(Diagnostic(
                    code="duplicate-statement", loc=loc, fatal=True,
                    message=f"{_FIELD_WORDS.get(field, field)} is given twice in this {kind}",
                    hint="keep one of them",
                    related=(Related(loc=seen[field], message="first given here"),)))
            else:
                seen[field] = loc
                out[field] = value
        return {k: tuple(v) if isinstance(v, list) else v for k, v in out.items()}

    def date(self, children):
        tok = children[0]
        if tok.type == "UNDATED":
            return _Stmt("date", None, self.loc(tok))
        return _Stmt("date", self.parse_date(tok), self.loc(tok))

    def parse_date(self, tok: Token) -> Optional[PartialDate]:
        try:
            return PartialDate.parse(str(tok))
        except DateError as e:
            self.error(tok, f"invalid date {str(tok)!r}: {e}",
                       hint="write 2026, 2026-03, 2026-03-14 or 2026-summer", code="invalid-date")
            return None

    # -- shared statements --------------------------------------------------------------
    def source(self, c):
        loc = self.loc(c[0])
        return _Stmt("source", parse_citation(self.string(c[1]), self.loc(c[1])), loc)

    def text(self, c):
        loc = self.loc(c[0])
        value = None if c[1].type == "UNKNOWN" else self.string(c[1])
        return _Stmt("text", _NEW[Text](value=value, loc=self.loc(c[1])), loc)

    def quote(self, c):
        return _Stmt("quotes", _NEW[Quote](text=self.string(c[1]), loc=self.loc(c[1])), self.loc(c[0]))

    def reason(self, c):
        return _Stmt("reason", self.string(c[1]), self.loc(c[0]))

    def note(self, c):
        return _Stmt("notes", self.string(c[1]), self.loc(c[0]))

    def refs(self, c):
        return _Stmt("refs", tuple(c[1:]), self.loc(c[0]))

    def revref(self, c):
        tok = c[0]
        date, undated = None, False
        if len(c) > 1:
            date = c[1].value
            undated = date is None
        target = self.string(tok, name=True) if tok.type == "STRING" else str(tok)
        return _NEW[RevRef](target=target, date=date, undated=undated, loc=self.loc(tok))

    def status(self, c):
        value = str(c[0])       # the member by its value, without the Enum's call (the grammar's five words)
        return _Stmt("status", _STATUS_OF.get(value) or Status(value), self.loc(c[0]))

    # -- generic clauses ----------------------------------------------------------------
    def atom(self, tok) -> Atom:
        if isinstance(tok, Atom):
            return tok
        kind = tok.type
        loc = _tnew(Loc, (self.file, tok.line, tok.column))     # self.loc(tok), without its call
        if kind == "NAME":           # named tuples made directly: (kind, value, loc, unit)
            return _tnew(Atom, ("name", str(tok), loc, None))
        if kind == "STRING":
            return _tnew(Atom, ("string", self.string(tok, name=True), loc, None))
        if kind == "NUMBER":
            return _tnew(Atom, ("number", _number(tok), loc, None))
        if kind == "QUANTITY":
            m = re.match(r"(\d+(?:\.\d+)?)(.*)", str(tok))
            return Atom(kind="quantity", value=_number(m.group(1)), unit=m.group(2), loc=loc)
        raise AssertionError(kind)

    def array(self, c):
        bracket, *items = c
        atoms = tuple(self.atom(x) for x in items)
        return self.nested(Atom(kind="array", value=atoms, loc=self.loc(bracket)), atoms, bracket, "lists")

    def clause(self, c):
        head, body, args = c[0], None, c[1:]
        if args and isinstance(args[-1], _Block):
            body = args[-1].clauses
            args = args[:-1]
        atom = self.atom
        clause = _tnew(Clause, (str(head), _tnew(Loc, (self.file, head.line, head.column)),  # (head, loc, args, body)
                                tuple([atom(a) for a in args]), body))
        if body:
            return self.nested(clause, body, head, "blocks")
        return clause

    def block(self, c):
        return _Block(tuple(c))

    # -- game ---------------------------------------------------------------------------
    def game(self, c):
        kw, gid, name, *items = c
        loc = self.loc(kw)
        fields = self.collect("game", items, {
            "source": "one", "text": "one", "notes": "many", "points": "many",
            "vocabulary": "one", "clauses": "many"})
        vocab = fields.pop("vocabulary", None)
        if vocab is not None:
            fields["vocabulary"], fields["vocabulary_loc"] = vocab
        return _NEW[Game](id=str(gid), name=self.string(name), loc=loc, **fields)

    def point(self, c):
        kw, name, *rest = c
        label = None
        if rest and isinstance(rest[0], Token):
            label = self.string(rest.pop(0))
        fields = self.collect("rule point", rest, {
            "values": "many", "default": "one", "per": "one", "notes": "many", "reason": "one",
            "unsettled": "one"})
        for key in ("per", "unsettled"):
            if key in fields:
                fields[key], fields[key + "_loc"] = fields[key]
        return _Stmt("points", _NEW[Point](name=str(name), label=label, loc=self.loc(kw), **fields),
                     self.loc(kw))

    def value_decl(self, c):
        kw, name, *label = c
        return _Stmt("values", _NEW[PointValue](name=str(name), label=self.string(label[0]) if label else None,
                                          loc=self.loc(name)), self.loc(kw))

    def default(self, c):
        kw, value, *rest = c
        status = Status.confirmed
        if isinstance(rest[0], _Stmt):
            status = rest.pop(0).value
        section = rest[1]  # rest[0] is FROM
        return _Stmt("default", _NEW[PointDefault](value=str(value), status=status, section=str(section),
                                             loc=self.loc(value)), self.loc(kw))

    def per(self, c):
        return _Stmt("per", (str(c[1]), self.loc(c[1])), self.loc(c[0]))

    def unsettled(self, c):
        return _Stmt("unsettled", (str(c[1]), self.loc(c[1])), self.loc(c[0]))

    def vocabulary(self, c):
        return _Stmt("vocabulary", (tuple(c[1:]), self.loc(c[0])), self.loc(c[0]))

    # -- sections -----------------------------------------------------------------------
    def section(self, c):
        kw, sid, title, *items = c
        fields = self.collect("rule section", items, {
            "source": "one", "text": "one", "notes": "many", "defines": "one", "refs": "many",
            "revisions": "many"})
        defines = fields.pop("defines", None)
        if defines is not None:
            fields["defines"], fields["defines_loc"] = defines
        fields["refs"] = _flatten(fields.get("refs", ()))
        return _NEW[Section](id=str(sid), title=self.string(title), loc=self.loc(kw), **fields)

    def defines(self, c):
        return _Stmt("defines", (tuple(str(t) for t in c[1:]), self.loc(c[0])), self.loc(c[0]))

    # -- cards --------------------------------------------------------------------------
    def code(self, c):
        tok = c[0]
        return (self.string(tok, name=True) if tok.type == "STRING" else str(tok), self.loc(tok))

    _CARD_FIELDS = {"source": "one", "text": "one", "notes": "many", "refs": "many",
                    "errata": "many", "clauses": "many"}

    def card(self, c):
        kw, game, code, name, *items = c
        fields = self.collect("card", items, self._CARD_FIELDS)
        fields["refs"] = _flatten(fields.get("refs", ()))
        return _NEW[Card](game=str(game), code=code[0], name=self.string(name, name=True), loc=self.loc(kw), **fields)

    def inline_card(self, c):
        assumed = c[0].type == "ASSUME"
        if assumed:
            c = c[1:]
        kw, code, *items = c
        fields = self.collect("card", items, self._CARD_FIELDS)
        fields["refs"] = _flatten(fields.get("refs", ()))
        card = _NEW[Card](game=None, code=code[0], loc=code[1], assumed=assumed, **fields)
        return _Stmt("cards", card, self.loc(kw))

    def errata(self, c):
        kw, date, status, *items = c
        fields = self.collect("errata", items, {
            "source": "one", "text": "one", "notes": "many", "refs": "many", "clauses": "many",
            "errata": "many"})
        for nested in fields.pop("errata", ()):
            self.errors.append(Diagnostic(code="syntax", loc=nested.loc, fatal=True,
                                          message="an errata cannot contain another errata"))
        fields["refs"] = _flatten(fields.get("refs", ()))
        return _Stmt("errata", _NEW[Errata](date=date.value, status=status.value, loc=self.loc(kw), **fields),
                     self.loc(kw))

    # -- rulings ------------------------------------------------------------------------
    def ruling(self, c):
        kw, rid, title, *items = c
        fields = self.collect("ruling", items, {
            "gap": "one", "refs": "many", "notes": "many", "revisions": "many", "scenarios": "many"})
        gap = fields.pop("gap", None)
        if gap is not None:
            fields["gap"], fields["gap_loc"] = gap
        fields["refs"] = _flatten(fields.get("refs", ()))
        return _NEW[Ruling](id=str(rid), title=self.string(title), loc=self.loc(kw), **fields)

    def gap(self, c):
        return _Stmt("gap", (str(c[1]), self.loc(c[1])), self.loc(c[0]))

    def revision(self, c):
        kw, date, status, *items = c
        fields = self.collect("revision", items, {
            "source": "one", "text": "one", "quotes": "many", "reason": "one", "notes": "many",
            "settings": "many", "supersedes": "many", "refs": "many", "scenarios": "many"})
        fields["refs"] = _flatten(fields.get("refs", ()))
        fields["supersedes"] = _flatten(fields.get("supersedes", ()))
        return _Stmt("revisions", _NEW[Revision](date=date.value, status=status.value, loc=self.loc(kw),
                                           **fields), self.loc(kw))

    def setting(self, c):
        kw, (point, card), value = c
        return _Stmt("settings", _NEW[Setting](point=point, card=card, value=str(value), loc=self.loc(kw)),
                     self.loc(kw))

    def game_point(self, c):
        return (str(c[0]), None)

    def card_point(self, c):
        _, code, name = c
        return (str(name), code[0])

    def supersedes(self, c):
        return _Stmt("supersedes", tuple(c[1:]), self.loc(c[0]))

    # -- scenarios ----------------------------------------------------------------------
    def scenario(self, c):
        kw, sid, title, *items = c
        fields = self.collect("scenario", items, {
            "source": "one", "notes": "many", "question": "one", "answer": "one", "as_of": "one",
            "mode": "one", "pins": "many", "cards": "many", "clauses": "many", "expects": "many",
            "status_expects": "many"})
        for key in ("as_of", "mode", "answer"):
            if key in fields:
                fields[key], fields[key + "_loc"] = fields[key]
        fields["pins"] = _flatten(fields.get("pins", ()))
        return _NEW[Scenario](id=str(sid), title=self.string(title), loc=self.loc(kw), **fields)

    def question(self, c):
        return _Stmt("question", self.string(c[1]), self.loc(c[0]))

    def answer(self, c):
        return _Stmt("answer", (self.string(c[1]), self.loc(c[1])), self.loc(c[0]))

    def as_of(self, c):
        kw, _of, date = c
        return _Stmt("as_of", (self.parse_date(date), self.loc(date)), self.loc(kw))

    def mode(self, c):
        return _Stmt("mode", (str(c[1]), self.loc(c[1])), self.loc(c[0]))

    def pins(self, c):
        return _Stmt("pins", tuple(c[1:]), self.loc(c[0]))

    def modality(self, c):
        return str(c[0])

    def period(self, c):
        start = end = None
        it = iter(c)
        for kw in it:
            date = self.parse_date(next(it))
            if kw.type == "FROM":
                start = date
            else:
                end = date
        return _Period(start, end)

    def policy(self, c):
        kw, *rest = c
        if kw.type == "BEST":
            return ("best", str(rest[-1]))
        return ("plan", tuple(unquote(t) for t in rest))

    def probability(self, c):
        kw, *rest = c
        policy = rest.pop(0) if rest and isinstance(rest[0], tuple) else None
        op, value = rest
        op = {"≥": ">=", "≤": "<="}.get(str(op), str(op))
        from fractions import Fraction      # here only: not at a question's import
        try:
            ok = Fraction(str(value)) <= 1
        except ZeroDivisionError:
            ok = False
        if not ok:
            self.error(value, f"{value} is not a probability", "a probability is between 0 and 1: 0, 1/2, 77/216, 1")
        return _NEW[Probability](op=op, value=str(value), loc=self.loc(kw),
                                           best_for=policy[1] if policy and policy[0] == "best" else None,
                                           plan=policy[1] if policy and policy[0] == "plan" else ())

    def expect(self, c):
        kw, *rest = c
        modality = probability = None
        if rest and isinstance(rest[0], str) and not isinstance(rest[0], Token):
            modality = rest.pop(0)
        if rest and isinstance(rest[0], Probability):
            probability = rest.pop(0)
        period = rest.pop() if rest and isinstance(rest[-1], _Period) else _Period(None, None)
        form, *args = rest
        return _Stmt("expects", _NEW[Expectation](
            modality=modality, probability=probability, form=str(form), args=tuple(self.atom(a) for a in args),
            valid_from=period.start, valid_until=period.end, loc=self.loc(kw)), self.loc(kw))

    def expect_status(self, c):
        kw, _, *rest = c
        period = rest.pop() if rest and isinstance(rest[-1], _Period) else _Period(None, None)
        stmt = rest.pop()
        if stmt.value is Status.retracted:
            self.error(kw, "an answer's status is never retracted",
                       "expect status confirmed, provisional, unofficial or unconfirmed")
        return _Stmt("status_expects", _NEW[StatusExpectation](
            status=stmt.value, at_least=bool(rest), valid_from=period.start, valid_until=period.end,
            loc=self.loc(kw)), self.loc(kw))

    # -- decks --------------------------------------------------------------------------
    def deck(self, c):
        kw, did, title, *items = c
        fields = self.collect("deck", items, {
            "source": "one", "notes": "many", "cards": "many", "clauses": "many"})
        return _NEW[Deck](id=str(did), title=self.string(title), loc=self.loc(kw), **fields)

    # -- top ----------------------------------------------------------------------------
    def start(self, c):
        return list(c)

    def _wrap(self, item):
        """Top-level nodes used inside a body (scenario in a ruling, clause in a card), as statements."""
        if isinstance(item, (Scenario, Clause)):
            return _Stmt("scenarios" if isinstance(item, Scenario) else "clauses", item, item.loc)
        raise AssertionError(type(item))


class _Block:
    __slots__ = ("clauses",)

    def __init__(self, clauses):
        self.clauses = clauses


class _Period:
    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start, self.end = start, end


def _flatten(groups) -> tuple:
    return tuple(x for g in groups for x in g)


def _number(text: str):
    return float(text) if "." in text else int(text)


_STATUS_OF = {member.value: member for member in Status}
_FIELD_WORDS = {"source": "the source", "text": "the text", "quote": "the quote",
                "reason": "the reason", "default": "the default", "question": "the question",
                "as_of": "the as-of date", "mode": "the mode", "gap": "the gap kind",
                "vocabulary": "the vocabulary", "defines": "the list of defined points",
                "per": "the scope", "unsettled": "the gap ruling of an unsettled point",
                "answer": "the answer"}

