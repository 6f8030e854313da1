"""A rule point set for one card in a what-if (`set card("…").point = value`): every game takes it
for the action that names (or is about) that card, so a proposed ruling about one card can be
asked — and the answer names the card-scoped setting it rests on."""

from __future__ import annotations

import textwrap

import pytest
from conftest import REPO

from rulesdsl.engine.runner import answer
from rulesdsl.kb.build import load

WHATIF = """\
ruling {game}/whatif/one-card "仮: 一枚のカードについての裁定" {{
  revision 2026-08-15 unconfirmed {{
    source "{source}"
    text "仮の提案: このカードについてだけ、この点を別の値とする。"
    reason "一枚のカードについての裁定の提案がどの答えを変えるかを見るための仮定"
    set card("{card}").{point} = {value}
  }}
}}
"""

CASES = [
    # game, scenario, card, point, value, source
    ("royal", "royal/qa/summon-to-skill-zone", "守護G", "summon.destination", "skill_zone",
     "003_eacd25c5d22094df.txt §サモンフェイズ"),
    ("thgm", "thgm/qa/strength-one-illegal", "攻撃キャラ", "attack.min_strength", "one",
     "001_9b6083e9083ef739.txt §使用する攻撃の強さは本来そのキャラが持つ攻撃の強さより低く宣言してもかまいません。ただし、強さを１以下にすることはできません。"),
    ("pm", "pm/qa/break-on-seventh-point", "アタッカー", "approach.point_side", "approacher",
     "004_b16f2fd495c48e23.txt §妨害"),
]


@pytest.mark.parametrize("game, sid, card, point, value, source", CASES, ids=[c[0] for c in CASES])
def test_a_point_set_for_one_card_changes_that_cards_answer_and_is_named(tmp_path, game, sid, card, point, value,
                                                                         source):
    base_kb = load(REPO)
    info = base_kb.scenarios[sid]
    before = answer(base_kb, info)
    f = tmp_path / "whatif.rules"
    f.write_text(textwrap.dedent(WHATIF.format(game=game, source=source, card=card, point=point, value=value)),
                 encoding="utf-8")
    kb = load(REPO, extra=[f], use_cache=False)
    after = answer(kb, kb.scenarios[sid])
    assert [b.outcome for b in after.branches] != [b.outcome for b in before.branches]
    assert after.points[f"card({card}).{point}"]["value"] == value
    assert f"{game}/whatif/one-card@2026-08-15" in after.rulings


def test_a_point_set_for_a_card_no_scenario_defines_is_a_located_finding(tmp_path):
    from rulesdsl.kb.lint import run_checks
    f = tmp_path / "whatif.rules"
    f.write_text(WHATIF.format(game="pm", source="004_b16f2fd495c48e23.txt §妨害", card="どこにもない",
                               point="approach.point_side", value="approacher"), encoding="utf-8")
    kb = load(REPO, extra=[f], use_cache=False)
    found = [d for d in run_checks(kb) if "どこにもない" in d.message]
    assert found and found[0].loc.file.endswith("whatif.rules")


ZERO = """\
scenario grm/whatif/zero-card "0kgの《零》をプレイする" {
  as of 2026-09-01
  card "零" {
    weight 0kg
    ex no
  }
  card "相手" {
    weight 45kg
    ex no
  }
  turn P1
  field b2 P2 "相手" up
  hand P1 "零"
  play P1 "零" c2
  expect battle c2 b2
}
"""


def test_grm_a_zero_weight_ruling_for_one_card_stops_only_that_cards_battle(tmp_path):
    q = tmp_path / "q.rules"
    q.write_text(ZERO, encoding="utf-8")
    kb = load(REPO, extra=[q], use_cache=False)
    assert answer(kb, kb.scenarios["grm/whatif/zero-card"]).ok
    w = tmp_path / "whatif.rules"
    w.write_text(WHATIF.format(game="grm", source="000_a437c75d0e53c518.txt §バトルの勝敗", card="零",
                               point="battle.zero_weight", value="no_battle"), encoding="utf-8")
    kb = load(REPO, extra=[q, w], use_cache=False)
    after = answer(kb, kb.scenarios["grm/whatif/zero-card"])
    assert not after.ok and after.points["card(零).battle.zero_weight"]["value"] == "no_battle"
    other = answer(kb, kb.scenarios["grm/qa/stack-flips-top-only"])   # another card: the game-wide value
    assert "card(零).battle.zero_weight" not in other.points


@pytest.mark.parametrize("game, sid, card, point, value, source", CASES, ids=[c[0] for c in CASES])
def test_a_point_cache_shared_by_every_question_takes_each_ones_card_setting(tmp_path, game, sid, card, point,
                                                                             value, source):
    """The wiki and `rulesdsl test` pass one point cache to every question: each question of the
    game, asked on one day after the others, consults its points as with a cache of its own — the
    setting for one card where an action names that card, the game's value where none does."""
    from rulesdsl.engine.context import EngineError
    f = tmp_path / "whatif.rules"
    f.write_text(textwrap.dedent(WHATIF.format(game=game, source=source, card=card, point=point, value=value)),
                 encoding="utf-8")
    kb = load(REPO, extra=[f], use_cache=False)
    day = kb.scenarios[sid].scenario.as_of.start()      # one day for all: the same keys
    cache: dict = {}
    infos = sorted((s for s in kb.scenarios.values() if s.game == game and s.expects),
                   key=lambda s: (s.id != sid, s.id))
    compared = 0
    for info in infos:
        try:
            shared = answer(kb, info, as_of=day, point_cache=cache)
        except EngineError:
            continue
        alone = answer(kb, info, as_of=day)
        assert (shared.points, [b.outcome for b in shared.branches]) == \
            (alone.points, [b.outcome for b in alone.branches]), info.id
        compared += 1
    assert compared > 50
    assert answer(kb, kb.scenarios[sid], point_cache=cache).points[f"card({card}).{point}"]["value"] == value
