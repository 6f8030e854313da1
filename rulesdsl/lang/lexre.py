"""The lexer's regular expressions (lalr.py): which characters a terminal's match can begin with,
and a state's alternation of terminals compiled so that `re` does less work for the same matches.

`begins(rx)` reads a pattern as Python's `re` parses it (`re._parser`) and gives what a non-empty
match of it can begin with: a test of one character true for every such character (perhaps for
more, never for fewer), and those characters themselves when they are few and plain (literals
and ranges). Whatever it does not follow — a back reference, a conditional group, case folding,
a character class it does not know — counts as "any character"; so does a pattern that can match
the empty string. Zero-width items (anchors, look-arounds) are passed over: they can only make a
match fail, never begin it with another character. `may_share(a, b)`: whether two patterns'
matches can begin with the same character; False only where that is certain.
`skipped_unentered(rx)`: whether `re` passes over the pattern, as an alternative, on its first
character without entering it.

`compile_possessive(pattern)`: the pattern compiled with some of its greedy repeats made
possessive (see `_possessive`), where no text can tell the two apart: the same match, the same
groups, for `match` (not `fullmatch`, whose end is one more thing to match); the pattern as
`re.compile` makes it where `re`'s parser and compiler are not at hand.
"""

from __future__ import annotations

import re
from functools import cache

try:
    from re import _constants as _c, _parser as _p
except ImportError:         # a runtime without them: every pattern may begin with any character
    _c = _p = None

# A pattern's first characters: (a frozenset of them, or None where they are not few and plain;
# a test of one character), or _ANY.
_ANY = None
_FEW = 256      # a class of more characters than this is kept as its test only


@cache
def begins(rx: str):
    """What a match of `rx` can begin with: (its first characters if few and plain, else None;
    a test of one character), or None for any character. Read once per pattern."""
    if _p is None:
        return _ANY
    try:
        parsed = _p.parse(rx)
    except Exception:   # noqa: BLE001 — a pattern this module cannot read: any character
        return _ANY
    if parsed.state.flags & _c.SRE_FLAG_IGNORECASE:
        return _ANY
    firsts, empty = _sequence(list(parsed), False)
    if empty or firsts is _ANY:
        return _ANY
    return _union(firsts)


def may_share(a, b) -> bool:
    """Whether matches of two patterns (`begins`' answers) can begin with the same character."""
    if a is _ANY or b is _ANY:
        return True
    (a_chars, a_test), (b_chars, b_test) = a, b
    if a_chars is not None:
        return any(map(b_test, a_chars))
    if b_chars is not None:
        return any(map(a_test, b_chars))
    return True


@cache
def skipped_unentered(rx: str) -> bool:
    """Whether `re`, trying `rx` as one alternative of an alternation, can pass over it on the
    character at hand without entering it: its first item is a literal or a character class (what
    `re`'s alternation checks first); not so a repeat (`[ ]+`, `-?\\d`), a group or a branch."""
    try:
        items = list(_p.parse(rx))
    except Exception:   # noqa: BLE001 — not read (or no `re._parser`): entered
        return False
    return bool(items) and items[0][0] in (_c.LITERAL, _c.IN)


def _union(firsts: list):
    chars: set = set()
    for few, _ in firsts:
        if few is None:
            chars = None
            break
        chars |= few
    tests = [test for _, test in firsts]
    if chars is not None:
        return frozenset(chars), frozenset(chars).__contains__
    if len(tests) == 1:
        return None, tests[0]
    return None, lambda ch: any(t(ch) for t in tests)


def _sequence(items: list, fold: bool):
    """(the first characters of a match of the sequence `items` as a list of (few, test), or _ANY;
    whether it can match the empty string)."""
    firsts: list = []
    for op, av in items:
        got, empty = _item(op, av, fold)
        if got is _ANY:
            return _ANY, False
        firsts += got
        if not empty:
            return firsts, False
    return firsts, True


def _item(op, av, fold: bool):
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):         # zero-width
        return [], True
    if op is _c.LITERAL:
        if fold:
            return _ANY, False
        few = frozenset(chr(av))
        return [(few, few.__contains__)], False
    if op is _c.IN:
        return (_ANY if fold else [_in(av)]), False
    if op is _c.BRANCH:
        firsts, empty = [], False
        for seq in av[1]:
            got, e = _sequence(list(seq), fold)
            if got is _ANY:
                return _ANY, False
            firsts += got
            empty = empty or e
        return firsts, empty
    if op is _c.SUBPATTERN:
        _group, add, remove, seq = av
        return _sequence(list(seq), (fold or bool(add & _c.SRE_FLAG_IGNORECASE))
                         and not remove & _c.SRE_FLAG_IGNORECASE)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)):
        low, _high, seq = av
        got, empty = _sequence(list(seq), fold)
        return got, empty or low == 0
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _sequence(list(av), fold)
    return _ANY, False      # ANY, NOT_LITERAL, back references, conditional groups…


_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


def _in(av: list) -> tuple:
    """(few, test) of a character class `[…]` as parsed: its literals, ranges and categories,
    negated or not (a category it does not know: any character)."""
    negate = bool(av) and av[0][0] is _c.NEGATE
    chars, ranges, classes = set(), [], []
    for op, arg in av[negate:]:
        if op is _c.LITERAL:
            chars.add(chr(arg))
        elif op is _c.RANGE:
            ranges.append((chr(arg[0]), chr(arg[1])))
        elif op is _c.CATEGORY and str(arg) in _CATEGORIES:
            classes.append(re.compile(_CATEGORIES[str(arg)]).match)
        else:
            return None, lambda ch: True
    if not negate and not classes and len(chars) + sum(ord(hi) - ord(lo) + 1 for lo, hi in ranges) <= _FEW:
        few = frozenset(chars.union(*(map(chr, range(ord(lo), ord(hi) + 1)) for lo, hi in ranges)))
        return few, few.__contains__

    def test(ch: str) -> bool:
        inside = ch in chars or any(lo <= ch <= hi for lo, hi in ranges) or any(m(ch) for m in classes)
        return inside is not negate
    return None, test


# ----------------------------------------------------------------------------- possessive repeats

@cache
def compile_possessive(pattern: str):
    """`pattern` compiled, its greedy repeats made possessive where that cannot change a match
    (kept per pattern, as `re.compile`'s own cache keeps what it compiles)."""
    try:
        from re import _compiler
        tree = _p.parse(pattern)
        if tree.state.flags & _c.SRE_FLAG_IGNORECASE:
            return re.compile(pattern)
        _possessive(tree, True)
        return _compiler.compile(tree)
    except Exception:   # noqa: BLE001 — a runtime whose `re` differs: as written
        return re.compile(pattern)


_SINGLE = ()    # the one-character items (set once the constants are at hand)
if _c is not None:
    _SINGLE = (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY)


def _possessive(seq, tail: bool) -> None:
    """Make possessive, in the sequence `seq` (a parsed SubPattern, changed in place), each greedy
    repeat whose giving back a repetition could never let the rest of the pattern match where
    its longest run does not (`tail`: whatever follows `seq` matches wherever it starts):

    - what follows it in the pattern matches wherever it starts (repeats of at least nothing,
      empty groups, then the pattern's end): the repeat's first run is the match either way;
    - or its body is one-way (alternatives of one-character items, each beginning with
      characters no other can: one run of repetitions at most, each of one length) and the
      item after it needs a character the body cannot begin with: a shorter run ends where
      the body begins again, where that item cannot match.

    A one-way body repeated at least once at most (`*`, `+`) also takes, in an alternative of
    one class, the class's whole run at once (`[^"\\\\]` → `[^"\\\\]++`): the same run ends it."""
    seq.width = None        # the widths re's parser kept are stale once an item changes
    for i, (op, av) in enumerate(seq):
        after = seq.data[i + 1:]
        rest = tail and all(_always(x) for x in after)
        if op is _c.MAX_REPEAT:
            low, high, body = av
            _possessive(body, False)
            one_way = _one_way(body)
            if rest or (one_way is not None and after and _needs_other(after[0], one_way)):
                if one_way is not None and high is _c.MAXREPEAT and low <= 1:
                    _runs(body)
                seq[i] = (_c.POSSESSIVE_REPEAT, (low, high, body))
        elif op is _c.BRANCH:
            for alt in av[1]:
                _possessive(alt, rest)
        elif op is _c.SUBPATTERN and not av[1] and not av[2]:
            _possessive(av[3], rest)
        elif op in (_c.ASSERT, _c.ASSERT_NOT) and av[0] == 1:
            _possessive(av[1], True)    # a look-ahead holds if its body matches at all: nothing follows it
        elif op in (_c.ASSERT, _c.ASSERT_NOT):      # a look-behind: only the look-aheads in it
            for op2, av2 in av[1]:
                if op2 in (_c.ASSERT, _c.ASSERT_NOT) and av2[0] == 1:
                    _possessive(av2[1], True)


def _always(item) -> bool:
    """Whether `item` matches wherever it starts (taking what it can)."""
    op, av = item
    if op is _c.SUBPATTERN:
        return not av[1] and not av[2] and all(_always(x) for x in av[3])
    if op is _c.BRANCH:         # an alternative that matches wherever it starts
        return any(all(_always(x) for x in alt) for alt in av[1])
    return op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] == 0


def _one_way(body):
    """The first characters (`begins`' form) of a repeat's body made of alternatives of
    one-character items whose first characters no two share; None for any other body."""
    if len(body) == 1 and body[0][0] is _c.BRANCH:
        alts = body[0][1][1]
    else:
        alts = [body]
    firsts = []
    for alt in alts:
        if not len(alt) or any(op not in _SINGLE for op, _ in alt):
            return None
        got, _ = _item(*alt[0], False)
        if got is _ANY:
            return None
        first = _union(got)
        if any(may_share(first, other) for other in firsts):
            return None
        firsts.append(first)
    return _union(firsts)


def _needs_other(item, first) -> bool:
    """Whether `item` cannot match where a character of `first` begins, nor match nothing."""
    got, empty = _item(*item, False)
    return got is not _ANY and not empty and not may_share(_union(got), first)


def _runs(body) -> None:
    """In a one-way body of alternatives, each alternative of one class made its possessive run
    (a body of one class is a run already: `re` repeats it in one loop)."""
    if len(body) != 1 or body[0][0] is not _c.BRANCH:
        return
    for alt in body[0][1][1]:
        if len(alt) == 1 and alt[0][0] is not _c.ANY:
            alt[0] = (_c.POSSESSIVE_REPEAT, (1, _c.MAXREPEAT, _p.SubPattern(alt.state, [alt[0]])))
            alt.width = None
    body.width = None


# ----------------------------------------------------------------------------- whitespace after a token

def trailing(scans: list, ignore, newline) -> str:
    """A pattern to end every state's alternation with, which takes the whitespace after a token
    where the state after that token could only skip it: the one ignored terminal without lines
    that can begin with a space, in every lexer (`scans`: each lexer's [name, regex] list), taken
    only where no other terminal of any lexer that can begin as it does (`_SEP`) matches
    there — so whatever state the token leads to, its lexer would match that ignored terminal
    there, as far, and skip it without a change of state or line. Matches nothing or that
    terminal, never fails, and has no groups (`m.lastindex` still names the token's terminal);
    "" where no terminal is such, or a pattern has groups."""
    terminals: dict = {}
    for scan in scans:
        for name, rx in scan:
            if terminals.setdefault(name, rx) != rx:
                return ""
    chosen = [name for name in sorted(ignore) if name in terminals and name not in newline
              and all(any(n == name for n, _ in scan) for scan in scans)]
    firsts = {name: begins(rx) for name, rx in terminals.items()}
    chosen = [name for name in chosen if firsts[name] is not _ANY and firsts[name][0] is not None
              and firsts[name][1](" ")]
    if not chosen:
        return ""
    name = chosen[0]
    own = firsts[name]
    others = [rx for n, rx in sorted(terminals.items()) if n != name and may_share(firsts[n], own)]
    if any(re.compile(rx).groups for rx in [terminals[name], *others]):
        return ""
    first = "[" + "".join(map(re.escape, sorted(own[0]))) + "]"
    refuse = "(?!" + "|".join(f"(?:{rx})" for rx in others) + ")" if others else ""
    if _run_of_one(terminals[name]):    # `[ \t]+`: its first character then the look-back, so that `re`
        return f"(?:{first}(?<={refuse}{first}){first}*|)"     # passes over it on any other
    return f"(?:(?={first}){refuse}(?:{terminals[name]})|)"


def _run_of_one(rx: str) -> bool:
    """Whether `rx` is one character class (or literal) repeated once or more, nothing else:
    the same as its first characters' class once, then any run of them."""
    items = list(_p.parse(rx))
    if len(items) != 1 or items[0][0] is not _c.MAX_REPEAT:
        return False
    low, high, body = items[0][1]
    return low == 1 and high is _c.MAXREPEAT and len(body) == 1 and body[0][0] in (_c.IN, _c.LITERAL)
