"""The bundled knowledge base: it loads clean, and it records every gap the seeds README lists."""

import pytest
from conftest import REPO

from rulesdsl.kb.build import load
from rulesdsl.kb.lint import run_checks
from rulesdsl.lang.model import Status


@pytest.mark.parametrize("game", ["grm", "thgm", "royal", "pm"])
def test_every_bundled_file_loads_and_checks_clean(kb, game):
    mine = (f"rulings/{game}/", f"cards/{game}/")
    findings = [d for d in kb.diagnostics + run_checks(kb)
                if d.loc is None or str(d.loc.file).startswith(mine)]
    assert findings == [], "\n".join(f"{d.loc}: {d.message}" for d in findings)


def test_the_readme_examples_check_clean_against_the_bundled_knowledge_base():
    examples = sorted((REPO / "examples").glob("*.rules"))
    assert examples
    with_examples = load(REPO, extra=examples)
    findings = with_examples.diagnostics + run_checks(with_examples)
    assert findings == [], "\n".join(f"{d.loc}: {d.message}" for d in findings)
    assert "grm/judge/stack" in with_examples.scenarios
    assert "grm/whatif/whole-stack" in with_examples.rulings


def test_all_four_games_are_declared_with_their_source_document(kb):
    assert set(kb.games) == {"grm", "thgm", "royal", "pm"}
    for game in kb.games.values():
        assert game.documents, game.decl.id
        assert game.points, game.decl.id
        assert game.vocab.entries["setup"], game.decl.id


# Each gap the seeds README lists, found by the passage the gap ruling quotes or states.
SEED_GAPS = [
    ("grm", "自己対象不可とされているカードは以下の通り"),
    ("grm", "ターンプレイヤー側の誘発効果を先に解決する"),
    ("royal", "ソウルスキルをキャストオフする場合のみ"),
    ("royal", "ガーディアンカードをスキルゾーンに出す事"),
    ("royal", "ブラックゾーン"),
    ("royal", "フォースの多いガーディアンが勝利"),
    ("pm", "相手のデッキにカードが1枚もない"),
]


@pytest.mark.parametrize("game, passage", SEED_GAPS)
def test_each_gap_of_the_seeds_readme_is_recorded_as_unconfirmed(kb, game, passage):
    gaps = [r for r in kb.rulings.values() if r.game == game and r.gap]
    hits = [r for r in gaps if any(passage in (q.text for q in rev.quotes) or
                                   any(passage in q.text for q in rev.quotes) or
                                   (rev.text and rev.text.value and passage in rev.text.value)
                                   for rev in r.revisions)]
    assert hits, f"no {game} gap quotes {passage!r}"
    assert all(any(rev.status is Status.unconfirmed and rev.reason for rev in r.revisions) for r in hits)


def test_gaps_command_lists_every_recorded_gap(run_cli, kb, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, _ = run_cli("--root", REPO, "check", "--gaps")
    assert code == 0
    gaps = [r.id for r in kb.rulings.values() if r.gap]
    assert len(gaps) >= 40
    for gid in gaps:
        assert gid in out


def test_every_grm_ruling_revision_is_pinned_by_a_scenario(kb):
    pinned = {(p.target, p.date, p.undated) for s in kb.scenarios.values() for p in s.pins}
    pinned_ids = {t for t, _, _ in pinned}
    for r in kb.rulings.values():
        if r.game != "grm":
            continue
        assert r.id in pinned_ids, f"{r.id} is not pinned by any scenario"


def test_grm_corpus_has_at_least_sixty_scenarios(kb):
    assert sum(1 for s in kb.scenarios.values() if s.game == "grm" and s.expects) >= 60


def test_show_answers_as_of_a_date(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, _ = run_cli("--root", REPO, "show", "grm/battle/zero-weight", "--as-of", "2026-02-01")
    assert code == 0 and "not yet ruled on that day (first revision: 2026-03, 2026年3月)" in out
    code, out, _ = run_cli("--root", REPO, "show", "grm/effects/classification", "--as-of", "2026-07-15")
    assert "superseded on that day by grm/effects/unified-nullification@2026-summer" in out
    code, out, _ = run_cli("--root", REPO, "show", "grm:effects.nullify_scope", "--as-of", "2026-07-15")
    assert "effects.nullify_scope = all_text  (confirmed, from grm/effects/unified-nullification@2026-summer)" in out
    assert "2026-07-15は2026年夏（grm/effects/unified-nullification）の期間にかかる" in out
    code, out, _ = run_cli("--root", REPO, "show", "《クッパ》", "--as-of", "2026-09-01")
    assert "card(No.142).stack_scope = this_card_only" in out


def test_show_unknown_id_is_a_clean_error_with_a_suggestion(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    code, out, err = run_cli("--root", REPO, "show", "grm/battle/zero-wieght")
    assert code == 2
    assert 'did you mean "grm/battle/zero-weight"' in err
