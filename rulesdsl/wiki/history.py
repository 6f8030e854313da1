"""What changed when, and what is not settled: the latest ruling changes (home and game pages),
and the changelog by year, month and game (the review list of what is not settled is in
review.py)."""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from typing import Optional

from ..kb.timeline import sort_key
from ..lang.model import Revision, Ruling, Status
from .changes import change_block
from .common import Ctx
from .escape import esc
from .render import Doc, badge
from .site import Wiki

RECENT = 12


def latest_changes(w: Wiki, game: Optional[str] = None) -> list[tuple[_dt.date, Ruling, Revision, str]]:
    """Every dated ruling revision, newest first: (start day, ruling, revision, kind). Kept on
    the wiki: the home page, every game page and every year of the changelog ask for it."""
    memo = w.__dict__.setdefault("_latest_changes", {})
    if game not in memo:
        memo[game] = _latest_changes(w, game)
    return memo[game]


def _latest_changes(w: Wiki, game: Optional[str]) -> list[tuple[_dt.date, Ruling, Revision, str]]:
    out = []
    for r in w.kb.rulings.values():
        if game and r.game != game:
            continue
        revs = sorted(r.revisions, key=sort_key)
        for i, rev in enumerate(revs):
            if rev.date is None:
                continue
            kind = "撤回" if rev.status is Status.retracted else ("新規" if i == 0 else "改訂")
            out.append((rev.date.start(), r, rev, kind))
    out.sort(key=lambda x: (x[0], x[1].id), reverse=True)
    return out


def change_rows(ctx: Ctx, changes, with_game: bool = True) -> list[list[str]]:
    rows = []
    for day, r, rev, kind in changes:
        extra = ""
        if rev.supersedes:
            extra = "（" + "、".join(ctx.ruling(s.target) for s in rev.supersedes) + "を置き換え）"
        changed = ctx.w.changed_answers.get(f"{r.id}@{rev.date_label}", [])
        row = [esc(rev.date_ja), badge(rev.status), ctx.ruling(r.id, rev.date_label) + extra, esc(kind),
               esc(f"{len(changed)}件") if changed else "—"]
        if with_game:
            row.append(ctx.game(r.game))
        rows.append(row)
    return rows


CHANGE_HEAD = ["日付", "状態", "裁定", "種別", "変わった答え"]


def status_counts(w: Wiki) -> dict[str, Counter]:
    out: dict[str, Counter] = {g: Counter() for g in w.games}
    for r in w.kb.rulings.values():
        rev, state = w.current(r)
        if rev is not None:
            out[r.game][rev.status] += 1
            if state == "superseded":
                out[r.game]["superseded"] += 1
    return out


def _month_key(rev: Revision) -> tuple[tuple, str]:
    d = rev.date
    if d.season:
        return (d.year, d.start().month, 1), d.ja()
    if d.month:
        return (d.year, d.month, 0), f"{d.year}年{d.month}月"
    return (d.year, 0, 0), f"{d.year}年（月の記載なし）"


def changelog_index(w: Wiki, doc: Doc) -> None:
    ctx = Ctx(w, doc)
    changes = latest_changes(w)
    doc.p("裁定の改訂を日付順（新しい順）に並べています。日付が月や季節までしか分からない改訂は、"
          "その期間の初日から有効として扱います。")
    doc.h2("最近の変更")
    if changes:
        doc.table(CHANGE_HEAD + ["ゲーム"], change_rows(ctx, changes[:RECENT * 2]))
    else:
        doc.p("日付のある裁定はまだありません。")
    doc.h2("年ごとの変更")
    per_year = Counter(rev.date.year for _, _, rev, _ in changes)
    doc.ul(ctx.a(w.url(f"changelog/{y}.md"), f"{y}年") + f"（{per_year[y]}件）" for y in w.changelog_years())
    undated = [(r, rev) for r in w.kb.rulings.values() for rev in r.revisions if rev.date is None]
    doc.h2("日付のない裁定")
    if undated:
        doc.p(f"資料が日付を書いていない改訂が{len(undated)}件あります。はじめから有効として扱います。")
        doc.table(["状態", "裁定", "ゲーム"], [[badge(rev.status), ctx.ruling(r.id, "undated"), ctx.game(r.game)]
                                             for r, rev in sorted(undated, key=lambda x: x[0].id)])
    else:
        doc.p("日付のない改訂はありません。")


def changelog_year(w: Wiki, doc: Doc, year: int) -> None:
    ctx = Ctx(w, doc)
    months: dict[tuple, tuple[str, list]] = {}
    for change in latest_changes(w):
        rev = change[2]
        if rev.date.year != year:
            continue
        key, label = _month_key(rev)
        months.setdefault(key, (label, []))[1].append(change)
    doc.p_html(ctx.a(w.url("changelog/index.md"), "変更履歴") + f" ＞ {year}年", "rd-meta")
    for key in sorted(months, reverse=True):
        label, changes = months[key]
        doc.h2(label, extra_html=f' <small class="rd-count">{len(changes)}件</small>')
        by_game: dict[str, list] = {}
        for change in changes:
            by_game.setdefault(change[1].game, []).append(change)
        for game in sorted(by_game, key=lambda g: w.games.index(g) if g in w.games else len(w.games)):
            name = w.kb.games[game].decl.name if game in w.kb.games else game
            doc.h3(f"{label}：{name}", extra_html=f' <small class="rd-count">{len(by_game[game])}件</small>')
            for _, r, rev, kind in by_game[game]:
                change_block(ctx, r, rev, kind)
