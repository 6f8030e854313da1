"""What changed when, and what is not settled: the latest ruling changes (home and game pages),
the changelog by year and month, and the review list of provisional, unofficial and unconfirmed
rulings, rule points and answers."""

from __future__ import annotations

import datetime as _dt
from collections import Counter, defaultdict
from typing import Optional

from ..kb.timeline import sort_key
from ..lang.model import Revision, Ruling, Status
from .changes import change_block
from .common import Ctx, value_label
from .escape import esc
from .render import STATUS_HELP, STATUS_JA, Doc, badge
from .site import Failure, Wiki

REVIEW_STATUSES = (Status.provisional, Status.unofficial, Status.unconfirmed)


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
        for _, r, rev, kind in changes:
            change_block(ctx, r, rev, kind)


def review_page(w: Wiki, doc: Doc) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    doc.p("確定していない項目の一覧です。暫定裁定は資料が「暫定裁定」とするもの、※暫定ルール・非公式は"
          "資料自身がそう書いているもの、※未確定はこのwiki自身の解釈です。状態は今日時点のものです。")
    rulings = defaultdict(list)
    for r in kb.rulings.values():
        rev, state = w.current(r)
        if rev is not None and state in ("in_force", "future") and rev.status in REVIEW_STATUSES:
            rulings[rev.status].append((r, rev))
    defaults = defaultdict(list)
    for g in w.games:
        for p in kb.games[g].points.values():
            if p.default and p.default.status in REVIEW_STATUSES:
                defaults[p.default.status].append((g, p))
    answers = defaultdict(list)
    for sid, a in w.answers.items():
        if a is not None and not isinstance(a, Failure) and a.status in REVIEW_STATUSES:
            answers[a.status].append(sid)
    totals = {st: len(rulings[st]) + len(defaults[st]) + len(answers[st]) for st in REVIEW_STATUSES}
    doc.add('<ul class="rd-jump">' + "".join(
        f'<li><a href="#review-{st.value}">{badge(st)} {totals[st]}件</a></li>' for st in REVIEW_STATUSES) + "</ul>\n")
    for st in REVIEW_STATUSES:
        total = totals[st]
        doc.h2(STATUS_JA[st], ident=f"review-{st.value}", extra_html=f' <small class="rd-count">{total}件</small>')
        doc.p(STATUS_HELP[st], "rd-muted")
        if rulings[st]:
            doc.h3(f"{STATUS_JA[st]}の裁定")
            doc.table(["状態", "裁定", "日付", "ゲーム"],
                      [[badge(st), ctx.ruling(r.id, rev.date_label), esc(rev.date_ja), ctx.game(r.game)]
                       for r, rev in rulings[st]])
        if defaults[st]:
            doc.h3(f"既定値が{STATUS_JA[st]}のルールポイント")
            doc.table(["状態", "ルールポイント", "既定値", "ゲーム"],
                      [[badge(st), ctx.point(g, p.name), esc(value_label(w, g, p.name, p.default.value)), ctx.game(g)]
                       for g, p in defaults[st]])
        if answers[st]:
            doc.h3(f"{STATUS_JA[st]}に依拠するQ&Aの答え")
            doc.table(["状態", "Q&A", "ゲーム"],
                      [[badge(st), ctx.scenario(sid), ctx.game(kb.scenarios[sid].game)] for sid in answers[st]])
        if not total:
            doc.p("該当する項目はありません。")
