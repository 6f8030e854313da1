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
from typing import Any, Iterable, Optional

from ..engine.registry import engine_for
from ..model import Revision, Ruling, Section, Status
from ..timeline import sort_key
from ..vocab import UNKNOWN, Call, Vocabulary, in_words
from .board import render_board
from .odds import odds_html
from .escape import esc, esc_lines
from .render import (GAP_JA, STATUS_HELP, STATUS_JA, UNKNOWN_TAG, Doc, badge, code, link,
                     tag)
from .site import Failure, Page, Wiki, point_anchor, revision_anchor

STATUS_ORDER = (Status.confirmed, Status.provisional, Status.unofficial, Status.unconfirmed, Status.retracted)
REVIEW_STATUSES = (Status.unconfirmed, Status.provisional, Status.unofficial)
MODALITY_JA = {"always": "必ず", "possible": "ありうる", "never": "ありえない"}
STATE_JA = {"in_force": "有効", "superseded": "置き換え済み", "retracted": "撤回", "future": "未発効"}
RECENT = 12


# ----------------------------------------------------------------------------- helpers

class Ctx:
    """What a renderer needs: the wiki and the page's relative prefix to the site root."""

    def __init__(self, w: Wiki, doc: Doc) -> None:
        self.w = w
        self.doc = doc
        self.root = doc.root

    def href(self, url: Optional[str]) -> Optional[str]:
        return None if url is None else self.root + url

    def a(self, url: Optional[str], text: str, cls: Optional[str] = None) -> str:
        if url is None:
            return esc(text)
        return link(self.root + url, esc(text), cls)

    def ruling(self, rid: str, rev: Optional[str] = None, text: Optional[str] = None) -> str:
        r = self.w.kb.rulings.get(rid)
        label = text if text is not None else (r.title if r else rid)
        return self.a(self.w.ruling_href(rid, rev), label)

    def card(self, game: str, code_: str, text: Optional[str] = None) -> str:
        c = self.w.kb.card(game, code_)
        label = text if text is not None else (f"{code_}《{c.card.name}》" if c and c.card.name else code_)
        return self.a(self.w.card_href(game, code_), label)

    def section(self, sid: str, text: Optional[str] = None) -> str:
        s = self.w.kb.sections.get(sid)
        return self.a(self.w.section_href(sid), text if text is not None else (s.title if s else sid))

    def scenario(self, sid: str, text: Optional[str] = None) -> str:
        info = self.w.kb.scenarios.get(sid)
        return self.a(self.w.scenario_href(sid), text if text is not None else (info.scenario.title if info else sid))

    def point(self, game: str, name: str) -> str:
        p = self.w.kb.games[game].points.get(name)
        label = p.label if p and p.label else name
        return self.a(self.w.point_href(game, name), label) + " " + code(name)

    def ref(self, game: str, target: str, rev: Optional[str] = None) -> str:
        """A reference (ruling, section, scenario or card) as a link with a kind label."""
        found = self.w.ref_href(game, target, rev)
        if found is None:
            return code(target)
        url, kind = found
        if kind == "ruling":
            return "裁定 " + self.ruling(target, rev)
        if kind == "section":
            return "ルール " + self.section(target)
        if kind == "scenario":
            return "Q&A " + self.scenario(target)
        return "カード " + self.card(game, target)

    def game(self, game: str) -> str:
        return self.a(self.w.url(self.w.game_src(game)), self.w.kb.games[game].decl.name)


def value_label(w: Wiki, game: str, point: str, value: str) -> str:
    p = w.kb.games[game].points.get(point)
    if p:
        for v in p.values:
            if v.name == value and v.label:
                return v.label
    return value


def card_words(vocab: Vocabulary, call: Call) -> str:
    return in_words(call, vocab, card_name=lambda r: f"《{r.text.strip('《》')}》")


def fact_html(vocab: Vocabulary, name: str, value: Any) -> str:
    """A card fact's value in words (enum labels, units); 未収録 for an explicit unknown."""
    if value is UNKNOWN:
        return UNKNOWN_TAG
    entry = vocab.entries["fact"].get(name)
    params = list(entry.params) if entry else []
    if isinstance(value, dict):
        by_name = {p.name: p for p in params}
        return "、".join(f"{esc(k)}: {_value_html(vocab, v, by_name.get(k))}" for k, v in value.items())
    return _value_html(vocab, value, params[0] if params else None)


def _value_html(vocab: Vocabulary, v: Any, param) -> str:
    types = param.types if param is not None else ()
    if v is UNKNOWN:
        return UNKNOWN_TAG
    if isinstance(v, (tuple, list)):
        return "、".join(_value_html(vocab, x, param) for x in v) or "なし"
    if isinstance(v, bool):
        return "あり" if v else "なし"
    if isinstance(v, (int, float)):
        n = int(v) if isinstance(v, float) and v.is_integer() else v
        if "kg" in types:
            return f"{n}kg"
        if "dice" in types:
            return f"{n}D"
        return esc(n)
    if hasattr(v, "text"):          # a CardRef
        return esc(f"《{v.text.strip('《》')}》")
    text = str(v)
    for t in types:
        label = vocab.enum_label(t, text)
        if label:
            return esc(label)
    return esc(text)


def known_facts(w: Wiki, game: str, facts: dict) -> tuple[list[str], int]:
    vocab = w.kb.games[game].vocab
    known, unknown = [], 0
    for name, entry in vocab.entries["fact"].items():
        v = facts.get(name, UNKNOWN)
        if v is UNKNOWN:
            unknown += 1
            continue
        known.append(f"{esc(entry.label or name)}: {fact_html(vocab, name, v)}")
    return known, unknown


def ruling_state(ctx: Ctx, r: Ruling) -> tuple[Optional[Revision], str, str]:
    """(revision shown, state, badge html) of a ruling as of the build day."""
    rev, state = ctx.w.current(r)
    if rev is None:
        return None, state, tag("改訂なし")
    b = badge(rev.status)
    if state == "superseded":
        b += " " + tag("置き換え済み", "superseded")
    elif state == "future":
        b += " " + tag("未発効", "future")
    return rev, state, b


def answer_summary(ctx: Ctx, sid: str) -> str:
    """A short state of a scenario's answer for tables: status and whether expectations hold."""
    a = ctx.w.answers.get(sid)
    if a is None:
        return tag("計算なし", "plain", "このゲームにはまだインタプリタがない")
    if isinstance(a, Failure):
        return tag("計算できず", "fail", a.message)
    applicable = [e for e in a.expectations if e.applies]
    mark = ("✓" if a.ok else "✗") if applicable else ""
    return badge(a.status) + (f' <span class="rd-{"ok" if a.ok else "ng"}">{mark}</span>' if mark else "")


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


def changed_answers_section(ctx: Ctx, doc: Doc, changes) -> None:
    """For each revision in `changes`, the worked answers it changed: before and after, and why."""
    for day, r, rev, kind in changes:
        changed = ctx.w.changed_answers.get(f"{r.id}@{rev.date_label}", [])
        if not changed:
            continue
        doc.h3(f"{r.title}（{rev.date_ja}）で変わった答え")
        doc.table(["Q&A", "この改訂の前", "この改訂の後", "理由"],
                  [[ctx.scenario(c.scenario),
                    (badge(Status(c.status_before)) + " " if c.status_before else "") + esc(c.before),
                    (badge(Status(c.status_after)) + " " if c.status_after else "") + esc(c.after),
                    esc("；".join(c.because))] for c in changed])


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
    if decl.text and decl.text.value:
        doc.p(decl.text.value, "rd-lead")
    rows = [("ID", code(game))]
    for name, d in info.documents.items():
        rows.append(("資料", f"{code(name)} {esc(d.title)}"))
    if decl.source:
        rows.append(("出典", esc(decl.source.raw)))
    lo, hi = info.players
    rows.append(("人数", esc(f"{lo}人" if lo == hi else f"{lo}〜{hi}人")))
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
        meta.append("出典: " + esc(s.source.raw))
    doc.p_html(" ・ ".join(meta), "rd-meta")
    if s.text and s.text.value:
        doc.add(f'<blockquote class="rd-rule-text"><p>{esc_lines(s.text.value)}</p></blockquote>\n')
    elif s.text is not None:
        doc.p_html(UNKNOWN_TAG + " 本文は資料にありません。")
    for n in s.notes:
        doc.p(n, "rd-note")
    for rev in sorted(s.revisions, key=sort_key):
        body = esc_lines(rev.text.value) if rev.text and rev.text.value else ""
        src = f"（出典: {esc(rev.source.raw)}）" if rev.source else ""
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
        rows.append(("出典", esc(c.card.source.raw)))
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
            src = f"（出典: {esc(e.source.raw)}）" if e.source else ""
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
    now = b + " " + esc(STATE_JA[state])
    if rev_now is not None and state == "in_force":
        now += f"（{esc(rev_now.date_ja)}の改訂）"
    rows = [("ID", code(r.id)), ("ゲーム", ctx.game(r.game)), ("今日の状態", now)]
    if r.gap:
        rows.append(("資料の問題", tag(GAP_JA.get(r.gap, r.gap), "gap") + " " + code(r.gap) +
                     " " + ctx.a(w.url(f"{r.game}/gaps.md"), "資料の欠落・矛盾の一覧")))
    if r.refs:
        rows.append(("関連", "、".join(ctx.ref(r.game, x.target, _rev_label(x)) for x in r.refs)))
    doc.dl(rows)
    for n in r.notes:
        doc.p(n, "rd-note")

    doc.h2("改訂履歴")
    for rev in sorted(r.revisions, key=sort_key):
        revision_block(ctx, r, rev)

    supersedes = [(rev, s) for rev in r.revisions for s in rev.supersedes]
    by = w.superseded_by.get(rid, [])
    doc.h2("置き換えの関係")
    if supersedes or by:
        items = []
        for rev, s in supersedes:
            which = f"（{_rev_label(s)}の改訂）" if _rev_label(s) else ""
            items.append(f"{esc(rev.date_ja)}の改訂が {ctx.ruling(s.target, _rev_label(s))}{esc(which)} を置き換えた")
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


def _rev_label(ref) -> Optional[str]:
    if ref.undated:
        return "undated"
    return str(ref.date) if ref.date else None


def revision_block(ctx: Ctx, r: Ruling, rev: Revision) -> None:
    w, doc = ctx.w, ctx.doc
    doc.h3(f"{rev.date_ja} — {STATUS_JA[rev.status]}", ident=revision_anchor(rev.date_label))
    rows = [("日付", esc(rev.date_ja) + " " + code(rev.date_label)), ("状態", badge(rev.status) + " " + esc(STATUS_HELP[rev.status]))]
    if rev.source:
        rows.append(("出典", esc(rev.source.raw)))
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
        rows.append(("置き換える", "、".join(ctx.ruling(s.target, _rev_label(s)) for s in rev.supersedes)))
    if rev.refs:
        rows.append(("関連", "、".join(ctx.ref(r.game, x.target, _rev_label(x)) for x in rev.refs)))
    doc.dl(rows, "rd-facts rd-revision")
    if rev.text and rev.text.value:
        doc.add(f'<div class="rd-ruling-body"><p>{esc_lines(rev.text.value)}</p></div>\n')
    for q in rev.quotes:
        doc.add(f'<blockquote class="rd-quote"><p>{esc_lines(q.text)}</p><footer>資料の引用</footer></blockquote>\n')
    if rev.reason:
        doc.note(esc_lines(rev.reason), "question", "この解釈の理由（※未確定）" if rev.status is Status.unconfirmed else "理由")
    for n in rev.notes:
        doc.p(n, "rd-note")


def pinned_answer(ctx: Ctx, sid: str) -> None:
    w, doc = ctx.w, ctx.doc
    info = w.kb.scenarios[sid]
    doc.h3(info.scenario.title, extra_html="")
    doc.p_html(f"{answer_summary(ctx, sid)} {ctx.scenario(sid, 'Q&Aのページへ')}", "rd-meta")
    a = w.answers.get(sid)
    if a is None:
        doc.p("このゲームにはまだインタプリタがないため、答えは計算していません。")
        return
    if isinstance(a, Failure):
        doc.note(esc(a.message), "danger", "答えを計算できませんでした")
        return
    doc.p_html("<strong>答え:</strong> " + esc(verdict_ja(a)))
    for outcome, branches in a.outcomes.items():
        b = branches[0]
        label = "手順（トレース）" + (f"：{b.path}" if len(a.branches) > 1 else "")
        doc.add(f'<details class="rd-trace-box"><summary>{esc(label)}</summary>{trace_html(ctx, info.game, b)}</details>\n')


# ----------------------------------------------------------------------------- scenarios

def verdict_ja(a) -> str:
    applicable = [e for e in a.expectations if e.applies]
    failed = [e for e in applicable if not e.ok]
    outcomes = a.outcomes
    head = next(iter(outcomes)) if len(outcomes) == 1 else f"選択により{len(outcomes)}通りの結果がありうる"
    if not applicable:
        return head
    if failed:
        return f"{head} — 期待{len(applicable)}件のうち{len(failed)}件が成り立たない"
    return f"{head} — 期待{len(applicable)}件すべてが成り立つ"


def cite_html(ctx: Ctx, game: str, c) -> str:
    w = ctx.w
    if c.kind == "section":
        text = ctx.section(c.ref) if c.ref in w.kb.sections else code(c.ref)
        label = "ルール " + text
    elif c.kind == "ruling":
        rid, _, rev = c.ref.partition("@")
        label = "裁定 " + ctx.ruling(rid, rev or None)
    elif c.kind == "card":
        label = "カード " + ctx.card(game, c.ref)
    else:
        label = esc(c.ref)
    if c.status is not Status.confirmed:
        label += " " + badge(c.status)
    return label


def trace_html(ctx: Ctx, game: str, branch) -> str:
    items = []
    for s in branch.steps:
        cites = "".join(f"<li>{cite_html(ctx, game, c)}</li>" for c in s.cites)
        cites = f'<ul class="rd-cites">{cites}</ul>' if cites else ""
        items.append(f'<li class="rd-step rd-step-{esc(s.kind)}"><span class="rd-step-text">{esc(s.text)}</span>{cites}</li>')
    return '<ol class="rd-trace">' + "".join(items) + "</ol>"


def qa_index(w: Wiki, doc: Doc, game: str) -> None:
    ctx = Ctx(w, doc)
    scenarios = [s for s in w.kb.scenarios.values() if s.game == game]
    if not scenarios:
        doc.p("このゲームのQ&Aはまだありません。")
        return
    if engine_for(game):
        doc.p(f"{len(scenarios)}問。答えはビルド時にインタプリタが計算したものです。"
              "状態は答えが依拠する最も弱い根拠を示します。")
    else:
        doc.note("このゲームにはまだインタプリタがないため、Q&Aの答えは計算していません。"
                 "場面（設定・操作・期待される結果）をデータとして載せています。", "info", "答えは計算していません")
    rows = []
    for s in scenarios:
        sc = s.scenario
        pins = "、".join(ctx.ref(game, p.target) for p in s.pins if p.target in w.kb.rulings) or "—"
        rows.append([ctx.scenario(s.id), esc(sc.as_of.ja() if sc.as_of else "—"), answer_summary(ctx, s.id), pins])
    doc.table(["Q&A", "日付", "答え", "確かめる裁定"], rows, "rd-index")


def scenario_page(w: Wiki, doc: Doc, sid: str) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    info = kb.scenarios[sid]
    sc = info.scenario
    game = info.game
    vocab = kb.games[game].vocab
    if sc.question:
        doc.add(f'<div class="admonition question rd-question"><p class="admonition-title">質問</p>'
                f'<p>{esc_lines(sc.question)}</p></div>\n')
    modes = kb.games[game].modes
    rows = [("ID", code(sid)), ("ゲーム", ctx.game(game))]
    if sc.as_of:
        rows.append(("いつの時点で", esc(sc.as_of.ja()) + " " + code(str(sc.as_of))))
    mode = sc.mode or next(iter(modes), None)
    if mode:
        rows.append(("モード", esc(modes.get(mode) or mode)))
    if sc.source:
        rows.append(("出典", esc(sc.source.raw)))
    if info.pins:
        rows.append(("確かめる裁定・ルール", "、".join(ctx.ref(game, p.target, _rev_label(p)) for p in info.pins)))
    doc.dl(rows)
    for n in sc.notes:
        doc.p(n, "rd-note")

    a = w.answers.get(sid)
    answered = a is not None and not isinstance(a, Failure)
    card_href = lambda code_: w.card_href(game, code_) and ctx.href(w.card_href(game, code_))  # noqa: E731
    if answered and a.branches and a.branches[0].before is not None:
        doc.h2("盤面（操作の前）")
        doc.add(render_board(a.branches[0].before, card_href, "操作の前の盤面") + "\n")

    if info.cards:
        doc.h2("登場するカード")
        items = []
        for c in info.cards.values():
            known, _ = known_facts(w, game, c.facts)
            facts = "、".join(known)
            name = esc(f"《{c.name}》") if c.hypothetical else ctx.card(game, c.code)
            kind = tag("仮定のカード", "plain") if c.hypothetical else tag("収録カード", "plain")
            effects = "".join(f"<br>{esc(card_words(vocab, e))}" for e in c.effects)
            items.append(f"{kind} {name}{'：' + facts if facts else ''}{effects}")
        doc.ul(items)

    doc.h2("設定と操作")
    steps = [esc(card_words(vocab, call)) for call in info.calls]
    if steps:
        doc.add('<ol class="rd-setup">' + "".join(f"<li>{s}</li>" for s in steps) + "</ol>\n")
    else:
        doc.p("設定と操作はありません。")

    doc.h2("答え")
    if a is None:
        doc.note("このゲームにはまだインタプリタがないため、この場面の答えは計算していません。"
                 "場面はデータとして収録しています。", "info", "答えは計算していません")
        if info.expects:
            doc.p_html("<strong>期待される結果（データ）:</strong>")
            doc.ul(esc(_expect_words(vocab, e, call)) for e, call in info.expects)
    elif isinstance(a, Failure):
        doc.note(esc(a.message) + "<br>" + code(a.loc), "danger", "インタプリタはこの場面に答えられませんでした")
    else:
        answer_block(ctx, a)

    source = w.sources.block(sc.loc)
    if source:
        doc.h2("DSLでの記述", search=False)
        doc.code(source)


def _expect_words(vocab: Vocabulary, e, call: Call) -> str:
    text = card_words(vocab, call)
    mod = MODALITY_JA.get(e.modality or "always", "")
    period = ""
    if e.valid_from or e.valid_until:
        period = f"（{e.valid_from.ja() if e.valid_from else ''}〜{e.valid_until.ja() if e.valid_until else ''}）"
    return f"{mod}：{text}{period}" if e.modality else text + period


def answer_block(ctx: Ctx, a) -> None:
    w, doc = ctx.w, ctx.doc
    game = a.game
    if not a.ok:
        doc.note("インタプリタが計算した答えが、場面に書かれた期待と一致しません（✗の項目）。"
                 "場面か、インタプリタか、裁定のどれかを直す必要があります。", "danger",
                 "この場面の答えは期待と一致しません")
    doc.add(f'<p class="rd-verdict">{badge(a.status)} <strong>{esc(verdict_ja(a))}</strong></p>\n')
    doc.p(f"{a.as_of.year}年{a.as_of.month}月{a.as_of.day}日時点の裁定で、インタプリタがビルド時に計算した答えです。", "rd-muted")
    if a.cautions:
        items = "".join(f"<li>{cite_html(ctx, game, c)}" + (f"<br><small>{esc(c.note)}</small>" if c.note else "") + "</li>"
                        for c in a.cautions)
        doc.add(f'<div class="admonition warning rd-caution"><p class="admonition-title">'
                f'この答えは確定していない裁定・解釈に依拠しています（最も弱い根拠: {esc(STATUS_JA[a.status])}）</p>'
                f'<ul>{items}</ul></div>\n')
    for f in a.fuzzy:
        doc.note(esc(f), "info", "日付について")
    if a.expectations:
        items = []
        for e in a.expectations:
            if not e.applies:
                items.append(f'<li class="rd-na">— {esc(e.text)}（この日付には適用されない）</li>')
                continue
            mark = "✓" if e.ok else "✗"
            detail = f"{MODALITY_JA.get(e.modality, e.modality)}：{e.holds_in}/{e.branches}の分岐で成立"
            found = "".join(f"<br><small>実際: {esc(x)}</small>" for x in e.found) if not e.ok else ""
            items.append(f'<li class="rd-{"ok" if e.ok else "ng"}"><span class="rd-mark">{mark}</span> {esc(e.text)} '
                         f'<small>（{esc(detail)}）</small>{found}</li>')
        doc.p_html("<strong>期待される結果</strong>")
        doc.add('<ul class="rd-expect">' + "".join(items) + "</ul>\n")
    outcomes = a.outcomes
    odds = odds_html(a)  # the exact odds, where the answer is a distribution (rulesdsl.wiki.odds)
    if len(a.branches) > 1 and not odds:
        doc.p_html(f"<strong>プレイヤーの選択</strong>: {len(a.branches)}通りの分岐を調べ、{len(outcomes)}通りの結果になりました。")
        items = []
        for outcome, bs in outcomes.items():
            kind = "必ず" if len(bs) == len(a.branches) else "ありうる"
            paths = "".join(f"<li>{esc(b.path)}</li>" for b in bs)
            items.append(f"<li>[{kind}] {esc(outcome)}<ul>{paths}</ul></li>")
        doc.add('<ul class="rd-outcomes">' + "".join(items) + "</ul>\n")

    doc.add(odds)
    card_href = lambda code_: w.card_href(game, code_) and ctx.href(w.card_href(game, code_))  # noqa: E731
    firsts = [bs[0] for bs in outcomes.values()]
    if any(b.after is not None for b in firsts):
        doc.h2("盤面（操作の後）")
        for b in firsts:
            caption = "操作の後の盤面" + (f"（{b.path}）" if len(a.branches) > 1 else "")
            doc.add(render_board(b.after, card_href, caption) + "\n")

    doc.h2("手順（トレース）")
    for b in firsts:
        if len(a.branches) > 1:
            doc.p_html(f"<strong>{esc(b.path)}</strong>")
        doc.add(trace_html(ctx, game, b) + "\n")

    doc.h2("根拠とその状態")
    doc.p_html(f"この答えが依拠する最も弱い根拠: {badge(a.status)}")
    if a.points:
        rows = []
        for key, v in a.points.items():
            name, card = key, None
            if key.startswith("card(") and ")." in key:
                card, name = key[5:].split(").", 1)
            origin = v.get("from") or ""
            rid, _, rev = origin.partition("@")
            src = ctx.ruling(rid, rev) if rid in w.kb.rulings else (ctx.section(origin) if origin in w.kb.sections else esc(origin))
            target = ctx.point(game, name) + (" ・ カード " + ctx.card(game, card) if card else "")
            rows.append([target, esc(value_label(w, game, name, v["value"])), badge(Status(v["status"])), src])
        doc.table(["ルールポイント", "値", "状態", "根拠"], rows)
    if a.rulings:
        doc.p_html("参照した裁定: " + "、".join(ctx.ruling(x.partition("@")[0], x.partition("@")[2]) for x in a.rulings))
    if a.sections:
        doc.p_html("参照したルール: " + "、".join(ctx.section(x) for x in a.sections))
    if a.cards:
        doc.p_html("参照したカード: " + "、".join(ctx.card(game, x) for x in a.cards))


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
            src = esc(rev.source.raw) if rev and rev.source else ""
            rows.append([b, ctx.ruling(r.id), quotes or "—", text, src])
        doc.table(["状態", "項目", "資料の記述", "このwikiの読み", "出典"], rows)


def glossary_page(w: Wiki, doc: Doc, game: str) -> None:
    info = w.kb.games[game]
    vocab = info.vocab
    doc.p("資料の用語と、DSL・コードでの名前の対応です。")
    doc.h2("用語")
    if info.terms:
        doc.table(["日本語", "DSLでの名前", "注記"],
                  [[esc(ja), code(name), esc(note or "")] for ja, name, note in info.terms])
    else:
        doc.p("このゲームは用語を宣言していません。")
    kinds = (("fact", "カードの項目"), ("trigger", "効果の発動条件"), ("modifier", "効果の修飾"),
             ("verb", "効果の動作"), ("setup", "場面の設定"), ("action", "場面の操作"), ("expect", "期待する結果"))
    for kind, title in kinds:
        entries = vocab.entries.get(kind, {})
        if entries:
            doc.h2(title)
            doc.table(["DSLでの名前", "日本語"], [[code(e.name), esc(e.label or "")] for e in entries.values()])
    if vocab.enums:
        doc.h2("値の種類")
        doc.table(["種類", "値"], [[f"{code(e.name)} {esc(e.label or '')}",
                                   "、".join(f"{code(k)} {esc(v or '')}" for k, v in e.values.items())]
                                  for e in vocab.enums.values()])


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
        doc.h2(label)
        doc.table(CHANGE_HEAD + ["ゲーム"], change_rows(ctx, changes))
        changed_answers_section(ctx, doc, changes)


def review_page(w: Wiki, doc: Doc) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    doc.p("確定していない項目の一覧です。※未確定はこのwiki自身の解釈、暫定は公式の暫定裁定、"
          "非公式はコミュニティの取り決めです。状態は今日時点のものです。")
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
    for st in REVIEW_STATUSES:
        total = len(rulings[st]) + len(defaults[st]) + len(answers[st])
        doc.h2(STATUS_JA[st], extra_html=f' <small class="rd-count">{total}件</small>')
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
_SPREAD = {"chapter": chapter_page, "card": card_page}      # the key is a tuple of arguments
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
