"""The review list: what is not settled — provisional rulings, unofficial rules and the wiki's own
unconfirmed readings — as rulings, rule points whose default is unsettled, and worked answers that
rest on them.

Hundreds of items: one card per item (what it is, its link, its game, its date or value — nothing
a phone has to cut), no table. The review page holds them all, grouped by status and game, long
groups folded; the page script filters them in place by game and status. Without script the same
filter is a set of static pages, one per game and status (`review/GAME-STATUS.md`, kept out of
the nav), linked from the review page's summary."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import NamedTuple, Optional

from ..lang.model import Status
from .common import Ctx, value_label
from .escape import esc
from .render import STATUS_HELP, STATUS_JA, Doc, badge
from .site import REVIEW_STATUSES, Failure, Wiki

KIND_JA = {"ruling": "裁定", "point": "ルールポイントの既定値", "answer": "Q&Aの答え"}
FOLD = 12           # a group longer than this is folded on the review page (its own page lists it)


class Item(NamedTuple):
    status: Status
    game: str
    kind: str            # ruling, point or answer
    html: str            # the item's link and what it says, one card


def review_items(w: Wiki, ctx: Ctx) -> list[Item]:
    """Every item not settled today, in the order: status, game, kind (rulings, rule points,
    answers), then as the knowledge base lists them. Made once per build and page depth (the
    review page and each of its parts list them all)."""
    key = ("review_items", ctx.root)
    found = w.memo.get(key)
    if found is None:
        found = w.memo[key] = _review_items(w, ctx)
    return found


def _review_items(w: Wiki, ctx: Ctx) -> list[Item]:
    kb = w.kb
    items: list[Item] = []
    for r in kb.rulings.values():
        rev, state = w.current(r)
        if rev is not None and state in ("in_force", "future") and rev.status in REVIEW_STATUSES:
            when = f'<span class="rd-review-what">{esc(rev.date_ja)}</span>' if rev.date else ""
            items.append(Item(rev.status, r.game, "ruling", ctx.ruling(r.id, rev.date_label) + when))
    for g in w.games:
        for p in kb.games[g].points.values():
            if p.default and p.default.status in REVIEW_STATUSES:
                label = p.label or p.name
                value = esc(value_label(w, g, p.name, p.default.value))
                items.append(Item(p.default.status, g, "point", ctx.a(w.point_href(g, p.name), label)
                                  + f'<span class="rd-review-what">既定値「{value}」</span>'))
    for sid, a in w.answers.items():
        if a is not None and not isinstance(a, Failure) and a.status in REVIEW_STATUSES:
            items.append(Item(a.status, kb.scenarios[sid].game, "answer", ctx.scenario(sid)))
    order = {g: i for i, g in enumerate(w.games)}
    kinds = list(KIND_JA)
    items.sort(key=lambda x: (REVIEW_STATUSES.index(x.status), order.get(x.game, len(order)), kinds.index(x.kind)))
    return items


def _card(w: Wiki, item: Item, with_status: bool = False) -> str:
    status = badge(item.status) + " " if with_status else ""
    return (f'<li class="rd-review-item" data-game="{esc(item.game)}" data-status="{item.status.value}">'
            f'<span class="rd-review-kind">{status}{KIND_JA[item.kind]}</span>{item.html}</li>')


def _summary(ctx: Ctx, items: list[Item], here: Optional[tuple[str, Status]] = None) -> None:
    """Per game, its count for each status, each a link to the page of that game and status."""
    w, doc = ctx.w, ctx.doc
    counts: dict[tuple[str, Status], int] = defaultdict(int)
    for x in items:
        counts[(x.game, x.status)] += 1
    rows = []
    for g in w.games:
        links = []
        for st in REVIEW_STATUSES:
            n = counts[(g, st)]
            text = f"{STATUS_JA[st]} {n}件"
            if (g, st) == here:
                links.append(f'<strong aria-current="page">{esc(text)}</strong>')
            elif n:
                links.append(ctx.a(w.url(w.review_src(g, st)), text))
            else:
                links.append(f'<span class="rd-muted">{esc(text)}</span>')
        rows.append(f'<li><span class="rd-review-game">{esc(w.kb.games[g].decl.name)}</span>'
                    + " ・ ".join(links) + "</li>")
    doc.add('<ul class="rd-review-summary">' + "".join(rows) + "</ul>\n")


def review_page(w: Wiki, doc: Doc) -> None:
    ctx = Ctx(w, doc)
    items = review_items(w, ctx)
    doc.p("確定していない項目の一覧です。暫定裁定は資料が「暫定裁定」とするもの、※暫定ルール・非公式は"
          "資料自身がそう書いているもの、※未確定はこのwiki自身の解釈です。状態は今日時点のものです。")
    totals = {st: sum(1 for x in items if x.status is st) for st in REVIEW_STATUSES}
    doc.add('<ul class="rd-jump">' + "".join(
        f'<li><a href="#review-{st.value}">{badge(st)} {totals[st]}件</a></li>' for st in REVIEW_STATUSES) + "</ul>\n")
    doc.p("ゲームと状態ごとの一覧（件数のリンク）:", "rd-meta")
    _summary(ctx, items)
    # the page script puts its filter here (game, status) and filters the cards below in place
    games = [[g, w.kb.games[g].decl.name] for g in w.games]
    statuses = [[st.value, STATUS_JA[st]] for st in REVIEW_STATUSES]
    doc.add(f'<div class="rd-review-filter" data-rd-filter data-games="{esc(json.dumps(games, ensure_ascii=False))}" '
            f'data-statuses="{esc(json.dumps(statuses, ensure_ascii=False))}" hidden></div>\n')
    for st in REVIEW_STATUSES:
        mine = [x for x in items if x.status is st]
        doc.add(f'<section class="rd-review-status" data-status="{st.value}">\n')
        doc.h2(STATUS_JA[st], ident=f"review-{st.value}", extra_html=f' <small class="rd-count">{len(mine)}件</small>')
        doc.p(STATUS_HELP[st], "rd-muted")
        if not mine:
            doc.p("該当する項目はありません。")
        for g in w.games:
            group = [x for x in mine if x.game == g]
            if not group:
                continue
            cards = '<ul class="rd-review">' + "".join(_card(w, x) for x in group) + "</ul>"
            name = esc(w.kb.games[g].decl.name)
            own = ctx.a(w.url(w.review_src(g, st)), f"{w.kb.games[g].decl.name}の{STATUS_JA[st]}だけのページ")
            if len(group) > FOLD:
                doc.add(f'<details class="rd-review-group" data-game="{esc(g)}" data-status="{st.value}">'
                        f'<summary>{name}（{len(group)}件）</summary>{cards}<p class="rd-meta">{own}</p></details>\n')
            else:
                doc.add(f'<div class="rd-review-group" data-game="{esc(g)}" data-status="{st.value}">'
                        f'<p class="rd-review-head">{name}（{len(group)}件）</p>{cards}</div>\n')
        doc.add("</section>\n")


def review_part(w: Wiki, doc: Doc, game: str, status: str) -> None:
    """The review list of one game and one status: the filter without script."""
    ctx = Ctx(w, doc)
    st = Status(status)
    items = review_items(w, ctx)
    doc.p_html(ctx.a(w.url("review.md"), "要確認一覧") + f" ＞ {esc(w.kb.games[game].decl.name)} ＞ "
               + esc(STATUS_JA[st]), "rd-meta")
    doc.p(STATUS_HELP[st], "rd-muted")
    _summary(ctx, items, here=(game, st))
    mine = [x for x in items if x.game == game and x.status is st]
    if not mine:
        doc.p("該当する項目はありません。")
        return
    for kind, label in KIND_JA.items():
        group = [x for x in mine if x.kind == kind]
        if group:
            doc.h2(f"{label}", extra_html=f' <small class="rd-count">{len(group)}件</small>')
            doc.add('<ul class="rd-review">' + "".join(_card(w, x) for x in group) + "</ul>\n")
