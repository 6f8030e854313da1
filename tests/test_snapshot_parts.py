"""The parse snapshot of a large knowledge base is kept in parts (kb/loader.py), each written by the
process that parsed its files; a part is only an accelerator: cold, warm, after an edit, with a
part damaged, stale or laid out for another size, every finding and answer is what a run with no
cache at all gives. (A small PARALLEL_MIN makes the bundled knowledge base a large one here.)"""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO

from rulesdsl.base import cache
from rulesdsl.kb import loader
from rulesdsl.lang import builder, parser, snapshot
from rulesdsl.lang.model import Card, Revision, Scenario

QUESTION = "grm/qa/stack-flips-top-only"


@pytest.fixture
def bundled(tmp_path, monkeypatch):
    """A copy of the bundled knowledge base, with its own empty cache folder, laid out in parts."""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESDSL_ROOT", raising=False)
    monkeypatch.setattr(loader, "PARALLEL_MIN", 8)
    root = tmp_path / "kb"
    for part in ("cards", "rulings"):
        shutil.copytree(REPO / part, root / part)
    return root


def answers(run_cli, root, *flags):
    """What the user sees of the knowledge base: check's findings and one worked question's answer."""
    return (run_cli("--root", root, *flags, "check", "--json")[:2],
            run_cli("--root", root, *flags, "ask", QUESTION)[:2])


def parts(root):
    snap = loader.snapshot_path(root)
    return [p for p in loader.shard_paths(snap) if p.exists()]


def stamps(root):
    return {p: p.stat().st_mtime_ns for p in parts(root)}


def test_a_cold_check_writes_every_part_and_answers_as_cold_warm_and_without_cache(bundled, run_cli):
    cold = answers(run_cli, bundled)
    assert len(parts(bundled)) == loader.SHARDS
    assert all(loader.outline_path(p).exists() for p in parts(bundled))
    warm = answers(run_cli, bundled)
    assert cold == warm == answers(run_cli, bundled, "--no-cache")
    assert cold[0][0] == 0 and cold[1][0] == 0


def test_an_edit_rewrites_only_its_own_part(bundled, run_cli):
    answers(run_cli, bundled)
    before = stamps(bundled)
    edited = bundled / "rulings/grm/qa/stack.rules"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# 追記\n", encoding="utf-8")
    after_edit = answers(run_cli, bundled)
    changed = [p for p, t in stamps(bundled).items() if before.get(p) != t]
    shard = loader.shard_of("rulings/grm/qa/stack.rules", loader.SHARDS)
    assert changed == [loader.shard_paths(loader.snapshot_path(bundled))[shard]]
    assert after_edit == answers(run_cli, bundled, "--no-cache")


@pytest.mark.parametrize("damage", ["flip", "truncate", "stale", "swapped"])
def test_a_damaged_or_stale_part_never_changes_a_finding_or_an_answer(bundled, run_cli, damage):
    answers(run_cli, bundled)
    shard = loader.shard_of("rulings/grm/qa/stack.rules", loader.SHARDS)
    paths = loader.shard_paths(loader.snapshot_path(bundled))
    path = paths[shard]
    data = path.read_bytes()
    if damage == "stale":       # the part as it was before its file changed
        edited = bundled / "rulings/grm/qa/stack.rules"
        edited.write_text(edited.read_text(encoding="utf-8") + "\n# 追記\n", encoding="utf-8")
        answers(run_cli, bundled)
        path.write_bytes(data)
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:                       # another part's (valid) file in its place: it holds other keys
        other = paths[(shard + 1) % loader.SHARDS]
        path.write_bytes(other.read_bytes())
    code, _, err = run_cli("--root", bundled, "-v", "check")
    assert code == 0
    if damage in ("flip", "truncate"):
        assert "ignoring parsed" in err
    assert answers(run_cli, bundled) == answers(run_cli, bundled, "--no-cache")
    assert cache.read_entry(path, "parsed", loader._salt()) is not None      # rewritten whole


def test_a_knowledge_base_that_shrinks_below_the_parts_keeps_one_snapshot(bundled, run_cli, monkeypatch):
    answers(run_cli, bundled)
    monkeypatch.setattr(loader, "PARALLEL_MIN", 10_000)
    small = answers(run_cli, bundled)
    assert parts(bundled) == [loader.snapshot_path(bundled)]
    assert small == answers(run_cli, bundled, "--no-cache") == answers(run_cli, bundled)


def test_the_snapshot_and_its_outline_from_one_walk_read_back_as_from_two():
    docs = [parser.parse_text(p.read_text(encoding="utf-8"), str(p))
            for p in sorted((REPO / "rulings").rglob("*.rules"))[:30]]
    keys = tuple(map(str, range(len(docs))))
    brief = tuple(map(loader.outline, docs))
    small, large = snapshot.dumps_nested([keys, brief], [keys, tuple(docs)])
    assert small == snapshot.dumps([keys, brief])
    assert snapshot.loads(large) == snapshot.loads(snapshot.dumps([keys, tuple(docs)])) == [keys, tuple(docs)]
    assert len(small) < len(large)


def test_nodes_built_without_model_construct_are_what_model_construct_builds():
    for cls, given in ((Card, dict(game="g", code="X", loc=("f", 1, 1), notes=("n",))),
                       (Revision, dict(date=None, status=None, loc=("f", 2, 3))),
                       (Scenario, dict(id="g/s", title="t", loc=("f", 4, 5)))):
        made, expected = builder.constructor(cls)(**given), cls.model_construct(**given)
        assert made == expected and repr(made) == repr(expected)
        assert made.__pydantic_fields_set__ == expected.__pydantic_fields_set__
        assert list(made.__dict__) == list(expected.__dict__)
    with pytest.raises(TypeError):
        builder.constructor(Card)(game="g", code="X", loc=("f", 1, 1), colour="red")
    with pytest.raises(TypeError):
        builder.constructor(Card)(game="g", loc=("f", 1, 1))
