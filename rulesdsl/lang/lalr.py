"""An LALR driver of our own over the tables Lark builds, so that parsing a file does not import
Lark (standard library only).

A judge's new question parses one small file: importing lark, loading its tables and compiling
the contextual lexer's per-state scanners cost about five times the parse itself. `tables_of`
reads, once, from a Lark parser (parser="lalr", lexer="contextual", no placeholders, no
position propagation) what parsing needs — the parse table, each rule's tree shaping (lark's
own child filter and `?rule` expansion) and each state's lexer (its terminals in lark's order,
after lark's own folding of keywords into the name pattern) — as JSON-able data, which
parser.py keeps in the private cache. `Driver` parses with it as Lark would, calling the same
transformer methods with the same children. It does not explain errors: on any input Lark would
refuse it raises `Refused`, and the caller lets Lark parse the text again for its located error
(tests/test_lalr.py pins the same trees and the same refusals over the repository's files and the
fuzz corpus' damage).

The lexer: lark's contextual lexer compiles, for every parser state it meets, one alternation of
that state's terminals, and Python's `re` cache does not outlive the process. Here one master
pattern (lark's root lexer: every terminal) is tried first; its token is the one the state's own
lexer would give whenever the state has both the terminal that matched and the keyword it was
folded into (an alternation takes its first alternative that matches, and a state's alternatives
are the root's, in the same order, minus some). Otherwise the state's terminals are tried one by
one, in its order, each pattern compiled once (the same first-match rule).
"""

from __future__ import annotations

import re
from abc import ABCMeta

FORMAT = "lalr-2"
# Texts this long (in characters) are lexed with the master pattern first: compiling it costs
# about as much as lexing a judge's small file with each state's patterns, compiled one by one.
MASTER_MIN = 4000


class Token(str, metaclass=ABCMeta):
    """A token, as lark's: its text, with `type`, `value` and where it starts and ends. Lark's own
    Token is registered as a virtual subclass once lark is imported (parser.py), so the builder
    tells tokens from text alike whichever parser made them."""

    def __new__(cls, type, value, start_pos=None, line=None, column=None, end_line=None,
                end_column=None, end_pos=None):
        inst = str.__new__(cls, value)
        inst.type = type
        inst.start_pos = start_pos
        inst.value = value
        inst.line = line
        inst.column = column
        inst.end_line = end_line
        inst.end_column = end_column
        inst.end_pos = end_pos
        return inst

    def __reduce__(self):
        return (self.__class__, (self.type, self.value, self.start_pos, self.line, self.column))

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"

    def __eq__(self, other):
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__


class Tree:
    """What a rule without a transformer method reduces to (lark's Tree: `data`, `children`)."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


class Refused(Exception):
    """The text does not parse; Lark's parse of it says where and why."""


# ----------------------------------------------------------------------------- the tables

def tables_of(lark) -> dict:
    """What `Driver` needs from a Lark parser, as JSON-able data. Raises ValueError for a parser
    configured otherwise than this driver follows."""
    from lark.lexer import PatternStr
    from lark.parse_tree_builder import maybe_create_child_filter
    from lark.parsers.lalr_analysis import Shift

    opts = lark.options
    if (opts.parser, opts.lexer) != ("lalr", "contextual") or opts.maybe_placeholders \
            or opts.propagate_positions or opts.postlex is not None or opts.ambiguity not in ("auto", "resolve"):
        raise ValueError("the driver follows lalr + contextual, without placeholders, positions or postlex")
    if lark.lexer_conf.callbacks or lark.lexer_conf.g_regex_flags or lark.lexer_conf.use_bytes:
        raise ValueError("the driver follows no lexer callbacks, regex flags or bytes")
    frontend = lark.parser
    inner = frontend.parser.parser
    if any(isinstance(k, str) for k in inner.callbacks):
        raise ValueError("the driver follows no terminal callbacks")
    table = inner.parse_table
    start = next(iter(table.start_states))
    n = len(table.states)
    if sorted(table.states) != list(range(n)):
        raise ValueError("parser states are not numbered 0..n-1")

    rules: list = []
    index: dict = {}

    def rule_no(rule) -> int:
        if rule not in index:
            o = rule.options
            chain = maybe_create_child_filter(rule.expansion, o.keep_all_tokens, False, None)
            include = None if chain is None else [[i, bool(x)] for i, x in chain.args[0]]
            name = rule.alias or o.template_source or rule.origin.name
            index[rule] = len(rules)
            rules.append([rule.origin.name, len(rule.expansion), name, bool(o.expand1 and not rule.alias), include])
        return index[rule]

    states = []     # per state "symbol action symbol action …" (decoded on first use): a shift's
    for s in range(n):  # next state, or ~rule for a reduction
        row = []
        for sym, (action, arg) in table.states[s].items():
            if " " in sym:
                raise ValueError(f"a symbol with a space: {sym!r}")
            row += [sym, str(arg if action is Shift else ~rule_no(arg))]
        states.append(" ".join(row))

    lexer = frontend.lexer

    def unless(basic) -> dict:
        out = {}
        for retok, cb in basic.callback.items():
            strings = {}
            for t in cb.scanner.terminals:
                if not isinstance(t.pattern, PatternStr) or t.pattern.flags:
                    raise ValueError(f"terminal {t.name}: the driver folds plain strings only")
                strings[t.pattern.value] = t.name
            out[retok] = strings
        return out

    root = lexer.root_lexer.scanner
    if len(root._mres) != 1:
        raise ValueError("the root lexer's pattern is split")
    lexers: list = []
    by_id: dict = {}
    state_lexer = []
    for s in range(n):
        basic = lexer.lexers[s]
        if id(basic) not in by_id:
            scanner = basic.scanner
            by_id[id(basic)] = len(lexers)
            lexers.append({"terms": sorted(t.name for t in basic.terminals),
                           "scan": [[t.name, t.pattern.to_regexp()] for t in scanner.terminals],
                           "unless": unless(basic)})
        state_lexer.append(by_id[id(basic)])
    return {"format": FORMAT, "start": table.start_states[start], "end": table.end_states[start],
            "states": states, "rules": rules, "root": root._mres[0].pattern,
            "root_unless": unless(lexer.root_lexer), "lexers": lexers, "state_lexer": state_lexer,
            "newline": sorted(lexer.root_lexer.newline_types), "ignore": sorted(lexer.root_lexer.ignore_types)}


# ----------------------------------------------------------------------------- the driver

class _Lexer:
    __slots__ = ("terms", "scan", "unless", "compiled")

    def __init__(self, spec: dict) -> None:
        self.terms = frozenset(spec["terms"])
        self.scan = spec["scan"]
        self.unless = spec["unless"]
        self.compiled = None

    def match(self, text: str, pos: int, patterns: dict):
        """(type, text) of the token at `pos` as this state's own lexer reads it, or None."""
        if self.compiled is None:
            self.compiled = [(name, patterns.get(rx) or patterns.setdefault(rx, re.compile(rx)))
                             for name, rx in self.scan]
        for name, rx in self.compiled:
            m = rx.match(text, pos)
            if m is not None:
                value = m.group(0)
                folded = self.unless.get(name)
                return (folded.get(value, name) if folded else name), value, name
        return None


class Driver:
    """Parses text with the tables of `tables_of`, calling `transformer`'s methods as Lark does
    with that transformer inline."""

    def __init__(self, tables: dict, transformer) -> None:
        if tables.get("format") != FORMAT:
            raise ValueError("tables of another format")
        self.start = tables["start"]
        self.end = tables["end"]
        self.rows = tables["states"]
        self.states: list = [None] * len(self.rows)
        self.specs = tables["rules"]
        self.rules: list = [None] * len(self.specs)     # each made on its first reduction
        self.transformer = transformer
        self.root_pattern = tables["root"]
        self.root = None
        self.root_unless = tables["root_unless"]
        self.lexer_specs = tables["lexers"]
        self.state_lexer = tables["state_lexer"]
        self.lexers: list = [None] * len(self.state_lexer)   # each made when its state is first met
        self.made_lexers: dict = {}
        self.newline = frozenset(tables["newline"])
        self.ignore = frozenset(tables["ignore"])
        self.patterns: dict = {}

    def _row(self, state: int) -> dict:
        parts = self.rows[state].split(" ")
        made = self.states[state] = dict(zip(parts[0::2], map(int, parts[1::2])))
        return made

    def _rule(self, k: int) -> tuple:
        origin, size, name, expand1, include = self.specs[k]
        made = self.rules[k] = (origin, size, _callback(name, expand1, include, getattr(self.transformer, name, None)))
        return made

    def _lexer(self, state: int) -> "_Lexer":
        k = self.state_lexer[state]
        made = self.made_lexers.get(k)
        if made is None:
            made = self.made_lexers[k] = _Lexer(self.lexer_specs[k])
        self.lexers[state] = made
        return made

    def parse(self, text: str):
        states, rules, lexers = self.states, self.rules, self.lexers
        root_unless, newline, ignore, patterns = self.root_unless, self.newline, self.ignore, self.patterns
        n = len(text)
        root = None
        if n >= MASTER_MIN:     # a long text: the master pattern, compiled once, is worth its cost
            if self.root is None:
                self.root = re.compile(self.root_pattern)
            root = self.root.match
        stack = [self.start]
        values: list = []
        pos, line, line_start = 0, 1, 0
        end = self.end
        while True:
            if pos < n:
                state = stack[-1]
                lexer = lexers[state] or self._lexer(state)
                m = root(text, pos) if root is not None else None
                found = None
                if m is not None:
                    kind = m.lastgroup
                    value = m.group()
                    folded = root_unless.get(kind)
                    typ = folded.get(value, kind) if folded else kind
                    if kind in lexer.terms and typ in lexer.terms:
                        found = typ, value, kind
                if found is None:
                    found = lexer.match(text, pos, patterns)
                    if found is None:
                        raise Refused(f"no token at {pos}")
                typ, value, kind = found
                column = pos - line_start + 1
                start_line, start = line, pos
                if kind in newline:
                    k = value.count("\n")
                    if k:
                        line += k
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if kind in ignore:
                    continue
                tok = Token(typ, value, start, start_line, column, line, pos - line_start + 1, pos)
            else:               # the end: reduce until the start symbol is complete
                typ, tok = "$END", None
            while True:
                act = (states[stack[-1]] or self._row(stack[-1])).get(typ)
                if act is None:
                    raise Refused(f"unexpected {typ}")
                if act >= 0:
                    if tok is None:
                        raise Refused("the end cannot be shifted")
                    stack.append(act)
                    values.append(tok)
                    break
                origin, size, call = rules[~act] or self._rule(~act)
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                values.append(call(children))
                stack.append((states[stack[-1]] or self._row(stack[-1]))[origin])
                if tok is None and stack[-1] == end:
                    return values[-1]


def _callback(name: str, expand1: bool, include, user):
    """A rule's reduction as lark composes it: the child filter (drop filtered-out tokens, splice
    the children of inlined `_rules`), then `?rule`'s single-child expansion, then the
    transformer's method (or a Tree)."""
    if user is None:
        def user(children, name=name):
            return Tree(name, children)
    inner = user
    if expand1:
        def inner(children, user=user):
            return children[0] if len(children) == 1 else user(children)
    if include is None:
        return inner
    include = [(i, bool(x)) for i, x in include]

    def filtered(children, include=include, inner=inner):
        out: list = []
        for i, expand in include:
            if expand:
                if out:
                    out += children[i].children
                else:       # as lark: the spliced list itself (left recursion)
                    out = children[i].children
            else:
                out.append(children[i])
        return inner(out)
    return filtered
