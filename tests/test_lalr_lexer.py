"""The driver's lexers (rulesdsl/lang/lalr.py, lexre.py) take the token lark's order takes: each
state's alternation, its terminals put in another order where no character can begin two of them
and its repeats made possessive where giving back cannot help, matches at every position what
the plain alternation of the same terminals in lark's order matches — the same terminal, the same
span, or nothing (the same refusal) — over the repository's .rules files, a generated knowledge
base and texts of every terminal's awkward cases; and the possessive patterns match as the
patterns as written do, groups and all."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulesdsl.lang import lalr, lexre, parser

REPO = Path(__file__).resolve().parent.parent
RULES = sorted(p for p in REPO.rglob("*.rules") if not any(part.startswith(".") for part in p.parts))

AWKWARD = [
    # keywords that begin names, names with dots, slashes and dashes, a keyword alone
    "cardinal card card_x scenario_1 scenarios section-2 set setting sets source.x/y unknownx unknown",
    "revision2 undated_x undated confirmedly confirmed at_least_x at_least of offer as assume best",
    # CRLF, tabs, ideographic spaces, comments with and without their line's end
    "card X {\r\n\ttext \"a\"\u3000# c\r\n  \t\u3000;; ;\r\n}\r\n# last",
    "\u3000\t \n\n  # one\n# two\r\n\t;x",
    # strings: escapes, a quote escaped at the end, multi-line, triple quotes and their quotes
    '"a\\"b" "a\\\\" "a\\nb" "x\ny" "unterminated',
    '"""one\n"two"\n""three""" """ """" """"" """a\\"""b""" """unterminated\n"',
    '"\\\n" "日本語の「文」" """\\x""" "\\u3042"',
    # numbers, quantities, dates, probabilities
    "10kg 10 -3.5 12.kg.3 1/2 3/4x 0.5 7. -x 2026 2026-03 2026-03-14 2026-summer 2026x 20261",
    "60kg 1.5m 2026-winter 2026-13-99 99999 1-2 >= <= = \u2265 \u2264 == =>",
    # brackets, braces, parentheses, separators, characters no terminal begins with
    "[a, b,\n c] {x} (y) @2026 a.b, ~ ! $ % ^ & * ` | ? ' \u00e9 \u3042 \u0663 \uff11 \U0001f600",
]


def plain(scan: list):
    """The alternation as lark's contextual lexer matches it: terminals in lark's order, as written."""
    parts, names = [], [None]
    for name, rx in scan:
        names += [None] * re.compile(rx).groups + [name]
        parts.append(f"(?:{rx})()")
    return re.compile("|".join(parts)).match, names


def _token(m, names):
    return None if m is None else (m.span(), names[m.lastindex])


def _lexers(met_ways: int, seed: int):
    """(plain match, its names, [the driver's lexer with each of `met_ways` counts of tokens met])
    for every distinct lexer of the grammar's tables."""
    rnd = random.Random(seed)
    out, seen = [], set()
    for spec in lalr.tables_of(parser._lark())["lexers"]:
        key = repr(spec["scan"])
        if key in seen:
            continue
        seen.add(key)
        n = len(spec["scan"])
        mets = [[0] * n, list(range(n)), list(range(n, 0, -1))]
        mets += [[rnd.randrange(1000) for _ in range(n)] for _ in range(met_ways)]
        ours = []
        for met in mets:
            lexer = lalr._Lexer(spec, 10 ** 9)
            lexer.met = met
            lexer.compile()
            ours.append(lexer)
        out.append((*plain(spec["scan"]), ours))
    return out


def _same_tokens(lexers, text: str, positions) -> int:
    compared = 0
    patterns: dict = {}
    for match, names, ours in lexers:
        one_by_one = lalr._Lexer({"scan": ours[0].scan, "unless": {}}, 10 ** 9)
        for pos in positions:
            want = _token(match(text, pos), names)
            for lexer in ours:
                got = _token(lexer.alternation(text, pos), [k and k[0] for k in lexer.names])
                assert got == want, (text[pos:pos + 40], pos, [n for n, _ in ours[0].scan])
            m, name = one_by_one.match(text, pos, patterns)
            assert (None if m is None else (m.span(), name[0])) == want, (text[pos:pos + 40], pos)
            compared += 1
    return compared


def _starts(text: str, every: int):
    """Where tokens may start: after a space, a line's end or punctuation, and every `every`th."""
    return [i for i in range(len(text))
            if i % every == 0 or text[i - 1] in ' \t\r\n\u3000"{}[](),=@;#' or not text[i].isalnum()]


def test_the_lexers_take_lark_s_token_at_every_position_of_awkward_texts():
    lexers = _lexers(3, 1)
    assert len(lexers) > 30
    for text in AWKWARD:
        _same_tokens(lexers, text, range(len(text)))


def test_the_lexers_take_lark_s_token_over_the_repository_s_rules_files():
    lexers = _lexers(1, 2)
    assert len(RULES) > 100
    compared = 0
    for i, path in enumerate(RULES):
        text = path.read_text(encoding="utf-8")
        compared += _same_tokens(lexers if i % 4 == 0 else lexers[::7], text, _starts(text, 5))
    assert compared > 100_000


def test_the_lexers_take_lark_s_token_over_a_generated_knowledge_base(tmp_path):
    gen = REPO / "benchmarks" / "gen_corpus.py"
    subprocess.run([sys.executable, str(gen), str(tmp_path / "kb"), "--cards", "40", "--revisions", "160",
                    "--scenarios", "40", "--seed", "3"], check=True, capture_output=True, timeout=600)
    files = sorted((tmp_path / "kb").rglob("*.rules"))
    assert len(files) > 20
    lexers = _lexers(1, 3)
    for path in files[::3]:
        text = path.read_text(encoding="utf-8")
        _same_tokens(lexers[::3], text, _starts(text, 7))


def test_the_whitespace_an_alternation_takes_after_a_token_is_what_every_state_would_skip_there():
    """A compiled alternation ends with `lexre.trailing`'s pattern: after the same token as lark's
    order takes (its terminal's group ends it), it takes whitespace only where every lexer of the
    grammar, whichever state the token leads to, would match there the ignored terminal, exactly
    as far — never before a line's end, a `;` or a comment that `_SEP` takes with its spaces."""
    tables = lalr.tables_of(parser._lark())
    trail = lexre.trailing([spec["scan"] for spec in tables["lexers"]], tables["ignore"], tables["newline"])
    assert trail
    specs = list({repr(s["scan"]): s for s in tables["lexers"]}.values())
    plains = [plain(spec["scan"]) for spec in specs]
    texts = AWKWARD + ["card x  \n y \t; z\u3000 # c\n w  \r\n v \u3000\t\t", "a  ;", "a \t", "x #"]
    texts += [path.read_text(encoding="utf-8") for path in RULES[::9]]
    taken = 0
    for spec, (match, names) in list(zip(specs, plains))[::4]:
        lexer = lalr._Lexer({"scan": spec["scan"], "unless": {}}, 0, trail=trail)
        for text in texts:
            for pos in _starts(text, 3):
                want, m = _token(match(text, pos), names), lexer.alternation(text, pos)
                got = None if m is None else ((pos, m.end(m.lastindex)), lexer.names[m.lastindex][0])
                assert got == want, (text[pos:pos + 30], pos)
                if m is not None and m.end() > m.end(m.lastindex):
                    taken += 1
                    after = m.end(m.lastindex)
                    for other, other_names in plains:
                        assert _token(other(text, after), other_names) == ((after, m.end()), "WS"), \
                            (text[pos:pos + 30], pos)
    assert taken > 1000


# ----------------------------------------------------------------------------- lexre

PATTERNS = [
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"',
    r"[A-Za-z_][A-Za-z0-9_\-]*(?:[.\/][A-Za-z0-9_\-]+)*",
    r"(?:[\t \u3000]*(?:#[^\n]*\r?\n|\r?\n|;))+[\t \u3000]*",
    r"\d{4}(?:-(?:\d{1,2}(?:-\d{1,2})?|spring|summer|autumn|winter))?(?![\w.\-])",
    r"-?\d+(?:\.\d+)?(?![\w.\-])", r"\d+\/\d+|\d+(?:\.\d+)?(?![\w.\-\/])",
    # where giving back a repetition does let the rest match: must stay as written
    r"(?:a|b)*b", r"(?:ab|a)*b", r"(?:a|ab)*c", r"a*a", r"[ab]*a", r"(?:a|\\.)*\\", r"(?:ab)*ac",
    r"(?:a|b){2,}c", r"(?:[ab]|c){2,3}", r"(?:a|bc){0,2}b", r"(a|b)*\1", r"(?:x(a)|b)*c",
    r"(?i:a)*A", r"(?:a|b)*(?=b)", r"(?:a|b)*$", r"(?:a|b)*\b", r"a*(?:b|)a", r"(?:a|b)*(?:a|c)",
    r'"(?:[^"]|"")*"', r"(?:.|b)*b", r"(?:a|[^a])*a", r"x*y?x", r"(?:a|b)+?b", r"(?:[^a]|a)*",
    r"(?:a|b)*+c", r"(?>a*)a", r"[a-c]*(?:c|d)", r"(?:a|b)*[cb]",
    # look-aheads (their bodies' repeats possessive where nothing after them in the body needs
    # what they give back) and a look-behind holding one (lexre.trailing's form)
    r"x(?=(?:a|b)*b)", r"x(?!(?:ab|a)*b)a", r"(?=[ab]*)a+", r"a(?!(?:[ ]*(?:#[^\n]*\r?\n|\r?\n|;))+[ ]*)",
    r"(?:x|y)(?:[ \t](?<=(?![ \t]*[#;\n])[ \t])[ \t]*|)", r"(?:a|b)*(?=(?:a|b)*c)",
]
ALPHABET = 'ab"\\\n xyc;#\t\u3000-.0123456789/ABdefinrstuw\r'


def test_possessive_patterns_match_as_written_groups_and_all():
    rnd = random.Random(5)
    for rx in PATTERNS:
        written, ours = re.compile(rx).match, lexre.compile_possessive(rx).match
        for _ in range(3000):
            text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randrange(0, 12)))
            pos = rnd.randrange(len(text) + 1)
            a, b = written(text, pos), ours(text, pos)
            assert (a and a.regs) == (b and b.regs), (rx, text, pos)


def test_the_strings_runs_are_possessive_and_what_can_give_back_is_not():
    from re import _constants as c, _parser as p

    def ops(rx):
        tree = p.parse(rx)
        lexre._possessive(tree, True)
        return str(list(tree))

    # "…"'s body runs, """…"""'s (whose quotes may end it) not
    assert "POSSESSIVE_REPEAT" in ops(PATTERNS[0]) and "MAX_REPEAT" in ops(PATTERNS[0])
    for rx in (r"(?:a|b)*b", r"(?:ab|a)*b", r"a*a", r"(?:a|b)*(?=b)", r"(?:a|b){2,}b", r"(?i:a)*A"):
        assert "POSSESSIVE" not in ops(rx), rx
    for rx in (r"(?:a|b){2,}c", r"(?:a|\\.)*c", r"x[ab]*"):
        assert "POSSESSIVE" in ops(rx), rx
    assert c.POSSESSIVE_REPEAT


def test_a_pattern_s_first_characters_hold_every_character_its_matches_begin_with():
    rnd = random.Random(7)
    for rx in PATTERNS + [r"(?i:k)x", r"\s\S", r"[^\d]", r"\w+", r"(?:)a", r"\Ab"]:
        first = lexre.begins(rx)
        match = re.compile(rx).match
        for _ in range(2000):
            text = "".join(rnd.choice(ALPHABET + "K") for _ in range(rnd.randrange(1, 8)))
            m = match(text)
            if m is not None and m.end() > 0:
                assert first is None or first[1](text[0]), (rx, text)
            if first is not None and first[0] is not None:
                assert first[1](text[0]) == (text[0] in first[0])
    assert lexre.begins(r"a*") is None and lexre.begins(r"(?i:k)") is None     # empty, folded: any
    assert not lexre.may_share(lexre.begins("card"), lexre.begins(r"\d+"))
    assert lexre.may_share(lexre.begins("card"), lexre.begins(r"[a-z]+"))


@pytest.mark.parametrize("weights", ["none", "met"])
def test_a_lexer_s_order_keeps_each_terminal_after_those_before_it_that_share_a_first_character(weights):
    for spec in lalr.tables_of(parser._lark())["lexers"]:
        scan = spec["scan"]
        met = [0] * len(scan) if weights == "none" else [len(scan) - i for i in range(len(scan))][::-1]
        order = [tuple(t) for t in lalr._order(scan, met)]
        assert sorted(order) == sorted(map(tuple, scan))
        at = {t: i for i, t in enumerate(order)}
        for i, (a, ra) in enumerate(scan):
            for b, rb in scan[i + 1:]:
                if lexre.may_share(lexre.begins(ra), lexre.begins(rb)):
                    assert at[(a, ra)] < at[(b, rb)], (a, b)
