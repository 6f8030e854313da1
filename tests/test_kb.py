"""The knowledge base answers as of a date, with provenance."""

import datetime as dt

from conftest import write_kb

from rulesdsl.kb.build import load
from rulesdsl.kb.lint import run_checks
from rulesdsl.lang.model import Status

RULINGS = """\
ruling mini/battle/tie-ruling "同じ重さ" {
  revision 2026-03 confirmed {
    source "mini.txt §バトル"
    text "同じ重さなら何も起きない（2026年3月確認済み）。"
    set battle.tie = nothing
  }
  revision 2026-summer provisional {
    source "mini.txt §バトル"
    text "同じ重さなら両方裏返るものとする（2026年夏暫定裁定）。"
    set battle.tie = both_flip
  }
  revision 2026-10-01 retracted {
    source "mini.txt §バトル"
  }
}

ruling mini/stack/card-x "Xは全体が裏返る" {
  revision undated confirmed {
    source "mini.txt §スタック"
    text "一番上のカードだけが裏返る。"
    set card(X).flip_scope = whole
  }
}
"""

CARD_X = """\
card mini X "エックス" {
  source "mini.txt §はじめに"
  text unknown
  weight unknown
  errata 2026-05 confirmed {
    source "mini.txt §はじめに"
    weight 40kg
  }
}
"""


def kb_of(root, files):
    write_kb(root, files)
    kb = load(root, use_cache=False)
    assert not kb.diagnostics and not run_checks(kb), [d.message for d in kb.diagnostics + run_checks(kb)]
    return kb


def test_before_the_first_revision_the_default_answers_with_its_section(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    v = kb.value("mini", "battle.tie", as_of=dt.date(2026, 2, 1))
    assert (v.value, v.status, v.section, v.ruling) == ("nothing", Status.unconfirmed, "mini/battle", None)
    assert v.source == "mini.txt §バトル"
    assert kb.in_force("mini/battle/tie-ruling", dt.date(2026, 2, 1)) is None


def test_a_month_revision_is_in_force_from_the_first_of_the_month_and_says_so(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    v = kb.value("mini", "battle.tie", as_of=dt.date(2026, 3, 1))
    assert (v.value, v.status, v.ruling, v.revision) == ("nothing", Status.confirmed, "mini/battle/tie-ruling", "2026-03")
    assert v.fuzzy and "2026年3月" in v.fuzzy
    later = kb.value("mini", "battle.tie", as_of=dt.date(2026, 4, 2))
    assert later.fuzzy is None


def test_a_season_revision_replaces_the_older_one_from_the_start_of_the_season(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    assert kb.value("mini", "battle.tie", as_of=dt.date(2026, 5, 31)).value == "nothing"
    v = kb.value("mini", "battle.tie", as_of=dt.date(2026, 7, 15))
    assert (v.value, v.status, v.revision) == ("both_flip", Status.provisional, "2026-summer")
    assert "2026年夏" in v.fuzzy


def test_a_retraction_ends_the_ruling_and_the_default_returns(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    assert kb.in_force("mini/battle/tie-ruling", dt.date(2026, 10, 1)) is None
    assert kb.value("mini", "battle.tie", as_of=dt.date(2026, 10, 1)).section == "mini/battle"


def test_card_scoped_setting_applies_to_that_card_only(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    assert kb.value("mini", "flip_scope", card="X", as_of=dt.date(2020, 1, 1)).value == "whole"
    assert kb.value("mini", "flip_scope", card=None, as_of=dt.date(2020, 1, 1)).value == "top_only"


def test_errata_change_a_card_from_their_date(kb_root):
    from rulesdsl.lang.vocab import UNKNOWN
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    card = kb.card("mini", "X")
    assert card.at(dt.date(2026, 4, 30)).facts["weight"] is UNKNOWN
    assert card.at(dt.date(2026, 5, 1)).facts["weight"] == 40


def test_as_of_lists_the_revisions_in_force(kb_root):
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "cards/mini/X.rules": CARD_X})
    day = dt.date(2026, 7, 1)
    got = {(r.id, rev.date_label) for r, rev in kb.as_of(day)}
    assert got == {("mini/battle/tie-ruling", "2026-summer"), ("mini/stack/card-x", "undated")}


def test_superseding_one_revision_falls_back_to_none_for_that_period(kb_root):
    sup = """\
    ruling mini/battle/new "新" {
      revision 2026-04 confirmed {
        source "mini.txt §バトル"
        text "重さの比べ方は変わらない（2026年4月確認済み）。"
        supersedes mini/battle/tie-ruling@2026-03
        set battle.tie = both_flip
      }
    }
    """
    kb = kb_of(kb_root, {"rulings/mini/r.rules": RULINGS, "rulings/mini/s.rules": sup, "cards/mini/X.rules": CARD_X})
    day = dt.date(2026, 4, 15)
    assert kb.in_force("mini/battle/tie-ruling", day) is None
    v = kb.value("mini", "battle.tie", as_of=day)
    assert (v.ruling, v.value) == ("mini/battle/new", "both_flip")


def test_scenario_may_complete_unknown_facts_but_not_contradict_known_ones(kb_root):
    scen = """\
    scenario mini/s "s" {
      as of 2026-09-01
      card X { weight 50kg }
      field b2 P1 X up
      expect face b2 up
    }
    """
    write_kb(kb_root, {"cards/mini/X.rules": CARD_X.replace("weight unknown", "weight 30kg"),
                       "rulings/mini/s.rules": scen})
    kb = load(kb_root, use_cache=False)
    [d] = kb.diagnostics
    assert d.code == "scenario-card" and "given by the sources as 30" in d.message


def _in_force_walked(kb, game, point, card, day):
    """The settings of a point in force on `day`, each setting's revision asked of the timelines."""
    return [(rid, rev, s) for rid, rev, s in kb.settings_by_card.get((game, point, card), [])
            if kb.in_force(rid, day) is rev]


def _inexact_walked(kb, game, point, card, day):
    """The first setting of a revision of unknown exact day whose period may cover `day`."""
    for rid, rev, _ in kb.settings_by_card.get((game, point, card), []):
        if rev.date is not None and not rev.date.is_exact:
            first, last = rev.date.window()
            if first <= day <= last:
                return rid, rev
    return None


def test_a_points_settings_in_force_and_its_inexact_period_are_those_a_walk_of_every_setting_finds():
    """`settings_in_force` asks the timelines once per ruling and `_fuzzy_in` reads the inexact periods
    kept per point (`_walked`): the same settings, in the same order, and the same note, on every
    day where a ruling's time in force or an inexact period begins or ends (and the days either
    side), under every season reading and on a side without a revision (which shares `_walks`)."""
    from conftest import REPO
    from rulesdsl.lang.dates import CALENDARS
    from rulesdsl.regress.sides import without_revision

    whole = load(REPO)
    firsts = [(r.id, rev) for r in whole.rulings.values() for rev in r.revisions if rev.settings]
    views = [whole.under_calendar(c) for c in CALENDARS]
    views += [without_revision(whole, rid, rev) for rid, rev in firsts[::max(1, len(firsts) // 8)]]
    one = dt.timedelta(days=1)
    checked = notes = 0
    for kb in views:
        for (game, point, card), settings in kb.settings_by_card.items():
            edges = {d for rid, _, _ in settings for iv in kb.timelines.intervals.get(rid, ())
                     for d in (iv.begin, iv.end) if dt.date.min < d < dt.date.max}
            edges |= {d for _, rev, _ in settings if rev.date is not None for d in rev.date.window()}
            for day in sorted({d + k * one for d in edges for k in (-1, 0, 1)} | {dt.date(2026, 11, 30)}):
                assert kb.settings_in_force(game, point, card, day) == \
                    _in_force_walked(kb, game, point, card, day)
                walked = _inexact_walked(kb, game, point, card, day)
                note = kb._fuzzy_in(game, point, card, day)
                assert (note is None) == (walked is None)
                if walked is not None:
                    assert f"（{walked[0]}）" in note and note.startswith(day.isoformat())
                    notes += 1
                checked += 1
    assert checked > 1000 and notes, (checked, notes)
