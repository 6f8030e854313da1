"""best_play and summarize work their sums out as integers: the probabilities, plans and
decision rules are those exact fractions give, node by node and branch by branch (the references
below, as both were first written), on trees of chance points with unlike denominators, choices
of either player and ties."""

import random
from fractions import Fraction
from itertools import product

from rulesdsl.engine.chance import (MAX_PLANS, ChancePoint, Odds, Plan, _decisions, best_play, decision_words,
                                    is_chance, probability_of, summarize)
from rulesdsl.engine.context import ChoicePoint


class Branch:
    def __init__(self, choices, ok, outcome="", results=()):
        self.choices, self.ok, self.outcome, self.results = choices, ok, outcome, list(results)


def _fraction_best_play(branches, holds, player):
    """Expectimax with a Fraction made at every node (best_play as it was written first)."""
    picks = {}

    def solve(rows, depth, seen):
        first = rows[0]
        if len(first.choices) <= depth:
            return Fraction(1) if holds(first) else Fraction(0)
        point = first.choices[depth]
        groups = {}
        for b in rows:
            groups.setdefault(b.choices[depth].picked, []).append(b)
        if is_chance(point):
            return sum((point.weights[k] * solve(g, depth + 1, (*seen, point.options[k]))
                        for k, g in groups.items()), Fraction(0))
        values = {k: solve(g, depth + 1, seen) for k, g in groups.items()}
        mine = point.chooser == player
        top = max(values.values()) if mine else min(values.values())
        if mine:
            best = tuple(point.options[k] for k, v in values.items() if v == top)
            picks.setdefault((point.chooser, point.label), {})[seen[-1] if seen else ""] = (best, point.options)
        return top

    value = solve(list(branches), 0, ()) if branches else Fraction(0)
    return value, [decision_words(label, table) for (_, label), table in picks.items()]


def _fraction_summarize(branches, n_expectations):
    """summarize with a Fraction per branch and per sum (as first written)."""
    rows = []
    keys = {}
    chance_points = 0
    by = set()
    for b in branches:
        decisions = _decisions(b.choices)
        for k, _ in decisions:
            keys.setdefault(k, None)
        chance_points += sum(1 for c in b.choices if is_chance(c))
        by.update(c.by for c in b.choices if is_chance(c))
        rows.append((probability_of(b.choices), decisions, b))
    order = list(keys)
    count = 1
    for k in order:
        count *= len(k[2])
    odds = Odds(chance_points=chance_points, by=next(iter(by)) if len(by) == 1 else (None if by else "出目"))
    if count > MAX_PLANS:
        odds.too_many_plans = count
        return odds
    seen = set()
    for picks in product(*(range(len(k[2])) for k in order)):
        plan = dict(zip(order, picks))
        followed = frozenset(n for n, (_, decisions, _) in enumerate(rows)
                             if all(plan[k] == picked for k, picked in decisions))
        if not followed or followed in seen:
            continue
        seen.add(followed)
        met = set()
        dist = {}
        holds = [Fraction(0)] * n_expectations
        for n in sorted(followed):
            p, decisions, b = rows[n]
            met.update(k for k, _ in decisions)
            dist[b.outcome] = dist.get(b.outcome, Fraction(0)) + p
            for i, r in enumerate(b.results[:n_expectations]):
                if r is not None and r[0]:
                    holds[i] += p
        outcomes = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))
        odds.plans.append(Plan(tuple((k[0], k[1], k[2][plan[k]]) for k in order if k in met), outcomes, holds))
    return odds


def _weights(rng, n):
    den = rng.choice((6, 36, 216, 7, 10, 12))
    cuts = sorted(rng.sample(range(1, den), n - 1)) if den > n else list(range(1, n))
    edges = [0, *cuts, den if den > n else n]
    return tuple(Fraction(b - a, edges[-1]) for a, b in zip(edges, edges[1:]))


def _tree(rng, depth, path, out, n):
    if depth == 0 or rng.random() < 0.2:
        results = [(rng.random() < 0.5,), None, (rng.random() < 0.3,)]
        out.append(Branch(list(path), results[0][0], rng.choice(("撃破", "撃破でない", "相打ち")), results))
        return
    if rng.random() < 0.5:
        k = rng.randint(2, 4)
        weights = _weights(rng, k)
        options = tuple(f"攻撃力{i + 1}" for i in range(k))
        for i in range(k):
            _tree(rng, depth - 1, [*path, ChancePoint(f"出目{n}", options, weights, i)], out, n + 1)
    else:
        chooser = rng.choice(("P1", "P2"))
        options = ("振りなおす", "振りなおさない")
        for i in range(2):
            _tree(rng, depth - 1, [*path, ChoicePoint(chooser, f"選択{n}", options, i)], out, n + 1)


def test_best_play_gives_the_probability_and_rules_exact_fractions_give_node_by_node():
    rng = random.Random(25)
    trees = 0
    for _ in range(300):
        branches = []
        _tree(rng, rng.randint(1, 5), [], branches, 0)
        for player in ("P1", "P2"):
            play = best_play(branches, lambda b: b.ok, player)
            value, rules = _fraction_best_play(branches, lambda b: b.ok, player)
            assert type(play.probability) is Fraction
            assert play.probability == value
            assert play.rules == rules
        trees += 1
    assert trees == 300


def test_summarize_gives_the_plans_exact_fractions_give_branch_by_branch():
    rng = random.Random(19)
    for _ in range(300):
        branches = []
        _tree(rng, rng.randint(1, 5), [], branches, 0)
        odds, reference = summarize(branches, 3), _fraction_summarize(branches, 3)
        assert len(odds.plans) == len(reference.plans) and odds.chance_points == reference.chance_points
        assert odds.too_many_plans == reference.too_many_plans and odds.by == reference.by
        for plan, ref in zip(odds.plans, reference.plans):
            assert plan.picks == ref.picks
            assert plan.outcomes == ref.outcomes and plan.holds == ref.holds
            assert all(type(p) is Fraction for _, p in plan.outcomes) and all(type(p) is Fraction for p in plan.holds)
            assert plan.as_dict() == ref.as_dict()
            assert sum(p for _, p in plan.outcomes) == 1


def test_best_play_of_no_branches_is_zero():
    assert best_play([], lambda b: True, "P1").probability == 0
