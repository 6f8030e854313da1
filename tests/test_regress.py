"""The scenario corpus as a regression suite: pytest items, rulesdsl test, impact, timelines,
pinned expectations."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO, this_checkout

from rulesdsl.kb.build import load
from rulesdsl.regress.failures import pinned_failures
from rulesdsl.regress.impact import impact
from rulesdsl.regress.periods import timeline
from rulesdsl.regress.records import Memo, answer_all

WHAT_IF = """\
ruling grm/whatif/whole-stack "仮: スタック全体が裏返る" {
  revision 2026-08-15 unconfirmed {
    source "000_a437c75d0e53c518.txt §スタックの表裏状態"
    text "仮の提案: スタックを裏返す・オモテにする効果は、スタック全体に作用する。"
    reason "この裁定が出たら答えがどう変わるかを見るための仮定（資料に2026年8月15日の裁定はない）"
    set stack.flip_scope = whole_stack
  }
}
"""

FLAGSHIP = "grm/qa/stack-flips-top-only"


@pytest.fixture
def whatif(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "whatif.rules"
    f.write_text(WHAT_IF, encoding="utf-8")
    return f


def test_pytest_collects_each_scenario_as_an_item_named_by_game_and_id():
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider",
                          "rulings/grm/qa/stack.rules", "rulings/thgm/qa"], cwd=REPO, capture_output=True,
                         text=True).stdout
    assert f"rulings/grm/qa/stack.rules::grm:{FLAGSHIP}" in out
    assert "::thgm:thgm/qa/" in out


def _mini_repo(tmp_path):
    """A copy of the GRM knowledge base to break on purpose."""
    root = tmp_path / "kb"
    shutil.copytree(REPO / "rulings/grm", root / "rulings/grm")
    shutil.copytree(REPO / "cards/grm", root / "cards/grm")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['rulings']\n")
    return root


def test_a_failing_scenario_reads_like_an_answer_with_expected_actual_trace_and_rulings(tmp_path):
    root = _mini_repo(tmp_path)
    qa = root / "rulings/grm/qa/stack.rules"
    qa.write_text(qa.read_text(encoding="utf-8").replace('expect card_face b2 "土台" up', 'expect card_face b2 "土台" down', 1),
                  encoding="utf-8")
    env = this_checkout(dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache")))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "rulings/grm/qa/stack.rules"],
                         cwd=root, capture_output=True, text=True, env=env)
    assert run.returncode == 1
    out = run.stdout
    assert f"grm:{FLAGSHIP}" in out
    assert "FAIL expected (always) b2の《土台》は裏向き" in out
    assert "actual: 《土台》は表向き" in out
    assert "trace" in out and "← grm/stack/face-state" in out
    assert "rests on:" in out and "stack.flip_scope = top_only" in out


def test_rulesdsl_test_runs_the_corpus_and_reports_json(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, _ = run_cli("--root", REPO, "test", REPO / "rulings/grm/qa/stack.rules", "--json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0 and data["passed"] >= 10
    assert {r["result"] for r in data["results"]} == {"passed"}
    code, out, _ = run_cli("--root", REPO, "test", REPO / "rulings/thgm/qa")
    assert code == 0 and " 0 failed, 0 skipped" in out      # every game has its interpreter now


def test_what_if_ruling_flips_the_flagship_and_names_the_revision(run_cli, whatif):
    code, out, _ = run_cli("--root", REPO, "impact", "--with", whatif, "--json")
    assert code == 0
    data = json.loads(out)
    changed = {c["scenario"]: c for c in data["changes"]}
    flag = changed[FLAGSHIP]
    assert flag["ok_before"] is True and flag["ok_after"] is False
    assert "下の《土台》は表向きのまま" in flag["before"] and "《土台》は裏向き" in flag["after"]
    assert "P1表《土台》" in flag["state_before"] and "P1裏《土台》" in flag["state_after"]
    assert any("grm/whatif/whole-stack@2026-08-15" in b for b in flag["because"])
    assert data["rerun"] == data["total"]  # nothing recorded yet: every scenario runs once
    code, out, _ = run_cli("--root", REPO, "impact", "--with", whatif, "--json")
    again = json.loads(out)
    assert again["changes"] == data["changes"]
    assert again["rerun"] == len(again["changes"]) < again["total"]  # now only the moved ones re-run
    assert not (REPO / "rulings/grm/whatif.rules").exists()  # what-if writes nothing


def test_impact_with_the_memo_equals_a_full_rerun(whatif, tmp_path):
    old = load(REPO)
    new = load(REPO, extra=[whatif])
    memo = Memo(tmp_path / "memo.json")
    impact(new, old, memo)  # fills the memo from one state
    fast = impact(old, new, Memo(tmp_path / "memo.json"))
    full = impact(old, new, None, use_memo=False)
    assert fast.rerun < full.rerun == full.total
    assert [c.as_dict() for c in fast.changes] == [c.as_dict() for c in full.changes]


def test_impact_leaves_the_memo_alone_when_every_kept_record_came_from_it(whatif, tmp_path):
    """Rewriting the memo (thousands of records) for records it already holds would cost more
    than the re-runs impact saves."""
    old = load(REPO)
    new = load(REPO, extra=[whatif])
    memo = Memo(tmp_path / "memo.json")
    answer_all(old, [s for s in old.scenarios.values() if s.expects], memo)
    memo.save()
    kept = Memo(tmp_path / "memo.json")
    result = impact(old, new, kept)
    assert result.changes and result.rerun == len(result.changes)
    assert not kept.dirty


def test_impact_since_a_git_revision(tmp_path, monkeypatch):
    root = _mini_repo(tmp_path)
    git = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    (root / "rulings/grm/whatif.rules").write_text(WHAT_IF, encoding="utf-8")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "whole stack")
    env = this_checkout(dict(os.environ, RULESDSL_CACHE=str(tmp_path / "cache")))
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "impact", "--since", "HEAD~1"], cwd=root,
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "## Impact since HEAD~1" in run.stdout
    assert f"**{FLAGSHIP}**" in run.stdout
    assert "because stack.flip_scope: top_only" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "rulesdsl", "impact", "--since", "nope"], cwd=root,
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "has no revision nope" in bad.stderr and "Traceback" not in bad.stderr


def test_impact_of_one_ruling_on_a_day_reports_status_changes(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, _ = run_cli("--root", REPO, "impact", "--ruling", "grm/battle/zero-weight", "--as-of", "2026-09-01")
    assert code == 0
    assert "status: unconfirmed → confirmed" in out
    assert "battle.zero_weight: battle_occurs (unconfirmed, default of grm/battle/occurrence) → " \
           "battle_occurs (confirmed, grm/battle/zero-weight@2026-03)" in out


def test_timeline_of_the_flagship_and_of_a_dated_ruling(run_cli, whatif, tmp_path):
    code, out, _ = run_cli("--root", REPO, "timeline", FLAGSHIP)
    assert code == 0
    assert "from the beginning on: confirmed (確定（出典: ファンwikiのまとめ。公式ルールではない）)" in out
    kb = load(REPO, extra=[whatif])
    periods = timeline(kb, kb.scenarios[FLAGSHIP])
    assert [(p.start and p.start.isoformat(), p.record.ok) for p in periods] == [(None, True), ("2026-08-15", False)]
    code, out, _ = run_cli("--root", REPO, "timeline", "grm/qa/rulings-zero-weight-after-march")
    assert "from the beginning until 2026-03-01: unconfirmed (※未確定（" in out
    assert "from 2026-03-01 on: confirmed (確定（" in out


def test_a_pinned_expectation_fails_naming_the_revision_that_flips_it(whatif, tmp_path):
    scenario = tmp_path / "pinned.rules"
    scenario.write_text(textwrap.dedent("""\
        scenario grm/qa/t-pinned "土台は表のまま" {
          as of 2026-07-01
          card "土台" { weight 30kg }
          card "上" { weight 45kg }
          card "重い" { weight 60kg }
          field b2 P1 "土台" up
          stack b2 P1 "上" up
          hand P2 "重い"
          play P2 "重い" c2
          expect card_face b2 "土台" up from 2026-01 until 2026-12
        }
        """), encoding="utf-8")
    assert pinned_failures(load(REPO, extra=[scenario]), load(REPO, extra=[scenario]).scenarios["grm/qa/t-pinned"]) == []
    kb = load(REPO, extra=[scenario, whatif])
    [failure] = pinned_failures(kb, kb.scenarios["grm/qa/t-pinned"])
    assert failure.day.isoformat() == "2026-08-15"
    assert "grm/whatif/whole-stack@2026-08-15 (unconfirmed) comes into force" in failure.describe()


def test_without_a_revision_the_superseded_ruling_is_back_and_the_answers_it_changed_are_listed():
    import datetime as dt

    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import revision_effects, without_revision
    kb = load(REPO)
    summer = kb.rulings["grm/effects/unified-nullification"].revisions[0]
    before = without_revision(kb, "grm/effects/unified-nullification", summer)
    day = dt.date(2026, 7, 15)
    assert kb.in_force("grm/effects/classification", day) is None
    assert before.in_force("grm/effects/classification", day) is not None
    assert before.value("grm", "effects.nullify_scope", as_of=day).value == "by_kind"
    answers = {sid: answer(kb, kb.scenarios[sid]) for sid in
               ("grm/qa/rulings-nullified-weight-after-summer", "grm/qa/stack-flips-top-only")}
    effects = revision_effects(kb, answers)
    [change] = effects["grm/effects/unified-nullification@2026-summer"]
    assert change.scenario == "grm/qa/rulings-nullified-weight-after-summer"
    assert change.status_before == "unconfirmed" and change.status_after == "confirmed"
    assert "grm/qa/stack-flips-top-only" not in {c.scenario for cs in effects.values() for c in cs}


def _without_each_setting(kb, a, without: dict, ordered: bool = False):
    """(ref, the knowledge base without that revision) for each revision the answer `a` consulted
    that sets something, the knowledge bases kept in `without` across questions."""
    from rulesdsl.regress.impact import consulted_revisions, without_revision
    refs = consulted_revisions(a)
    for ref in sorted(refs) if ordered else refs:
        rid, label = ref.rsplit("@", 1)
        rev = next((x for x in kb.rulings[rid].revisions if x.date_label == label), None)
        if rev is None or not rev.settings:
            continue
        if ref not in without:
            without[ref] = without_revision(kb, rid, rev)
        yield ref, without[ref]


def test_without_a_revision_only_the_rulings_it_moves_change_their_times_and_the_card_settings_they_make():
    """The history asks whether a run chose a card's own setting alike on both sides only for the
    cards the moved rulings set the point for (or for every card, when one of them sets it
    game-wide): no other ruling's times of force, and no other card's choice, may differ."""
    import datetime as dt

    from rulesdsl.regress.impact import card_settings, rulings_moved, without_revision
    kb = load(REPO)
    cards = card_settings(kb)
    days = sorted({info.scenario.as_of.start() for info in kb.scenarios.values() if info.scenario.as_of})
    days = days[::max(1, len(days) // 6)] + [dt.date(2026, 11, 30)]
    tried = asked = 0
    for ruling in kb.rulings.values():
        for rev in ruling.revisions:
            if not rev.settings:
                continue
            before = without_revision(kb, ruling.id, rev)
            moved = rulings_moved(ruling.id, rev)
            assert {rid for rid, ivs in before.timelines.intervals.items()
                    if ivs != kb.timelines.intervals.get(rid)} <= moved
            for (game, point), by_ruling in cards.items():
                wide_moved = any(rid in moved for rid, _, _ in kb.settings_by_card.get((game, point, None), ()))
                mine = set().union(*by_ruling.values()) if wide_moved else \
                    set().union(*(by_ruling[rid] for rid in moved if rid in by_ruling))
                for code in set().union(*by_ruling.values()) - mine:
                    for day in days:
                        tried += 1
                        pair = [(v.ruling, v.revision) for v in (kb.value(game, point, card=code, as_of=day),
                                                                  kb.value(game, point, as_of=day))]
                        assert pair == [(v.ruling, v.revision) for v in (before.value(game, point, card=code, as_of=day),
                                                                          before.value(game, point, as_of=day))]
                asked += len(mine)
    assert tried and asked, "the bundled knowledge base has card settings both moved and not"


def test_the_knowledge_base_without_a_revision_stays_without_it_when_seasons_are_read_another_way():
    """The side without a revision, asked under another reading of how seasons are dated (the
    test of what decides tries them: `under_calendar`), must not get the revision back; the
    knowledge base with it keeps it under every reading."""
    from rulesdsl.lang.dates import CALENDARS
    from rulesdsl.regress.impact import without_revision
    kb = load(REPO)
    seasonal = [(r, rev) for r in kb.rulings.values() for rev in r.revisions
                if rev.date is not None and getattr(rev.date, "season", None)
                and kb.timelines.interval_of(r.id, rev) is not None]
    assert seasonal, "the bundled knowledge base has a revision dated to a season"
    for ruling, rev in seasonal:
        before = without_revision(kb, ruling.id, rev)
        for reading in CALENDARS:
            assert before.under_calendar(reading).timelines.interval_of(ruling.id, rev) is None, (ruling.id, reading)
            assert before.under_calendar(reading) is not kb.under_calendar(reading)
            assert kb.under_calendar(reading).timelines.interval_of(ruling.id, rev) is not None, (ruling.id, reading)


def test_the_season_readings_without_a_revision_are_the_timelines_rebuilt_without_it():
    """The side without a revision reads seasons another way from the whole knowledge base's
    reading of them, without the revision (made once for every revision, not per revision):
    the same intervals, ruling by ruling, as timelines rebuilt from every ruling."""
    from rulesdsl.kb.timeline import Timelines
    from rulesdsl.lang.dates import CALENDARS
    from rulesdsl.regress.impact import without_revision
    kb = load(REPO)

    def intervals(t):
        return {rid: [(iv.revision.date_label, iv.begin, iv.end) for iv in ivs] for rid, ivs in t.intervals.items()}
    revisions = [(r.id, rev) for r in kb.rulings.values() for rev in r.revisions]
    assert any(rev.supersedes for _, rev in revisions)
    assert any(rev.date is not None and getattr(rev.date, "season", None) for _, rev in revisions)
    for rid, rev in revisions:
        before = without_revision(kb, rid, rev)
        for reading in CALENDARS:
            rebuilt = Timelines(kb.rulings.values(), reading).without(rid, rev)
            derived = before.under_calendar(reading)
            assert derived.timelines.removed == (rid, rev)
            assert intervals(derived.timelines) == intervals(rebuilt), (rid, rev.date_label, reading)
            again = derived.under_calendar(next(c for c in CALENDARS if c != reading))   # and from there on
            assert again.timelines.interval_of(rid, rev) is None


def test_revision_effects_of_the_bundled_knowledge_base_are_those_of_re_answering_both_sides_every_time():
    """The wiki's history reuses each answer's record and skips a question nothing of which moves
    without the revision: the changes must be exactly those of answering both sides afresh, in one
    process or shared with a forked copy."""
    from rulesdsl.engine.answer import Answer
    from rulesdsl.engine.context import EngineError
    from rulesdsl.engine.registry import engine_for
    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import revision_effects
    from rulesdsl.regress.records import record
    kb = load(REPO)
    answers: dict[str, Answer] = {}
    # a sixth of the questions (answering each twice per revision it consulted is the slow part),
    # and one a revision is known to change
    chosen = sorted(kb.scenarios)[::6] + ["grm/qa/rulings-nullified-weight-after-summer"]
    for sid in chosen:
        info = kb.scenarios[sid]
        if engine_for(info.game) is not None:
            try:
                answers[sid] = answer(kb, info)
            except EngineError:
                pass
    expected: dict[str, list[tuple]] = {}
    without: dict[str, object] = {}
    for sid, a in answers.items():
        after, _ = record(kb, kb.scenarios[sid])
        for ref, kb_without in _without_each_setting(kb, a, without):
            before, _ = record(kb_without, kb.scenarios[sid])
            if not before.same_answer(after):
                expected.setdefault(ref, []).append((sid, before.summary(), after.summary(), before.status, after.status))
    stats_alone: dict = {}
    alone = revision_effects(kb, answers, stats_alone)
    got = {ref: [(c.scenario, c.before, c.after, c.status_before, c.status_after) for c in cs]
           for ref, cs in alone.items()}
    assert got == {ref: sorted(v) for ref, v in expected.items()}
    assert got, "the bundled knowledge base has revisions that change answers"
    # shared with a forked copy of this process (as the wiki builds it): every change, in the same
    # order, every field the same, and the same counts
    stats_shared: dict = {}
    shared = revision_effects(kb, answers, stats_shared, processes=2)
    assert list(shared.items()) == list(alone.items())
    assert stats_shared == stats_alone


def test_an_answer_found_the_same_without_the_test_of_what_decides_is_the_same_answer_with_it():
    """revision_effects answers a question without a revision first without the test of what
    decides (`same_without`): where that says "the same answer", answering in full must agree, and
    it must say so for some questions (else the history pays for the test everywhere)."""
    from rulesdsl.engine.context import EngineError
    from rulesdsl.engine.registry import engine_for
    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import card_settings, same_without
    from rulesdsl.regress.records import record, record_of, still_valid
    kb = load(REPO)
    cards = card_settings(kb)
    said_same = 0
    without: dict[str, object] = {}
    for sid in sorted(kb.scenarios)[1::5]:
        info = kb.scenarios[sid]
        if engine_for(info.game) is None:
            continue
        try:
            a = answer(kb, info)
        except EngineError:
            continue
        after = record_of(kb, info, a)
        for ref, kb_without in _without_each_setting(kb, a, without, ordered=True):
            if still_valid(kb_without, info, after) is None:
                continue
            if same_without(kb_without, info, a, {}, kb, cards):
                said_same += 1
                before, _ = record(kb_without, info)
                assert before.same_answer(after), (sid, ref)
    assert said_same, "no question was found the same without the test of what decides"


EXPOSED_FACE = """\
ruling grm/whatif/exposed-face "仮: スタックの下のカードは自分の表裏を保つ" {{
  revision undated {status} {{
    source "000_a437c75d0e53c518.txt §スタックの表裏状態"
    text "仮の提案: スタックの下のカードは自分の表裏を保つ（規則の既定と同じ値）。"
    reason "値は既定と同じで、出所（と状態）だけが違う裁定を見るための仮定"
    set stack.exposed_face = keeps_own
  }}
}}
"""


@pytest.mark.parametrize("moves", ["source", "status", "value"])
def test_without_a_revision_an_answer_under_a_reading_is_taken_where_only_a_source_or_status_moved(moves, tmp_path):
    """The test of what decides, without a revision, takes the build's answer under a reading
    (impact `_reusing`) where its runs read the same values, though the source or the status of a
    point they read, one the test has not met yet, moved without the revision (a what-if ruling
    setting a point to the value of its default, confirmed or not): given the side without it's
    sources and statuses, it is what answering anew there gives, in all the test reads of it (what
    it says, the points it read, which of them are open with which values). Where a value it
    read moved, the reading is answered anew."""
    from rulesdsl.engine.deciding import RunMemo, answer_key, open_points, split_key
    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import _reusing, card_settings, rulings_moved, without_revision
    if moves == "value":
        kb = load(REPO)
        sid, ref = "grm/qa/effects-simultaneous-triggers-turn-player-first", "grm/effects/unified-nullification@2026-summer"
        reading = {"triggers.simultaneous_order": "unspecified"}
    else:
        f = tmp_path / "whatif.rules"
        f.write_text(EXPOSED_FACE.format(status="confirmed" if moves == "source" else "unconfirmed"), encoding="utf-8")
        kb = load(REPO, extra=[f])
        sid, ref = "grm/qa/stack-move-whole-stack", "grm/whatif/exposed-face@undated"
        reading = {"card(上).stack_scope": "this_card_only"}
    info = kb.scenarios[sid]
    after = answer(kb, info)
    rid, label = ref.rsplit("@", 1)
    rev = next(r for r in kb.rulings[rid].revisions if r.date_label == label)
    before_kb = without_revision(kb, rid, rev)
    base = answer(before_kb, info, settled=False)
    built = next(x for r, x in after.readings.answers if r == reading)
    here = {k: before_kb.value(info.game, *split_key(k), as_of=after.as_of) for k in built.points if k not in reading}
    moved = {k: ("value" if h.value != built.points[k]["value"] else "status"
                 if h.status.value != built.points[k]["status"] else "source")
             for k, h in here.items() if (h.value, h.status.value, h.cite) !=
             tuple(built.points[k][f] for f in ("value", "status", "from"))}
    assert moves in moved.values() and (moves == "value" or "value" not in moved.values()), moved
    assert moves == "value" or not set(moved) & set(open_points(before_kb, base)), "a point the test meets anew"
    count: dict = {}
    got = _reusing(before_kb, info, base, after, {}, kb, card_settings(kb), count, RunMemo(),
                   rulings_moved(rid, rev))(reading)
    assert count == ({"readings": 1} if moves == "value" else {"reused": 1})
    fresh = answer(before_kb, info, reading=reading)
    assert answer_key(got) == answer_key(fresh)
    assert got.points == fresh.points and got.unsettled == fresh.unsettled
    assert open_points(before_kb, got) == open_points(before_kb, fresh)


def test_without_a_revision_a_reading_refused_past_the_bound_of_branches_is_refused_again_where_its_runs_read_the_same_values():
    """A reading the engine refused past its bound of branches without one revision (impact
    `_reusing`, kept in `elsewhere`) is refused without a run, with the same words, without
    another revision of the same question where every point its runs read has the same value
    there; a reading that gives one of those points another value is explored anew."""
    from rulesdsl.engine.context import EngineError
    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import BRANCH_LIMIT, _reusing, _Watched, card_settings, rulings_moved, \
        without_revision
    kb = load(REPO)
    info = kb.scenarios["thgm/qa/decide-bat-and-reroll"]
    after = answer(kb, info)
    refused = {"card(攻撃キャラ).reroll.scope": "chosen_dice"}
    assert refused in [r for r, _ in after.readings.errors]     # the build keeps only its words
    elsewhere: list = []

    def side(ref: str, reading: dict[str, str]) -> tuple[dict, str, object]:
        rid, label = ref.rsplit("@", 1)
        rev = next(r for r in kb.rulings[rid].revisions if r.date_label == label)
        before_kb = without_revision(kb, rid, rev)
        runs, count = _Watched(), {}
        base = answer(before_kb, info, settled=False, run_memo=runs)
        with pytest.raises(EngineError) as got:
            _reusing(before_kb, info, base, after, {}, kb, card_settings(kb), count, runs,
                     rulings_moved(rid, rev), elsewhere)(reading)
        assert got.value.code == BRANCH_LIMIT
        return count, got.value.message, before_kb

    count, message, _ = side("thgm/gap/bat-holder@undated", refused)
    assert count == {"readings": 1} and len(elsewhere) == 1
    assert elsewhere[0].seen["card(攻撃キャラ).reroll.scope"] == "chosen_dice" and "reroll.holder" in elsewhere[0].seen
    count, again, before_kb = side("thgm/gap/bat-timing@undated", refused)
    assert count == {"shared": 1} and again == message
    with pytest.raises(EngineError) as fresh:
        answer(before_kb, info, reading=refused)
    assert (fresh.value.code, fresh.value.message) == (BRANCH_LIMIT, message)
    other = elsewhere[0].seen["reroll.holder"]
    moved = next(v.name for v in kb.games["thgm"].points["reroll.holder"].values if v.name != other)
    count, _, _ = side("thgm/gap/bat-timing@undated", {**refused, "reroll.holder": moved})
    assert count == {"readings": 1} and len(elsewhere) == 2


STACK_SCOPE_WIDE = """\
ruling grm/whatif/stack-scope "仮: スタックの一番上のカードを移動させる効果はスタック全体を動かす" {
  revision undated unconfirmed {
    source "000_a437c75d0e53c518.txt §スタックの定義"
    text "仮の提案: スタック全体が移動する（規則の既定と同じ値、ゲーム全体への設定）。"
    reason "ゲーム全体への設定の出所だけが違い、カード1枚への設定（No.142）の選ばれ方は変わらない場合を見るための仮定"
    set stack_scope = whole_stack
  }
}
"""


def test_without_a_revision_setting_a_point_game_wide_a_reading_is_taken_where_each_card_s_own_setting_is_chosen_as_before(tmp_path):
    """Without a revision that sets a point game-wide, the game's setting moves (its source), but
    a card with its own setting of the point (No.142) still takes it, as with the revision
    (engine.context `card_setting_applies`): whatever cards an action is about, the engine
    chooses the same setting, so the test of what decides takes the build's answer under a reading
    (impact `_reusing`) whose runs read that point with the same values, and it is what answering
    anew there gives. Compared as the pair of settings chosen (the game's moved), it was made anew."""
    from rulesdsl.engine.context import card_setting_applies
    from rulesdsl.engine.deciding import RunMemo, answer_key, open_points
    from rulesdsl.engine.runner import answer
    from rulesdsl.regress.impact import _reusing, card_settings, rulings_moved, without_revision
    f = tmp_path / "whatif.rules"
    f.write_text(STACK_SCOPE_WIDE, encoding="utf-8")
    kb = load(REPO, extra=[f])
    info = kb.scenarios["grm/qa/stack-move-whole-stack"]
    reading = {"card(上).stack_scope": "this_card_only"}
    after = answer(kb, info)
    rid = "grm/whatif/stack-scope"
    rev = kb.rulings[rid].revisions[0]
    before_kb = without_revision(kb, rid, rev)
    day = after.as_of
    wide = [(k.value("grm", "stack_scope", as_of=day).ruling) for k in (kb, before_kb)]
    assert wide == [rid, None], "the game's setting moves without the revision"
    assert card_setting_applies(kb, "grm", "stack_scope", "No.142", day) is True
    assert card_setting_applies(before_kb, "grm", "stack_scope", "No.142", day) is True
    built = next(x for r, x in after.readings.answers if r == reading)
    assert "card(上).stack_scope" in built.points
    base = answer(before_kb, info, settled=False)
    count: dict = {}
    got = _reusing(before_kb, info, base, after, {}, kb, card_settings(kb), count, RunMemo(),
                   rulings_moved(rid, rev))(reading)
    assert count == {"reused": 1}
    fresh = answer(before_kb, info, reading=reading)
    assert answer_key(got) == answer_key(fresh)
    assert got.points == fresh.points and got.unsettled == fresh.unsettled
    assert open_points(before_kb, got) == open_points(before_kb, fresh)
