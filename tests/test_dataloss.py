"""Nothing lost, nothing stale (issue 26): each way a tool could empty a folder, overwrite a save
or give a stale answer is tried here, on throwaway copies in temporary folders, never on the
checkout; each test asserts that nothing is lost and that the answer is the true one."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from conftest import write_kb

from rulesdsl.base import cache
from rulesdsl.cli import fastpath
from rulesdsl.cli.main import build_parser

CARD = """\
card mini X "エックス" {
  source "mini.txt §はじめに"
  text unknown
  weight 60kg
}
"""

# ----------------------------------------------------------------------------- abbreviations

# every spelling of the global options, those argparse accepts and those it would accept with
# abbreviations on (`--ro=B`, `--no-c`, `--verb`), and a few it never does
SPELLINGS = [["--root", "R"], ["--root=R"], ["--root="], ["--ro", "R"], ["--ro=R"], ["--roo=R"], ["--r", "R"],
             ["--no-cache"], ["--no-c"], ["--no"], ["--n"], ["-v"], ["-vv"], ["--verbose"], ["--verb"],
             ["--v"], ["-x"], ["--"], ["--root"], ["-h"]]


def _parsed(parser, argv):
    try:
        return parser.parse_args(argv)
    except SystemExit:
        return None


def test_the_fast_path_reads_every_global_option_as_the_parser_does_in_every_spelling(capsys):
    parser = build_parser()
    for a, b in itertools.product(SPELLINGS, [[]] + SPELLINGS):
        argv = [*a, *b, "show", "grm"]
        g = cache.globals_of(argv)
        args = _parsed(parser, argv)
        capsys.readouterr()
        if args is None:            # the parser refuses it: nothing may be kept or served for it
            assert g.command not in cache.READ_ONLY, argv
            continue
        assert g.command == args.command == "show", argv
        assert (Path(g.root) if g.root is not None else None) == args.root, argv
        assert (g.no_cache, g.verbose) == (args.no_cache, args.verbose), argv


@pytest.mark.parametrize("argv", [["--ro=B", "show", "mini"], ["--ro", "B", "show", "mini"],
                                  ["--no-c", "show", "mini"], ["--verb", "show", "mini"]])
def test_an_abbreviated_global_option_is_a_usage_error_and_nothing_is_kept(argv, tmp_path, monkeypatch, capsys):
    a, b = write_kb(tmp_path / "a", {}), write_kb(tmp_path / "b", {"cards/mini/x.rules": CARD})
    monkeypatch.chdir(a)
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    argv = [str(b) if x == "B" else x for x in argv]
    code = fastpath.main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "unrecognized arguments" in err or "invalid choice" in err or "expected" in err, err
    kept = list((tmp_path / "cache").rglob("out/*.json")) if (tmp_path / "cache").exists() else []
    assert kept == []


def test_an_edit_to_the_knowledge_base_named_by_root_is_seen_in_both_spellings(tmp_path, monkeypatch, capsys):
    a, b = write_kb(tmp_path / "a", {}), write_kb(tmp_path / "b", {"cards/mini/x.rules": CARD})
    monkeypatch.chdir(a)
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    for spelling in (["--root", str(b)], [f"--root={b}"]):
        card = b / "cards/mini/x.rules"
        card.write_text(CARD, encoding="utf-8")
        assert fastpath.main([*spelling, "show", "mini:X"]) == 0
        assert "weight: 60\n" in capsys.readouterr().out
        card.write_text(CARD.replace("60kg", "45kg"), encoding="utf-8")
        assert fastpath.main([*spelling, "show", "mini:X"]) == 0
        out = capsys.readouterr().out
        assert "weight: 45\n" in out and "weight: 60" not in out


# ----------------------------------------------------------------------------- the cache's key

@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
def test_a_cache_key_others_can_read_or_write_is_refused(mode, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(cache, "_keys", {})
    cache.user_key()
    os.chmod(tmp_path / "c" / "key", mode)
    monkeypatch.setattr(cache, "_keys", {})
    with pytest.raises(cache.Unavailable, match="not a private file"):
        cache.user_key()


@pytest.mark.parametrize("mode", [0o600, 0o400])
def test_a_cache_key_at_0600_or_0400_is_the_one_used(mode, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(cache, "_keys", {})
    key = cache.user_key()
    os.chmod(tmp_path / "c" / "key", mode)
    monkeypatch.setattr(cache, "_keys", {})
    assert cache.user_key() == key


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_key_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(cache, "_keys", {})
    cache.user_key()
    os.chown(tmp_path / "c" / "key", 4321, 4321)
    monkeypatch.setattr(cache, "_keys", {})
    with pytest.raises(cache.Unavailable, match="not a private file"):
        cache.user_key()


def test_answers_with_a_refused_key_are_still_right(tmp_path, monkeypatch, capsys):
    root = write_kb(tmp_path / "kb", {"cards/mini/x.rules": CARD})
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(cache, "_keys", {})
    assert fastpath.main(["--root", str(root), "show", "mini:X"]) == 0
    os.chmod(tmp_path / "c" / "key", 0o644)
    monkeypatch.setattr(cache, "_keys", {})
    assert fastpath.main(["--root", str(root), "show", "mini:X"]) == 0
    assert "weight: 60" in capsys.readouterr().out


# ----------------------------------------------------------------------------- the wrong folder

def test_a_root_that_is_not_a_knowledge_base_is_an_error(tmp_path, run_cli):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "hosts").write_text("127.0.0.1 localhost\n")
    for argv in (["--root", tmp_path / "etc", "check"], ["--root", "/etc", "check"]):
        code, out, err = run_cli(*argv)
        assert code == 2, out + err
        assert "is not a knowledge base" in err and "no findings" not in out


def test_a_path_with_nothing_to_check_is_an_error(tmp_path, run_cli, monkeypatch):
    root = write_kb(tmp_path / "kb", {"cards/mini/x.rules": CARD})
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", Path("/etc")):
        code, out, err = run_cli("--root", root, "check", folder)
        assert code == 2, out + err
        assert f"{folder} holds no .rules file to check" in err and "no findings" not in out


# ----------------------------------------------------------------------------- impact --since

def _git(cwd: Path, *args: str) -> str:
    import subprocess
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def git_kb(tmp_path, monkeypatch):
    import shutil
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    root = write_kb(tmp_path / "kb", {"cards/mini/a card with spaces.rules": CARD,
                                      "cards/mini/日本語のカード.rules": CARD.replace("X", "Y").replace("エックス", "ワイ")})
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    return root


def test_impact_since_reads_file_names_with_spaces_and_japanese(git_kb, run_cli):
    code, out, err = run_cli("--root", git_kb, "impact", "--since", "HEAD")
    assert code == 0, out + err
    assert "b'" not in out + err and "Traceback" not in err
    assert "0 answer(s) change" in out, out


@pytest.mark.parametrize("rev, said", [("", "empty revision"), ("no-such-branch", "has no revision no-such-branch"),
                                       ("--output=/tmp/x", "does not start with '-'")])
def test_impact_since_a_bad_revision_is_a_worded_usage_error(rev, said, git_kb, run_cli):
    code, out, err = run_cli("--root", git_kb, "impact", f"--since={rev}")
    assert code == 2, out + err
    assert said in err and "b'" not in err and "internal error" not in err


def test_impact_since_outside_git_is_a_worded_usage_error(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = write_kb(tmp_path / "kb", {"cards/mini/x.rules": CARD})
    code, out, err = run_cli("--root", root, "impact", "--since", "HEAD")
    assert code == 2 and "is not in a git repository" in err, err


# ----------------------------------------------------------------------------- fmt --write and a save

MESSY = 'card grm No.1 "名前" {\nweight 60kg;range all8}\n'
TIDY = 'card grm No.1 "名前" {\n  weight 60kg\n  range all8\n}\n'
SAVED = 'card grm No.1 "名前" {\nweight 45kg;range all8}\n'     # what the editor saved meanwhile


def _atomic_save(target: Path) -> None:
    tmp = target.with_name(".editor-save.tmp")
    tmp.write_text(SAVED, encoding="utf-8")
    os.replace(tmp, target)


def _in_place_save(target: Path) -> None:
    st = os.stat(target)
    with open(target, "r+b") as f:              # the same size, and the mtime put back
        f.write(SAVED.encode("utf-8"))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("hard_link", [False, True])
@pytest.mark.parametrize("save", [_atomic_save, _in_place_save], ids=["atomic", "in-place"])
def test_fmt_write_never_overwrites_a_save_made_while_it_runs(save, hard_link, run_cli, tmp_path, monkeypatch):
    from rulesdsl.cli import fmt as fmt_command
    f = tmp_path / "a.rules"
    f.write_text(MESSY, encoding="utf-8")
    if hard_link:
        os.link(f, tmp_path / "b.rules")
    saves = []
    monkeypatch.setattr(fmt_command, "_before_replace", lambda target: (saves.append(target), save(target)))
    code, out, err = run_cli("fmt", "--write", f)
    assert saves == [f]                     # the save happened between the read and the replace
    assert code == 2, out + err
    assert f"{f}:1:1: error[fmt]: {f} was not rewritten: it changed while it was being formatted" in err, err
    assert f.read_text(encoding="utf-8") == SAVED
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == (["a.rules", "b.rules"] if hard_link else ["a.rules"])


def test_fmt_write_rewrites_a_file_saved_again_with_the_same_text(run_cli, tmp_path, monkeypatch):
    from rulesdsl.cli import fmt as fmt_command
    f = tmp_path / "a.rules"
    f.write_text(MESSY, encoding="utf-8")

    def same_text(target: Path) -> None:
        tmp = target.with_name(".same.tmp")
        tmp.write_text(MESSY, encoding="utf-8")
        os.replace(tmp, target)                 # a new inode, the bytes that were read
    monkeypatch.setattr(fmt_command, "_before_replace", same_text)
    code, out, err = run_cli("fmt", "--write", f)
    assert code == 0, out + err
    assert f.read_text(encoding="utf-8") == TIDY


# ----------------------------------------------------------------------------- names and escapes

def test_a_card_declared_composed_is_found_by_its_name_written_decomposed(tmp_path, run_cli, monkeypatch):
    import unicodedata
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    composed = "ガード"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    card = CARD.replace("X", "G").replace("エックス", composed)
    root = write_kb(tmp_path / "kb", {"cards/mini/g.rules": card, "rulings/mini/qa/s.rules":
                                      f'scenario mini/qa/s "s" {{\n  field b2 P1 "{decomposed}" up\n}}\n'})
    code, out, err = run_cli("--root", root, "check", root / "rulings/mini/qa/s.rules")
    assert code == 0, out + err
    code, out, err = run_cli("--root", root, "show", f"《{decomposed}》")
    assert code == 0 and "mini:G" in out, out + err


@pytest.mark.parametrize("escape, said", [("\\u", "\\u"), ("\\u30", "\\u"), ("\\q", "\\q"), ("\\ ", "\\ ")])
def test_an_unknown_string_escape_is_a_located_error(escape, said, tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    f = tmp_path / "q.rules"
    f.write_text(f'scenario mini/qa/s "ab{escape}c" {{\n}}\n', encoding="utf-8")
    code, out, err = run_cli("fmt", "--check", f)
    assert code == 2, out + err
    assert f"{f}:1:23: error[syntax]: unknown escape {said} in a string" in err, err


def test_an_unknown_escape_in_a_triple_quoted_string_is_located_on_its_own_line(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    f = tmp_path / "q.rules"
    f.write_text('scenario mini/qa/s "s" {\n  note """one\n    two \\x"""\n}\n', encoding="utf-8")
    code, out, err = run_cli("fmt", "--check", f)
    assert code == 2 and f"{f}:3:9: error[syntax]: unknown escape \\x" in err, err


def test_the_known_escapes_are_resolved(tmp_path):
    from rulesdsl.lang.parser import parse_text
    doc = parse_text('scenario mini/qa/s "a\\u3042\\n\\t\\"\\\\b" {\n}\n', "q.rules")
    assert doc.decls[0].title == 'aあ\n\t"\\b'


# ----------------------------------------------------------------------------- ceilings

@pytest.mark.parametrize("option, value", [("--max-outcomes", "1000000000"), ("--max-outcomes", "0"),
                                           ("--max-outcomes", "-5"), ("--max-branches", "100000000"),
                                           ("--max-branches", "0"), ("--max-outcomes", "lots")])
def test_the_exploration_bounds_have_hard_ceilings(option, value, tmp_path, run_cli, monkeypatch):
    """60 open dice with --max-outcomes 1000000000 ran 180 s to 2.7 GB before: now refused at once."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    root = write_kb(tmp_path / "kb", {})
    code, out, err = run_cli("--root", root, "ask", "mini/qa/none", option, value)
    assert code == 2, out + err
    assert f"argument {option}:" in err and "Traceback" not in err
    assert ("is not a whole number" if value == "lots" else "the most a question may explore") in err


def test_the_ceilings_hold_for_library_callers_too():
    from rulesdsl.engine.context import MAX_OUTCOMES_CEILING, Bounds
    assert Bounds(max_outcomes=MAX_OUTCOMES_CEILING).max_outcomes == MAX_OUTCOMES_CEILING
    with pytest.raises(ValueError, match="max_outcomes must be between 1 and 1,000,000"):
        Bounds(max_outcomes=MAX_OUTCOMES_CEILING + 1)
    with pytest.raises(ValueError, match="max_branches"):
        Bounds(max_branches=0)


# ----------------------------------------------------------------------------- wiki build -d

WIKI_CONFIG = """\
site_name: t
docs_dir: docs
theme:
  name: material
  custom_dir: overrides
site_dir: {site}
"""


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def wiki_kb(tmp_path, monkeypatch):
    """A throwaway knowledge base, and a throwaway mkdocs config with docs and theme folders."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RULESDSL_WIKI_NO_ASK", "1")       # the browser bundle is not what is tested here
    (tmp_path / "home").mkdir()
    root = write_kb(tmp_path / "kb", {"cards/mini/x.rules": CARD})
    wiki = tmp_path / "wiki"
    (wiki / "docs").mkdir(parents=True)
    (wiki / "docs" / "index.md").write_text("# t\n", encoding="utf-8")
    (wiki / "overrides").mkdir()
    (wiki / "overrides" / "main.html").write_text("{% extends 'base.html' %}\n", encoding="utf-8")
    (wiki / "mkdocs.yml").write_text(WIKI_CONFIG.format(site="out"), encoding="utf-8")
    return root, wiki, _files(tmp_path)


@pytest.mark.parametrize("where, said", [
    ("kb", "is the knowledge base root"), ("kb/rulings", "is the knowledge base's rulings/ folder"),
    ("kb/cards", "is the knowledge base's cards/ folder"), ("kb/rulings/mini/sources", "lies inside"),
    ("kb/cards/mini", "lies inside the knowledge base's cards/ folder"), (".", "contains the knowledge base root"),
    ("wiki", "is the folder of the mkdocs config"), ("wiki/docs", "is the wiki's docs folder"),
    ("wiki/docs/sub", "lies inside the wiki's docs folder"), ("wiki/overrides", "is the wiki's theme folder"),
    ("home", "is your home folder")])
@pytest.mark.parametrize("force", [False, True])
def test_wiki_build_never_empties_the_knowledge_base_or_the_wikis_own_files(where, said, force, wiki_kb, tmp_path,
                                                                           run_cli):
    root, wiki, before = wiki_kb
    site = tmp_path / where
    code, out, err = run_cli("--root", root, "wiki", "build", "-f", wiki / "mkdocs.yml", "-d", site,
                             *(["--force"] if force else []))
    assert code == 2, out + err
    assert said in err and "nothing was written or removed" in err and "Traceback" not in err
    assert _files(tmp_path) == before


def test_wiki_build_never_empties_a_folder_it_did_not_make_unless_forced(wiki_kb, tmp_path, run_cli):
    root, wiki, _ = wiki_kb
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "draft.txt").write_text("mine\n", encoding="utf-8")
    code, out, err = run_cli("--root", root, "wiki", "build", "-f", wiki / "mkdocs.yml", "-d", mine)
    assert code == 2 and "no earlier build made it" in err and "--force" in err, err
    assert _files(mine) == {"draft.txt": b"mine\n"}


def test_the_config_site_dir_is_checked_too_and_the_error_points_at_it(wiki_kb, tmp_path, run_cli):
    root, wiki, before = wiki_kb
    (wiki / "mkdocs.yml").write_text(WIKI_CONFIG.format(site=str(root / "rulings")), encoding="utf-8")
    before = _files(tmp_path)
    code, out, err = run_cli("--root", root, "wiki", "build", "-f", wiki / "mkdocs.yml")
    assert code == 2, out + err
    assert f"{wiki / 'mkdocs.yml'}:6:11: error[site-dir]: wiki build: site_dir" in err, err
    assert _files(tmp_path) == before


@pytest.mark.parametrize("site", ["/dev/null", "/proc/self"])
@pytest.mark.parametrize("force", [False, True])
def test_wiki_build_into_a_device_or_a_system_folder_is_an_error(site, force, wiki_kb, run_cli):
    if not os.path.exists(site):
        pytest.skip(f"no {site} here")
    root, wiki, _ = wiki_kb
    code, out, err = run_cli("--root", root, "wiki", "build", "-f", wiki / "mkdocs.yml", "-d", site,
                             *(["--force"] if force else []))
    assert code == 2, out + err
    assert "error[site-dir]" in err and "Traceback" not in err


def test_wiki_build_writes_its_marker_and_builds_again_into_its_own_folder(wiki_kb, tmp_path, run_cli):
    from rulesdsl.cli.site_guard import MARKER
    root, wiki, _ = wiki_kb
    site = tmp_path / "site"
    for _ in range(2):                      # the second build empties what the first made
        code, out, err = run_cli("--root", root, "wiki", "build", "-q", "-d", site)
        assert code == 0, out + err
        assert (site / MARKER).is_file() and (site / "index.html").is_file()


def _mount_tiny(folder: Path) -> bool:
    import subprocess
    if os.geteuid() != 0:
        return False
    folder.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                          capture_output=True).returncode == 0


def test_wiki_build_on_a_full_disk_is_a_located_error(wiki_kb, tmp_path, run_cli):
    """A real full disk: a 64 kB tmpfs (needs root and a system that lets it mount one)."""
    import subprocess
    root, wiki, _ = wiki_kb
    tiny = tmp_path / "tiny"
    if not _mount_tiny(tiny):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        import sys
        run = subprocess.run([sys.executable, "-m", "rulesdsl", "--root", str(root), "wiki", "build", "-q",
                              "-d", str(tiny / "site")], capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run(["umount", str(tiny)], check=True)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"error[io]: wiki build: the disk holding {tiny / 'site'} is full" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_file_system_failure_inside_mkdocs_is_a_located_error(monkeypatch, capsys, tmp_path):
    """The same without root: mkdocs' build made to fail as a full disk does."""
    import errno

    import mkdocs.commands.build as mkdocs_build

    from rulesdsl.cli.site_guard import run_mkdocs

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "site" / "index.html"))
    monkeypatch.setattr(mkdocs_build, "build", full)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    with pytest.raises(SystemExit) as e:
        run_mkdocs(["build", "-q", "-f", str(tmp_path / "mkdocs.yml"), "-d", str(tmp_path / "site")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"wiki build: the disk holding {tmp_path / 'site'} is full" in err and "Traceback" not in err
