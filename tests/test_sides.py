"""A side without a ruling revision (regress/sides.py), as the history makes it, gives what a side
made afresh gives: the values it takes from the whole knowledge base, its seasons, its notes."""

import datetime as dt

from conftest import REPO

from rulesdsl.kb.build import load
from rulesdsl.regress.sides import side_memo, settings_of_rulings, without_revision


def test_a_side_taking_the_whole_knowledge_base_s_values_gives_every_value_a_side_made_afresh_gives():
    kb = load(REPO)
    days = sorted({info.scenario.as_of.start() for info in kb.scenarios.values() if info.scenario.as_of})
    days = days[::max(1, len(days) // 6)] + [dt.date(2026, 11, 30)]
    keys = [(game, point, card, day) for (game, point, card) in kb.settings_by_card for day in days]
    for game, point, card, day in keys:       # the whole knowledge base's values, worked out first
        kb.value(game, point, card=card, as_of=day)
    seasons, settings_of = side_memo(kb), settings_of_rulings(kb)
    sides = taken = 0
    for ruling in kb.rulings.values():
        for rev in ruling.revisions:
            if not rev.settings:
                continue
            sides += 1
            fresh = without_revision(kb, ruling.id, rev)
            carried = without_revision(kb, ruling.id, rev, seasons, settings_of)
            for game, point, card, day in keys:
                got = carried.value(game, point, card=card, as_of=day)
                assert got == fresh.value(game, point, card=card, as_of=day)
            taken += sum(1 for key, v in carried._values.items() if kb._values.get(key) is v)
            for key, v in seasons.items():
                assert v == (fresh.season_revisions(key[1]) if key[0] == "season-revisions" else v)
    assert sides and taken, "the bundled knowledge base has sides that take values from the whole"


def test_a_side_s_season_reading_of_a_day_is_the_whole_knowledge_base_s():
    from rulesdsl.engine.runner import _season_reading
    kb = load(REPO)
    days = sorted({info.scenario.as_of.start() for info in kb.scenarios.values() if info.scenario.as_of})
    for game in kb.games:
        for day in days:
            _season_reading(kb, game, day)
    seasons = side_memo(kb)
    assert any(k[0] == "engine.season" for k in seasons)
    for ruling in kb.rulings.values():
        for rev in ruling.revisions[:1]:
            fresh = without_revision(kb, ruling.id, rev)
            for key in seasons:
                if key[0] == "engine.season":
                    assert _season_reading(fresh, key[1], key[2]) == _season_reading(kb, key[1], key[2])


def test_a_knowledge_base_under_another_season_reading_lists_the_same_revisions_dated_to_a_season():
    from rulesdsl.lang.dates import CALENDARS
    kb = load(REPO)
    for game in kb.games:
        kb.season_revisions(game)
    for reading in CALENDARS:
        other = kb.under_calendar(reading)
        for game in kb.games:
            listed = [(r.id, rev) for r in kb.rulings.values() if r.game == game
                      for rev in r.revisions if rev.date is not None and rev.date.season]
            assert other.season_revisions(game) == listed


def test_a_side_takes_the_whole_knowledge_base_s_carded_points_and_games_which_a_side_made_afresh_gives_too():
    from rulesdsl.engine.context import carded_games, carded_points
    kb = load(REPO)
    memo = side_memo(kb)
    assert carded_points(kb), "the bundled knowledge base sets points for single cards"
    for ruling in kb.rulings.values():
        for rev in ruling.revisions[:1]:
            if not rev.settings:
                continue
            fresh = without_revision(kb, ruling.id, rev)
            carried = without_revision(kb, ruling.id, rev, memo)
            assert carded_points(carried) is carded_points(kb)     # taken, not worked out again
            assert carded_games(carried) is carded_games(kb)
            assert carded_points(carried) == carded_points(fresh)
            assert carded_games(carried) == carded_games(fresh)


STACK_SCOPE_WIDE = """\
ruling grm/whatif/stack-scope "仮: スタックの一番上のカードを移動させる効果はスタック全体を動かす" {
  revision undated unconfirmed {
    source "000_a437c75d0e53c518.txt §スタックの定義"
    text "仮の提案: スタック全体が移動する（ゲーム全体への設定）。"
    set stack_scope = whole_stack
  }
}
"""


def test_without_a_revision_setting_a_point_game_wide_a_card_with_its_own_setting_in_force_takes_the_whole_s_value(tmp_path):
    """Without a revision that sets a point game-wide, a card with a setting of its own in force
    (No.142's stack_scope) keeps its value, taken from the whole knowledge base (`_Unmoved`), the
    same as a side made afresh gives; the game's value and a card's without its own setting in
    force are worked out in the side, as a side made afresh does."""
    f = tmp_path / "whatif.rules"
    f.write_text(STACK_SCOPE_WIDE, encoding="utf-8")
    kb = load(REPO, extra=[f])
    rid = "grm/whatif/stack-scope"
    rev = kb.rulings[rid].revisions[0]
    fresh = without_revision(kb, rid, rev)
    carried = without_revision(kb, rid, rev, side_memo(kb), settings_of_rulings(kb))
    day = dt.date(2026, 11, 30)
    assert kb.settings_in_force("grm", "stack_scope", "No.142", day), "No.142's own setting is in force"
    for card in ("No.142", "No.001", None):
        got = carried.value("grm", "stack_scope", card=card, as_of=day)
        assert got == fresh.value("grm", "stack_scope", card=card, as_of=day)
        taken = kb._values.get(("grm", "stack_scope", card, day)) is got
        assert taken is (card == "No.142"), card
    assert carried.value("grm", "stack_scope", as_of=day).ruling != kb.value("grm", "stack_scope", as_of=day).ruling
