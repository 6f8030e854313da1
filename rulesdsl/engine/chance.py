"""Chance: exact probabilities for what a scenario leaves to the dice.

A chance point is a branch point of a run like a player's choice, except that nobody chooses:
each option carries its exact probability (a Fraction; never a float, never a sample). The
explorer enumerates chance points exactly as it enumerates choices (a run is deterministic given
its picks), so an answer's branches are the leaves of one tree of choices and chance, and a
branch's probability is the product of its chance picks.

An engine keeps what was rolled as a `Distribution` over the values the rules read (the multiset
of faces, or less: the two highest faces and whether any face repeats), with integer weights,
and branches only where the rules ask a question of it (`branch`): "is the attack value above the
defense?" splits the distribution into the classes that question tells apart, and the run goes on
with the class it picked. Outcomes the rules do not tell apart are never run twice: equal states
are merged before they exist. A fixed roll is the same code with a certain distribution.

After the runs, `summarize` adds the branches up: for each plan (one option for every decision a
player meets) the distribution of the distinct outcomes, the probability of each expectation, and
which plan makes an outcome most likely.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import comb, factorial, gcd, lcm
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Optional, Sequence

from ..base.record import Record, field
from .chance_words import decision_words

if TYPE_CHECKING:      # imported where a probability is made: most answers meet no chance
    from fractions import Fraction

MAX_PLANS = 256        # plans listed in an answer; past this the branches are listed alone


# ----------------------------------------------------------------------------- distributions

class Distribution:
    """A finite distribution with integer weights: `pairs` of (value, weight > 0) and their
    `total`. Integers keep partitioning cheap; probabilities come out as Fractions."""

    __slots__ = ("pairs", "total", "_classes")

    def __init__(self, pairs: Iterable[tuple[Any, int]]) -> None:
        self.pairs = tuple((v, w) for v, w in pairs if w)
        self.total = sum(w for _, w in self.pairs)
        self._classes: Optional[dict] = None
        if not self.total:
            raise ValueError("a distribution needs at least one outcome of positive weight")

    @classmethod
    def certain(cls, value: Any) -> "Distribution":
        return cls(((value, 1),))

    def __len__(self) -> int:
        return len(self.pairs)

    def __repr__(self) -> str:
        return f"Distribution({len(self.pairs)} outcomes, total {self.total})"

    def only(self) -> Any:
        """The value of a certain distribution (one outcome)."""
        if len(self.pairs) != 1:
            raise ValueError("the distribution has more than one outcome")
        return self.pairs[0][0]

    def fractions(self) -> list[tuple[Any, Fraction]]:
        from fractions import Fraction
        return [(v, Fraction(w, self.total)) for v, w in self.pairs]

    def probability(self, holds: Callable[[Any], bool]) -> Fraction:
        from fractions import Fraction
        return Fraction(sum(w for v, w in self.pairs if holds(v)), self.total)

    def map(self, f: Callable[[Any], Hashable]) -> "Distribution":
        """The distribution of f(value): equal images merged, in order of first appearance."""
        merged: dict = {}
        for v, w in self.pairs:
            k = f(v)
            merged[k] = merged.get(k, 0) + w
        return Distribution(merged.items())

    def partition(self, key: Callable[[Any], Hashable], memo: Hashable = None) -> list[tuple[Hashable, "Distribution"]]:
        """The classes of values with the same key, in order of first appearance, each with
        its conditional distribution. With `memo` (a name for the question `key` asks), the
        answer is kept with the distribution: a replayed run asks the same question again."""
        if memo is not None and self._classes is not None and memo in self._classes:
            return self._classes[memo]
        classes: dict = {}
        for pair in self.pairs:
            classes.setdefault(key(pair[0]), []).append(pair)
        out = [(k, Distribution(ps)) for k, ps in classes.items()]
        if memo is not None:
            if self._classes is None:
                self._classes = {}
            self._classes[memo] = out
        return out


# ----------------------------------------------------------------------------- dice

def dice_outcomes(n: int, sides: int = 6) -> int:
    """How many distinct multisets of faces n dice can show: C(n + sides - 1, sides - 1)."""
    return comb(n + sides - 1, sides - 1)


KEEP_OUTCOMES = 20_000   # larger rolls are enumerated again when asked again, not kept for good


def dice(n: int, sides: int = 6) -> Distribution:
    """n fair dice as multisets of faces (tuples, highest first), each weighted by the number of
    ordered rolls showing it (the multinomial coefficient): sides**n in total. Small pools are
    kept; a large one is not, so that a resident process does not hold on to it."""
    if n >= 0 and sides >= 1 and dice_outcomes(n, sides) <= KEEP_OUTCOMES:
        return _kept_dice(n, sides)
    return _dice(n, sides)


@lru_cache(maxsize=64)
def _kept_dice(n: int, sides: int) -> Distribution:
    return _dice(n, sides)


def _dice(n: int, sides: int) -> Distribution:
    if n < 0 or sides < 1:
        raise ValueError("a dice pool needs n >= 0 dice of at least one side")
    top = factorial(n)
    pairs = []
    for faces in combinations_with_replacement(range(sides, 0, -1), n):
        w = top
        run = 1
        for i in range(1, n + 1):
            if i < n and faces[i] == faces[i - 1]:
                run += 1
            else:
                w //= factorial(run)
                run = 1
        pairs.append((faces, w))
    return Distribution(pairs)


# ----------------------------------------------------------------------------- chance points

class ChancePoint(Record):
    """A branch point that nobody chooses: the classes of a distribution the rules tell apart,
    with their probabilities. Read like a `ChoicePoint` by the explorer and the answer."""

    label: str                          # what is being decided by chance (Japanese)
    options: tuple[str, ...]            # the classes, in words
    weights: tuple[Fraction, ...]       # their probabilities (they sum to 1)
    picked: int = 0
    loc: Any = None                     # where the scenario leaves it to chance
    chooser: None = None                # nobody chooses
    cite: Any = None
    kind: str = "chance"
    by: str = "出目"                    # what decides it, in words (出目: the dice)

    def __init__(self, label: str, options: tuple[str, ...], weights: tuple[Fraction, ...], picked: int = 0,
                 loc: Any = None, chooser: None = None, cite: Any = None, kind: str = "chance",
                 by: str = "出目") -> None:                # one per chance point met: written out
        self.label, self.options, self.weights, self.picked, self.loc = label, options, weights, picked, loc
        self.chooser, self.cite, self.kind, self.by = chooser, cite, kind, by


class ChanceLimit(Exception):
    """A chance point with more outcomes than the bound allows (raised before enumerating)."""

    def __init__(self, label: str, outcomes: int, limit: int, loc: Any = None) -> None:
        super().__init__(label)
        self.label, self.outcomes, self.limit, self.loc = label, outcomes, limit, loc


def check_size(ctx, outcomes: int, label: str, loc: Any = None) -> None:
    """Refuse, before any enumeration, a chance point with more outcomes than the run allows."""
    limit = ctx.bounds.max_outcomes
    if outcomes > limit:
        raise ChanceLimit(label, outcomes, limit, loc)


def branch(ctx, label: str, dist: Distribution, key: Callable[[Any], Hashable],
           describe: Callable[[Hashable, Distribution], str], loc: Any = None,
           cites: Sequence = (), memo: Hashable = None, by: str = "出目") -> tuple[Hashable, Distribution]:
    """Split `dist` by `key` and follow one class: a chance point when more than one class has
    weight. `describe(key, class)` words a class; `memo` names the question (see
    Distribution.partition). Returns the class key and the class's conditional distribution."""
    classes = dist.partition(key, memo)
    check_size(ctx, len(classes), label, loc)
    if len(classes) == 1:
        return classes[0]
    n = len(ctx.choices)
    picked = ctx.script[n] if n < len(ctx.script) else 0
    weights, options, said = _words(dist, classes, label, describe, memo)
    ctx.choices.append(ChancePoint(label, options, weights, picked, loc, by=by))
    text = said[picked]
    if text is None:
        text = said[picked] = f"{label}: {options[picked]}（確率 {odds_text(weights[picked])}）"
    ctx.step(text, *cites, kind="chance")
    return classes[picked]


_WORDS = object()       # names the words of a chance point among a distribution's kept classes
_PLAIN = (int, str, bool, float, type(None))


def _words(dist: Distribution, classes: list, label: str, describe: Callable, memo: Hashable) -> tuple:
    """A chance point's weights, its options in words and the trace's sentence for each (made
    when first said). Every run that meets the same question of the same distribution meets the
    same point — a dice question's runs meet it thousands of times — so where `memo` names the
    question and `describe` reads nothing but its arguments and plain values it closes over
    (ints, strings, tuples of them: a bonus, a defense), they are made once and kept with the
    classes (Distribution.partition); else they are made for this run alone."""
    key = None
    code = getattr(describe, "__code__", None)
    if memo is not None and code is not None and not getattr(describe, "__defaults__", None):
        cells = tuple(c.cell_contents for c in describe.__closure__ or ())
        if all(_plain(v) for v in cells):
            key = (_WORDS, memo, label, code, cells)
            kept = dist._classes.get(key) if dist._classes is not None else None
            if kept is not None:
                return kept
    from fractions import Fraction
    made = (tuple(Fraction(d.total, dist.total) for _, d in classes), tuple(describe(k, d) for k, d in classes),
            [None] * len(classes))
    if key is not None and dist._classes is not None:
        dist._classes[key] = made
    return made


def _plain(v: Any) -> bool:
    return type(v) in _PLAIN or (type(v) is tuple and all(_plain(x) for x in v))


def is_chance(point: Any) -> bool:
    return type(point) is ChancePoint


def probability_of(choices: Iterable[Any]) -> Fraction:
    """A branch's probability: the product of its chance picks."""
    from fractions import Fraction
    p = Fraction(1)
    for c in choices:
        if is_chance(c):
            p *= c.weights[c.picked]
    return p


# ----------------------------------------------------------------------------- words

def percent(p: Fraction) -> str:
    """35.6% (rounded half up to one decimal; exact fractions stay the reference)."""
    from fractions import Fraction
    tenths = (p * 1000 + Fraction(1, 2)).__floor__()
    return f"{tenths // 10}.{tenths % 10}%"


def odds_text(p: Fraction) -> str:
    """「77/216（35.6%）」; certainty and impossibility read as 1 and 0."""
    if p.denominator == 1:
        return f"{p.numerator}（{p.numerator * 100}%）"
    return f"{p.numerator}/{p.denominator}（{percent(p)}）"


# ----------------------------------------------------------------------------- adding branches up

Decision = tuple  # (chooser, label, options, occurrence)


class Plan(Record):
    """One option for every decision the players meet, and what it leads to."""

    picks: tuple[tuple[Optional[str], str, str], ...]      # (chooser, label, option), in order
    outcomes: list[tuple[str, Fraction]]                   # distinct outcomes, most likely first
    holds: list[Fraction]                                  # per expectation: P(it holds)

    @property
    def label(self) -> str:
        if not self.picks:
            return "（選択なし）"
        return " → ".join(f"{c or '—'}: {o}" for c, _, o in self.picks)

    def as_dict(self) -> dict:
        return {"choices": [{"chooser": c, "label": l, "picked": o} for c, l, o in self.picks],
                "outcomes": [{"outcome": o, "probability": str(p), "percent": percent(p)}
                             for o, p in self.outcomes],
                "expectations": [str(p) for p in self.holds]}


class Odds(Record):
    """What the branches of an answer add up to, plan by plan (see the module docstring)."""

    chance_points: int                  # chance points met over all branches
    plans: list[Plan] = field(default_factory=list)
    by: Optional[str] = "出目"          # what decides every chance point (None: several things)
    too_many_plans: int = 0             # the number of plans when there were too many to list
    # per expectation: for each player who decides something, the probability under the best
    # play for that player (decisions made when they are met, after the dice before them)
    best_play: list[dict[str, "BestPlay"]] = field(default_factory=list)

    def best(self, outcome: str) -> tuple[list[Plan], Fraction]:
        """The plans under which `outcome` is most likely, and that probability."""
        from fractions import Fraction
        values = [(dict(p.outcomes).get(outcome, Fraction(0)), p) for p in self.plans]
        top = max((v for v, _ in values), default=Fraction(0))
        return [p for v, p in values if v == top], top

    def best_for(self, i: int) -> tuple[list[Plan], Fraction]:
        """The plans under which expectation i most likely holds, and that probability."""
        from fractions import Fraction
        top = max((p.holds[i] for p in self.plans), default=Fraction(0))
        return [p for p in self.plans if p.holds[i] == top], top

    def as_dict(self) -> dict:
        return {"chance_points": self.chance_points, "plans": [p.as_dict() for p in self.plans],
                "too_many_plans": self.too_many_plans,
                "best_play": [{who: b.as_dict() for who, b in per.items()} for per in self.best_play]}


# ----------------------------------------------------------------------------- decisions after the dice

class BestPlay(Record):
    """The probability of a result when `player` makes every decision of theirs as it comes —
    having seen what chance decided before it — so as to make the result most likely, and every
    other chooser so as to make it least likely (expectimax over the tree of chance and choice
    points in the order the rules meet them); `rules`: the decisions in a player's words."""

    player: str
    probability: Fraction
    rules: list[str]

    def as_dict(self) -> dict:
        return {"probability": str(self.probability), "percent": percent(self.probability), "rules": self.rules}


def best_play(branches: Sequence[Any], holds: Callable[[Any], bool], player: str) -> BestPlay:
    """Expectimax over the branches (leaves of one tree: a branch's `choices` are the points it
    met, each with the option it took). A chance point weighs its children by their
    probabilities; a decision of `player` takes the best child, anyone else's the worst. Exact:
    a value is a pair of integers (numerator, denominator > 0), compared by cross-multiplying,
    the result the Fraction it makes — what Fractions node by node give, at a fraction of the cost."""
    from fractions import Fraction
    picks: dict[tuple, dict] = {}   # (chooser, label) -> {condition: (best options, all options)}
    scales: dict[int, tuple] = {}   # id(a point's weights) -> (their common denominator, numerators over it, them)

    def solve(rows: list, depth: int, seen: tuple) -> tuple[int, int]:
        first = rows[0]
        if len(first.choices) <= depth:
            return (1, 1) if holds(first) else (0, 1)
        point = first.choices[depth]
        groups: dict[int, list] = {}
        for b in rows:
            groups.setdefault(b.choices[depth].picked, []).append(b)
        if is_chance(point):
            w = point.weights   # one tuple for every run that meets the point (_words)
            scale = scales.get(id(w))
            if scale is None:
                d = lcm(*(x.denominator for x in w))
                scale = scales[id(w)] = (d, [x.numerator * (d // x.denominator) for x in w], w)
            parts = [(scale[1][k], solve(g, depth + 1, (*seen, point.options[k]))) for k, g in groups.items()]
            common = lcm(*(b for _, (_, b) in parts))
            num, den = sum(n * a * (common // b) for n, (a, b) in parts), scale[0] * common
            g = gcd(num, den)
            return num // g, den // g
        values = {k: solve(g, depth + 1, seen) for k, g in groups.items()}
        mine = point.chooser == player
        top = None
        for v in values.values():   # the first best, as max and min take it
            if top is None or (v[0] * top[1] - top[0] * v[1]) * (1 if mine else -1) > 0:
                top = v
        if mine:
            best = tuple(point.options[k] for k, v in values.items() if v[0] * top[1] == top[0] * v[1])
            picks.setdefault((point.chooser, point.label), {})[seen[-1] if seen else ""] = (best, point.options)
        return top

    value = Fraction(*solve(list(branches), 0, ())) if branches else Fraction(0)
    solve = None    # a nested function calling itself is a cycle (function, cell): freed now, not by the gc
    return BestPlay(player, value, [decision_words(label, table) for (_, label), table in picks.items()])


def _decisions(choices: Sequence[Any]) -> list[tuple[Decision, int]]:
    seen: dict = {}
    out = []
    for c in choices:
        if is_chance(c):
            continue
        base = (c.chooser, c.label, tuple(c.options))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(((*base, n), c.picked))
    return out


def summarize(branches: Sequence[Any], n_expectations: int) -> Odds:
    """Add up branches (each with `choices`, `outcome` and per-expectation `results`) into the
    distribution of outcomes for every plan. Every plan's probabilities sum to exactly 1."""
    from fractions import Fraction
    rows = []
    keys: dict[Decision, None] = {}
    chance_points = 0
    by: set[str] = set()
    for b in branches:
        decisions = _decisions(b.choices)
        for k, _ in decisions:
            keys.setdefault(k, None)
        num = den = 1       # the branch's probability (probability_of) as integers, not reduced
        for c in b.choices:
            if is_chance(c):
                chance_points, w = chance_points + 1, c.weights[c.picked]
                by.add(c.by)
                num, den = num * w.numerator, den * w.denominator
        rows.append(((num, den), decisions, b))
    order = list(keys)
    count = 1
    for k in order:
        count *= len(k[2])
    odds = Odds(chance_points=chance_points, by=next(iter(by)) if len(by) == 1 else (None if by else "出目"))
    players = sorted({k[0] for k in order if k[0] is not None})
    if odds.chance_points and players:
        for i in range(n_expectations):
            def holds(b, i=i):
                r = b.results[i] if i < len(b.results) else None
                return r is not None and bool(r[0])
            odds.best_play.append({p: best_play(branches, holds, p) for p in players})
    if count > MAX_PLANS:
        odds.too_many_plans = count
        return odds
    seen: set[frozenset] = set()
    for picks in product(*(range(len(k[2])) for k in order)):
        plan = dict(zip(order, picks))
        followed = frozenset(n for n, (_, decisions, _) in enumerate(rows)
                             if all(plan[k] == picked for k, picked in decisions))
        if not followed or followed in seen:
            continue  # the same branches as a plan already listed: it differs only in decisions never met
        seen.add(followed)
        met: set = set()
        common = lcm(*(rows[n][0][1] for n in followed))    # the sums as integers over it: the same Fractions
        dist: dict[str, int] = {}
        holds = [0] * n_expectations
        for n in sorted(followed):
            (num, den), decisions, b = rows[n]
            p = num * (common // den)
            met.update(k for k, _ in decisions)
            dist[b.outcome] = dist.get(b.outcome, 0) + p
            for i, r in enumerate(b.results[:n_expectations]):
                if r is not None and r[0]:
                    holds[i] += p
        outcomes = sorted(((o, Fraction(v, common)) for o, v in dist.items()), key=lambda kv: (-kv[1], kv[0]))
        odds.plans.append(Plan(tuple((k[0], k[1], k[2][plan[k]]) for k in order if k in met), outcomes,
                               [Fraction(h, common) for h in holds]))
    return odds


# ----------------------------------------------------------------------------- text

def render_odds(odds: Odds, branches: int) -> list[str]:
    """The odds block of an answer in text: per plan, each distinct outcome with its exact
    probability, most likely first; with several plans, which plan makes each outcome most
    likely."""
    lines = [f"odds (exact: every outcome left to chance is counted; {branches} branch{'es' if branches != 1 else ''}):"]
    if odds.too_many_plans:
        lines.append(f"  {odds.too_many_plans:,} plans of choices: too many to add up; the branches follow")
        return lines
    several = len(odds.plans) > 1
    for plan in odds.plans:
        pad = "    " if several else "  "
        if several:
            lines.append(f"  if {plan.label}:")
        for outcome, p in plan.outcomes:
            lines.append(f"{pad}{percent(p):>6}  {str(p):<9} {outcome}")
    if several:
        seen = []
        for plan in odds.plans:
            for outcome, _ in plan.outcomes:
                if outcome not in seen:
                    seen.append(outcome)
        best = []
        for outcome in seen:
            plans, top = odds.best(outcome)
            if len(plans) < len(odds.plans):
                best.append(f"  {outcome}\n      most likely if {' / '.join(p.label for p in plans)}: {odds_text(top)}")
        if best:
            lines.append("which choice makes an outcome most likely:")
            lines += best
    return lines


def expectation_odds(odds: Optional[Odds], i: int) -> Optional[str]:
    """The probability that expectation i holds, in words (per plan when there are several)."""
    if odds is None or not odds.plans:
        return None
    if len(odds.plans) == 1:
        return f"probability {odds_text(odds.plans[0].holds[i])}"
    plans, top = odds.best_for(i)
    each = "; ".join(f"{p.label}: {odds_text(p.holds[i])}" for p in odds.plans)
    return f"probability {each} — highest if {' / '.join(p.label for p in plans)}"


# ----------------------------------------------------------------------------- sentences

def chance_sentences(odds: Optional[Odds]) -> list[str]:
    """The distribution of outcomes in plain Japanese, for the sentences that open an answer:
    「出目によって、撃破（…） 77/216（35.6%）、…。」 (one sentence per plan of choices)."""
    if odds is None or not odds.chance_points or odds.too_many_plans:
        return []

    def parts(plan: Plan) -> str:
        return "、".join(f"{o.split('; ')[0]} {odds_text(p)}" for o, p in plan.outcomes)
    by = f"{odds.by}によって" if odds.by else "偶然によって"
    if len(odds.plans) == 1:
        return [f"{by}、{parts(odds.plans[0])}。"]
    if len(odds.plans) > 2:
        return [f"選び方が{len(odds.plans)}通りあり、結果の確率は選び方と{by}決まる（選び方ごとの確率は下の表）。"]
    return [f"{plan.label}なら、{by}{parts(plan)}。" for plan in odds.plans]


def expectation_sentence(odds: Optional[Odds], i: int, statement: str, bound: Optional[str],
                         ok: bool) -> Optional[str]:
    """An expectation's probability in plain Japanese (None without chance): per plan when
    there are several, with the plan that makes it most likely."""
    if odds is None or not odds.chance_points or not odds.plans:
        return None
    play = best_play_words(odds, i)
    if len(odds.plans) == 1:
        text = f"「{statement}」となる確率は{odds_text(odds.plans[0].holds[i])}"
    elif len(odds.plans) > 2:
        best, top = odds.best_for(i)
        low = min(p.holds[i] for p in odds.plans)
        text = (f"「{statement}」となる確率は選び方によって{odds_text(low)}から{odds_text(top)}まで。"
                f"最も高いのは{' / '.join(p.label for p in best)}")
    else:
        each = "、".join(f"{p.label}なら{odds_text(p.holds[i])}" for p in odds.plans)
        best, top = odds.best_for(i)
        text = f"「{statement}」となる確率は、{each}。最も高いのは{' / '.join(p.label for p in best)}の{odds_text(top)}"
    if play:
        fixed = text.split("となる確率は", 1)[1].lstrip("、")
        text = f"「{statement}」となる確率は、{play}。決め方を出目の前に固定した場合は{fixed}"
    if bound and not ok:
        text += f"（確率 {bound} ではない）"
    return text + "。"


def best_play_words(odds: Odds, i: int) -> str:
    """The best play for each deciding player, in words: 「P1が出目を見て最善に決めれば27335/46656
    （58.6%）: 出目の攻撃力が9以下なら「振りなおす」…」."""
    if i >= len(odds.best_play) or not odds.best_play[i]:
        return ""
    parts = []
    several = len(odds.best_play[i]) > 1
    for who, b in odds.best_play[i].items():
        aim = f"{who}がこの結果を目指し（ほかの選ぶ者は避けるように）" if several else f"{who}が"
        parts.append(f"{aim}それまでの出目を見て決めれば最大{odds_text(b.probability)}"
                     + (f"（{'、'.join(b.rules)}）" if b.rules else ""))
    return "、".join(parts)
