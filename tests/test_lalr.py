"""The model's parser on our own LALR driver (rulesdsl/lang/lalr.py) parses as Lark does: every
.rules file of the repository to the same model, and the fuzz corpus' damaged files to the same
model, the same builder errors, or a refusal exactly where Lark raises a syntax error (whose
located message Lark then gives, as before). A new question's parse imports no lark; the tables
are the same bytes whatever the process's string hashes."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rulesdsl.lang import lalr, parser
from rulesdsl.lang.diagnostics import DslError
from rulesdsl.regress.fuzzing import KINDS, Case, cases

REPO = Path(__file__).resolve().parent.parent
ALL_FILES = sorted(p for p in REPO.rglob("*.rules") if not any(part.startswith(".") for part in p.parts))
CORPUS = sorted(p for d in ("cards", "rulings", "examples") for p in (REPO / d).rglob("*.rules"))


def by_lark(text: str, file: str):
    """("ok", document) / ("errors", messages) / ("syntax", None), from Lark itself."""
    lark = parser._lark_lib()
    parser._BUILDER.reset(file)
    try:
        decls = parser._lark().parse(text)
    except lark.exceptions.UnexpectedInput:
        return "syntax", None
    finally:
        parser._BUILDER.heights = {}
    return _outcome(decls, file)


_DRIVERS: dict = {}


def _driver(compile_after: int):
    """A driver whose lexers match their alternation after `compile_after` tokens (0: always)."""
    if compile_after not in _DRIVERS:
        _DRIVERS[compile_after] = lalr.Driver(lalr.tables_of(parser._lark()), parser._BUILDER, compile_after)
    return _DRIVERS[compile_after]


def by_driver(text: str, file: str, compiled: bool = False):
    """The same from the driver; `compiled`: every state's lexer matching its terminals'
    alternation from the start, else trying them one by one (see lalr.LEXER_COMPILE_AFTER)."""
    driver = _driver(0 if compiled else 10 ** 12)
    parser._BUILDER.reset(file)
    try:
        decls = driver.parse(text)
    except lalr.Refused:
        return "syntax", None
    finally:
        parser._BUILDER.heights = {}
    return _outcome(decls, file)


def both_ways(text: str, file: str):
    """The driver's outcome, the same with each state's patterns one by one and with their
    alternation."""
    ours = by_driver(text, file)
    assert by_driver(text, file, compiled=True) == ours, file
    return ours


def _outcome(decls, file: str):
    try:
        return "ok", parser._built(decls, file)
    except DslError as e:
        return "errors", list(e.diagnostics)


def test_every_rules_file_of_the_repository_parses_to_the_same_model_as_with_lark():
    assert len(ALL_FILES) > 100
    for path in ALL_FILES:
        text = path.read_text(encoding="utf-8")
        file = path.relative_to(REPO).as_posix()
        ours, theirs = both_ways(text, file), by_lark(text, file)
        assert ours == theirs, file


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_files_parse_or_are_refused_as_with_lark(kind):
    seen = {"ok": 0, "errors": 0, "syntax": 0}
    picked = [c for c in cases(CORPUS, REPO, len(CORPUS) * len(KINDS) * 2) if c.kind == kind]
    for case in picked:
        text = case.mutated().decode("utf-8", errors="replace").replace("\x00", "")
        ours, theirs = both_ways(text, case.rel), by_lark(text, case.rel)
        assert ours == theirs, str(case)
        seen[ours[0]] += 1
    assert sum(seen.values()) == len(picked) > 50


def test_keywords_names_dates_and_numbers_are_told_apart_in_every_context():
    # the contextual lexer's corners: a keyword where only a name fits, a date where a number
    # could be, an `=` that is a probability's operator or a setting's
    rng = random.Random(25)
    words = ["card", "scenario", "as", "of", "2026", "2026-03", "12", "1/2", "60kg", "=", ">=", "x.y", '"t"',
             "{", "}", "\n", "confirmed", "undated", "best", "for", "plan", "probability", "set", "-1", "0.5"]
    base = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8").split(" ")
    for n in range(400):
        toks = list(base)
        for _ in range(3):
            toks.insert(rng.randrange(len(toks)), rng.choice(words))
        text = " ".join(toks)
        assert both_ways(text, "x.rules") == by_lark(text, "x.rules"), text


def test_a_syntax_error_keeps_lark_s_located_message():
    text = 'scenario grm/judge/x "t" {\n  as 2026-09-01\n}\n'
    with pytest.raises(DslError) as e:
        parser.parse_text(text, "q.rules")
    (d,) = e.value.diagnostics
    assert (d.code, d.loc.line) == ("syntax", 2)
    assert "as of" in (d.hint or "")


def test_a_new_question_s_parse_imports_no_lark(tmp_path):
    env = dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache"))
    script = ("import sys\nfrom rulesdsl.lang.parser import parse_text\n"
              "parse_text(open(sys.argv[1], encoding='utf-8').read(), 'q.rules')\n"
              "print('lark' in sys.modules)\n")
    q = str(REPO / "examples/judge-question.rules")
    outs = [subprocess.run([sys.executable, "-c", script, q], env=env, capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)]
    assert outs == ["True", "False"]          # the first made the driver's tables from Lark's parser


def test_the_shipped_tables_are_the_same_bytes_whatever_the_string_hashes(tmp_path):
    """Lark numbers its states in its sets' order, which follows PYTHONHASHSEED: the tables the
    wiki ships (and the private cache keeps) are numbered from the start state instead, so two
    builds from fresh caches write the same parser.json."""
    script = ("import hashlib, sys\nfrom rulesdsl.lang.parser import shipped_tables\n"
              "sys.stdout.write(hashlib.sha256(shipped_tables()).hexdigest())\n")
    digests = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, RULESDSL_CACHE=str(tmp_path / f"cache-{seed}"), PYTHONHASHSEED=seed)
        digests.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert len(digests) == 1



def test_children_spliced_as_the_builder_s_sequences_give_the_same_models_as_through_children():
    """With the builder, whose inlined rules all reduce to its `inlined` sequence, the driver
    splices those without `.children` and leaves a rule that only splices one child as that
    child: the same models as splicing every child through `.children` (lark's way)."""
    fast = _driver(0)
    assert fast.inlined is parser._BUILDER.inlined
    general = lalr.Driver(lalr.tables_of(parser._lark()), parser._BUILDER, 0)
    general.inlined = None      # before any rule is made: every reduction as lark composes it
    for path in ALL_FILES:
        text = path.read_text(encoding="utf-8")
        file = path.relative_to(REPO).as_posix()
        got = []
        for driver in (fast, general):
            parser._BUILDER.reset(file)
            try:
                got.append(_outcome(driver.parse(text), file))
            except lalr.Refused:
                got.append(("syntax", None))
            finally:
                parser._BUILDER.heights = {}
        assert got[0] == got[1], file


def test_a_transformer_with_its_own_method_for_an_inlined_rule_is_spliced_through_children():
    class Own(type(parser._BUILDER)):
        def _arg(self, children):       # an inlined rule of the grammar, made otherwise
            return lalr.Tree("_arg", children)
    specs = lalr.tables_of(parser._lark())["rules"]
    assert lalr._inliner(parser._BUILDER, specs) is parser._BUILDER.inlined
    assert lalr._inliner(Own(), specs) is None
    assert lalr._inliner(object(), specs) is None


def _tokens(tree) -> list:
    out = []
    for child in tree.children:
        if isinstance(child, str):
            out.append(child)
        elif child is not None:
            out.extend(_tokens(child))
    return out


def test_the_driver_s_tokens_start_and_end_where_lark_s_do():
    """The driver stores where a token starts; where it ends (`end_pos`, `end_line`,
    `end_column`) is read from that and its text: the same as Lark's own tokens, multi-line
    strings, CRLF line ends and text after a tab or an ideographic space included."""
    driver = lalr.Driver(lalr.tables_of(parser._lark()), None, 0)
    raw = parser.raw_parser()
    texts = [p.read_text(encoding="utf-8") for p in CORPUS[::5]]
    texts.append('card grm X "x" {\r\n  text """one\r\n  two"""\r\n\tnote\u3000"three"  # four\r\n'
                 '  effect e { ex_limit 3 }\r\n}\r\n')
    for text in texts:
        ours, theirs = _tokens(driver.parse(text)), _tokens(raw.parse(text))
        assert len(ours) == len(theirs) > 3
        for a, b in zip(ours, theirs):
            fields = ("type", "value", "start_pos", "line", "column", "end_pos", "end_line", "end_column")
            assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields], (a, b)
