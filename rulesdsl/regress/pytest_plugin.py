"""A pytest plugin (entry point `pytest11`): every scenario with expectations in a `.rules` file
under cards/, rulings/ or tests/ is a test item named `<game>:<scenario id>`.

A failure reads like a judge's answer: each expectation against what was found, the trace of
the branch that broke it, and the rule points and rulings the answer rests on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..base.cache import KB_DIRS, find_root
from ..engine.answer import Answer
from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.runner import answer
from ..kb.build import load
from ..kb.knowledge import KnowledgeBase
from ..kb.loader import display_path
from ..kb.verdict import file_findings
from .failures import describe_failure, pinned_failures

SCENARIO_DIRS = (*KB_DIRS, "tests")


def pytest_addoption(parser):
    group = parser.getgroup("rulesdsl")
    group.addoption("--rulesdsl-root", default=None, help="knowledge base root for scenario tests")


def _session_kb(config) -> KnowledgeBase:
    kb = getattr(config, "_rulesdsl_kb", None)
    if kb is None:
        root = Path(config.getoption("--rulesdsl-root") or find_root(Path(str(config.rootpath))))
        extra = sorted((root / "tests").rglob("*.rules")) if (root / "tests").is_dir() else []
        kb = load(root, extra=extra)
        config._rulesdsl_kb = kb
    return kb


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".rules":
        return None
    try:
        rel = file_path.resolve().relative_to(Path(str(parent.config.rootpath)).resolve())
    except ValueError:
        return None
    if not rel.parts or rel.parts[0] not in SCENARIO_DIRS:
        return None
    return RulesFile.from_parent(parent, path=file_path)


class RulesFile(pytest.File):
    def collect(self):
        kb = _session_kb(self.config)
        shown = display_path(self.path, kb.root)
        problems = file_findings(kb, [shown])   # one verdict per file, as check, ask and test give it
        if problems:
            from ..lang.diagnostics import Sources, render
            sources = Sources()
            raise self.CollectError("\n".join(render(d, sources) for d in problems))
        infos = sorted((s for s in kb.scenarios.values()
                        if s.scenario.loc.file == shown and s.expects),
                       key=lambda s: s.scenario.loc.line)
        for info in infos:
            yield ScenarioItem.from_parent(self, name=f"{info.game}:{info.id}", scenario_id=info.id)


class ScenarioFailed(Exception):
    def __init__(self, answer: Answer):
        super().__init__(answer.verdict())
        self.answer = answer


class PinnedFailed(Exception):
    def __init__(self, failures):
        super().__init__("; ".join(f.describe() for f in failures))
        self.failures = failures


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario_id: str, **kwargs):
        super().__init__(**kwargs)
        self.scenario_id = scenario_id
        self.add_marker(pytest.mark.scenario)
        # a scenario takes no fixtures; pytest-lsp's plugin (installed with the test extra) fails
        # every item that lacks this attribute, which pytest's own test functions have
        self.funcargs: dict = {}

    def runtest(self):
        kb = _session_kb(self.config)
        info = kb.scenarios[self.scenario_id]
        if engine_for(info.game) is None:
            pytest.skip(f"no interpreter for {info.game} yet; the scenario is kept as data")
        result = answer(kb, info)
        self.user_properties.append(("status", result.status.value))
        if not result.ok:
            raise ScenarioFailed(result)
        pinned = pinned_failures(kb, info)
        if pinned:
            raise PinnedFailed(pinned)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return describe_failure(excinfo.value.answer)
        if isinstance(excinfo.value, PinnedFailed):
            return "\n".join(f.describe() for f in excinfo.value.failures)
        if isinstance(excinfo.value, EngineError):
            e = excinfo.value
            return f"{e.loc}: {e.message}" + (f"\n  hint: {e.hint}" if e.hint else "")
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        kb = _session_kb(self.config)
        info = kb.scenarios[self.scenario_id]
        return self.path, info.scenario.loc.line - 1, f"scenario {self.scenario_id}"


def pytest_configure(config):
    config.addinivalue_line("markers", "scenario: a knowledge-base scenario run by the rulesdsl interpreter")
