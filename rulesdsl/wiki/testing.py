"""Helpers shared by the wiki's tests and benchmark: build a site in a subprocess (measuring its
time and peak memory), serve a built site on 127.0.0.1, find Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

REPO = Path(__file__).resolve().parent.parent.parent
MKDOCS_YML = REPO / "mkdocs.yml"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


@dataclass
class BuildResult:
    returncode: int
    seconds: float
    peak_mb: float
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def build_site(root: Path, site_dir: Path, keep_going: bool = False, today: Optional[str] = "2026-11-30",
               extra_env: Optional[dict] = None, config: Path = MKDOCS_YML, strict: bool = False) -> BuildResult:
    """`mkdocs build` of the knowledge base at `root` into `site_dir`, in a fresh process; its
    wall time and its own peak RSS (from wait4)."""
    env = dict(os.environ, RULESDSL_ROOT=str(root), NO_MKDOCS_2_WARNING="1")
    env.pop("RULESDSL_WIKI_KEEP_GOING", None)
    if keep_going:
        env["RULESDSL_WIKI_KEEP_GOING"] = "1"
    if today:
        env["RULESDSL_WIKI_TODAY"] = today
    env.update(extra_env or {})
    cmd = [sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(site_dir)]
    if strict:
        cmd.append("--strict")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=str(REPO))
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return BuildResult(os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024,
                           out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(directory: Path, log: Optional[Path] = None) -> Iterator[str]:
    """Serve `directory` with `python -m http.server` on 127.0.0.1 (a free port); yields the base
    URL. With `log`, the server's log of every request ("GET /path HTTP/1.1" 200 …) goes there."""
    port = free_port()
    err = open(log, "ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(directory)],
                            stdout=subprocess.DEVNULL, stderr=err)
    if log:
        err.close()
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120        # a busy machine starts Python slowly; only this bounds it
    try:
        while True:                          # until the server answers
            try:
                with urllib.request.urlopen(base, timeout=5):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("http.server did not start") from None
                if time.monotonic() > deadline:
                    raise RuntimeError("http.server did not answer within 120 s") from None
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def find_chromium() -> Optional[str]:
    """Debian's chromium (never a browser downloaded by Playwright)."""
    for candidate in (os.environ.get("RULESDSL_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@contextlib.contextmanager
def launched_chromium() -> Iterator:
    """Debian's chromium launched through Playwright, for a test fixture to yield; the test is
    skipped with the reason when either is missing, except under CI (CI=true), where it fails."""
    import pytest
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright for Python is not installed (pip install -e '.[test]')"
    exe = find_chromium()
    if exe is None:
        reason = reason or "Debian's chromium is not installed (apt-get install -y chromium)"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


AXE_DIR = REPO / "tools" / "axe"          # package.json and its lock: axe-core, pinned
AXE_SCRIPT = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"


def find_axe() -> tuple[Optional[Path], str]:
    """axe-core's browser script, installed from npm into tools/axe (`npm ci`, from its lock) if it
    is not there yet; (None, why) when Node's npm is not on this machine or the install fails."""
    if AXE_SCRIPT.exists():
        return AXE_SCRIPT, ""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None, "Node.js and npm are not installed (apt-get install -y nodejs npm), so axe-core cannot be"
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--prefix", str(AXE_DIR)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not AXE_SCRIPT.exists():
        return None, f"npm ci in {AXE_DIR} failed: {(proc.stderr or proc.stdout).strip()[-400:]}"
    return AXE_SCRIPT, ""


def copy_game(dest_root: Path, game: str, with_qa: bool = False) -> Path:
    """Copy one game of this repository's knowledge base (declaration, sources, rule sections,
    rulings, cards; its Q&A only if asked) into `dest_root`."""
    src = REPO / "rulings" / game
    ignore = None if with_qa else shutil.ignore_patterns("qa")
    shutil.copytree(src, dest_root / "rulings" / game, ignore=ignore, dirs_exist_ok=True)
    cards = REPO / "cards" / game
    if cards.is_dir():
        shutil.copytree(cards, dest_root / "cards" / game, dirs_exist_ok=True)
    return dest_root


def write_files(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# The search test set (tests/test_wiki_site.py, benchmarks/bench_search.py): a query and the page that
# defines the word (or the card it names), which must be among the first five results.
SEARCHES = [
    # GRMカード: rule words, card names with and without 《》, codes
    ("裏向き", "grm/rules/state.html#表向き裏向き"),
    ("表向き", "grm/rules/state.html#表向き裏向き"),
    ("裏向きになる", "grm/rules/state.html#表向き裏向き"),
    ("体重", "grm/rules/card.html#体重"),
    ("スタック", "grm/rules/stack.html#スタックの定義"),
    ("誘発", "grm/rules/effects.html#複数の誘発効果が同時に発生した場合"),
    # the sources define none of 無効化, スピード, アプローチ (the glossary says 資料に定義なし): the rule
    # section that uses the word comes before the glossary's entry
    ("無効化", "grm/rules/effects.html#効果の種類_1"),
    ("EXカード", "grm/rules/ex.html#exカードの制限"),
    ("特殊勝利", "grm/rules/victory.html#特殊勝利"),
    ("《火野 アラシ》", "grm/cards/No.054.html"),
    ("火野 アラシ", "grm/cards/No.054.html"),
    ("《髭ヅラ体育教師・須藤》", "grm/cards/No.018.html"),
    ("髭ヅラ体育教師", "grm/cards/No.018.html"),
    ("No.018", "grm/cards/No.018.html"),
    ("PROMO015", "grm/cards/PROMO015.html"),
    ("promo015", "grm/cards/PROMO015.html"),
    # 東方グランドメレー
    ("負傷", "thgm/glossary.html#負傷"),
    ("撃破", "thgm/glossary.html#撃破"),
    ("特殊防御力", "thgm/rules/card.html#特殊防御力"),
    ("振りなおし", "thgm/rules/attack.html#振りなおし"),
    ("《魂魄妖夢》", "thgm/cards/魂魄妖夢.html"),
    # スキル・ロイヤル・ガーディアンTCG
    ("サモン", "royal/glossary.html#サモン"),
    ("スピード", "royal/rules/speed.html#スピード_1"),
    ("キャストオフ", "royal/glossary.html#キャストオフ"),
    # プレシャスメモリーズ
    ("アプローチ", "pm/rules/approach.html#アプローチフェイズ_1"),
    # as readers type: a number with its unit, another verb form, hiragana for katakana
    ("30点", "thgm/qa/victory-score-30.html"),
    ("30点以上", "thgm/rules/victory.html#勝利条件_1"),
    ("すたっく", "grm/rules/stack.html#スタックの定義"),
    ("割り込み", "pm/glossary.html#割り込み"),
    ("ポイント置き場", "pm/glossary.html#ポイント置き場"),
    # status words
    ("確定", "guide/statuses.html#確定"),
    ("暫定", "guide/statuses.html#暫定"),
    ("非公式", "guide/statuses.html#非公式"),
    ("未確定", "guide/statuses.html#未確定"),
    ("※未確定", "guide/statuses.html#未確定"),
]


# ----------------------------------------------------------------------------- a hostile corpus
# A small knowledge base for the wiki's tests: GRM (copied from this repository, without its Q&A)
# plus items whose names and texts carry HTML, `<script>`, Markdown and Jinja syntax, a ruling with
# three dated revisions, and a second game (no interpreter) whose own name is hostile.

XSS = "<script>window.__xss=1</script>"
IMG = "<img src=x onerror=window.__xss=2>"
JINJA = "{{ 7*7 }}{% raw %}"
MD = "**太字**[リンク](javascript:window.__xss=3)"
HOSTILE = f"{XSS}{IMG}{JINJA}{MD}"

CARD_CODE = "<script>window.__xss=4</script>"
CARD_NAME = f"毒《{HOSTILE}》"
RULING_ID = "grm/test/hostile-ruling"
SCENARIO_ID = "grm/qa/hostile-names"
SECTION_ID = "grm/test/hostile-section"

FILES = {
    "cards/grm/hostile.rules": f'''
card grm "{CARD_CODE}" "{CARD_NAME}" {{
  source "000_a437c75d0e53c518.txt §バトルの範囲"
  text "{HOSTILE}"
  weight 60kg
  attribute "{XSS}"
  ex no
  only_one unknown
  type normal
  range orthogonal
  has_effect yes
  effect on_play {{
    draw 1
  }}
  note "{HOSTILE}"
}}
''',
    "rulings/grm/test.rules": f'''
section {SECTION_ID} "節{HOSTILE}" {{
  source "000_a437c75d0e53c518.txt §バトルの勝敗"
  text "本文{HOSTILE}"
  note "{HOSTILE}"
}}

ruling {RULING_ID} "裁定{HOSTILE}" {{
  refs {SECTION_ID} "{CARD_CODE}"
  note "{HOSTILE}"
  revision 2025-01 unconfirmed {{
    source "000_a437c75d0e53c518.txt §バトルの勝敗"
    text "最初の読み{HOSTILE}"
    reason "理由{HOSTILE}"
  }}
  revision 2025-06 provisional {{
    source "000_a437c75d0e53c518.txt §バトルの勝敗"
    text "暫定裁定{HOSTILE}"
  }}
  revision 2026-spring confirmed {{
    source "000_a437c75d0e53c518.txt §バトルの勝敗"
    quote "{HOSTILE}"
    text "統一裁定{HOSTILE}"
  }}
}}
''',
    "rulings/grm/qa/hostile.rules": f'''
scenario {SCENARIO_ID} "場面{HOSTILE}" {{
  question "質問{HOSTILE}"
  note "{HOSTILE}"
  as of 2026-09-01
  pins {RULING_ID} grm/battle/outcome
  card "{CARD_CODE}" {{}}
  card "土台{XSS}" {{ weight 30kg }}
  field b2 P1 "土台{XSS}" up
  hand P2 "{CARD_CODE}"
  turn P2
  play P2 "{CARD_CODE}" c2
  expect face b2 down
  expect owner c2 P2
}}
''',
    "rulings/evil/sources/evil.txt": "はじめに\nこれはテスト用のゲームである。\nバトル\n重いカードが勝つ。\n",
    "rulings/evil/game.rules": f'''
game evil "邪悪{HOSTILE}" {{
  document "sources/evil.txt" "資料{HOSTILE}"
  text "説明{HOSTILE}"
  players 2
  grid 3 3
  mode casual "通常{XSS}"
  term "用語{XSS}" word "注記{HOSTILE}"
  point battle.tie "同点{XSS}" {{
    value nothing "何も{XSS}"
    value both "両方"
    default nothing unconfirmed from evil/battle/tie
    reason "理由{HOSTILE}"
  }}
  vocabulary {{
    enum face "表裏" {{ up "表向き{XSS}"; down "裏向き" }}
    fact weight "体重{XSS}" {{ arg value kg unknown }}
    trigger on_play "プレイ時{XSS}"
    verb draw "{{count}}枚引く{XSS}" {{ arg count int }}
    setup field "{{cell}}に{{player}}の{{card}}{XSS}" {{ arg cell cell; arg player player; arg card card; arg face face }}
    expect face "{{cell}}は{{face}}{XSS}" {{ arg cell cell; arg face face }}
  }}
}}

section evil/battle/tie "同点{HOSTILE}" {{
  source "evil.txt §バトル"
  text "重いカードが勝つ。{HOSTILE}"
  defines battle.tie
}}

card evil C1 "名{HOSTILE}" {{
  weight unknown
  effect on_play {{ draw 1 }}
}}

ruling evil/gap/hostile "欠落{HOSTILE}" {{
  gap missing
  refs evil/battle/tie C1
  revision undated unconfirmed {{
    source "evil.txt §バトル"
    quote "重いカードが勝つ。"
    text "読み{HOSTILE}"
    reason "理由{HOSTILE}"
  }}
}}

scenario evil/qa/hostile "場面{HOSTILE}" {{
  question "質問{HOSTILE}"
  as of 2026-01-01
  pins evil/gap/hostile
  card "仮{XSS}" {{ weight 10kg }}
  field b2 P1 "仮{XSS}" up
  expect face b2 up
}}
''',
}


def write_hostile_corpus(root: Path) -> Path:
    copy_game(root, "grm")
    return write_files(root, {k: v.lstrip("\n") for k, v in FILES.items()})
