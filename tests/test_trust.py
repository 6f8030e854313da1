"""Trust nothing on disk (issue 9): each attack tried on rulesdsl is planted here, and each test
asserts that nothing planted runs or is believed, and that the true answer comes back.

Caches live in the user's private cache folder, as JSON entries under a MAC (rulesdsl/base/cache.py);
freshness is judged by content; every file problem is a located error, never an exit 70; `fmt
--write` respects the files it rewrites.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import REPO, write_kb

from rulesdsl.base import cache
from rulesdsl.cli import fastpath
from rulesdsl.cli import fmt as fmt_command
from rulesdsl.engine.registry import engine_for
from rulesdsl.engine.runner import answer
from rulesdsl.kb import loader
from rulesdsl.kb.build import discover, from_documents, load
from rulesdsl.lang import snapshot

CARD = """\
card mini X "エックス" {
  source "mini.txt §はじめに"
  text unknown
  weight 60kg
}
"""


class Planted:
    """A pickle that, when unpickled, creates `marker`: proof that code from disk ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def plant(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(Planted(marker)))


def fast(capsys, *args) -> tuple[int, str]:
    """The command line as installed (with its kept outputs), in this process."""
    code = fastpath.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out + err


def rulesdsl(*args, env=None, cwd=REPO, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulesdsl", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


# ----------------------------------------------------------------------------- caches cannot run code

def test_a_pickle_planted_where_the_grammar_cache_used_to_be_is_never_read(tmp_path):
    """Lark's own cache was a pickle at a predictable name in the temp folder; the run is given a
    temp folder of its own (TMPDIR), so that nothing is planted in the machine's shared one."""
    marker = tmp_path / "ran"
    temp = tmp_path / "tmp"
    grammar = (REPO / "rulesdsl/lang/grammar/rules.lark").read_bytes()
    digest = hashlib.sha256(grammar).hexdigest()[:16]
    for kind in ("model", "raw"):
        plant(temp / f"rulesdsl-{digest}-{kind}.lark", marker)
    env = dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache"), RULESDSL_NO_CACHE="1", TMPDIR=str(temp))
    run = rulesdsl("check", REPO / "examples/judge-question.rules", env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert not marker.exists()
    assert any(f.name.startswith("grammar-") for f in (tmp_path / "cache").iterdir())   # cached privately


def test_pickles_shipped_inside_a_knowledge_base_are_never_read(kb_root, run_cli, capsys, tmp_path):
    marker = tmp_path / "ran"
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    for name in ("parsed.pickle", "answers.pickle", "out/manifest.json"):
        plant(kb_root / ".rulesdsl-cache" / name, marker)
    code, out = fast(capsys, "--root", kb_root, "check")
    assert code == 0, out
    code, out = fast(capsys, "--root", kb_root, "show", "mini:X")
    assert code == 0 and "60" in out, out
    assert not marker.exists()
    assert not cache.kb_dir(kb_root).is_relative_to(kb_root)
    shutil.rmtree(kb_root / ".rulesdsl-cache")      # pytest keeps its temp folders: leave no pickle


def test_the_cache_folder_is_private_and_another_users_is_refused(tmp_path, monkeypatch):
    base = tmp_path / "c"
    monkeypatch.setenv("RULESDSL_CACHE", str(base))
    folder = cache.kb_dir(REPO)
    cache.user_key()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(base / "key").st_mode) == 0o600
    os.chmod(base, 0o777)                                       # opened to everyone: not used
    with pytest.raises(cache.Unavailable):
        cache.kb_dir(REPO)
    os.chmod(base, 0o700)
    if os.geteuid() == 0:                                       # another user's folder: not used
        os.chown(base, 4321, 4321)
        with pytest.raises(cache.Unavailable, match="another user"):
            cache.kb_dir(REPO)


def test_a_well_formed_entry_of_the_wrong_shape_means_parsing_again(kb_root, run_cli, monkeypatch):
    """Even under a valid MAC (as if written by a buggy version), a parse snapshot holding something
    else than documents, or naming a class outside the model, is ignored: exit 0, not 70."""
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    path = loader.snapshot_path(kb_root)
    version = snapshot.VERSION
    for payload in (snapshot.dumps([("k",), (1,)]),
                    json.dumps({"snapshot": version, "classes": [["os:system", "value", [], None]],
                                "scalars": [], "groups": [], "roots": []}).encode(),
                    b'{"snapshot": %d, "classes": [], "scalars": [], "groups": [[0, 1, []]], "roots": [0]}' % version,
                    b"not json", b""):
        cache.write_entry(path, "parsed", loader._salt(), payload)
        code, out, err = run_cli("--root", kb_root, "check")
        assert code == 0 and "no findings" in out, out + err


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign", "empty"])
def test_a_damaged_or_foreign_parse_snapshot_is_rebuilt_and_said_so_under_verbose(kb_root, run_cli, damage):
    """(The notes of --verbose go to the stderr of the command line itself, never into a kept
    output: run in this process, they land in the captured stderr.)"""
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    assert run_cli("--root", kb_root, "check")[0] == 0           # writes the snapshot
    path = loader.snapshot_path(kb_root)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "foreign":                                     # another user's key made it
        head, _, body = data.partition(b"\n")
        path.write_bytes(head[:-8] + b"00000000\n" + body)
    else:
        path.write_bytes(b"")
    code, out, err = run_cli("--root", kb_root, "-v", "check")
    assert code == 0 and "no findings" in out, out + err
    assert "ignoring parsed" in err


def test_an_edited_kept_output_is_not_printed(kb_root, capsys):
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    code, first = fast(capsys, "--root", kb_root, "show", "mini:X")
    assert code == 0 and "60" in first
    [kept] = (cache.kb_dir(kb_root) / "out").iterdir()
    head, _, body = kept.read_bytes().partition(b"\n")
    forged = json.loads(body)
    forged["stdout"] = "FORGED: weight 99kg\n"
    kept.write_bytes(head + b"\n" + json.dumps(forged).encode())
    code, again = fast(capsys, "--root", kb_root, "show", "mini:X")
    assert code == 0 and again == first
    assert "FORGED" not in again


def test_an_edit_that_keeps_size_and_mtime_is_seen(kb_root, capsys):
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    card = kb_root / "cards/mini/X.rules"
    code, out = fast(capsys, "--root", kb_root, "show", "mini:X")
    assert "weight: 60\n" in out
    before = os.stat(card)
    card.write_text(CARD.replace("60kg", "50kg"), encoding="utf-8")        # same size
    os.utime(card, ns=(before.st_atime_ns, before.st_mtime_ns))          # `touch -r`
    assert (os.stat(card).st_size, os.stat(card).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    code, out = fast(capsys, "--root", kb_root, "show", "mini:X")
    assert code == 0 and "weight: 50\n" in out, out


def test_a_file_record_is_trusted_only_while_size_times_and_inode_match_and_it_is_older_than_the_ctime(
        tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SLACK_NS", 0)
    f = tmp_path / "a.rules"
    f.write_text("one", encoding="utf-8")
    d = cache.Digests(None)
    first = d.digest(str(f))
    assert d.trusted(str(f)) == first                         # recorded after its last change
    st = os.stat(f)
    f.write_text("two", encoding="utf-8")                     # same size, mtime put back
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert d.trusted(str(f)) is None                          # the ctime moved
    assert d.digest(str(f)) == cache.content_digest(b"two")
    rec = d.seen[str(f)]
    rec[5] = os.stat(f).st_ctime_ns                           # a record no older than the ctime
    assert d.trusted(str(f)) is None


def test_the_record_of_digests_keeps_no_file_changed_too_recently_to_trust_and_is_not_rewritten_unchanged(
        kb_root, capsys, monkeypatch):
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    record = cache.kb_dir(kb_root) / "files"
    monkeypatch.setattr(cache, "SLACK_NS", 10 ** 18)        # every file changed "just now"
    cache._digests.clear()
    assert fast(capsys, "--root", kb_root, "show", "mini:X")[0] == 0
    assert not record.exists()                              # nothing it could ever trust again
    monkeypatch.setattr(cache, "SLACK_NS", 0)
    cache._digests.clear()
    assert fast(capsys, "--root", kb_root, "show", "mini:X")[0] == 0
    first = os.stat(record)
    cache._digests.clear()
    assert fast(capsys, "--root", kb_root, "show", "mini:X", "--json")[0] == 0
    assert os.stat(record).st_ino == first.st_ino          # nothing new learnt: not written again


def test_inside_one_look_a_file_is_stat_ed_once_and_its_content_is_still_read_when_its_record_is_not_trusted(
        tmp_path):
    f = tmp_path / "a.rules"
    f.write_text("one", encoding="utf-8")
    d = cache.Digests(None)
    with cache.one_look():
        before = cache.look(str(f))
        f.write_text("three", encoding="utf-8")
        assert cache.look(str(f)) == before                 # the command's one look at it
        assert d.digest(str(f)) == cache.content_digest(b"three")   # no trusted record: read again
        assert [rel for rel, _ in cache.walk(tmp_path)] == ["a.rules"]
        (tmp_path / "b.rules").write_text("two", encoding="utf-8")
        assert [rel for rel, _ in cache.walk(tmp_path, (".rules",))] == ["a.rules"]
    assert cache.look(str(f)).st_size == 5                  # the next command looks again
    assert [rel for rel, _ in cache.walk(tmp_path)] == ["a.rules", "b.rules"]


def test_a_folder_is_remembered_by_its_files_names_sizes_times_and_inodes_and_looked_at_again_when_one_changes(
        tmp_path, monkeypatch):
    import time
    from types import SimpleNamespace
    monkeypatch.setattr(cache, "SLACK_NS", 0)
    later = SimpleNamespace(time_ns=lambda: time.time_ns() + 10**9, strftime=time.strftime)
    monkeypatch.setattr(cache, "time", later)       # every file older than the moment its folder is read
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.rules").write_text("one", encoding="utf-8")
    (folder / "b.rules").write_text("two", encoding="utf-8")

    def feed(d):
        h = cache.blake2b(digest_size=20)
        d.tree(h, folder)
        return h.hexdigest()
    d = cache.Digests(None)
    first = feed(d)
    assert list(d.trees_seen) == [f"{folder}\0None"]
    d.seen.clear()
    assert feed(d) == first and not d.seen                  # remembered: no file looked up
    st = os.stat(folder / "a.rules")
    (folder / "a.rules").write_text("ONE", encoding="utf-8")  # same size, mtime put back
    os.utime(folder / "a.rules", ns=(st.st_atime_ns, st.st_mtime_ns))
    changed = feed(d)
    assert changed != first and changed == feed(cache.Digests(None))
    (folder / "c.rules").write_text("three", encoding="utf-8")
    assert feed(d) == feed(cache.Digests(None)) != changed


# ----------------------------------------------------------------------------- the snapshot format

def test_the_whole_bundled_knowledge_base_round_trips_through_a_snapshot_with_identical_answers():
    kb = load(REPO, use_cache=False)
    docs = snapshot.loads(snapshot.dumps(kb.documents))
    assert [d.model_dump() for d in docs] == [d.model_dump() for d in kb.documents]
    assert [d.__pydantic_fields_set__ for d in docs] == [d.__pydantic_fields_set__ for d in kb.documents]
    again = from_documents(kb.root, docs, kb.files)
    assert [d.message for d in again.diagnostics] == [d.message for d in kb.diagnostics]
    answered = 0
    for sid, info in kb.scenarios.items():
        if engine_for(info.game) is None:
            continue
        assert answer(again, again.scenarios[sid]).to_json() == answer(kb, info).to_json(), sid
        answered += 1
    assert answered >= 100


def test_a_snapshot_holds_only_the_models_classes_and_plain_data():
    with pytest.raises(snapshot.SnapshotError):
        snapshot.dumps([Path("/etc/passwd")])
    with pytest.raises(snapshot.SnapshotError, match="may not hold"):
        snapshot.loads(json.dumps({"snapshot": snapshot.VERSION, "classes": [["builtins:eval", "value", [], None]],
                                   "scalars": ["1"],
                                   "groups": [[0, 1, [[0]]]], "roots": [1]}).encode())


# ----------------------------------------------------------------------------- every file problem located

def test_a_broken_file_reached_through_a_symlink_is_reported(kb_root, run_cli, tmp_path):
    write_kb(kb_root, {"rulings/mini/broken.rules": 'ruling mini/x "t" {\n  revision 2026 confirmd {}\n}\n'})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "link.rules").symlink_to(kb_root / "rulings/mini/broken.rules")
    (outside / "linkdir").symlink_to(kb_root / "rulings/mini")
    for target in (kb_root / "rulings/mini/broken.rules", outside / "link.rules", outside / "linkdir"):
        code, out, err = run_cli("--root", kb_root, "check", target)
        assert code == 2, (target, out, err)
        assert "broken.rules:2:17: error[syntax]" in out, out


def test_a_knowledge_base_file_that_is_a_symlink_is_read_and_named_by_its_link(kb_root, run_cli, tmp_path):
    write_kb(kb_root, {})
    real = tmp_path / "elsewhere.rules"
    real.write_text('ruling mini/x "t" {\n  revision 2026 confirmd {}\n}\n', encoding="utf-8")
    (kb_root / "rulings/mini/link.rules").symlink_to(real)
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 2 and "rulings/mini/link.rules:2:17: error[syntax]" in out, out
    code, out, _ = run_cli("--root", kb_root, "check", kb_root / "rulings/mini/link.rules")
    assert code == 2 and "rulings/mini/link.rules:2:17" in out, out


def test_a_symlink_loop_in_a_knowledge_base_ends(kb_root, run_cli):
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    (kb_root / "cards/mini/loop").symlink_to(kb_root / "cards")
    code, out, _ = run_cli("--root", kb_root, "check")
    assert code == 0, out


@pytest.mark.parametrize("root", ["/nonexistent-rulesdsl-root", "/etc/hostname"])
def test_a_root_that_is_not_a_folder_is_an_error(run_cli, root):
    code, out, err = run_cli("--root", root, "check")
    assert code == 2
    assert "knowledge base" in err and "Traceback" not in err


def test_a_missing_path_is_a_located_error(kb_root, run_cli, tmp_path):
    write_kb(kb_root, {})
    code, out, err = run_cli("--root", kb_root, "check", tmp_path / "nope.rules")
    assert code == 2 and f"{tmp_path / 'nope.rules'}:1:1: error[io]" in out + err


@pytest.mark.parametrize("nest", ["{ a ", "["])
@pytest.mark.parametrize("command", ["check", "fmt --check"])
def test_deep_nesting_is_a_located_error(command, nest, kb_root, run_cli, tmp_path):
    write_kb(kb_root, {})
    f = tmp_path / "deep.rules"
    n = 1500
    body = ("effect on_play " + nest * n + ("}" if nest == "{ a " else "]") * n) if nest == "{ a " else \
        ("weight " + "[" * n + "]" * n)
    f.write_text('card mini No.1 "x" {\n  ' + body + "\n}\n", encoding="utf-8")
    code, out, err = run_cli("--root", kb_root, *command.split(), f)
    assert code == 2, out + err
    assert f"{f}:2:" in out + err and "error[nesting]" in out + err and "at most 64" in out + err


def test_nesting_up_to_the_limit_is_accepted(kb_root, run_cli, tmp_path):
    f = tmp_path / "deep.rules"
    f.write_text('card mini No.1 "x" {\n  weight ' + "[" * 64 + "]" * 64 + "\n}\n", encoding="utf-8")
    code, out, err = run_cli("fmt", f)
    assert code == 0 and out.count("[") == 64, out + err


def test_a_broken_vocabulary_template_is_a_located_error_not_a_crash(kb_root, run_cli):
    game = (REPO / "tests/conftest.py").read_text(encoding="utf-8")
    assert "{count}枚引く" in game
    write_kb(kb_root, {"cards/mini/X.rules": CARD})
    path = kb_root / "rulings/mini/game.rules"
    text = path.read_text(encoding="utf-8")
    for broken in ('"{count枚引く"', '"{count}枚引く}"', '"{count.real}枚引く"', '"{0}枚引く"'):
        path.write_text(text.replace('"{count}枚引く"', broken), encoding="utf-8")
        code, out, err = run_cli("--root", kb_root, "check")
        assert code == 1, out + err
        line = next(n for n, t in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "verb draw" in t)
        assert f"rulings/mini/game.rules:{line}:5: error[vocabulary]: the template of verb draw" in out, out


@pytest.mark.parametrize("command", ["deck", "check", "ask", "fmt --check"])
def test_devices_and_fifos_given_as_files_are_refused_before_reading(command, run_cli, tmp_path, kb_root):
    write_kb(kb_root, {})
    fifo = tmp_path / "fifo.rules"
    os.mkfifo(fifo)
    for target in ("/dev/zero", fifo):
        code, out, err = run_cli("--root", kb_root, *command.split(), target)
        assert code == 2, out + err
        assert f"{target}:1:1: error[io]" in out + err and "not a .rules file" in out + err


@pytest.mark.parametrize("command", ["deck", "ask"])
def test_a_folder_given_as_a_file_is_refused(command, run_cli, tmp_path, kb_root):
    write_kb(kb_root, {})
    code, out, err = run_cli("--root", kb_root, command, tmp_path)
    assert code == 2 and "is a folder" in err


def test_a_file_over_the_size_limit_is_refused_where_the_limit_falls(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    f = tmp_path / "big.rules"
    f.write_text("# comment line\n" * 10, encoding="utf-8")
    code, out, err = run_cli("fmt", "--check", f)
    assert code == 2 and f"{f}:7:" in out + err and "larger than" in out + err


@pytest.mark.parametrize("command", ["check", "deck", "ask", "fmt --check"])
def test_an_over_long_path_is_a_usage_error(command, run_cli, tmp_path, kb_root):
    write_kb(kb_root, {})
    long = tmp_path / ("a" * 300 + ".rules")
    code, out, err = run_cli("--root", kb_root, *command.split(), long)
    assert code == 2, out + err
    assert "too long" in out + err and "Traceback" not in out + err and "internal error" not in out + err


# ----------------------------------------------------------------------------- fmt --write respects files

MESSY = 'card grm No.1 "名前" {weight 60kg;range all8}\n'
MESSY_MULTI = 'card grm No.1 "名前" {\nweight 60kg;range all8}\n'
TIDY_MULTI = 'card grm No.1 "名前" {\n  weight 60kg\n  range all8\n}\n'


def test_fmt_write_follows_a_symlink_and_rewrites_its_target(run_cli, tmp_path):
    real = tmp_path / "real.rules"
    real.write_text(MESSY_MULTI, encoding="utf-8")
    link = tmp_path / "link.rules"
    link.symlink_to(real)
    code, out, err = run_cli("fmt", "--write", link)
    assert code == 0, out + err
    assert link.is_symlink() and real.read_text(encoding="utf-8") == TIDY_MULTI


def test_fmt_write_keeps_hard_links_mode_and_inode(run_cli, tmp_path):
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text(MESSY_MULTI, encoding="utf-8")
    os.link(a, b)
    os.chmod(a, 0o640)
    inode = os.stat(a).st_ino
    code, out, err = run_cli("fmt", "--write", a)
    assert code == 0, out + err
    assert os.stat(a).st_ino == os.stat(b).st_ino == inode
    assert b.read_text(encoding="utf-8") == TIDY_MULTI
    assert stat.S_IMODE(os.stat(a).st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rules", "b.rules"]


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_fmt_write_as_root_keeps_another_users_file_theirs(run_cli, tmp_path):
    f = tmp_path / "theirs.rules"
    f.write_text(MESSY_MULTI, encoding="utf-8")
    os.chown(f, 4321, 4322)
    code, out, err = run_cli("fmt", "--write", f)
    assert code == 0, out + err
    st = os.stat(f)
    assert (st.st_uid, st.st_gid) == (4321, 4322) and f.read_text(encoding="utf-8") == TIDY_MULTI


def test_fmt_write_refuses_a_read_only_file(run_cli, tmp_path):
    f = tmp_path / "ro.rules"
    f.write_text(MESSY_MULTI, encoding="utf-8")
    os.chmod(f, 0o444)
    code, out, err = run_cli("fmt", "--write", f)
    assert code == 2 and "read-only" in out + err
    assert f.read_text(encoding="utf-8") == MESSY_MULTI


def test_fmt_write_in_a_folder_where_nothing_can_be_written_is_an_error(run_cli, tmp_path, monkeypatch):
    """As a user without write access to the folder would see it (root may write anywhere, so
    the refusal is simulated where the temporary file is made)."""
    f = tmp_path / "a.rules"
    f.write_text(MESSY_MULTI, encoding="utf-8")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    code, out, err = run_cli("fmt", "--write", f)
    assert code == 2 and "no file can be written" in out + err and "internal error" not in out + err
    assert f.read_text(encoding="utf-8") == MESSY_MULTI


@pytest.mark.parametrize("hard_link", [False, True])
def test_fmt_write_interrupted_while_writing_leaves_the_file_whole_and_no_temporary_file(
        run_cli, tmp_path, monkeypatch, hard_link):
    f = tmp_path / "a.rules"
    f.write_text(MESSY_MULTI, encoding="utf-8")
    if hard_link:
        os.link(f, tmp_path / "b.rules")
    real = fmt_command._write_all

    def interrupted(fd, data):
        real(fd, data[: len(data) // 2])
        raise KeyboardInterrupt
    monkeypatch.setattr(fmt_command, "_write_all", interrupted)
    code, out, err = run_cli("fmt", "--write", f)
    assert code == 130
    assert f.read_text(encoding="utf-8") == MESSY_MULTI
    assert sorted(p.name for p in tmp_path.iterdir()) == (["a.rules", "b.rules"] if hard_link else ["a.rules"])


def test_discover_follows_symlinked_folders_once(tmp_path):
    (tmp_path / "cards/g").mkdir(parents=True)
    (tmp_path / "cards/g/a.rules").write_text("", encoding="utf-8")
    (tmp_path / "cards/h").symlink_to(tmp_path / "cards/g")
    (tmp_path / "cards/g/again").symlink_to(tmp_path / "cards")
    found = [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)]
    assert "cards/g/a.rules" in found and len(found) == len(set(found)) <= 3


def test_a_source_document_that_is_a_fifo_is_refused_not_read_forever(kb_root, run_cli):
    write_kb(kb_root, {})
    doc = kb_root / "rulings/mini/sources/mini.txt"
    doc.unlink()
    os.mkfifo(doc)
    code, out, err = run_cli("--root", kb_root, "check")
    assert code in (1, 2) and "FIFO" in out + err and "internal error" not in out + err
    assert "rulings/mini/game.rules:" in out + err
