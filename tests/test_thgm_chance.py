"""Chance in the engine core: exact distributions that sum to exactly 1 and equal a brute-force
enumeration of the dice, through the dice helpers and through whole answers; and the bounds."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from itertools import product
from typing import Callable, Hashable

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesdsl.engine.chance import (Distribution, dice, dice_outcomes, odds_text, percent,
                                    summarize)
from rulesdsl.engine.context import Bounds, EngineError
from rulesdsl.engine.runner import answer
from rulesdsl.games.thgm import dice as D
from rulesdsl.kb.build import load


def brute_force(n: int, sides: int, f: Callable[[tuple[int, ...]], Hashable]) -> dict[Hashable, Fraction]:
    """f over every ordered roll of n dice, counted one by one (sides**n rolls): the reference
    the exact distributions are tested against."""
    counts: dict = {}
    for roll in product(range(1, sides + 1), repeat=n):
        k = f(roll)
        counts[k] = counts.get(k, 0) + 1
    total = sides ** n
    return {k: Fraction(c, total) for k, c in counts.items()}


def top_two(roll) -> int:
    faces = sorted(roll, reverse=True)
    return faces[0] + (faces[1] if len(faces) > 1 else 0)


def repeated(roll) -> bool:
    return len(set(roll)) < len(roll)


# ----------------------------------------------------------------------------- the dice

@pytest.mark.parametrize("n", range(0, 7))
def test_dice_multisets_weigh_every_ordered_roll_once(n):
    d = dice(n)
    assert d.total == 6 ** n
    assert len(d) == dice_outcomes(n)
    assert sum(p for _, p in d.fractions()) == 1
    want = brute_force(n, 6, lambda r: tuple(sorted(r, reverse=True)))
    assert dict(d.fractions()) == want


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), data=st.data())
def test_a_partly_fixed_roll_equals_brute_force_over_its_open_dice(n, data):
    fixed = tuple(data.draw(st.lists(st.integers(1, 6), max_size=n)))
    open_dice = n - len(fixed)
    for full in (False, True):
        dist = D.roll(fixed, open_dice, full)
        assert sum(p for _, p in dist.fractions()) == 1
        got = dist.map(lambda v: (D.value_of(v), D.repeats(v)))
        want = brute_force(open_dice, 6, lambda r: (top_two(fixed + r), repeated(fixed + r)))
        assert dict(got.fractions()) == want


def test_partitions_keep_exact_conditional_weights():
    d = D.roll((), 3, False)
    classes = d.partition(lambda v: D.value_of(v) > 9)
    assert sum(Fraction(c.total, d.total) for _, c in classes) == 1
    assert dict((k, Fraction(c.total, d.total)) for k, c in classes)[True] == Fraction(77, 216)


def test_percent_rounds_half_up_and_odds_read_as_in_the_answer():
    assert percent(Fraction(77, 216)) == "35.6%"
    assert percent(Fraction(1, 8)) == "12.5%"
    assert percent(Fraction(1, 2000)) == "0.1%"
    assert odds_text(Fraction(77, 216)) == "77/216（35.6%）"
    assert odds_text(Fraction(1)) == "1（100%）"


class _Run:
    """What `chance.branch` reads and writes of a run's context."""

    def __init__(self, script=()) -> None:
        self.bounds, self.script, self.choices, self.steps = Bounds(), list(script), [], []

    def step(self, text, *cites, kind=None) -> None:
        self.steps.append(text)


def test_runs_meeting_the_same_chance_point_share_its_words_and_each_says_its_own_pick():
    from rulesdsl.engine.chance import branch
    d = D.roll((), 3, False)
    bonus = 1
    said = []
    for pick in (0, 1, 0):
        run = _Run([pick])
        branch(run, "攻撃力は10以上か", d, lambda v: D.value_of(v) + bonus >= 10,
               lambda k, c: "10以上" if k else "10未満", memo=("at least", 10 - bonus))
        said.append((run.choices[0], run.steps[0]))
    (first, s0), (second, s1), (third, s2) = said
    assert first.options is second.options is third.options        # made once, kept with the classes
    exact = brute_force(3, 6, lambda r: top_two(r) + bonus >= 10)
    assert sorted(first.weights) == sorted(exact.values())
    assert s0 == s2 != s1 and s0.startswith("攻撃力は10以上か: ") and "確率" in s0
    assert [c.picked for c, _ in said] == [0, 1, 0]


def test_words_that_read_a_changing_object_are_made_again_for_every_run():
    from rulesdsl.engine.chance import branch
    d = D.roll((), 2, False)
    seen = {"n": 0}             # a mutable object the words read: never kept

    def words(k, c):
        seen["n"] += 1
        return f"{k}（{seen['n']}回目）"
    texts = []
    for _ in range(2):
        run = _Run()
        branch(run, "ダブりか", d, D.repeats, words, memo=("repeats",))
        texts.append(run.choices[0].options)
    assert texts[0] != texts[1]


def test_a_distribution_without_weight_is_refused():
    with pytest.raises(ValueError):
        Distribution([("x", 0)])


# ----------------------------------------------------------------------------- whole answers

ATTACK = """\
scenario thgm/t/odds-{n}-{d} "{n}D vs {d}" {{
  as of 2026-11-30
  card "攻撃キャラ" {{ attack_means "物理" {n}d 1 }}
  card "防御キャラ" {{ score 3; base_defense {d}; special_defense none }}
  turn P1 attack
  character P1 front 1 down "攻撃キャラ"
  character P2 front 1 down "防御キャラ"
  character P2 front 2 down
  declare_attack P1 front 1 "物理" {n}d P2 front 1
  roll {faces}
  {extra}
  expect possible result failed
}}
"""


@pytest.fixture(scope="module")
def kb_with(tmp_path_factory):
    """The bundled knowledge base plus scenarios written into a temporary file."""
    def load_with(text: str):
        f = tmp_path_factory.mktemp("q") / "q.rules"
        f.write_text(text, encoding="utf-8")
        kb = load(REPO, extra=[f], use_cache=False)
        assert not [d for d in kb.diagnostics if d.fatal], kb.diagnostics
        return kb
    return load_with


def outcome_words(result: str) -> str:
    return result.split("（", 1)[0]


def only_plan(a) -> list:
    """The distribution of a choice-free answer (a certain outcome has no chance point at all)."""
    if a.odds is None:
        (outcome,) = a.outcomes
        return [(outcome, Fraction(1))]
    (plan,) = a.odds.plans
    return plan.outcomes


def expected(n: int, d: int, bonus: int = 0) -> dict[str, Fraction]:
    def judge(r):
        v = top_two(r) + bonus
        return "失敗" if d > v else ("負傷" if d == v else "撃破")
    return brute_force(n, 6, judge)


def test_every_strength_against_every_defense_equals_brute_force(kb_with):
    text = "\n".join(ATTACK.format(n=n, d=d, faces="any", extra="") for n in range(2, 7) for d in range(2, 13))
    kb = kb_with(text)
    for n in range(2, 7):
        for d in range(2, 13):
            a = answer(kb, kb.scenarios[f"thgm/t/odds-{n}-{d}"])
            outcomes = only_plan(a)
            assert sum(p for _, p in outcomes) == 1
            got = {outcome_words(o): p for o, p in outcomes}
            assert got == expected(n, d), (n, d)


def test_the_answer_gives_77_216_for_a_3d_attack_against_defense_9(kb_with):
    kb = kb_with(ATTACK.format(n=3, d=9, faces="any", extra="") .replace(
        "expect possible result failed", "expect probability = 77/216 result defeated\n  expect probability >= 1/2 result failed"))
    a = answer(kb, kb.scenarios["thgm/t/odds-3-9"])
    assert a.expectations[0].ok
    assert not a.expectations[1].ok and a.expectations[1].found == ["確率は103/216（47.7%）"]
    assert "撃破（P2の前列1の《防御キャラ》→P1のスコアカード） 77/216（35.6%）" in a.verdict()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), d=st.integers(2, 13), data=st.data())
def test_partly_fixed_rolls_and_the_spell_card_equal_brute_force(kb_with, n, d, data):
    fixed = data.draw(st.lists(st.integers(1, 6), max_size=n - 1))
    spell = data.draw(st.booleans())
    faces = " ".join([*map(str, fixed), *["any"] * (n - len(fixed))])
    kb = kb_with(ATTACK.format(n=n, d=d, faces=faces, extra="spell_card" if spell else ""))
    a = answer(kb, kb.scenarios[f"thgm/t/odds-{n}-{d}"])
    outcomes = only_plan(a)
    assert sum(p for _, p in outcomes) == 1
    want = brute_force(n - len(fixed), 6, lambda r: (
        "失敗" if d > top_two(tuple(fixed) + r) + spell else ("負傷" if d == top_two(tuple(fixed) + r) + spell else "撃破")))
    assert {outcome_words(o): p for o, p in outcomes} == want


def test_choices_and_chance_add_up_per_plan_and_name_the_best_plan(kb_with):
    text = textwrap.dedent("""\
    scenario thgm/t/bat-spell "コウモリ変化とスペルカード" {
      as of 2026-11-30
      card "攻撃キャラ" { attack_means "物理" 3d 1 }
      card "コウモリ" { score 3; base_defense 9; special_defense none; effect sp { nullify_on_doubles } }
      turn P1 attack
      character P1 front 1 down "攻撃キャラ"
      character P2 front 1 down "コウモリ"
      character P2 front 2 down
      declare_attack P1 front 1 "物理" 3d P2 front 1
      roll any
      may_use_spell_card
      expect possible result defeated
    }
    """)
    kb = kb_with(text)
    a = answer(kb, kb.scenarios["thgm/t/bat-spell"])
    plans = a.odds.plans
    assert len(plans) == 4                      # P1 uses the spell card or not × P2 nullifies or not
    for plan in plans:
        assert sum(p for _, p in plan.outcomes) == 1
    def judge(spell, nullify):
        def f(r):
            if nullify and repeated(r):
                return "無効"
            v = top_two(r) + spell
            return "失敗" if 9 > v else ("負傷" if 9 == v else "撃破")
        return f
    for plan in plans:
        picks = dict((label, option) for _, label, option in plan.picks)
        spell = picks["攻撃力を見てスペルカードを使用するか"] == "使用する"
        nullify = picks.get("コウモリ変化で攻撃を無効にするか") == "無効にする"
        assert {outcome_words(o): p for o, p in plan.outcomes} == brute_force(3, 6, judge(spell, nullify))
    best, top = a.odds.best_for(0)
    assert all(dict((l, o) for _, l, o in p.picks)["攻撃力を見てスペルカードを使用するか"] == "使用する" for p in best)
    assert top == brute_force(3, 6, judge(True, False))["撃破"]


def test_summarize_lists_each_plan_once():
    class B:
        def __init__(self, choices, outcome):
            self.choices, self.outcome, self.results = choices, outcome, [(True, "")]
    from rulesdsl.engine.context import ChoicePoint
    first = ChoicePoint("P1", "どちら", ("A", "B"), 0)
    later = ChoicePoint("P1", "次", ("x", "y"), 0)
    odds = summarize([B([first, later], "A-x"), B([ChoicePoint("P1", "次", ("x", "y"), 1)] and
                      [first, ChoicePoint("P1", "次", ("x", "y"), 1)], "A-y"),
                      B([ChoicePoint("P1", "どちら", ("A", "B"), 1)], "B")], 1)
    assert sorted(p.label for p in odds.plans) == ["P1: A → P1: x", "P1: A → P1: y", "P1: B"]


# ----------------------------------------------------------------------------- bounds

def test_a_roll_past_the_outcome_limit_is_refused_before_enumerating_it(kb_with):
    kb = kb_with(ATTACK.format(n=30, d=9, faces="any", extra=""))
    with pytest.raises(EngineError) as e:
        answer(kb, kb.scenarios["thgm/t/odds-30-9"])
    assert e.value.code == "chance-limit"
    assert "「P1の攻撃のサイコロ（決まっていないサイコロ30個）」 has 324,632 outcomes" in e.value.message
    assert e.value.loc.line == 10


def test_raising_the_outcome_limit_lets_a_large_roll_through(kb_with):
    kb = kb_with(ATTACK.format(n=8, d=9, faces="any", extra=""))
    info = kb.scenarios["thgm/t/odds-8-9"]
    with pytest.raises(EngineError):
        answer(kb, info, bounds=Bounds(max_outcomes=1000))
    a = answer(kb, info, bounds=Bounds(max_outcomes=2000))
    assert sum(p for _, p in a.odds.plans[0].outcomes) == 1


def test_the_branch_limit_names_the_chance_point_that_multiplies_the_runs(kb_with):
    kb = kb_with(ATTACK.format(n=4, d=9, faces="any", extra="may_use_spell_card"))
    info = kb.scenarios["thgm/t/odds-4-9"]
    with pytest.raises(EngineError) as e:
        answer(kb, info, bounds=Bounds(max_branches=10))
    assert e.value.code == "branch-limit"
    assert "the chance point 「攻撃側が見た出目」 (11 outcomes)" in e.value.message
    assert "--max-branches" in e.value.hint
    assert e.value.loc.line == 10
    assert len(answer(kb, info).branches) > 10


def test_the_limits_are_raised_from_the_command_line(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "q.rules"
    f.write_text(ATTACK.format(n=8, d=9, faces="any", extra=""), encoding="utf-8")
    code, out, err = run_cli("--root", REPO, "ask", f, "--max-outcomes", "1000")
    assert code == 2 and "error[chance-limit]" in err and "--max-outcomes" in err
    code, out, err = run_cli("--root", REPO, "ask", f, "--max-outcomes", "2000")
    assert code == 0, err
    assert out.startswith("答え: 出目によって")


# ----------------------------------------------------------------------------- decisions after the dice

def test_best_play_rerolls_exactly_when_the_first_roll_fails_and_says_so_in_words():
    """Expectimax over chance then choice: 3D against defense 9 with one reroll. The reference
    counts every ordered pair of rolls (6**3 × 6**3) with the rule 'reroll when it fails'."""
    from fractions import Fraction
    from itertools import product

    from rulesdsl.engine.chance import ChancePoint, best_play, dice
    from rulesdsl.engine.context import ChoicePoint

    def value(faces):
        return sum(sorted(faces, reverse=True)[:2])

    by_value: dict[int, int] = {}
    for faces, w in dice(3).pairs:
        by_value[value(faces)] = by_value.get(value(faces), 0) + w
    values = sorted(by_value)
    weights = tuple(Fraction(by_value[v], 216) for v in values)
    win = sum(w for v, w in zip(values, weights) if v > 9)

    class B:   # a branch: the points it met with the option taken, and whether the result holds
        def __init__(self, picks, ok):
            self.choices, self.ok = picks, ok

    branches = []
    for i, v in enumerate(values):
        first = ChancePoint("攻撃側が見た出目", tuple(f"攻撃力{x}" for x in values), weights, i)
        for pick in (0, 1):
            choice = ChoicePoint("P1", "出目を見て振りなおすか", ("振りなおす", "振りなおさない"), pick)
            if pick == 1:
                branches.append(B([first, choice], v > 9))
                continue
            for ok in (True, False):
                second = ChancePoint("比較", ("撃破", "撃破でない"), (win, 1 - win), 0 if ok else 1)
                branches.append(B([first, choice, second], ok))
    play = best_play(branches, lambda b: b.ok, "P1")
    counted = sum(1 for a in product(range(1, 7), repeat=3) for b in product(range(1, 7), repeat=3)
                  if value(a) > 9 or value(b) > 9)
    assert play.probability == Fraction(counted, 6 ** 6) == Fraction(27335, 46656)
    assert play.rules == ["出目の攻撃力が9以下なら「振りなおす」（それ以外は「振りなおさない」）"]
    # for P2, every other chooser avoids the result: P1 rerolls a success away (77/216 × 77/216)
    assert best_play(branches, lambda b: b.ok, "P2").probability == win * win
