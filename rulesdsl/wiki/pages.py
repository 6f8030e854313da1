"""The wiki's pages, one renderer per page type, and `render`, which picks the renderer. Each
fills a `Doc` (HTML, headings, table of contents, search sections). The interface is Japanese; ids
and DSL stay as written. Here: the home page, the game pages (overview, rules index, chapters),
rule points, gaps, glossary and sources; card pages are in card_pages.py, ruling pages in
ruling_pages.py, Q&A pages in answers.py, the changelog and the review list in history.py.

Page types: home (added to the hand-written home text), per game: overview, rules index, rules
chapter (sections with the rulings that refine them), card index, card, ruling index, ruling,
Q&A index, Q&A scenario, rule points, gaps, glossary; and across games: changelog (by year and
month), review list (※未確定・暫定・非公式).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from ..engine.registry import engine_for
from ..kb.timeline import sort_key
from ..lang.model import Ruling, Section
from .answers import qa_index, scenario_page
from .card_pages import card_page, cards_index
from .common import STATUS_ORDER, Ctx, linked_text, ruling_state, short_title, value_label
from .escape import esc, esc_lines
from .history import CHANGE_HEAD, RECENT, change_rows, changelog_index, changelog_year, latest_changes, status_counts
from .review import review_page, review_part
from .render import GAP_JA, UNKNOWN_TAG, Doc, badge, code, tag
from .ruling_pages import ruling_page, rulings_index
from .site import Failure, Page, Wiki, line_anchor, point_anchor
from .terms import define, first_use, heading_index, overview

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
    # what the quote above already shows is not said again (a source's first line is often its
    # description, and the heading the declaration cites)
    quoted = ov.text if ov else ""
    if decl.text and decl.text.value and decl.text.value not in quoted:
        rows.append(("資料の説明", esc(decl.text.value)))
    for name, d in info.documents.items():
        rows.append(("資料", ctx.a(w.url(w.source_src(game, name)), d.title) + f" {code(name)}"))
    if decl.source and not (quoted and decl.source.heading and decl.source.heading in quoted):
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
    index = heading_index(info.documents)
    for ja, name, note in info.terms:
        doc.h2(ja)
        found = define(ja, info.documents, index)
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



# ----------------------------------------------------------------------------- dispatch

_RENDERERS = {
    "game": game_page, "rules": rules_index, "cards": cards_index, "rulings": rulings_index,
    "ruling": ruling_page, "qa": qa_index, "scenario": scenario_page, "points": points_page,
    "gaps": gaps_page, "glossary": glossary_page, "changelog_year": changelog_year,
}
_SPREAD = {"chapter": chapter_page, "card": card_page, "source": source_page, "review_part": review_part}      # the key is a tuple of arguments
_PLAIN = {"changelog": changelog_index, "review": review_page}   # no key


def render(w: Wiki, page: Page, root: str) -> Doc:
    doc = Doc(page.title, root)
    k = page.kind
    if k == "ask":
        from .ask_page import ask_page
        ask_page(w, doc, page.key)
        return doc
    if k in _RENDERERS:
        _RENDERERS[k](w, doc, page.key)
    elif k in _SPREAD:
        _SPREAD[k](w, doc, *page.key)
    elif k in _PLAIN:
        _PLAIN[k](w, doc)
    else:  # pragma: no cover
        raise ValueError(f"unknown page kind {k}")
    return doc
