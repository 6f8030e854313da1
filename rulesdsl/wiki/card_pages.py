"""Card pages: the index of a game's cards, and one page per card with its known facts, what the
source does not give, its effects and the timeline of the rulings about it."""

from __future__ import annotations

from typing import Iterable

from ..kb.timeline import sort_key
from ..lang.vocab import UNKNOWN
from .common import Ctx, answer_summary, card_words, fact_html, known_facts, value_label
from .escape import esc, esc_lines
from .render import UNKNOWN_TAG, Doc, badge, code
from .site import Wiki


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
    unknown = []                                  # the labels of what the source does not give
    if c.card.text is not None:
        if c.card.text.value is not None:
            rows.append(("テキスト", esc_lines(c.card.text.value)))
        else:
            unknown.append("テキスト")
    for name, entry in vocab.entries["fact"].items():
        value = shown.facts.get(name, UNKNOWN)
        if value is UNKNOWN:
            unknown.append(entry.label or name)
        else:
            rows.append((entry.label or name, fact_html(vocab, name, value)))
    if len(unknown) > 1:                          # said once, not row after row of 未収録
        known = "・".join(label for label, _ in rows if label not in ("ゲーム", "コード", "出典"))
        doc.p(f"資料がこのカードについて示しているのは{known}だけです。"
              f"{'、'.join(unknown)}は資料になく、未収録です。", "rd-note")
    if unknown:
        rows.append(("未収録", UNKNOWN_TAG + " " + esc("、".join(unknown))))
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
