"""Ruling pages: the index of a game's rulings, and one page per ruling with the revision in
force (banner, box, reason) and every revision in order."""

from __future__ import annotations

import datetime as _dt

from ..kb.timeline import sort_key
from ..lang.model import Revision, Ruling, Status
from .answers import pinned_answer
from .common import Ctx, rev_label, ruling_state, value_label
from .escape import esc, esc_lines
from .render import GAP_JA, STATUS_HELP, STATUS_JA, Doc, badge, code, tag
from .site import Wiki, revision_anchor

STATE_JA = {"in_force": "有効", "superseded": "置き換え済み", "retracted": "撤回", "future": "未発効"}


def rulings_index(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    rulings = [r for r in w.kb.rulings.values() if r.game == game]
    if not rulings:
        doc.p("このゲームの裁定はまだありません。")
        return
    doc.p(f"{len(rulings)}件。状態は今日時点のもの（有効な改訂、なければ最新の改訂）です。")
    rows = []
    for r in sorted(rulings, key=lambda r: r.id):
        rev, state, b = ruling_state(ctx, r)
        gap = " " + tag("資料の" + GAP_JA.get(r.gap, r.gap), "gap") if r.gap else ""
        latest = max((x for x in r.revisions if x.date), key=sort_key, default=None)
        rows.append([b, ctx.ruling(r.id) + gap, code(r.id), esc(latest.date.ja() if latest else "日付不明"),
                     esc(len(r.revisions))])
    doc.table(["状態", "裁定", "ID", "最新の日付", "改訂"], rows, "rd-index")


def ruling_page(w: Wiki, doc: Doc, rid: str) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    r = kb.rulings[rid]
    rev_now, state, b = ruling_state(ctx, r)
    if state in ("superseded", "retracted"):
        banner(ctx, r, rev_now, state)
    if rev_now is not None:
        in_force_box(ctx, r, rev_now, state)
    # the badge already carries the tag of a superseded or future ruling: its state word once
    now = b if state in ("superseded", "future") else b + " " + esc(STATE_JA[state])
    if rev_now is not None and state == "in_force":
        now += f"（{esc(rev_now.date_ja)}の改訂）"
    rows = [("ID", code(r.id)), ("ゲーム", ctx.game(r.game)), ("今日の状態", now)]
    if r.gap:
        rows.append(("資料の問題", tag(GAP_JA.get(r.gap, r.gap), "gap") + " " + code(r.gap) +
                     " " + ctx.a(w.url(f"{r.game}/gaps.md"), "資料の欠落・矛盾の一覧")))
    if r.refs:
        rows.append(("関連", "、".join(ctx.ref(r.game, x.target, rev_label(x)) for x in r.refs)))
    doc.dl(rows)
    for n in r.notes:
        doc.p(n, "rd-note")

    doc.h2("改訂履歴")
    for rev in sorted(r.revisions, key=sort_key):
        revision_block(ctx, r, rev, text_above=rev is rev_now)

    supersedes = [(rev, s) for rev in r.revisions for s in rev.supersedes]
    by = w.superseded_by.get(rid, [])
    doc.h2("置き換えの関係")
    if supersedes or by:
        items = []
        for rev, s in supersedes:
            which = f"（{rev_label(s)}の改訂）" if rev_label(s) else ""
            items.append(f"{esc(rev.date_ja)}の改訂が {ctx.ruling(s.target, rev_label(s))}{esc(which)} を置き換えた")
        for other, rev in by:
            items.append(f"{ctx.ruling(other, rev.date_label)}（{esc(rev.date_ja)}、{badge(rev.status)}）に置き換えられた")
        doc.ul(items)
    else:
        doc.p("この裁定は他の裁定を置き換えておらず、置き換えられてもいません。")

    settings = [(rev, s) for rev in sorted(r.revisions, key=sort_key) for s in rev.settings]
    doc.h2("設定するルールポイント")
    if settings:
        rows = []
        for rev, s in settings:
            target = ctx.point(r.game, s.point)
            if s.card:
                target += " ・ カード " + ctx.card(r.game, s.card)
            rows.append([target, esc(value_label(w, r.game, s.point, s.value)) + " " + code(s.value),
                         esc(rev.date_ja), badge(rev.status)])
        doc.table(["ルールポイント", "値", "改訂", "状態"], rows)
    else:
        doc.p("この裁定はルールポイントを設定しません（文章による裁定・記録）。")

    doc.h2("この裁定を確かめるQ&A")
    scenarios = w.scenarios_for.get((r.game, rid), [])
    if scenarios:
        for sid in scenarios:
            pinned_answer(ctx, sid)
    else:
        doc.p("この裁定を確かめるQ&Aはまだありません。")

    source = w.sources.block(r.loc)
    if source:
        doc.h2("DSLでの記述", search=False)
        doc.code(source)


def banner(ctx: Ctx, r: Ruling, rev: Revision, state: str) -> None:
    """The top of a superseded or retracted ruling: it has no force, and which ruling does."""
    by = ctx.w.superseded_by.get(r.id, [])
    links = "、".join(f"{ctx.ruling(other, later.date_label)}（{esc(later.date_ja)}、{badge(later.status)}）"
                     for other, later in by)
    if state == "superseded":
        text = "この裁定は置き換えられ、今は効力がありません。" + (f"今有効なのは {links} です。" if links else "")
    else:
        text = (f"この裁定は{esc(rev.date_ja)}に撤回され、今は効力がありません。" +
                (f"代わって有効なのは {links} です。" if links else "代わりの裁定は記録されていません。"))
    ctx.doc.add(f'<div class="rd-banner rd-banner-{state}" role="note">{badge(Status.retracted) if state == "retracted" else tag(STATE_JA[state], "superseded")} '
                f"{text}</div>\n")


def in_force_box(ctx: Ctx, r: Ruling, rev: Revision, state: str) -> None:
    """The ruling's text as it stands today (or as it last stood), with its status, date and source."""
    label = {"in_force": f"今日有効な裁定（{rev.date_ja}の改訂）", "superseded": f"最後の改訂（{rev.date_ja}・置き換え済み）",
             "retracted": f"撤回（{rev.date_ja}）", "future": f"まだ発効していない改訂（{rev.date_ja}から）"}[state]
    text = f'<p class="rd-ruling-now">{esc_lines(rev.text.value)}</p>' if rev.text and rev.text.value else ""
    src = f" ・ 出典: {ctx.cite(rev.source)}" if rev.source else ""
    ctx.doc.add(f'<div class="rd-in-force rd-in-force-{rev.status.value}"><span class="rd-label">{esc(label)}</span>{text}'
                f'<p class="rd-answer-meta">{badge(rev.status)} {esc(STATUS_HELP[rev.status])}{src}</p></div>\n')
    if rev.reason:
        reason_box(ctx, rev)


def reason_box(ctx: Ctx, rev: Revision) -> None:
    title = "この解釈の理由（※未確定）" if rev.status is Status.unconfirmed else "理由"
    ctx.doc.add(f'<div class="rd-reason rd-reason-{rev.status.value}"><p class="rd-reason-title">{esc(title)}</p>'
                f"<p>{esc_lines(rev.reason)}</p></div>\n")


def revision_block(ctx: Ctx, r: Ruling, rev: Revision, text_above: bool = False) -> None:
    w, doc = ctx.w, ctx.doc
    doc.h3(f"{rev.date_ja} — {STATUS_JA[rev.status]}", ident=revision_anchor(rev.date_label))
    rows = [("日付", esc(rev.date_ja) + " " + code(rev.date_label)), ("状態", badge(rev.status) + " " + esc(STATUS_HELP[rev.status]))]
    if rev.source:
        rows.append(("出典", ctx.cite(rev.source)))
    iv = w.interval(r.id, rev)
    if iv is not None:
        begin, end = iv
        b = "はじめから" if begin == _dt.date.min else f"{begin.isoformat()}から"
        e = "" if end == _dt.date.max else f"{end.isoformat()}の前日まで"
        rows.append(("有効期間", esc(b + e)))
    elif rev.status is not Status.retracted:
        rows.append(("有効期間", "なし（次の改訂や置き換えにより効力を持たない）"))
    if rev.settings:
        rows.append(("設定", "<br>".join(
            f"{ctx.point(r.game, s.point)}{' ・ カード ' + ctx.card(r.game, s.card) if s.card else ''} = "
            f"{esc(value_label(w, r.game, s.point, s.value))}" for s in rev.settings)))
    if rev.supersedes:
        rows.append(("置き換える", "、".join(ctx.ruling(s.target, rev_label(s)) for s in rev.supersedes)))
    if rev.refs:
        rows.append(("関連", "、".join(ctx.ref(r.game, x.target, rev_label(x)) for x in rev.refs)))
    doc.dl(rows, "rd-facts rd-revision")
    if text_above:
        doc.p("本文と理由はページの先頭に掲載しています。", "rd-muted")
    elif rev.text and rev.text.value:
        doc.add(f'<div class="rd-ruling-body"><p>{esc_lines(rev.text.value)}</p></div>\n')
    for q in rev.quotes:
        doc.add(f'<blockquote class="rd-quote"><p>{esc_lines(q.text)}</p><footer>資料の引用</footer></blockquote>\n')
    if rev.reason and not text_above:
        reason_box(ctx, rev)
    for n in rev.notes:
        doc.p(n, "rd-note")
