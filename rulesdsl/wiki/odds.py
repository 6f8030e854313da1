"""The odds table of a Q&A page: where an answer is a distribution (dice the scenario leaves to
chance), each distinct outcome with its exact probability as a fraction and a percentage, plan by
plan when players choose too, which plan makes each outcome most likely, and the probability of
each expectation. Reads `Answer.odds` (see rulesdsl.engine.chance); names no game.
"""

from __future__ import annotations

from fractions import Fraction

from ..engine.chance import Odds, percent
from .escape import esc


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _rows(outcomes: list[tuple[str, Fraction]]) -> str:
    rows = []
    for outcome, p in outcomes:
        width = percent(p)
        rows.append(f'<tr><td>{esc(outcome)}</td><td class="rd-odds-fraction"><code>{esc(_fraction(p))}</code></td>'
                    f'<td class="rd-odds-percent">{esc(width)}</td>'
                    f'<td class="rd-odds-bar" aria-hidden="true"><span style="display:inline-block;height:.6em;'
                    f'background:currentColor;opacity:.45;width:{esc(width)}"></span></td></tr>')
    return "".join(rows)


def _table(outcomes: list[tuple[str, Fraction]], caption: str = "") -> str:
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="rd-odds">'
            f"{cap}<thead><tr><th>結果</th><th>確率</th><th>%</th><th></th></tr></thead>"
            f"<tbody>{_rows(outcomes)}</tbody></table></div></div>")


def odds_html(a) -> str:
    """The odds of an answer as HTML (empty when nothing is left to chance)."""
    odds: Odds = getattr(a, "odds", None)
    if odds is None or not odds.chance_points:
        return ""
    by = odds.by or "偶然"
    out = ['<section class="rd-odds-block"><p class="rd-odds-title"><strong>確率</strong></p>',
           f"<p>{esc(by)}で決まる部分をすべて数え上げた正確な確率です（分数は厳密な値、%は小数第1位で四捨五入）。</p>"]
    if odds.too_many_plans:
        out.append(f"<p>選び方が{odds.too_many_plans:,}通りあり、表にはしていません。</p></section>")
        return "".join(out)
    several = len(odds.plans) > 1
    for plan in odds.plans:
        out.append(_table(plan.outcomes, f"{plan.label}の場合" if several else ""))
    if several:
        best = []
        seen: list[str] = []
        for plan in odds.plans:
            seen += [o for o, _ in plan.outcomes if o not in seen]
        for outcome in seen:
            plans, top = odds.best(outcome)
            if len(plans) < len(odds.plans):
                best.append(f"<li>{esc(outcome)}: {esc(' / '.join(p.label for p in plans))}の場合が最も高い"
                            f"（<code>{esc(_fraction(top))}</code>、{esc(percent(top))}）</li>")
        if best:
            out.append("<p><strong>どの選び方で、どの結果が最も起こりやすいか</strong></p><ul>" + "".join(best) + "</ul>")
    rows = []
    for i, e in enumerate(getattr(a, "expectations", ())):
        if not odds.plans or i >= len(odds.plans[0].holds):
            continue
        values = "、".join((f"{p.label}: " if several else "") + f"<code>{esc(_fraction(p.holds[i]))}</code>"
                          f"（{esc(percent(p.holds[i]))}）" for p in odds.plans)
        rows.append(f"<li>{esc(e.text)}: {values}</li>")
    if rows:
        out.append("<p><strong>期待される結果が成り立つ確率</strong></p><ul>" + "".join(rows) + "</ul>")
    out.append("</section>")
    return "".join(out)
