"""The wiki's pages, one renderer per page type. Each returns a `Doc` (HTML, headings, table of
contents, search sections). The interface is Japanese; ids and DSL stay as written.

Page types: home (added to the hand-written home text), per game: overview, rules index, rules
chapter (sections with the rulings that refine them), card index, card, ruling index, ruling,
Q&A index, Q&A scenario, rule points, gaps, glossary; and across games: changelog (by year and
month), review list (※未確定・暫定・非公式).
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter, defaultdict
from typing import Iterable, Optional

from ..engine.registry import engine_for
from ..lang.model import Revision, Ruling, Section, Status
from ..kb.timeline import sort_key
from ..lang.vocab import UNKNOWN
from .answers import pinned_answer, qa_index, scenario_page
from .changes import change_block
from .terms import define, first_use, overview
from .common import (STATUS_ORDER, linked_text, short_title, Ctx, answer_summary, card_words, fact_html, known_facts, rev_label,
                     ruling_state, value_label)
from .escape import esc, esc_lines
from .render import GAP_JA, STATUS_HELP, STATUS_JA, UNKNOWN_TAG, Doc, badge, code, tag
from .site import Failure, Page, Wiki, line_anchor, point_anchor, revision_anchor

REVIEW_STATUSES = (Status.provisional, Status.unofficial, Status.unconfirmed)
STATE_JA = {"in_force": "有効", "superseded": "置き換え済み", "retracted": "撤回", "future": "未発効"}
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


# ----------------------------------------------------------------------------- home

def home(w: Wiki, doc: Doc) -> None:
    """The generated part of the home page (after the hand-written text)."""
    ctx = Ctx(w, doc)
    kb = w.kb
    doc.h2("ゲーム")
    rows = []
    for g in w.games:
        n_cards = sum(1 for (x, _) in kb.cards if x == g)
        n_sec = sum(1 for s in kb.sections.values() if s.game == g)
        n_rul = sum(1 for r in kb.rulings.values() if r.game == g)
        n_sc = sum(1 for s in kb.scenarios.values() if s.game == g)
        engine = "あり（答えを計算）" if engine_for(g) else "なし（場面はデータのみ）"
        rows.append([ctx.game(g), ctx.a(w.url(f"{g}/rules/index.md"), f"{n_sec}節"),
                     ctx.a(w.url(f"{g}/cards/index.md"), f"{n_cards}枚"),
                     ctx.a(w.url(f"{g}/rulings/index.md"), f"{n_rul}件"),
                     ctx.a(w.url(f"{g}/qa/index.md"), f"{n_sc}問"), esc(engine)])
    doc.table(["ゲーム", "ルール", "カード", "裁定", "Q&A", "インタプリタ"], rows)

    doc.h2("最近の裁定の変更")
    changes = latest_changes(w)[:RECENT]
    if changes:
        doc.table(CHANGE_HEAD + ["ゲーム"], change_rows(ctx, changes))
    else:
        doc.p("日付のある裁定はまだありません。")
    doc.p_html("すべての変更は" + ctx.a(w.url("changelog/index.md"), "変更履歴") + "へ。")

    doc.h2("状態別の件数")
    doc.p(f"各裁定の{w.today.year}年{w.today.month}月{w.today.day}日時点の状態（有効な改訂、なければ最新の改訂）で数えています。")
    counts = status_counts(w)
    head = ["状態"] + [kb.games[g].decl.name for g in w.games] + ["計"]
    rows = []
    for st in STATUS_ORDER:
        vals = [counts[g][st] for g in w.games]
        rows.append([badge(st)] + [esc(v) for v in vals] + [esc(sum(vals))])
    sup = [counts[g]["superseded"] for g in w.games]
    rows.append([tag("うち置き換え済み", "superseded")] + [esc(v) for v in sup] + [esc(sum(sup))])
    doc.table(head, rows)
    answered = Counter(a.status for a in w.answers.values() if a is not None and not isinstance(a, Failure))
    if answered:
        doc.p_html("計算されたQ&Aの答えが依拠する最も弱い根拠: " + "、".join(
            f"{badge(st)} {answered[st]}問" for st in STATUS_ORDER if answered[st]))
    doc.p_html("※未確定・暫定・非公式の項目は" + ctx.a(w.url("review.md"), "要確認一覧") + "にまとめています。")


# ----------------------------------------------------------------------------- game pages

def game_page(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    info = kb.games[game]
    decl = info.decl
    lo, hi = info.players
    players = f"{lo}人" if lo == hi else f"{lo}〜{hi}人"
    doc.p(f"{decl.name}は、{players}で遊ぶカードゲームです。", "rd-lead")
    ov = overview(info.documents)
    if ov:
        label = "勝利条件（資料より）" if ov.heading and "勝利" in ov.heading else "資料より"
        doc.add(f'<blockquote class="rd-quote rd-quote-def"><p><span class="rd-label">{esc(label)}</span>'
                f"{linked_text(ctx, game, ov.text)}</p><footer>{source_line(ctx, game, ov)}</footer></blockquote>\n")
    titles = "、".join(short_title(d.title) for d in info.documents.values())
    doc.p(f"このwikiは{titles or '資料'}をもとに、ルール{sum(1 for s in kb.sections.values() if s.game == game)}節・"
          f"カード{sum(1 for (x, _) in kb.cards if x == game)}枚・裁定{sum(1 for r in kb.rulings.values() if r.game == game)}件・"
          f"Q&A{sum(1 for s in kb.scenarios.values() if s.game == game)}問を収録しています。")
    rows = [("ID", code(game))]
    if decl.text and decl.text.value:
        rows.append(("資料の説明", esc(decl.text.value)))
    for name, d in info.documents.items():
        rows.append(("資料", ctx.a(w.url(w.source_src(game, name)), d.title) + f" {code(name)}"))
    if decl.source:
        rows.append(("出典", ctx.cite(decl.source)))
    rows.append(("人数", esc(players)))
    if info.modes:
        rows.append(("モード", "、".join(esc(label or name) for name, label in info.modes.items())))
    if info.zones:
        rows.append(("ゾーン", "、".join(esc(label or name) for name, label in info.zones.items())))
    rows.append(("インタプリタ", "あり：Q&Aの答えはビルド時に計算しています" if engine_for(game)
                 else "なし：このゲームのQ&Aは場面のデータだけを載せ、答えは計算していません"))
    doc.dl(rows)
    for n in decl.notes:
        doc.p(n, "rd-note")

    doc.h2("このゲームのページ")
    n_cards = sum(1 for (x, _) in kb.cards if x == game)
    doc.ul([
        ctx.a(w.url(f"{game}/rules/index.md"), "ルール") + f"（{len(w.chapters.get(game, {}))}章）",
        ctx.a(w.url(f"{game}/cards/index.md"), "カード一覧") + f"（{n_cards}枚）",
        ctx.a(w.url(f"{game}/rulings/index.md"), "裁定一覧") + f"（{sum(1 for r in kb.rulings.values() if r.game == game)}件）",
        ctx.a(w.url(f"{game}/qa/index.md"), "Q&A一覧") + f"（{sum(1 for s in kb.scenarios.values() if s.game == game)}問）",
        ctx.a(w.url(f"{game}/points.md"), "ルールポイント") + f"（{len(info.points)}）",
        ctx.a(w.url(f"{game}/gaps.md"), "資料の欠落・矛盾"),
        ctx.a(w.url(f"{game}/glossary.md"), "用語集"),
    ])
    doc.h2("状態別の裁定")
    counts = status_counts(w)[game]
    doc.ul([f"{badge(st)} {counts[st]}件" for st in STATUS_ORDER if counts[st]] or ["裁定はありません"])
    doc.h2("最近の変更")
    changes = latest_changes(w, game)[:RECENT]
    if changes:
        doc.table(CHANGE_HEAD, change_rows(ctx, changes, with_game=False))
    else:
        doc.p("日付のある裁定はまだありません。")


def rules_index(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    chapters = w.chapters.get(game, {})
    if not chapters:
        doc.p("ルールの節はまだありません。")
        return
    doc.p(f"資料の本文を{sum(len(s) for s in chapters.values())}の節に分けて収録しています。"
          "各節には出典を示し、その節を補う裁定を状態つきで並べています。")
    for chapter, sections in chapters.items():
        doc.h2(w.chapter_title[(game, chapter)])
        doc.ul(ctx.section(s.id) for s in sections)


def chapter_page(w: Wiki, doc: Doc, game: str, chapter: str) -> None:
    ctx = Ctx(w, doc)
    chapters = list(w.chapters[game])
    i = chapters.index(chapter)
    doc.p_html(ctx.a(w.url(f"{game}/rules/index.md"), f"{w.kb.games[game].decl.name}のルール") +
               f" ＞ 第{i + 1}章（全{len(chapters)}章）", "rd-meta")
    for s in w.chapters[game][chapter]:
        section_block(ctx, s)
    links = []
    if i > 0:
        prev = chapters[i - 1]
        links.append("← 前の章: " + ctx.a(w.url(w.chapter_src(game, prev)), w.chapter_title[(game, prev)]))
    if i + 1 < len(chapters):
        nxt = chapters[i + 1]
        links.append("次の章: " + ctx.a(w.url(w.chapter_src(game, nxt)), w.chapter_title[(game, nxt)]) + " →")
    if links:
        doc.add('<nav class="rd-chapter-nav">' + " ・ ".join(f"<span>{x}</span>" for x in links) + "</nav>\n")


def section_block(ctx: Ctx, s: Section) -> None:
    w, doc = ctx.w, ctx.doc
    doc.h2(s.title, ident=w.section_anchor[s.id])
    meta = [code(s.id)]
    if s.source:
        meta.append("出典: " + ctx.cite(s.source))
    doc.p_html(" ・ ".join(meta), "rd-meta")
    if s.text and s.text.value:
        doc.add(f'<blockquote class="rd-rule-text"><p>{linked_text(ctx, s.game, s.text.value)}</p></blockquote>\n')
    elif s.text is not None:
        doc.p_html(UNKNOWN_TAG + " 本文は資料にありません。")
    for n in s.notes:
        doc.p(n, "rd-note")
    for rev in sorted(s.revisions, key=sort_key):
        body = esc_lines(rev.text.value) if rev.text and rev.text.value else ""
        src = f"（出典: {ctx.cite(rev.source)}）" if rev.source else ""
        doc.p_html(f"{badge(rev.status)} <strong>{esc(rev.date_ja)}の改訂</strong>{src} {body}", "rd-section-rev")
    points = w.section_points.get(s.id, [])
    if points:
        items = []
        for name in points:
            v = w.point_today(s.game, name)
            items.append(f"{ctx.point(s.game, name)} → {esc(value_label(w, s.game, name, v.value))} {badge(v.status)}")
        doc.p_html("この節が既定値を与えるルールポイント:", "rd-sub")
        doc.ul(items, "rd-points")
    refs = [x for x in (str(r.target) for r in s.refs)]
    if refs:
        doc.p_html("関連: " + "、".join(ctx.ref(s.game, t) for t in refs), "rd-meta")
    rulings = dict.fromkeys(w.rulings_for.get((s.game, s.id), []))
    for name in points:
        rulings.update(dict.fromkeys(w.rulings_for_point.get((s.game, name), [])))
    if rulings:
        items = []
        for rid in rulings:
            r = w.kb.rulings[rid]
            rev, state, b = ruling_state(ctx, r)
            text = f'<div class="rd-ruling-text">{esc_lines(rev.text.value)}</div>' if rev and rev.text and rev.text.value else ""
            when = f'<span class="rd-date">{esc(rev.date_ja)}</span> ' if rev else ""
            items.append(f'{b} {when}{ctx.ruling(rid, rev.date_label if rev else None)}{text}')
        doc.add('<div class="rd-refines"><p class="rd-sub">この節を補う裁定</p>'
                '<ul class="rd-ruling-list">' + "".join(f"<li>{i}</li>" for i in items) + "</ul></div>\n")


# ----------------------------------------------------------------------------- cards

def cards_index(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    cards = [c for (g, _), c in w.kb.cards.items() if g == game]
    if not cards:
        doc.p("このゲームのカードはまだ収録されていません。")
        return
    doc.p(f"{len(cards)}枚。資料に書かれていない項目は「未収録」としています。")
    rows = []
    for c in cards:
        known, unknown = known_facts(w, game, c.facts)
        facts = "、".join(known) or "—"
        if unknown:
            facts += f' <span class="rd-muted">（未収録 {unknown}項目）</span>'
        n_r = len(w.rulings_for.get((game, c.code), []))
        n_q = len(w.scenarios_for_card.get((game, c.code), []))
        rows.append([ctx.a(w.card_href(game, c.code), c.code), ctx.a(w.card_href(game, c.code), c.card.name or c.code),
                     facts, esc(len(c.effects)), esc(n_r), esc(n_q)])
    doc.table(["コード", "名前", "判明している事実", "効果", "裁定", "Q&A"], rows, "rd-index")


def card_page(w: Wiki, doc: Doc, game: str, code_: str) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    c = kb.card(game, code_)
    vocab = kb.games[game].vocab
    shown = c.at(w.today)
    rows = [("ゲーム", ctx.game(game)), ("コード", code(c.code)), ("名前", esc(c.card.name or c.code))]
    if c.card.source:
        rows.append(("出典", ctx.cite(c.card.source)))
    if c.card.text is not None:
        rows.append(("テキスト", esc_lines(c.card.text.value) if c.card.text.value is not None else UNKNOWN_TAG))
    for name, entry in vocab.entries["fact"].items():
        rows.append((entry.label or name, fact_html(vocab, name, shown.facts.get(name, UNKNOWN))))
    doc.dl(rows)
    for n in c.card.notes:
        doc.p(n, "rd-note")
    if c.card.refs:
        doc.p_html("関連: " + "、".join(ctx.ref(game, str(r.target)) for r in c.card.refs), "rd-meta")

    per_card = [p for p in kb.games[game].points.values() if p.per == "card"]
    if per_card:
        doc.h2("このカードのルールポイント")
        prow = []
        for p in per_card:
            v = w.point_today(game, p.name, c.code)
            origin = ctx.ruling(v.ruling, v.revision) if v.ruling else (ctx.section(v.section) if v.section else "—")
            prow.append([ctx.point(game, p.name), esc(value_label(w, game, p.name, v.value)), badge(v.status), origin])
        doc.table(["ルールポイント", "値（今日）", "状態", "根拠"], prow)

    doc.h2("効果")
    if shown.effects:
        doc.ul((esc(card_words(vocab, e)) for e in shown.effects), "rd-effects")
    else:
        doc.p("DSLで書かれた効果はありません。")
    source = w.sources.block(c.card.loc)
    if source:
        doc.p_html("DSLでの記述:", "rd-sub")
        doc.code(source)

    if c.errata:
        doc.h2("エラッタ")
        for e, _, _ in c.errata:
            when = e.date.ja() if e.date else "日付不明"
            src = f"（出典: {ctx.cite(e.source)}）" if e.source else ""
            body = esc_lines(e.text.value) if e.text and e.text.value else ""
            doc.p_html(f"{badge(e.status)} <strong>{esc(when)}</strong>{src} {body}")

    doc.h2("裁定の年表")
    rulings = w.rulings_for.get((game, c.code), [])
    if rulings:
        timeline(ctx, rulings)
    else:
        doc.p("このカードについての裁定はまだありません。")

    doc.h2("Q&A")
    scenarios = w.scenarios_for_card.get((game, c.code), [])
    if scenarios:
        doc.ul(f"{answer_summary(ctx, sid)} {ctx.scenario(sid)}" for sid in scenarios)
    else:
        doc.p("このカードを使うQ&Aはまだありません。")


def timeline(ctx: Ctx, rulings: Iterable[str]) -> None:
    entries = []
    for rid in rulings:
        r = ctx.w.kb.rulings[rid]
        for rev in r.revisions:
            entries.append((sort_key(rev), rid, rev))
    entries.sort(key=lambda e: (e[0], e[1]))
    items = []
    for _, rid, rev in entries:
        text = f'<div class="rd-ruling-text">{esc_lines(rev.text.value)}</div>' if rev.text and rev.text.value else ""
        items.append(f'<li><span class="rd-date">{esc(rev.date_ja)}</span> {badge(rev.status)} '
                     f'{ctx.ruling(rid, rev.date_label)}{text}</li>')
    ctx.doc.add('<ol class="rd-timeline">' + "".join(items) + "</ol>\n")


# ----------------------------------------------------------------------------- rulings

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
    now = b + " " + esc(STATE_JA[state])
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


# ----------------------------------------------------------------------------- points, gaps, terms

def points_page(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    info = w.kb.games[game]
    if not info.points:
        doc.p("このゲームはルールポイントを宣言していません。")
        return
    doc.p("ルールポイントは、裁定が値を決める判断の分かれ目です。既定値はルールの節から、"
          "それを変える値は裁定の改訂から、日付に応じて決まります。")
    for p in info.points.values():
        doc.h2(p.label or p.name, ident=point_anchor(p.name))
        rows = [("名前", code(p.name))]
        if p.values:
            rows.append(("値", "<br>".join(f"{code(v.name)} {esc(v.label or '')}" for v in p.values)))
        if p.default:
            rows.append(("既定値", f"{esc(value_label(w, game, p.name, p.default.value))} {badge(p.default.status)}"
                         f"（{ctx.section(p.default.section)}）"))
        if p.per == "card":
            rows.append(("範囲", "カードごとに設定できる"))
        v = w.point_today(game, p.name)
        origin = ctx.ruling(v.ruling, v.revision) if v.ruling else (ctx.section(v.section) if v.section else "—")
        rows.append(("今日の値", f"{esc(value_label(w, game, p.name, v.value))} {badge(v.status)}（{origin}）"))
        if p.reason:
            rows.append(("既定値の理由", esc_lines(p.reason)))
        doc.dl(rows)
        for n in p.notes:
            doc.p(n, "rd-note")
        sets = w.kb.settings_index.get((game, p.name), [])
        if sets:
            srows = []
            for rid, rev, s in sorted(sets, key=lambda x: (sort_key(x[1]), x[0])):
                srows.append([esc(rev.date_ja), badge(rev.status), ctx.ruling(rid, rev.date_label),
                              esc(value_label(w, game, p.name, s.value)),
                              ctx.card(game, s.card) if s.card else "全体"])
            doc.table(["日付", "状態", "裁定", "値", "対象"], srows)


def gaps_page(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    gaps = [r for r in w.kb.rulings.values() if r.game == game and r.gap]
    docs = w.kb.games[game].documents
    doc.p("資料（" + "、".join(docs) + "）に見つかった欠落・矛盾・曖昧さ・誤記・重複と、"
          "それをこのwikiがどう読んだか（多くは※未確定）の記録です。" if docs else
          "資料に見つかった欠落・矛盾などの記録です。")
    if not gaps:
        doc.p("記録された問題はありません。")
        return
    by_kind: dict[str, list[Ruling]] = defaultdict(list)
    for r in gaps:
        by_kind[r.gap].append(r)
    for kind in list(GAP_JA) + sorted(k for k in by_kind if k not in GAP_JA):
        items = by_kind.get(kind)
        if not items:
            continue
        doc.h2(f"{GAP_JA.get(kind, kind)}（{kind}）")
        rows = []
        for r in items:
            rev, state, b = ruling_state(ctx, r)
            quotes = "".join(f"<p>「{esc_lines(q.text)}」</p>" for x in r.revisions for q in x.quotes)
            text = esc_lines(rev.text.value) if rev and rev.text and rev.text.value else ""
            src = ctx.cite(rev.source) if rev and rev.source else ""
            rows.append([b, ctx.ruling(r.id), quotes or "—", text, src])
        doc.table(["状態", "項目", "資料の記述", "このwikiの読み", "出典"], rows)


def glossary_page(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    info = w.kb.games[game]
    vocab = info.vocab
    doc.p("資料の用語と、その定義を資料から引用したものです。資料が定義していない用語は「資料に定義なし」とし、"
          "資料での最初の用例を添えています。DSL・コードでの名前も示します。")
    if not info.terms:
        doc.p("このゲームは用語を宣言していません。")
    for ja, name, note in info.terms:
        doc.h2(ja)
        found = define(ja, info.documents)
        if found:
            doc.add(f'<blockquote class="rd-quote rd-quote-def"><p>{linked_text(ctx, game, found.text)}</p>'
                    f"<footer>{source_line(ctx, game, found)}</footer></blockquote>\n")
        else:
            use = first_use(ja, info.documents)
            usage = (f' 資料での最初の用例: 「{linked_text(ctx, game, use.text)}」（{source_line(ctx, game, use)}）'
                     if use else "")
            doc.p_html(f'<span class="rd-def-missing">資料に定義なし。</span>{usage}')
        rows = [("DSLでの名前", code(name))]
        if note:
            rows.append(("注記（知識ベース）", esc(note)))
        doc.dl(rows)
    kinds = (("fact", "カードの項目"), ("trigger", "効果の発動条件"), ("modifier", "効果の修飾"),
             ("verb", "効果の動作"), ("setup", "場面の設定"), ("action", "場面の操作"), ("expect", "期待する結果"))
    doc.h2("DSLの語彙", search=False)
    for kind, title in kinds:
        entries = vocab.entries.get(kind, {})
        if entries:
            doc.h3(title)
            doc.table(["DSLでの名前", "日本語"], [[code(e.name), esc(e.label or "")] for e in entries.values()])
    if vocab.enums:
        doc.h3("値の種類")
        doc.table(["種類", "値"], [[f"{code(e.name)} {esc(e.label or '')}",
                                   "、".join(f"{code(k)} {esc(v or '')}" for k, v in e.values.items())]
                                  for e in vocab.enums.values()])


def source_line(ctx: Ctx, game: str, d) -> str:
    """A link to a line of a source document's page, named by the document's short title."""
    found = ctx.w.source_doc(d.document)
    title = short_title(found[1].title) if found else d.document
    label = f"{title} §{d.heading}" if d.heading else f"{title} {d.line}行目"
    return ctx.a(ctx.w.url(ctx.w.source_src(game, d.document)) + f"#{line_anchor(d.line)}", label, "rd-cite")


def source_page(w: Wiki, doc: Doc, game: str, name: str) -> None:
    """A source document as the knowledge base has it: every line, the lines it cites as headings
    made headings (with the anchors citations link to)."""
    ctx = Ctx(w, doc)
    _, d = w.source_doc(name)
    doc.p_html(f"{ctx.game(game)}の資料の本文です（ファイル {code(name)}）。このwikiのルール・裁定・カードは"
               "この本文を出典として引用しています。見出しは、知識ベースが出典として引用している行です。", "rd-meta")
    facts = [("題名", esc(d.title)), ("資料の種類", esc(d.authority))]
    if d.quote:
        facts.append(("資料自身の言葉", "「" + esc(d.quote) + "」"))
    if d.dated:
        facts.append(("時期", esc(d.dated)))
    doc.dl(facts)
    cited = w.cited_lines(name)
    for n, line in enumerate(d.text.splitlines(), 1):
        if not line.strip():
            continue
        if n in cited:
            doc.heading(2, line.strip(), ident=line_anchor(n))
        else:
            doc.add(f'<p id="{line_anchor(n)}" class="rd-src-line">{esc(line)}</p>\n')


# ----------------------------------------------------------------------------- changelog, review

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
    doc.p("確定していない項目の一覧です。暫定は公式の暫定裁定、非公式はコミュニティの取り決め、"
          "※未確定はこのwiki自身の解釈です。状態は今日時点のものです。")
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


# ----------------------------------------------------------------------------- dispatch

_RENDERERS = {
    "game": game_page, "rules": rules_index, "cards": cards_index, "rulings": rulings_index,
    "ruling": ruling_page, "qa": qa_index, "scenario": scenario_page, "points": points_page,
    "gaps": gaps_page, "glossary": glossary_page, "changelog_year": changelog_year,
}
_SPREAD = {"chapter": chapter_page, "card": card_page, "source": source_page}      # the key is a tuple of arguments
_PLAIN = {"changelog": changelog_index, "review": review_page}   # no key


def render(w: Wiki, page: Page, root: str) -> Doc:
    doc = Doc(page.title, root)
    k = page.kind
    if k in _RENDERERS:
        _RENDERERS[k](w, doc, page.key)
    elif k in _SPREAD:
        _SPREAD[k](w, doc, *page.key)
    elif k in _PLAIN:
        _PLAIN[k](w, doc)
    else:  # pragma: no cover
        raise ValueError(f"unknown page kind {k}")
    return doc
