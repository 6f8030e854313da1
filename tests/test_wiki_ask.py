"""Asking in the reader's browser: the wiki ships the interpreter (Pyodide and the wheels, gathered
with npm and pip at build time; rulesdsl/wiki/ask_bundle.py), and a page answers a changed or new
question with rulesdsl/wiki/browser.py.

The bundled knowledge base is built once for this module. The runtime is gathered into the test
run's private cache (tests/conftest.py), so a run downloads it once (≈16 MB from npm and PyPI).
A test skips, with the reason, only where a tool is absent (npm, node, chromium, Playwright);
under CI (CI=true) the browser tests must run.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")

from rulesdsl.wiki import ask_bundle, scratch  # noqa: E402
from rulesdsl.wiki.testing import HOSTILE, IMG, REPO, XSS, build_site, serve  # noqa: E402

NODE_TEST = REPO / "tests" / "node" / "ask_questions.mjs"
PER_GAME = 8          # worked questions asked of each game in the runtime (4 games: 32)
browser = pytest.mark.browser


def _need(tool: str) -> str:
    exe = shutil.which(tool)
    if exe is None:
        reason = f"{tool} is not installed"
        if os.environ.get("CI"):
            pytest.fail(f"must run in CI: {reason}")
        pytest.skip(reason)
    return exe


@pytest.fixture(scope="module")
def ask_site(tmp_path_factory) -> Path:
    _need("npm")
    out = tmp_path_factory.mktemp("ask") / "site"
    scratch = tmp_path_factory.mktemp("tmp")
    result = build_site(REPO, out, extra_env={"TMPDIR": str(scratch)})
    assert result.returncode == 0, result.output
    assert "built without 「この質問を変えて聞く」" not in result.output, result.output
    assert (out / ask_bundle.ASSETS / "manifest.json").is_file()
    if os.cpu_count() and os.cpu_count() > 1:   # every test of the runtime tests the one made beside the answers
        assert "made beside the answers" in result.output, result.output
    # the scratch folder the maker left the files in (ask_bundle.scratch) is gone, as is every other
    assert list(scratch.iterdir()) == []
    return out


def editor_questions(site: Path) -> list[dict]:
    """The question on each Q&A page's editor, as the page carries it: {id, game, text, page}."""
    out = []
    for p in sorted(site.glob("*/qa/**/*.html")):
        m = re.search(r'<div class="rd-ask" data-rd-ask="scenario" data-game="([^"]+)".*?<textarea[^>]*>(.*?)</textarea>',
                      p.read_text(encoding="utf-8"), re.S)
        if m:
            text = html.unescape(m.group(2))
            out.append({"id": re.match(r"\s*scenario\s+(\S+)", text).group(1), "game": m.group(1), "text": text,
                        "page": p.relative_to(site).as_posix()})
    return out


def cli_json(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "rulesdsl", "--root", str(REPO), "ask", *args, "--json"],
                          capture_output=True, text=True, cwd=str(REPO))
    return json.loads(proc.stdout)


def same_but_place(browser_json, cli, offsets: set) -> list[str]:
    """Where the two answers differ, except that a place in the reader's text (質問.rules:L:C)
    stands for the same column of the knowledge base's file, one line offset for the whole."""
    diffs = []

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for k in a.keys() | b.keys():
                walk(a.get(k), b.get(k), f"{path}.{k}")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{path}[{i}]")
        elif isinstance(a, str) and a.startswith("質問.rules:") and isinstance(b, str):
            _, la, ca = a.rsplit(":", 2)
            _, lb, cb = b.rsplit(":", 2)
            offsets.add(int(lb) - int(la))
            if ca != cb:
                diffs.append(f"{path}: {a} / {b}")
        elif a != b:
            diffs.append(f"{path}: {str(a)[:80]} / {str(b)[:80]}")

    walk(browser_json, cli, "")
    return diffs


def test_the_runtime_is_gathered_at_the_pinned_versions_and_recorded_in_the_site(ask_site):
    manifest = json.loads((ask_site / ask_bundle.ASSETS / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["pyodide"]["version"] == ask_bundle.PYODIDE_VERSION
    assert manifest["versions"] == {"lark": "1.3.1"}
    # answered on the plain models (base/declared.py), as `rulesdsl ask` is: no pydantic shipped;
    # rulesdsl unpacked as Python starts, lark only when a syntax error needs it
    assert [w.split("/")[1].split("-")[0] for w in manifest["wheels"]] == ["rulesdsl"]
    assert [w.split("/")[1].split("-")[0] for w in manifest["onDemand"]] == ["lark"]
    assert not any("pydantic" in n or "annotated" in n for n in manifest["files"])
    for name, meta in manifest["files"].items():
        data = (ask_site / ask_bundle.ASSETS / name).read_bytes()
        assert ask_bundle.sha256(data) == meta["sha256"], name
    # the parser's tables, made for this grammar and driver (lang.parser.use_shipped_tables)
    from rulesdsl.lang.parser import _driver_inputs
    tables = json.loads((ask_site / ask_bundle.ASSETS / manifest["parser"]).read_bytes())
    assert manifest["parser"] in manifest["files"] and tables["inputs"] == _driver_inputs()
    # each shipped wheel is the pinned one as kept in the cache, trimmed (ask_trim.py)
    from rulesdsl.wiki.ask_trim import trimmed_wheel
    pinned = {f: d for f, d in ask_bundle.WHEELS.values()}
    for w in manifest["wheels"] + manifest["onDemand"]:
        name = w.split("/", 1)[1]
        if name in pinned:
            kept = (ask_bundle.runtime_dir() / name).read_bytes()
            assert ask_bundle.sha256(kept) == pinned[name]
            shipped = (ask_site / ask_bundle.ASSETS / w).read_bytes()
            assert same_but_bytecode(shipped, trimmed_wheel(name, kept)), name
    page = (ask_site / "grm" / "ask.html").read_text(encoding="utf-8")
    assert f"Pyodide {ask_bundle.PYODIDE_VERSION}" in page and "lark 1.3.1" in page


def same_but_bytecode(shipped: bytes, sources: bytes) -> bool:
    """Whether the archive `shipped` holds the files of `sources`, but for some modules as their
    compiled `.pyc` in place of their `.py` (ask_compile.py) and its RECORD saying so."""
    from rulesdsl.wiki.ask_trim import read_zip
    a, b = read_zip(shipped), read_zip(sources)
    as_source = {p[:-1] if p.endswith(".pyc") and p[:-1] in b else p for p in a}
    return as_source == set(b) and all(a[p] == b[p] for p in a if p in b and not p.endswith("/RECORD"))


SCRIPTS = ("rdask.js", "rdask-worker.mjs", "rdask-runtime.mjs", "rdask.css", "rdask-sw.js")


def test_what_a_reader_downloads_to_ask_about_one_game_stays_within_the_budget(ask_site):
    """≤ 15 MB raw for one game (a folder or a plain static host does not compress), of which the
    game's snapshot ≤ 1 MB: the sizes are the build's, the same at every build of the same code."""
    manifest = json.loads((ask_site / ask_bundle.ASSETS / "manifest.json").read_text(encoding="utf-8"))
    scripts = sum((ask_site / "assets" / n).stat().st_size for n in SCRIPTS if (ask_site / "assets" / n).exists())
    runtime = sum(m["bytes"] for n, m in manifest["files"].items() if not n.startswith("games/"))
    for game in manifest["games"]:
        own = {n: m["bytes"] for n, m in manifest["files"].items() if n.startswith(f"games/{game}/")}
        assert own[f"games/{game}/snapshot.json"] <= 1_000_000, game
        total = runtime + sum(own.values()) + scripts + len((ask_site / ask_bundle.ASSETS / "manifest.json").read_bytes())
        assert total <= 15_000_000, (game, total)


def test_the_shipped_runtime_leaves_out_what_the_interpreter_never_imports(ask_site):
    folder = ask_site / ask_bundle.ASSETS / f"pyodide-{ask_bundle.PYODIDE_VERSION}"
    stdlib = {re.sub(r"\.pyc$", ".py", n) for n in zipfile.ZipFile(folder / "python_stdlib.zip").namelist()}
    assert "traceback.py" in stdlib and "difflib.py" in stdlib and "linecache.py" in stdlib
    assert not any(n.startswith(("unittest/", "tkinter/", "idlelib/", "xmlrpc/", "sqlite3/")) for n in stdlib)
    assert json.loads((folder / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"] == {}
    lark = next((ask_site / ask_bundle.ASSETS / "wheels").glob("lark-*.whl"))
    names = {re.sub(r"\.pyc$", ".py", n) for n in zipfile.ZipFile(lark).namelist()}
    assert "lark/lark.py" in names and not any(n.startswith("lark/tools/") for n in names)
    assert ask_bundle.gather() == ask_bundle.gather()            # the same bytes at every build


def test_the_modules_a_first_question_imports_ship_as_bytecode_within_their_growth(ask_site, monkeypatch):
    from rulesdsl.wiki.ask_compile import GROWTH
    from rulesdsl.wiki.ask_trim import read_zip
    top = ask_site / ask_bundle.ASSETS
    stdlib = read_zip((top / f"pyodide-{ask_bundle.PYODIDE_VERSION}" / "python_stdlib.zip").read_bytes())
    compiled = [n for n in stdlib if n.endswith(".pyc")]
    assert compiled and not any(n[:-1] in stdlib for n in compiled)       # in place of the source
    assert any(n.endswith(".pyc") for w in top.glob("wheels/*.whl") for n in read_zip(w.read_bytes()))
    manifest = json.loads((top / "manifest.json").read_text())
    shipped = sum((top / n).stat().st_size for n in manifest["files"]
                  if not n.startswith("games/") and n != manifest["parser"])    # the runtime's files
    monkeypatch.setenv(ask_bundle.ENV_NO_BYTECODE, "1")
    sources = sum(len(d) for d in ask_bundle.gather().values())
    assert 0 < shipped - sources <= GROWTH + 50_000        # the growth as zlib counts it, and the zips' headers


def test_the_bytecode_chosen_saves_the_most_compiling_per_byte_and_none_when_node_fails(tmp_path, monkeypatch):
    import zlib

    from rulesdsl.wiki import ask_compile
    plain, noisy = b"x = 1\n" * 400, bytes(range(256)) * 8
    found = [["stdlib", "a.py", noisy, 10], ["stdlib", "b.py", plain, 900], ["wheels", "c/d.py", plain, 500]]
    sources = {("stdlib", "a.py"): plain, ("stdlib", "b.py"): plain, ("wheels", "c/d.py"): plain}
    grows = len(zlib.compress(noisy, 9)) - len(zlib.compress(plain, 9))
    assert list(ask_compile.chosen(found, sources, growth=10**9)) == [("stdlib", "b.py"), ("wheels", "c/d.py"),
                                                                     ("stdlib", "a.py")]
    assert ("stdlib", "a.py") not in ask_compile.chosen(found, sources, growth=grows - 1)
    assert ask_compile.apply({"a.py": plain, "e.txt": b"e"}, {"a.py": noisy}) == {"a.pyc": noisy, "e.txt": b"e"}

    def fails(*args):
        raise OSError("node is not installed")
    monkeypatch.setattr(ask_compile, "_compile", fails)
    core, wheels = {"python_stdlib.zip": b"zip"}, {"w.whl": b"whl"}
    assert ask_compile.with_bytecode(core, wheels, [], tmp_path) == (
        core, wheels, "shipping the sources without bytecode: node is not installed")


def test_the_bytecode_kept_in_a_runtime_folder_is_read_whatever_the_cache_folder_and_never_when_edited(
        tmp_path, monkeypatch):
    # a runtime kept between builds that each have a cache folder of their own (the benchmarks',
    # the tests') keeps its compiled bytecode: node does not compile it again
    from rulesdsl.wiki import ask_compile
    made = []

    def compile_(core, wheels, games, runtime):
        made.append(1)
        return [["stdlib", "a.py", b"pyc", 3]]
    monkeypatch.setattr(ask_compile, "_compile", compile_)
    runtime, core, wheels = tmp_path / "runtime", {"python_stdlib.zip": b"zip"}, {"w.whl": b"whl"}
    runtime.mkdir(mode=0o700)
    for build in ("first", "second"):
        monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / build))
        assert ask_compile.compiled(core, wheels, ["grm"], runtime) == [["stdlib", "a.py", b"pyc", 3]]
    assert len(made) == 1
    entry = runtime / "compiled-bytecode"
    entry.write_bytes(entry.read_bytes().replace(b"cHlj", b"cHlk"))    # the bytecode edited on disk
    assert ask_compile.compiled(core, wheels, ["grm"], runtime) == [["stdlib", "a.py", b"pyc", 3]]
    assert len(made) == 2


def test_the_bytecode_chosen_is_kept_beside_it_read_back_in_its_order_and_ranked_again_when_edited(
        tmp_path, monkeypatch):
    # ranking compresses every module at level 9: a runtime folder keeps the choice made from the
    # same inputs, and an entry that does not verify or names a module not found is ranked again
    import zlib

    from rulesdsl.wiki import ask_compile
    plain, noisy = b"x = 1\n" * 400, bytes(range(256)) * 8
    found = [["stdlib", "a.py", noisy, 10], ["stdlib", "b.py", plain, 900], ["wheels", "c/d.py", plain, 500]]
    sources = {("stdlib", "a.py"): plain, ("stdlib", "b.py"): plain, ("wheels", "c/d.py"): plain}
    ranked = []
    real = ask_compile.chosen

    def chosen(*args, **kwargs):
        ranked.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(ask_compile, "chosen", chosen)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    expected = real(found, sources)
    for build in ("first", "second"):
        monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / build))
        got = ask_compile.kept_choice(found, sources, runtime, "inputs")
        assert list(got.items()) == list(expected.items())
    assert len(ranked) == 1
    grows = len(zlib.compress(noisy, 9)) - len(zlib.compress(plain, 9))
    assert ("stdlib", "a.py") not in ask_compile.kept_choice(found, sources, runtime, "inputs", growth=grows - 1)
    assert ask_compile.kept_choice(found, sources, runtime, "other inputs") == expected
    assert len(ranked) == 3                     # another growth, other inputs: ranked again
    entry = runtime / "chosen-bytecode"
    entry.write_bytes(entry.read_bytes().replace(b"a.py", b"e.py"))      # the choice edited on disk
    assert list(ask_compile.kept_choice(found, sources, runtime, "other inputs").items()) == list(expected.items())
    assert len(ranked) == 4


def test_the_trim_follows_every_import_that_runs_when_a_module_is_imported_and_no_other():
    from rulesdsl.wiki import ask_trim
    text = ("import a, b.c as d\nfrom . import e\nfrom ..f import (g,\n  h,  # why\n)\ntry:\n    import i\n"
            "except ImportError:\n    def later():\n        import j\nclass K:\n    import k\n"
            "    def m(self,\n          x):\n        import l\nif __name__ == \"__main__\":\n    import doctest\n")
    assert ask_trim.imports_in(text, "p.q.r", False, on_import=True) == {
        "a", "b.c", "p.q", "p.q.e", "p.f", "p.f.g", "p.f.h", "i", "k"}
    assert {"j", "l", "doctest"} <= ask_trim.imports_in(text, "p.q.r", False)
    sources = {"x": ("import y\ndef f():\n    import z\n", False), "y": ("", False), "z": ("", False), "w": ("", False)}
    assert ask_trim.closure(sources, ["x"], on_import=True) == {"x", "y"}
    assert ask_trim.closure(sources, ["x"]) == {"x", "y", "z"}


def test_a_browser_answer_renames_only_the_ids_the_page_has_and_its_links_follow():
    from rulesdsl.wiki.browser import renamed_ids
    fragment = ('<h2 id="読みごとの答え">読み<a class="headerlink" href="#読みごとの答え">¶</a></h2>'
                '<p><a href="#読みごとの答え">読みごとの答え</a> <a href="#top">上へ</a></p><h2 id="手順トレース">x</h2>')
    taken = {"読みごとの答え", "top", "ask-読みごとの答え"}
    out = renamed_ids(fragment, taken)
    assert out.count('"#ask-読みごとの答え_1"') == 2 and 'id="ask-読みごとの答え_1"' in out
    assert 'href="#top"' in out and 'id="手順トレース"' in out
    assert renamed_ids(fragment, set()) == fragment


def test_a_kept_runtime_file_that_does_not_match_its_pin_is_fetched_again(ask_site):
    folder = ask_bundle.runtime_dir()
    name, digest = ask_bundle.WHEELS["lark==1.3.1"]
    (folder / name).write_bytes(b"not the wheel")
    files = ask_bundle.gather()
    kept = (folder / name).read_bytes()
    assert ask_bundle.sha256(kept) == digest
    from rulesdsl.wiki.ask_trim import trimmed_wheel
    assert same_but_bytecode(files[f"wheels/{name}"], trimmed_wheel(name, kept))


def test_a_bundle_made_beside_the_answers_comes_back_whole_and_a_cut_one_is_refused():
    bundle = ask_bundle.Bundle(files={"wheels/a.whl": b"PK\x03\x04" + bytes(range(256)), "games/grm/snapshot.json": b"{}",
                                      "empty": b""},
                               manifest={"format": 1, "games": {"grm": {"snapshot": "games/grm/snapshot.json"}}},
                               texts={"grm/qa/x": "scenario grm/qa/x 「問」 {\n}\n"})
    data = ask_bundle.encode(bundle)
    assert ask_bundle.decode(data) == bundle
    for cut in (data[:-1], data + b"x", data[:8] + data[9:]):
        with pytest.raises(ValueError):
            ask_bundle.decode(cut)
    missing = ask_bundle.Bundle(missing="npm is not installed")
    assert ask_bundle.decode(ask_bundle.encode(missing)) == missing


def test_the_scratch_folder_is_made_in_the_private_cache_and_those_of_ended_builds_are_removed(tmp_path, monkeypatch):
    """The maker's scratch folder holds the wheels the site ships: it is made in the user's private
    cache folder, not the shared temporary one, and one a stopped build left (its maker's process
    gone) is removed by the next build; a live build's, and anything else there, stay."""
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("RULESDSL_CACHE", str(cache_dir))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    cache_dir.mkdir(mode=0o700)
    left = cache_dir / f"{ask_bundle.SCRATCH_PREFIX}{ended.stdout.strip()}-x"
    (left / "wheels").mkdir(parents=True)
    (left / "wheels" / "rulesdsl.whl").write_bytes(b"PK")
    alive = cache_dir / f"{ask_bundle.SCRATCH_PREFIX}{os.getpid()}-y"
    alive.mkdir()
    other = cache_dir / "ask-scratch-notes"
    other.mkdir()
    folder = ask_bundle.scratch()
    assert folder.parent == cache_dir and folder.name.startswith(f"{ask_bundle.SCRATCH_PREFIX}{os.getpid()}-")
    assert folder.stat().st_mode & 0o077 == 0
    assert not left.exists() and alive.is_dir() and other.is_dir()
    scratch.discard(folder)
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "open"))
    (tmp_path / "open").mkdir(mode=0o777)
    os.chmod(tmp_path / "open", 0o777)                  # not private: no scratch folder at all
    assert ask_bundle.scratch() is None


def test_node_compiles_from_a_scratch_folder_in_the_private_runtime_folder_removed_after_and_after_a_stopped_build(
        tmp_path, monkeypatch):
    """The files Node compiles are the code the site ships: they are written in a scratch folder of
    the private runtime folder, not the shared temporary one; it is gone once Node has answered, and
    one a stopped build left there (its process gone) is removed by the next compile."""
    from rulesdsl.wiki import ask_compile
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    left = runtime / f"{ask_compile.COMPILING}{ended.stdout.strip()}-x"
    (left / "wheels").mkdir(parents=True)
    (left / "wheels" / "rulesdsl.whl").write_bytes(b"PK")
    seen = []

    def node(cmd, **kwargs):
        folder = Path(cmd[-1])
        seen.append((folder, folder.stat().st_mode & 0o077, sorted(p.name for p in folder.rglob("*"))))
        return subprocess.CompletedProcess(cmd, 0, stdout=b'[["stdlib", "a.py", "cHlj", 3]]', stderr=b"")
    monkeypatch.setattr(ask_compile.subprocess, "run", node)
    monkeypatch.setattr("rulesdsl.lang.parser.shipped_tables", lambda: b"{}")
    found = ask_compile._compile({"python_stdlib.zip": b"zip"}, {"w.whl": b"whl"}, ["grm"], runtime)
    assert found == [["stdlib", "a.py", b"pyc", 3]]
    [(folder, others_may, files)] = seen
    assert folder.parent == runtime and folder.name.startswith(f"{ask_compile.COMPILING}{os.getpid()}-")
    assert others_may == 0 and files == ["python_stdlib.zip", "w.whl", "wheels"]
    assert not folder.exists() and not left.exists()
    assert not (tmp_path / "tmp").exists() or list((tmp_path / "tmp").iterdir()) == []


def test_a_bundle_whose_files_are_left_aside_comes_back_without_their_bytes_and_is_written_checked(tmp_path):
    files = {"wheels/a.whl": b"PK\x03\x04" + bytes(range(256)), "games/grm/snapshot.json": b"{}", "empty": b""}
    manifest = {"format": 1, "files": {n: {"sha256": ask_bundle.sha256(d), "bytes": len(d)} for n, d in files.items()}}
    made = ask_bundle.Bundle(files=dict(files), manifest=manifest, texts={"grm/qa/x": "scenario grm/qa/x 「問」 {\n}\n"})
    folder = ask_bundle.scratch()
    assert folder.stat().st_mode & 0o077 == 0          # private: the maker's and the build's alone
    data = ask_bundle.encode(made, folder)
    assert len(data) < 8 + 1000 and files["wheels/a.whl"] not in data   # the bytes stay in the folder
    back = ask_bundle.decode(data, folder)
    assert back.files == {} and back.aside == str(folder) and back.texts == made.texts
    assert back.sizes() == made.sizes() and back.total_bytes() == made.total_bytes()
    with pytest.raises(ValueError):
        ask_bundle.decode(data, tmp_path)              # left in a folder other than the one made for it
    ask_bundle.write(back, tmp_path / "site")
    top = tmp_path / "site" / ask_bundle.ASSETS
    assert {n: (top / n).read_bytes() for n in files} == files and (top / "manifest.json").is_file()
    assert not folder.exists() and back.written and back.aside is None

    folder = ask_bundle.scratch()
    data = ask_bundle.encode(made, folder)
    (folder / "games" / "grm" / "snapshot.json").write_bytes(b"[]")     # changed on disk, same length
    back = ask_bundle.decode(data, folder)
    with pytest.raises(OSError):
        ask_bundle.write(back, tmp_path / "site2")
    (folder / "empty").unlink()
    with pytest.raises(OSError):
        ask_bundle.decode(data, folder)                # one is gone
    scratch.discard(folder)
    assert not folder.exists()


def test_a_site_built_without_the_runtime_says_so_on_the_console_and_on_its_pages(tmp_path):
    out = tmp_path / "site"
    result = build_site(REPO, out, extra_env={ask_bundle.ENV_OFF: "1"})
    assert result.returncode == 0, result.output
    assert "built without 「この質問を変えて聞く」" in result.output
    page = (out / "grm" / "qa" / "stack-flips-top-only.html").read_text(encoding="utf-8")
    assert "この質問を変えて聞く：利用できません" in page and ask_bundle.ENV_OFF in page
    assert not (out / ask_bundle.ASSETS).exists()


def test_the_runtime_answers_worked_questions_of_every_game_as_rulesdsl_ask_json_does(ask_site):
    node = _need("node")
    by_game: dict[str, list] = {}
    for q in editor_questions(ask_site):
        by_game.setdefault(q["game"], []).append(q)
    assert set(by_game) == {"grm", "thgm", "royal", "pm"}
    asked = []
    for qs in by_game.values():
        step = max(1, len(qs) // PER_GAME)
        asked += qs[::step][:PER_GAME]
    assert len(asked) >= 30
    proc = subprocess.run([node, str(NODE_TEST), str(ask_site)], input=json.dumps(asked), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    assert got["version"] == ask_bundle.PYODIDE_VERSION
    for q in asked:
        mine = got["answers"][q["id"]]
        assert not mine["errors"], (q["id"], mine["errors"])
        offsets: set = set()
        diffs = same_but_place(mine["json"], cli_json(q["id"]), offsets)
        assert not diffs, (q["id"], diffs)
        assert len(offsets) <= 1, (q["id"], offsets)
        # rendered as the Q&A page renders it: the same markup, ids and links, byte for byte
        assert 'class="rd-answer' in mine["html"]
        assert mine["html"] in (ask_site / q["page"]).read_text(encoding="utf-8"), q["page"]
    # every module the answers imported is a file the trimmed runtime ships (ask_trim.py)
    folder = ask_site / ask_bundle.ASSETS
    stdlib = set(zipfile.ZipFile(folder / f"pyodide-{ask_bundle.PYODIDE_VERSION}" / "python_stdlib.zip").namelist())
    wheels = {n for w in folder.glob("wheels/*.whl") for n in zipfile.ZipFile(w).namelist()}
    files = dict(got["modules"])
    assert {"rulesdsl.wiki.browser", "traceback"} <= set(files)
    assert "lark" not in files            # parsed on the parser's tables the site ships (parser.json)
    assert not any(n.startswith(("pydantic", "annotated_types")) for n in files)     # the plain models
    assert any(p.endswith(".pyc") for p in files.values())        # answered from the shipped bytecode too
    for name, path in files.items():
        if name.startswith(("_frozen_importlib", "importlib._bootstrap")):
            continue        # frozen; importlib/__init__ names a file beside its own for them
        inside = re.sub(r"^/lib/python314\.zip/", "", path)
        assert inside in stdlib if inside != path else re.sub(r"^/lib/python3\.14/site-packages/", "", path) in wheels, (name, path)


def test_a_syntax_error_fetches_lark_when_it_needs_it_and_reads_as_the_command_line_s(ask_site, tmp_path):
    node = _need("node")
    q = next(q for q in editor_questions(ask_site) if q["id"] == "grm/qa/stack-flips-top-only")
    text = q["text"].replace("weight 60kg", "weight 60kg 12 {")
    proc = subprocess.run([node, str(NODE_TEST), str(ask_site)], capture_output=True, text=True, timeout=600,
                          input=json.dumps([dict(q, id="broken", text=text)]))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    mine = got["answers"]["broken"]
    assert not mine["ok"] and mine["errors"]
    asked = tmp_path / "質問.rules"
    asked.write_text(text, encoding="utf-8")
    cli = cli_json(str(asked))
    e = mine["errors"][0]
    assert e["code"] == "syntax" and mine["json"]["errors"] == [e["message"]]
    assert cli["errors"] == [f"{asked}:{e['line']}:{e['col']}: error[syntax]: {e['message']}"]
    assert "lark" in dict(got["modules"])              # unpacked on demand (manifest.onDemand)


# ----------------------------------------------------------------------------- in chromium

@pytest.fixture(scope="module")
def ask_url(ask_site):
    with serve(ask_site) as base:
        yield base


@pytest.fixture
def tab(chromium):
    context = chromium.new_context()
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


def answered(page, box=".rd-ask"):
    """Press 「答える」 and wait until the answer (or the errors) is on the page."""
    page.evaluate(f"document.querySelector('{box}').dataset.state = ''")
    page.locator(f"{box} .rd-ask-go").click()
    page.locator(f"{box}[data-state=done]").wait_for(state="attached", timeout=180_000)


def set_text(page, text: str) -> None:
    page.locator(".rd-editor-text").fill(text)


def renamed(text: str, sid: str) -> str:
    return re.sub(r"^(\s*scenario\s+)\S+", rf"\g<1>{sid}", text, count=1)


def cli_sentences(tmp_path, text: str) -> list[str]:
    f = tmp_path / "q.rules"
    f.write_text(renamed(text, "grm/test/browser-check"), encoding="utf-8")
    return cli_json(str(f))["answers"][0]["answer"]


@browser
def test_a_reader_changes_a_weight_on_a_qa_page_and_gets_the_changed_answer(tab, ask_url, tmp_path):
    tab.goto(ask_url + "grm/qa/stack-flips-top-only.html")
    before = tab.locator(".rd-answer .rd-sentence").first.inner_text()
    tab.locator(".rd-ask-open summary").click()
    area = tab.locator(".rd-editor-text")
    text = area.input_value()
    assert 'card "重い" {\n    weight 60kg' in text or 'card "重い" { weight 60kg }' in text
    changed = text.replace("weight 60kg", "weight 40kg")
    set_text(tab, changed)
    answered(tab)
    shown = tab.locator(".rd-ask-answer .rd-answer .rd-sentence").all_inner_texts()
    expected = cli_sentences(tmp_path, changed)
    assert shown == expected and before not in shown
    assert tab.locator(".rd-ask-answer .rd-trace a").count() > 0      # citations link to the rules
    # the answer's ids are the Q&A page's, renamed where the page has them; the same at the next ask
    ids = tab.evaluate("[...document.querySelectorAll('.rd-ask-answer [id]')].map((e) => e.id)")
    assert ids and all(i.startswith("ask-") and tab.locator(f'[id="{i[4:]}"]').count() == 1 for i in ids)
    answered(tab)
    assert tab.evaluate("[...document.querySelectorAll('.rd-ask-answer [id]')].map((e) => e.id)") == ids
    every = tab.evaluate("[...document.querySelectorAll('[id]')].map((e) => e.id)")
    assert len(every) == len(set(every))
    assert tab.evaluate("""[...document.querySelectorAll('.rd-ask-answer a[href^="#"]')].every((a) =>
        document.querySelector('.rd-ask-answer').contains(document.getElementById(decodeURIComponent(a.hash.slice(1)))))""")
    assert tab.errors == []


@browser
def test_a_located_error_marks_its_line_and_column_with_the_hint(tab, ask_url):
    tab.goto(ask_url + "grm/qa/stack-flips-top-only.html")
    tab.locator(".rd-ask-open summary").click()
    text = tab.locator(".rd-editor-text").input_value()
    set_text(tab, text.replace("as of 2026-09-01", "as of 2026-09-01 confirmd"))
    answered(tab)
    error = tab.locator(".rd-ask-error p").first.inner_text()
    line = text.splitlines().index("  as of 2026-09-01") + 1
    assert error.startswith(f"{line}行")
    assert tab.locator(".rd-editor-hl mark.rd-ask-mark").count() == 1
    assert tab.locator(".rd-ask-answer").inner_html() == ""


@browser
def test_the_board_builder_writes_a_question_the_interpreter_answers(tab, ask_url, tmp_path):
    tab.goto(ask_url + "grm/ask.html")
    tab.locator('.rd-bb-cell[data-cell="b2"]').click()
    tab.locator(".rd-bb-weight").fill("30")
    tab.locator(".rd-bb-put").click()
    tab.locator(".rd-bb-weight").fill("45")
    tab.locator(".rd-bb-put").click()                       # stacked on the 30 kg card
    tab.locator(".rd-bb-pplayer").select_option("P2")
    tab.locator(".rd-bb-pweight").fill("60")
    tab.locator(".rd-bb-target").select_option("c2")
    tab.locator(".rd-bb-write").click()
    text = tab.locator(".rd-editor-text").input_value()
    assert "stack b2 P1" in text and "play P2" in text
    answered(tab)
    assert tab.locator(".rd-ask-errors").inner_text() == ""
    assert tab.locator(".rd-ask-answer .rd-answer .rd-sentence").all_inner_texts() == cli_sentences(tmp_path, text)
    assert tab.locator(".rd-ask-answer .rd-board").count() >= 2


@browser
def test_what_the_reader_types_and_what_the_answer_prints_stay_text(tab, ask_url):
    tab.goto(ask_url + "grm/ask.html")
    question = (f'scenario grm/new/hostile "{XSS}" {{\n  question "{HOSTILE}"\n  as of 2026-09-01\n'
                f'  card "{IMG}" {{ weight 30kg }}\n  card "{XSS}" {{ weight 60kg }}\n  turn P2\n'
                f'  field b2 P1 "{IMG}" up\n  hand P2 "{XSS}"\n  play P2 "{XSS}" c2\n'
                f'  answer "{HOSTILE}"\n  expect face b2 down\n}}\n')
    set_text(tab, question)
    answered(tab)
    assert tab.evaluate("window.__xss") is None
    shown = tab.locator(".rd-ask-answer").inner_text()
    assert HOSTILE in shown and XSS in tab.locator(".rd-ask-answer .rd-board").first.inner_text()
    set_text(tab, question.replace("as of", f"{IMG} as of"))      # an error that quotes the text
    answered(tab)
    assert tab.evaluate("window.__xss") is None
    assert "<img" in tab.locator(".rd-ask-errors").inner_text()
    assert tab.locator(".rd-ask-errors img, .rd-editor-hl img, .rd-ask-answer img").count() == 0


def _runtime_gets(log: Path) -> list[str]:
    """The runtime's files the site served, as its log lists them (manifest.json aside: it is
    asked for at every visit, to learn what is current)."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return [p for p in re.findall(r'"GET (/assets/ask/[^ "]*)', text) if not p.startswith("/assets/ask/manifest.json")]


@browser
def test_a_second_visit_takes_the_runtime_from_the_browser_and_an_update_replaces_it(chromium, ask_site, tmp_path):
    log = tmp_path / "server.log"
    with serve(ask_site, log=log) as base:
        context = chromium.new_context()
        try:
            def visit() -> tuple[list[str], list[str]]:
                before = len(_runtime_gets(log))
                page = context.new_page()
                page.goto(base + "grm/qa/stack-flips-top-only.html")
                page.locator(".rd-ask-open summary").click()
                answered(page)
                assert page.locator(".rd-ask-answer .rd-answer").count() >= 1
                keys = page.evaluate("caches.keys()")
                page.close()
                return _runtime_gets(log)[before:], keys
            first, _ = visit()
            assert any(p.endswith("pyodide.asm.wasm") for p in first) and any(".whl?h=" in p for p in first)
            second, keys = visit()
            assert second == [], second                    # all of it from the browser's own copy
            keep = json.loads((ask_site / ask_bundle.ASSETS / "manifest.json").read_text(encoding="utf-8"))["keep"]
            assert keys == [f"rdask-runtime-{keep}-/"]
            # a site updated to other pins registers the worker under another name: the old copy goes
            page = context.new_page()
            page.goto(base + "grm/ask.html")
            keys = page.evaluate("""async () => {
                const sw = navigator.serviceWorker;
                const changed = new Promise((resolve) => sw.addEventListener("controllerchange", resolve, { once: true }));
                await sw.register("/rdask-sw.js?v=other-pins", { scope: "/" });
                await changed;
                const deadline = Date.now() + 60000;
                let keys = await caches.keys();
                while (keys.length && Date.now() < deadline) {
                    await new Promise((r) => setTimeout(r, 50));
                    keys = await caches.keys();
                }
                return keys;
            }""")
            assert keys == []
        finally:
            context.close()


@browser
def test_opened_from_a_folder_the_page_says_to_serve_the_site(tab, ask_site):
    tab.goto((ask_site / "grm" / "ask.html").resolve().as_uri())
    note = tab.locator(".rd-ask-file")
    note.wait_for(state="visible")
    assert "rulesdsl wiki serve" in note.inner_text()
    assert tab.locator(".rd-ask-go").is_disabled()
