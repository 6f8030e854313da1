"""The odds of a Q&A page: where an answer is a distribution (dice the scenario leaves to chance),
one chart and one table. The chart is a static SVG drawn at build time (no script needed to see
it): one stacked bar per choice or policy, a segment per outcome (撃破 / 負傷 / 失敗 …), named for a
screen reader with the numbers in words, and the same numbers as text beside it. The table gives
each outcome's percentage first and the exact fraction beside it, a column per choice, the most
likely choice for an outcome in bold; then the probability of each expectation. Reads
`Answer.odds` (see rulesdsl.engine.chance); names no game.
"""

from __future__ import annotations

from fractions import Fraction

from ..engine.chance import Odds, Plan, percent
from .escape import esc

SEGMENTS = 6             # outcome colours (rd-odds-s0 … s5 in rulesdsl.css); more outcomes reuse them


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _cell(p: Fraction) -> str:
    """「35.6%（77/216）」: the percentage to compare at a glance, the exact value beside it."""
    return (f'<span class="rd-odds-pc">{esc(percent(p))}</span><wbr>'
            f'<span class="rd-odds-exact">（<code>{esc(_fraction(p))}</code>）</span>')


def short(outcome: str) -> str:
    """An outcome's first words, for a chart's segment: 「撃破（P2の前列1の…）」 → 「撃破」."""
    head = outcome.split("（", 1)[0].split("; ", 1)[0].strip()
    return head or outcome


def plan_caption(plan: Plan) -> str:
    """「P1が「振りなおす」を選んだとき」: what a plan is, in a sentence."""
    if not plan.picks:
        return "選択なし"
    return "、".join(f"{c}が「{o}」" if c else f"「{o}」" for c, _, o in plan.picks) + "を選んだとき"


def _bar(plan: Plan, names: list[str], caption: str) -> str:
    """One stacked bar: an SVG as wide as the page, a rect per outcome, and the numbers as text."""
    x, rects, words = Fraction(0), [], []
    for outcome, p in plan.outcomes:
        i = names.index(outcome) % SEGMENTS
        width = float(p * 100)
        if width > 0:
            rects.append(f'<rect class="rd-odds-s{i}" x="{float(x * 100):.3f}" y="0" width="{width:.3f}" height="10">'
                         f"<title>{esc(short(outcome))} {esc(percent(p))}</title></rect>")
        x += p
        words.append(f'<li><span class="rd-odds-key rd-odds-s{i}" aria-hidden="true"></span>'
                     f"{esc(short(outcome))} <strong>{esc(percent(p))}</strong></li>")
    label = f"{caption}: " + "、".join(f"{short(o)} {percent(p)}" for o, p in plan.outcomes)
    return (f'<figure class="rd-odds-chart">{f"<figcaption>{esc(caption)}</figcaption>" if caption else ""}'
            f'<svg class="rd-odds-svg" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" '
            f'aria-label="{esc(label)}">{"".join(rects)}</svg>'
            f'<ul class="rd-odds-legend" aria-hidden="true">{"".join(words)}</ul></figure>')


def _table(odds: Odds, names: list[str]) -> str:
    plans = odds.plans
    several = len(plans) > 1
    head = "".join(f'<th scope="col">{esc(plan_caption(p))}</th>' for p in plans) if several else \
        '<th scope="col" class="rd-odds-p">確率</th>'
    rows = []
    for outcome in names:
        cells = []
        values = [dict(p.outcomes).get(outcome, Fraction(0)) for p in plans]
        top = max(values)
        for v in values:
            cell = _cell(v)
            cells.append(f"<td class=\"rd-odds-percent\">{f'<strong>{cell}</strong>' if several and v == top and v else cell}</td>")
        rows.append(f'<tr><th scope="row">{esc(outcome)}</th>{"".join(cells)}</tr>')
    return ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="rd-odds">'
            f'<thead><tr><th scope="col">結果</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div></div>')


def odds_html(a) -> str:
    """The odds of an answer as HTML (empty when nothing is left to chance)."""
    odds: Odds = getattr(a, "odds", None)
    if odds is None or not odds.chance_points:
        return ""
    by = odds.by or "偶然"
    out = ['<section class="rd-odds-block"><p class="rd-odds-title"><strong>確率</strong></p>',
           f"<p>{esc(by)}で決まる部分をすべて数え上げた正確な確率です（%は小数第1位で四捨五入、括弧内は厳密な分数）。</p>"]
    if odds.too_many_plans:
        out.append(f"<p>選び方が{odds.too_many_plans:,}通りあり、表にはしていません。</p></section>")
        return "".join(out)
    names: list[str] = []
    for plan in odds.plans:
        names += [o for o, _ in plan.outcomes if o not in names]
    several = len(odds.plans) > 1
    out.append('<div class="rd-odds-charts">' + "".join(_bar(p, names, plan_caption(p) if several else "")
                                                        for p in odds.plans) + "</div>")
    out.append(_table(odds, names))
    if several:
        out.append("<p class=\"rd-muted\">太字はその結果が最も起こりやすい選び方。</p>")
    rows = []
    for i, e in enumerate(getattr(a, "expectations", ())):
        if not odds.plans or i >= len(odds.plans[0].holds):
            continue
        values = "、".join((f"{plan_caption(p)}: " if several else "") + _cell(p.holds[i]) for p in odds.plans)
        rows.append(f"<li>{esc(e.text)}: {values}</li>")
    if rows:
        out.append("<p><strong>期待される結果が成り立つ確率</strong></p><ul>" + "".join(rows) + "</ul>")
    out.append("</section>")
    return "".join(out)
