"""rulesdsl/base/patterns.py: a LazyPattern answers as the compiled pattern does, compiles only
when first used, and a judge's new question compiles none of the module patterns it never meets
(nor imports `string`, whose import compiles Template's pattern)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulesdsl.base.patterns import LazyPattern

ROOT = Path(__file__).resolve().parent.parent


def test_lazy_pattern_answers_as_the_compiled_pattern():
    source, text = r"(\d+)年(春|夏)?", "2026年夏と2025年、1999年春"
    lazy, real = LazyPattern(source), re.compile(source)
    assert lazy.match(text).groups() == real.match(text).groups()
    assert lazy.search("x2026年").span() == real.search("x2026年").span()
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub(r"<\1>", text) == real.sub(r"<\1>", text)
    assert lazy.subn("", text) == real.subn("", text)
    assert lazy.split(text) == real.split(text)
    assert lazy.fullmatch("2026年") is not None and lazy.fullmatch("2026年x") is None
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == \
        (real.pattern, real.flags, real.groups, real.groupindex)
    assert LazyPattern("a.b", re.S).match("a\nb") is not None


def test_lazy_pattern_compiles_on_first_use_only(monkeypatch):
    made = []
    compile_ = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: made.append(a) or compile_(*a))
    lazy = LazyPattern(r"[。、]", 0)
    assert made == []
    assert lazy.split("a。b、c") == ["a", "b", "c"]
    assert lazy.findall("。、") == ["。", "、"]
    assert made == [(r"[。、]", 0)]


def test_lazy_pattern_has_no_other_attributes():
    lazy = LazyPattern("a")
    with pytest.raises(AttributeError):
        lazy.scanner_of_nothing
    with pytest.raises(AttributeError):
        lazy._private
    assert "'a'" in repr(lazy)


def test_a_new_question_compiles_no_pattern_it_does_not_meet(tmp_path):
    judge = (ROOT / "examples/judge-question.rules").read_text(encoding="utf-8")
    warm, question = tmp_path / "warm.rules", tmp_path / "q.rules"
    warm.write_text(judge.replace("grm/judge/stack", "grm/judge/warm"), encoding="utf-8")
    question.write_text(judge.replace("grm/judge/stack", "grm/judge/nopattern"), encoding="utf-8")
    env = dict(os.environ)
    env.pop("RULESDSL_PYDANTIC", None)
    subprocess.run([sys.executable, "-m", "rulesdsl", "ask", str(warm)], cwd=ROOT, env=env, capture_output=True, check=True)
    # module patterns of checks, readings and formats the judge's question never meets
    idle = ["rulesdsl.kb.lint:_RULE_REF", "rulesdsl.kb.lint:_QUOTED", "rulesdsl.engine.sentences:_CAN",
            "rulesdsl.engine.chance:_NUMBERED", "rulesdsl.lang.dates:_JA", "rulesdsl.lang.builder:_ESCAPES",
            "rulesdsl.kb.sources:OMISSION"]
    probe = ("import sys, io\n"
             "from rulesdsl.cli.fastpath import main\n"
             "out, sys.stdout = sys.stdout, io.StringIO()\n"
             f"main(['ask', {str(question)!r}])\n"
             "answer, sys.stdout = sys.stdout.getvalue(), out\n"
             f"idle = {idle!r}\n"
             "made = [n for n in idle if 'match' in vars(getattr(sys.modules[n.split(':')[0]], n.split(':')[1]))]\n"
             "print(answer.startswith('答え: '), 'string' in sys.modules, made)\n")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["True", "False", "[]"], r.stdout + r.stderr
