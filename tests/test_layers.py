"""The house keeps its layers (DESIGN.md, Layout; README, Architecture): the top level of the
package holds only `__init__.py`, `__main__.py` and the layer folders; every import — at module
level, inside a function or under TYPE_CHECKING — runs down the layers; no two modules import each
other, directly or round a longer circle; the core never names a game and no game reaches into
another; no module is over 600 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rulesdsl"

# bottom to top: a module may import its own layer and the layers before it
LAYERS = ("base", "lang", "kb", "engine", "games", "regress", "wiki", "cli")
TOP_LEVEL = {"__init__.py", "__main__.py", *LAYERS}
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The rulesdsl modules `name` imports (a package's own `__init__` is not counted when a
    submodule of it is what is imported)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in MODULES else origin for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def layer(name: str) -> int:
    """The layer's rank; the package's own `__init__` (its version) is the base, `__main__` the top."""
    parts = name.split(".")
    if len(parts) == 1:
        return 0
    if parts[1] == "__main__":
        return len(LAYERS)
    return LAYERS.index(parts[1])


def test_the_top_level_holds_only_the_layer_folders():
    here = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert here == TOP_LEVEL


@pytest.mark.parametrize("folder", LAYERS)
def test_every_layer_says_what_it_is_and_what_it_may_import(folder):
    init = PACKAGE / folder / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc, f"{init} has no docstring"
    if folder not in ("base", "games", "wiki"):
        assert re.search(r"may import|imports? nothing|nothing imports", doc, re.I), doc


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return [f"{a} imports {b}, a layer above it" for a, targets in graph.items() for b in sorted(targets)
            if layer(b) > layer(a)]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_import_runs_down_the_layers():
    assert upward_imports(GRAPH) == []


def test_no_module_is_in_a_circle():
    assert circles(GRAPH) == []


def test_the_core_never_names_a_game_and_no_game_reaches_into_another():
    games = {p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").exists()}
    wrong = []
    for a, targets in GRAPH.items():
        for b in targets:
            pa, pb = a.split("."), b.split(".")
            if len(pb) > 2 and pb[1] == "games" and pb[2] in games:
                if len(pa) < 3 or pa[1] != "games" or pa[2] != pb[2]:
                    wrong.append(f"{a} imports {b}")
    assert wrong == []


def test_a_planted_upward_import_and_a_planted_circle_are_found():
    planted = {name: set(targets) for name, targets in GRAPH.items()}
    planted["rulesdsl.lang.model"].add("rulesdsl.cli.main")
    assert upward_imports(planted) == ["rulesdsl.lang.model imports rulesdsl.cli.main, a layer above it"]
    ring = {"rulesdsl.engine.a": {"rulesdsl.engine.b"}, "rulesdsl.engine.b": {"rulesdsl.engine.c"},
            "rulesdsl.engine.c": {"rulesdsl.engine.a"}, "rulesdsl.engine.d": {"rulesdsl.engine.a"}}
    assert circles(ring) == [["rulesdsl.engine.a", "rulesdsl.engine.b", "rulesdsl.engine.c"]]
    # the graph is read from the code: imports that do run down are seen
    assert "rulesdsl.lang.model" in GRAPH["rulesdsl.kb.knowledge"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_600_lines(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name]} has {lines} lines"
