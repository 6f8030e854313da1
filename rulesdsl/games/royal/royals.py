"""Royal cards: missions, the clear checks (クリアーチェック) at which a met mission may be
cleared, and clearing (公開), which can decide the game."""

from __future__ import annotations

from ...engine.context import Context
from .points import reading
from .state import Card, State
from .victory import check_now, players_in_order


def mission_met(ctx: Context, st: State, card: Card) -> bool:
    if card.uid in st.mission_met:
        return True
    n = card.fact("mission_skill_zone")
    return isinstance(n, int) and not isinstance(n, bool) and len(st.cards(card.owner, "skill_zone")) >= n


def mission_words(royal: Card) -> str:
    m = royal.fact("mission")
    return m if isinstance(m, str) else "内容は場面に書かれていない"


def clear_candidates(ctx: Context, st: State) -> list[Card]:
    out = []
    for p in players_in_order(st):
        for r in st.cards(p, "royal_zone"):
            if r.face == "down" and r.fact("mission_type") != "cost" and mission_met(ctx, st, r):
                out.append(r)
    return out


def clear_check(ctx: Context, st: State, when: str, *cites) -> None:
    """クリアーチェック: each player may clear the royal cards whose mission is met (trial
    missions; cost missions are cleared by paying, see guardians.clear)."""
    if st.result:
        return
    for r in clear_candidates(ctx, st):
        p = r.owner
        base = [ctx.section("royal/royal/clear-check"), ctx.section("royal/royal/clear-timing"), *cites]
        if (p, r.name) in st.cleared_names:
            ctx.step(f"{when}のクリアーチェック: {p}の{r.label}はこのターンすでにクリアーしているため、再びクリアーできない",
                     ctx.section("royal/royal/clear-once"), *base)
            continue
        how, cite = reading(ctx, st.readings, "mission.trial_clear")
        if how == "automatic":
            do = True
        elif st.passive:
            do = False
        else:
            do = ctx.choose(p, f"{when}のクリアーチェック: ミッションを達成した{r.label}をクリアーするか",
                        ["クリアーする", "クリアーしない"], ctx.section("royal/royal/clear-check")) == 0
        if do:
            clear(ctx, st, r, f"{when}のクリアーチェックで、{p}はミッションを達成した{r.label}をクリアーする（公開する）",
                  *base, ctx.section("royal/royal/trial-mission"), cite)
        else:
            ctx.step(f"{when}のクリアーチェックで、{p}は{r.label}をクリアーしない", *base, cite, kind="choice")
        if st.result:
            return


def clear(ctx: Context, st: State, royal: Card, text: str, *cites) -> None:
    """Clear (reveal) a royal card whose mission is met: what a clear and a mission are, the mission's
    type (two types, each cleared its own way), and the once-per-turn limit, checked before."""
    royal.face = "up"
    st.cleared_names.add((royal.owner, royal.name))
    ctx.step(text, ctx.section("royal/terms/clear"), ctx.section("royal/terms/mission"),
             ctx.section("royal/royal/mission-types"), *cites, ctx.section("royal/royal/clear-once"))
    check_now(ctx, st)
