"""rulesdsl/base/patterns.py: a LazyPattern answers as the compiled pattern does and compiles only
when first used (tests/test_answer_path.py: a new question compiles none it never meets)."""

from __future__ import annotations

import re

import pytest

from rulesdsl.base.patterns import LazyPattern


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
