"""The parse snapshot of a large knowledge base is kept in parts (kb/loader.py), each written by the
process that parsed its files; a part is only an accelerator: cold, warm, after an edit, with a
part damaged, stale or laid out for another size, every finding and answer is what a run with no
cache at all gives. (A small PARALLEL_MIN makes the bundled knowledge base a large one here.)"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import REPO

from rulesdsl.base import cache
from rulesdsl.base.declared import BaseModel
from rulesdsl.kb import loader
from rulesdsl.lang import builder, parser, snapshot
from rulesdsl.lang.model import Atom, Card, Clause, Loc, Revision, Ruling, Scenario

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


def test_the_snapshot_holds_its_outline_as_written_and_encodes_only_the_rest():
    docs = [parser.parse_text(p.read_text(encoding="utf-8"), str(p))
            for p in sorted((REPO / "rulings").rglob("*.rules"))[:30]]
    keys = tuple(map(str, range(len(docs))))
    small, large = snapshot.dumps_nested([keys, tuple(map(loader.outline, docs))], [keys, tuple(docs)])
    assert large.startswith(b'{"base":' + small + b",")
    whole = json.loads(snapshot.dumps([keys, tuple(docs)]))
    own = json.loads(large)
    del own["base"]
    # what the outline already holds is not written again: fewer scalars and objects than alone
    assert len(own["scalars"]) < len(whole["scalars"])
    assert sum(g[1] for g in own["groups"]) < sum(g[1] for g in whole["groups"])


@pytest.mark.parametrize("base", [
    {"snapshot": snapshot.VERSION + 1, "classes": [], "scalars": [], "groups": [], "roots": []},
    {"snapshot": snapshot.VERSION, "classes": [], "scalars": [], "groups": [], "roots": [],
     "base": {"snapshot": snapshot.VERSION, "classes": [], "scalars": [], "groups": [], "roots": []}},
    [1, 2]])
def test_a_snapshot_over_a_base_that_is_not_one_of_this_version_is_refused(base):
    payload = {"snapshot": snapshot.VERSION, "base": base, "classes": [], "scalars": [], "groups": [], "roots": []}
    with pytest.raises(snapshot.SnapshotError, match="base"):
        snapshot.loads(json.dumps(payload).encode())


def test_an_object_of_the_base_is_not_taken_for_a_location():
    """Over a base, an index below the payload's own scalars may name one of the base's objects:
    a location's column that does is refused, not read as a line."""
    card = Card.model_construct(game="g", code="X", loc=Loc("f", 1, 1))
    _, large = snapshot.dumps_nested([(card,)], [(card, card.model_copy(update={"code": "Y"}))])
    data = json.loads(large)
    group = next(g for g in data["groups"] if len(g[2]) > 2)[2]     # card Y's, its class the base's
    line_column = -3            # the Loc's file, line and column come last, before the fields-given mask
    group[line_column] = [len(data["base"]["scalars"])]       # the base's first object: card X
    with pytest.raises(snapshot.SnapshotError, match="location"):
        snapshot.loads(json.dumps(data).encode())


def test_writing_a_snapshot_leaves_nothing_it_walked_for_the_cyclic_collector():
    """A cold load writes its parts with the collector off: what a writer walked (a row per
    object) must be freed when it is done, not kept in a cycle until a collection."""
    import gc
    docs = [parser.parse_text(p.read_text(encoding="utf-8"), str(p))
            for p in sorted((REPO / "rulings").rglob("*.rules"))[:30]]
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        snapshot.dumps([tuple(docs)])
        snapshot.dumps_nested([tuple(docs[:5])], [tuple(docs)])
        left = gc.collect()
    finally:
        if was:
            gc.enable()
    # each writer's own small cycle is left (its closure, the closure's cells, its emptied tables: ~28 objects);
    # before, a row for every object walked (33,546 here)
    assert left < 100, f"{left} objects of the walk left for the collector"


def test_read_back_frozen_nodes_share_their_fields_given_and_a_copy_changes_only_its_own():
    docs = [parser.parse_text(p.read_text(encoding="utf-8"), str(p))
            for p in sorted((REPO / "rulings").rglob("*.rules"))[:30]]
    back = snapshot.loads(snapshot.dumps([tuple(docs)]))[0]
    assert list(back) == docs
    revisions = [rev for d in back for decl in d.decls if isinstance(decl, Ruling) for rev in decl.revisions]
    by_given: dict = {}
    for rev in revisions:
        by_given.setdefault(frozenset(rev.model_fields_set), set()).add(id(rev.model_fields_set))
    assert len(revisions) > len(by_given) and all(len(ids) == 1 for ids in by_given.values())   # one set each
    first, other = revisions[0], next(r for r in revisions[1:] if r.model_fields_set is revisions[0].model_fields_set)
    before = set(other.model_fields_set)
    changed = first.model_copy(update={"reason": "別の理由"})
    assert changed.reason == "別の理由" and "reason" in changed.model_fields_set
    assert other.model_fields_set == before and first.model_fields_set == before     # the shared set untouched
    with pytest.raises(Exception):
        first.reason = "書き換え"          # frozen: nothing sets a field in place


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


def optional_locs(v) -> int:
    """How many `Loc`s `v` holds outside its nodes' own `loc` fields."""
    if isinstance(v, Loc):
        return 1
    if isinstance(v, BaseModel):
        return sum(optional_locs(x) for f, x in v.__dict__.items() if f != "loc")
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return sum(optional_locs(x) for f, x in zip(v._fields, v) if f != "loc")
    if isinstance(v, (tuple, list)):
        return sum(map(optional_locs, v))
    return 0


def test_a_nodes_location_is_written_in_its_owners_row_and_read_back_as_a_loc():
    """Snapshot format 2: a required `loc` is three columns of its owner's row, not a node of its
    own; an optional location (a ruling's `gap_loc`) stays a node; both read back as `Loc`s."""
    path = REPO / "rulings/grm/calendar.rules"
    doc = parser.parse_text(path.read_text(encoding="utf-8"), "rulings/grm/calendar.rules")
    payload = snapshot.dumps([doc])
    data = json.loads(payload)
    assert data["snapshot"] == snapshot.VERSION >= 2
    classes = {name.split(":")[1]: (fields, at) for name, _, fields, at, *_ in data["classes"]}
    assert classes["Ruling"][1] == "loc" and classes["Clause"][1] == "loc"
    loc_groups = [g for g in data["groups"] if data["classes"][g[0]][0].endswith(":Loc")]
    ruling = next(d for d in doc.decls if isinstance(d, Ruling) and d.gap_loc is not None)
    assert sum(g[1] for g in loc_groups) == optional_locs(doc) > 0
    back, = snapshot.loads(payload)
    assert back == doc and back.model_dump() == doc.model_dump()
    again = next(d for d in back.decls if isinstance(d, Ruling) and d.id == ruling.id)
    assert type(again.loc) is Loc and type(again.gap_loc) is Loc and again.gap_loc == ruling.gap_loc


def test_a_location_that_is_not_a_loc_is_not_snapshotted_and_a_damaged_one_not_read():
    card = Card.model_construct(game="g", code="X", loc=("f", 1, 1))
    with pytest.raises(snapshot.SnapshotError, match="not a Loc"):
        snapshot.dumps([card])
    data = json.loads(snapshot.dumps([Card.model_construct(game="g", code="X", loc=Loc("f", 1, 1))]))
    group = data["groups"][-1][2]
    line_column = -3            # the Loc's file, line and column come last, before the fields-given mask
    group[line_column] = [data["scalars"].index("f")]       # a line that is a string
    with pytest.raises(snapshot.SnapshotError, match="location"):
        snapshot.loads(json.dumps(data).encode())


def test_the_childs_documents_come_from_the_parts_it_wrote_or_are_parsed_again(bundled, run_cli, monkeypatch):
    """The parent takes in the child's documents by reading back the parts the child wrote; a
    part that does not read back (replaced or damaged meanwhile) means parsing its files again."""
    read = []
    real = loader.read_snapshot

    def counted(path, salt, kind="parsed"):
        read.append(path)
        return real(path, salt, kind)
    monkeypatch.setattr(loader, "read_snapshot", counted)
    here = parsed_here(monkeypatch)
    checked = run_cli("--root", bundled, "check", "--json")[:2]
    assert sorted(here) == own_half(bundled)
    paths = loader.shard_paths(loader.snapshot_path(bundled))
    own = loader.OWN_PARTS
    assert set(paths[own:]) <= set(read) and not set(paths[1:own]) & set(read)    # the child's, not its own
    monkeypatch.setattr(loader, "read_snapshot", real)
    cold = answers(run_cli, bundled)
    assert cold[0] == checked
    shutil.rmtree(bundled.parent / "cache")
    monkeypatch.setattr(loader, "read_snapshot", lambda path, salt, kind="parsed": None)
    assert answers(run_cli, bundled) == cold == answers(run_cli, bundled, "--no-cache")
    assert len(parts(bundled)) == loader.SHARDS


def test_a_child_that_fails_leaves_its_share_to_the_parent(bundled, run_cli, monkeypatch):
    def fail(*args):
        raise RuntimeError("the child fails")
    monkeypatch.setattr(loader, "_child_parts", fail)
    cold = answers(run_cli, bundled)
    assert len(parts(bundled)) == loader.SHARDS
    assert cold == answers(run_cli, bundled, "--no-cache") and cold[0][0] == 0


def parsed_here(monkeypatch) -> list:
    """The names of the files parse_one parses in this process (not in a fork of it)."""
    here, seen, real = os.getpid(), [], loader.parse_one

    def parse_one(shown, data, key):
        if os.getpid() == here:
            seen.append(shown)
        return real(shown, data, key)
    monkeypatch.setattr(loader, "parse_one", parse_one)
    return seen


def own_half(root) -> list:
    names = [loader.display_path(p, root) for p in loader.rules_files(root)]
    return sorted(n for n in names if loader.shard_of(n, loader.SHARDS) < loader.OWN_PARTS)


def test_a_part_the_child_cannot_write_is_sent_to_the_parent_instead(bundled, run_cli, monkeypatch):
    real = cache.write_entry
    here = parsed_here(monkeypatch)
    childs = {str(p) for p in loader.shard_paths(loader.snapshot_path(bundled))[loader.OWN_PARTS:]}
    monkeypatch.setattr(cache, "write_entry",
                        lambda path, *a: str(path) not in childs and real(path, *a))   # the child's fail
    checked = run_cli("--root", bundled, "check", "--json")[:2]
    paths = loader.shard_paths(loader.snapshot_path(bundled))
    own = loader.OWN_PARTS
    assert [p.exists() for p in paths] == [True] * own + [False] * (loader.SHARDS - own)
    assert sorted(here) == own_half(bundled)        # the child's documents came through the pipe
    monkeypatch.setattr(cache, "write_entry", real)
    assert checked == answers(run_cli, bundled, "--no-cache")[0] and checked[0] == 0


@pytest.mark.parametrize("claimed", [None, "code", "game"])
def test_a_snapshot_that_puts_a_location_in_another_field_than_the_class_declares_is_not_read(claimed):
    """Which field is written as a location's three columns is the reader's own knowledge of the
    class (its annotations, read as written on Python 3.11 and 3.14 alike), not the writer's word:
    a class table that names another field, or none, is refused rather than read into it."""
    data = json.loads(snapshot.dumps([Card.model_construct(game="g", code="X", loc=Loc("f", 1, 1))]))
    row = next(c for c in data["classes"] if c[0].endswith(":Card"))
    assert row[3] == "loc"
    row[3] = claimed
    with pytest.raises(snapshot.SnapshotError, match="other fields"):
        snapshot.loads(json.dumps(data).encode())


def test_the_parents_own_parts_are_written_by_a_copy_of_it_that_the_command_waits_for(bundled, run_cli,
                                                                                     monkeypatch):
    """This process leaves its parts to a copy of itself forked once its files are parsed (it
    takes in the child's documents, builds and checks meanwhile); a command returns only once
    that copy has written them: nothing it started is left running."""
    parent, real = os.getpid(), cache.write_entry
    log = bundled.parent / "writers.log"

    def noted(path, *a):
        with open(log, "a", encoding="utf-8") as f:       # appended from whichever process writes
            f.write(f"{os.getpid() == parent} {path}\n")
        return real(path, *a)
    monkeypatch.setattr(cache, "write_entry", noted)
    checked = run_cli("--root", bundled, "check", "--json")[:2]
    assert loader._writers == []
    paths = loader.shard_paths(loader.snapshot_path(bundled))
    ours = {str(p) for p in paths} | {str(loader.outline_path(p)) for p in paths}
    written = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    assert {path for _, path in written} >= ours                    # every part and its outline …
    assert all(here == "False" for here, path in written if path in ours)       # … none by this process
    monkeypatch.setattr(cache, "write_entry", real)
    assert checked == answers(run_cli, bundled, "--no-cache")[0] and checked[0] == 0


def test_the_parents_own_parts_are_written_here_when_no_copy_can_be_forked(bundled, run_cli, monkeypatch):
    from rulesdsl.base import shared_work
    monkeypatch.setattr(shared_work, "beside", lambda work, processes=2: shared_work.Beside(None, None))
    checked = run_cli("--root", bundled, "check", "--json")[:2]
    assert len(parts(bundled)) == loader.SHARDS
    assert checked == answers(run_cli, bundled, "--no-cache")[0] and checked[0] == 0


def test_a_clauses_arguments_are_columns_of_its_row_grouped_by_count_and_read_back_as_atoms():
    """Snapshot format 3: the arguments of a clause or an expectation (the field declared
    `tuple[Atom, ...]`) are neither a tuple node nor atom nodes but five columns per argument in the
    owner's group (kind, value, unit, and the location's line and column: format 4), whose class
    entry says how many arguments; arguments that are not a tuple of located atoms are one
    reference (-1)."""
    path = REPO / "rulings/grm/qa/continuous.rules"
    doc = parser.parse_text(path.read_text(encoding="utf-8"), "rulings/grm/qa/continuous.rules")
    data = json.loads(snapshot.dumps([doc]))
    counts = {tuple(rest[0]) for name, _, _, _, *rest in data["classes"] if name.endswith(":Clause")}
    assert {("args", 0), ("args", 1), ("args", 2)} <= counts
    assert all(rest == [] for name, _, _, _, *rest in data["classes"]
               if not name.endswith((":Clause", ":Expectation")))
    assert not any(name.endswith(":Atom") for name, *_ in data["classes"])     # no array in this file
    back, = snapshot.loads(snapshot.dumps([doc]))
    assert back == doc and back.model_dump() == doc.model_dump()
    clauses = [c for d in doc.decls if isinstance(d, Scenario) for c in d.clauses]
    loc = Loc("f", 1, 2)
    odd = (Clause("h", loc, [Atom("name", "x", loc)], None),                  # a list
           Clause("h", loc, (Atom("name", "x", loc), "y"), None),            # not only atoms
           Clause("h", loc, (Atom("array", (Atom("number", 1, loc), Atom("name", "y", loc)), loc),
                             Atom("quantity", 60, loc, "kg")), None))        # an array's atoms are nodes
    for c in (*clauses, *odd):
        again, = snapshot.loads(snapshot.dumps([c]))
        assert again == c and type(again.args) is type(c.args)
        assert list(map(type, again.args)) == list(map(type, c.args))


def test_an_arguments_file_is_its_owners_and_arguments_located_elsewhere_are_a_reference():
    """Snapshot format 4: an argument's atom keeps no file column of its own; it is read back in
    its owner's file. Arguments of which one atom lies in another file than their owner are
    written as one reference (count -1), so that they read back in their own file."""
    path = REPO / "rulings/grm/qa/continuous.rules"
    doc = parser.parse_text(path.read_text(encoding="utf-8"), "rulings/grm/qa/continuous.rules")
    data = json.loads(snapshot.dumps([doc]))
    entry = next(e for e in data["classes"] if e[0].endswith(":Clause") and e[4] == ["args", 2])
    group = next(g for g in data["groups"] if data["classes"][g[0]] is entry)
    assert len(group[2]) == len(entry[2]) - 2 + 2 * 5 + 3     # head and body, 2 atoms, the Loc
    back, = snapshot.loads(snapshot.dumps([doc]))
    assert back == doc
    args = [a for d in back.decls if isinstance(d, Scenario) for c in d.clauses for a in c.args]
    assert args and all(a.loc.file == "rulings/grm/qa/continuous.rules" for a in args)
    here, there = Loc("f", 1, 2), Loc("g", 3, 4)
    for c in (Clause("h", here, (Atom("name", "x", here), Atom("name", "y", there)), None),
              Clause("h", here, (Atom("name", "x", there),), None),
              Clause("h", here, (Atom("name", "x", Loc("f" + str(len("x")), 1, 2)),), None)):
        data = json.loads(snapshot.dumps([c]))
        clause = next(e for e in data["classes"] if e[0].endswith(":Clause"))
        assert clause[4] == ["args", -1 if c.args[-1].loc.file != "f" else len(c.args)]
        again, = snapshot.loads(snapshot.dumps([c]))
        assert again == c and [a.loc for a in again.args] == [a.loc for a in c.args]
    same = Clause("h", here, (Atom("name", "x", Loc("".join("f"), 5, 6)),), None)    # equal, not the same str
    data = json.loads(snapshot.dumps([same]))
    assert next(e for e in data["classes"] if e[0].endswith(":Clause"))[4] == ["args", 1]
    assert snapshot.loads(snapshot.dumps([same])) == [same]


def test_a_class_entry_whose_arguments_disagree_with_the_class_is_refused():
    doc = parser.parse_text((REPO / "cards/grm/No.013.rules").read_text(encoding="utf-8"), "No.013.rules")
    data = json.loads(snapshot.dumps([doc]))
    for change in (lambda e: e.pop(), lambda e: e[4].__setitem__(0, "body"), lambda e: e[4].__setitem__(1, -2),
                   lambda e: e[4].__setitem__(1, "1"), lambda e: e.append(None)):
        damaged = json.loads(json.dumps(data))
        entry = next(e for e in damaged["classes"] if e[0].endswith(":Clause"))
        change(entry)
        with pytest.raises(snapshot.SnapshotError):
            snapshot.loads(json.dumps(damaged).encode())
    plain = json.loads(json.dumps(data))
    next(e for e in plain["classes"] if e[0].endswith(":Card")).append(["args", 0])
    with pytest.raises(snapshot.SnapshotError):
        snapshot.loads(json.dumps(plain).encode())


def test_a_cold_load_in_two_processes_makes_the_parsers_tables_once_before_forking(bundled, run_cli,
                                                                                  tmp_path, monkeypatch):
    """On an empty cache the driver's tables are made from Lark's parser (a grammar analysis) in
    the process that forks the second parser, which shares them: not once more in the child."""
    from rulesdsl.lang import lalr
    made = tmp_path / "made"
    tables_of = lalr.tables_of

    def counted(lark):
        with open(made, "a") as f:
            f.write(f"{os.getpid()}\n")
        return tables_of(lark)
    monkeypatch.setattr(lalr, "tables_of", counted)
    parser._driver.cache_clear()
    try:
        assert run_cli("--root", bundled, "check")[0] == 0
    finally:
        parser._driver.cache_clear()
    assert made.read_text().split() == [str(os.getpid())]
    assert len(parts(bundled)) == loader.SHARDS         # the child parsed and wrote its parts
