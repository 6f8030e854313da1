"""Shared fixtures: a small knowledge base written into a temporary folder."""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from rulesdsl.cli.main import main
from rulesdsl.kb.build import load

REPO = Path(__file__).resolve().parent.parent

MINI_SOURCE = """\
はじめに
これはテスト用のゲームである。カードX《エックス》がある。
バトル
重いカードが勝つ。同じ重さなら何も起きない（2026年3月確認済み）。
重さの比べ方は変わらない（2026年4月確認済み）。
のちに、同じ重さなら両方裏返る（2026年5月確認済み）。
同じ重さなら両方裏返るものとする（2026年夏暫定裁定）。
スタック
一番上のカードだけが裏返る。
"""

MINI_GAME = """\
game mini "ミニゲーム" {
  document "sources/mini.txt" "テスト資料"
  players 2
  grid 3 3
  mode casual "通常"
  mode tournament "トーナメント"
  point battle.tie "同じ重さのとき" {
    value nothing "何も起きない"
    value both_flip "両方裏返る"
    default nothing unconfirmed from mini/battle
    reason "本文の読み"
  }
  point flip_scope "裏返る範囲" {
    per card
    value top_only "一番上"
    value whole "全体"
    default top_only from mini/stack
  }
  vocabulary {
    enum face "表裏" { up "表向き"; down "裏向き" }
    fact weight "体重" { arg value kg unknown }
    trigger on_play "プレイ時"
    verb draw "{count}枚引く" { arg count int }
    setup field "{cell}に{player}の{card}" { arg cell cell; arg player player; arg card card; arg face face }
    action play "{player}が{card}を{cell}に" { arg player player; arg card card; arg cell cell }
    expect face "{cell}は{face}" { arg cell cell; arg face face }
  }
}

section mini/battle "バトル" {
  source "mini.txt §バトル"
  text "重いカードが勝つ。"
  defines battle.tie
}

section mini/stack "スタック" {
  source "mini.txt §スタック"
  text "一番上のカードだけが裏返る。"
}
"""


def pytest_configure(config):
    """No test writes into the cache folder of the user running the suite: the whole run (its
    subprocesses and the collection of the worked questions included) gets a private one, which
    is removed at the end. A test that needs its own still sets RULESDSL_CACHE. One exception:
    the browser runtime the wiki build gathers from npm and PyPI (≈15 MB, rulesdsl/wiki/ask_bundle.py)
    stays in the user's cache folder across runs — every file of it is checked against its pinned
    digest before it is used — so the suite does not download it each time."""
    from rulesdsl.base import cache
    from rulesdsl.wiki import ask_bundle
    if not os.environ.get(ask_bundle.ENV_RUNTIME):
        try:
            os.environ[ask_bundle.ENV_RUNTIME] = str(ask_bundle.runtime_dir())
        except (ask_bundle.Unavailable, cache.Unavailable, OSError):
            pass                          # no private folder: the run's own cache keeps it
    config._rulesdsl_cache = tempfile.mkdtemp(prefix="rulesdsl-test-cache-")
    os.environ["RULESDSL_CACHE"] = config._rulesdsl_cache


def pytest_unconfigure(config):
    folder = getattr(config, "_rulesdsl_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        if os.environ.get("RULESDSL_CACHE") == folder:
            del os.environ["RULESDSL_CACHE"]


def this_checkout(env: dict) -> dict:
    """`env` with this checkout first on the import path, so that a test starting `python -m
    rulesdsl` (or pytest) in another folder runs the code under test, whatever is installed."""
    paths = [str(REPO), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(env, PYTHONPATH=os.pathsep.join(paths))


def write_kb(root: Path, files: dict[str, str], with_game: bool = True) -> Path:
    """Write a knowledge base: the mini game (unless told not to) plus `files`."""
    all_files = {}
    if with_game:
        all_files["rulings/mini/sources/mini.txt"] = MINI_SOURCE
        all_files["rulings/mini/game.rules"] = MINI_GAME
    all_files.update(files)
    for rel, text in all_files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if not rel.endswith(".txt") else text, encoding="utf-8")
    return root


@pytest.fixture
def kb_root(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    root = tmp_path / "kb"
    root.mkdir()
    return root


@pytest.fixture
def run_cli(capsys):
    """Run the CLI in-process: returns (exit code, stdout, stderr)."""
    def run(*args: str):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err
    return run


@pytest.fixture(scope="module")
def kb():
    """The bundled knowledge base, loaded once per test module."""
    return load(REPO)


@pytest.fixture
def ask(tmp_path, run_cli, monkeypatch):
    """Answer scenario text (a judge's file) against the bundled knowledge base."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))

    def run(text: str, *args: str):
        f = tmp_path / "q.rules"
        f.write_text(textwrap.dedent(text), encoding="utf-8")
        return run_cli("--root", REPO, "ask", f, *args)
    return run


@pytest.fixture
def new_question_probe(tmp_path):
    """Ask the README's judge's question as a new file (outside the knowledge base, its parse
    caches filled by a first question) in a fresh process, through the command line's own entry,
    and return what `report` (Python lines run after it, `answer` holding its output) prints."""
    import subprocess
    import sys

    def probe(name: str, report: str) -> str:
        judge = (REPO / "examples/judge-question.rules").read_text(encoding="utf-8")
        warm, question = tmp_path / "warm.rules", tmp_path / f"{name}.rules"
        warm.write_text(judge.replace("grm/judge/stack", "grm/judge/warm"), encoding="utf-8")
        question.write_text(judge.replace("grm/judge/stack", f"grm/judge/{name}"), encoding="utf-8")
        env = dict(os.environ)
        env.pop("RULESDSL_PYDANTIC", None)
        # the first fills the parse caches (a cold parse imports lark); the second is a new question
        subprocess.run([sys.executable, "-m", "rulesdsl", "ask", str(warm)], cwd=REPO, env=env,
                       capture_output=True, check=True)
        code = ("import sys, io\n"
                "from rulesdsl.cli.fastpath import main\n"
                "out, sys.stdout = sys.stdout, io.StringIO()\n"
                f"main(['ask', {str(question)!r}])\n"
                "answer, sys.stdout = sys.stdout.getvalue(), out\n" + report)
        r = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
        return r.stdout + r.stderr
    return probe


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium through Playwright, one for the whole run (the wiki's browser tests)."""
    from rulesdsl.wiki.testing import launched_chromium
    with launched_chromium() as browser:
        yield browser
