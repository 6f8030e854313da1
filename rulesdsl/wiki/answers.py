"""The Q&A pages: the question, then the answer in plain sentences with its status and date (all on
a phone's first screen), the boards before and after, the trace, then the details; and the answers
shown on ruling pages."""

from __future__ import annotations

from ..engine.registry import engine_for
from ..engine.sentences import cell_spelling
from ..lang.model import Status
from ..lang.vocab import Call, Vocabulary
from .board import render_board
from .common import (MODALITY_JA, Ctx, answer_summary, card_words, known_facts, linked_text, rev_label,
                     value_label)
from .escape import esc
from .odds import odds_html
from .render import STATUS_JA, Doc, badge, code, tag
from .site import Failure, Wiki


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
    spell = cell_spelling(info.scenario.question)
    said = "".join(x if x.endswith(("。", "）")) else x + "。" for x in answer_sentences(a))
    doc.p_html("<strong>答え:</strong> " + esc(said) + " " + f'<span class="rd-muted">（{esc(spell(verdict_ja(a)))}）</span>')
    for outcome, branches in a.outcomes.items():
        b = branches[0]
        label = "手順（トレース）" + (f"：{spell(b.path)}" if len(a.branches) > 1 else "")
        doc.add(f'<details class="rd-trace-box"><summary>{esc(label)}</summary>{trace_html(ctx, info.game, b, spell)}</details>\n')



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


def trace_html(ctx: Ctx, game: str, branch, spell=lambda text: text) -> str:
    """The steps of one branch, each with what it cites; `spell`: cells spelled as the question
    spells them (engine.sentences.cell_spelling)."""
    items = []
    for s in branch.steps:
        cites = "".join(f"<li>{cite_html(ctx, game, c)}</li>" for c in s.cites)
        cites = f'<ul class="rd-cites">{cites}</ul>' if cites else ""
        items.append(f'<li class="rd-step rd-step-{esc(s.kind)}"><span class="rd-step-text">{esc(spell(s.text))}</span>{cites}</li>')
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


def answer_sentences(a) -> list[str]:
    """The plain sentences that answer the scenario's question: the answer's own (`sentences`,
    written by the engine core), else — until every answer has them — what the expectations that
    hold say, in words; for one that fails, what was found instead; else the outcome's first part."""
    own = getattr(a, "sentences", None)
    if own:
        return [str(x) for x in own]
    illegal = next((b.illegal for b in a.branches if getattr(b, "illegal", None)), None)
    if illegal:
        return [f"ルール上できない：{illegal}"]
    out = []
    for e in a.expectations:
        if not e.applies:
            continue
        if e.ok:
            mod = "" if e.modality == "always" else MODALITY_JA.get(e.modality, "") + "："
            out.append(f"{mod}{e.text}")
        else:
            out.append("期待とは異なり、" + "、".join(dict.fromkeys(e.found)) if e.found else f"「{e.text}」は成り立たない")
    if out:
        return out
    outcomes = a.outcomes
    if len(outcomes) > 1:
        return [f"プレイヤーの選択により{len(outcomes)}通りの結果がありうる"]
    return [next(iter(outcomes), "").split(";")[0]]


def status_html(a) -> str:
    """An answer's status badge, qualified by what the sources it relied on are
    (「出典: ファンwikiのまとめ。公式ルールではない」)."""
    note = "／".join(getattr(a, "authority", None) or ())
    return badge(a.status) + (f' <span class="rd-authority">（出典: {esc(note)}）</span>' if note else "")


def readings_line(a) -> str:
    """Whether another reading of a rule point the sources leave open changes the answer."""
    r = getattr(a, "readings", None)
    if r is None or len(r.answers) <= 1:
        return ""
    if r.same:
        return (f'<p class="rd-readings rd-readings-same">確定していない点{len(r.points)}件に触れますが、どの読みでも'
                f"答えは同じです（{len(r.answers)}通りの読みで計算）。この答えの状態は下げません。</p>")
    return (f'<p class="rd-readings rd-readings-differ"><strong>読みによって答えが変わります</strong>：確定していない点'
            f'{len(r.points)}件の読み{len(r.answers)}通りで、答えは{len(r.groups())}通り（<a href="#読みごとの答え">読みごとの答え</a>）。</p>')


def readings_section(ctx: Ctx, a) -> None:
    """The answer under each reading of the unsettled rule points it consulted."""
    from ..engine.readings import reading_words
    r = getattr(a, "readings", None)
    if r is None or len(r.answers) <= 1:
        return
    doc = ctx.doc
    doc.h2("読みごとの答え")
    doc.p("資料が定めていないルールポイントの値（読み）ごとに、インタプリタが計算した答えです。"
          "既定の読みは※未確定の解釈です。")
    for readings, x in r.groups():
        who = "".join(f"<li>{esc(reading_words(ctx.w.kb, a.game, reading, r.points))}</li>" for reading in readings)
        sentences = "".join(f'<p class="rd-sentence">{linked_text(ctx, a.game, t)}</p>' for t in answer_sentences(x))
        doc.add(f'<div class="rd-answer rd-answer-{x.status.value} rd-reading"><span class="rd-label">この読みでの答え</span>'
                f'{sentences}<p class="rd-answer-meta">{status_html(x)}</p><ul class="rd-reading-list">{who}</ul></div>\n')
    gaps = [p["gap"] for p in r.points.values() if p.get("gap")]
    if gaps:
        doc.p_html("資料に定めがないことの記録: " + "、".join(ctx.ruling(g) for g in dict.fromkeys(gaps)), "rd-meta")
    if not r.exhaustive:
        doc.p("組み合わせが多いため、各点を一つずつ変えて計算しました。", "rd-muted")


def scenario_page(w: Wiki, doc: Doc, sid: str) -> None:
    ctx = Ctx(w, doc)
    kb = w.kb
    info = kb.scenarios[sid]
    sc = info.scenario
    game = info.game
    vocab = kb.games[game].vocab
    a = w.answers.get(sid)
    answered = a is not None and not isinstance(a, Failure)

    # --- the first screen: the question, the answer, its status and date
    question = sc.question or sc.title
    doc.add(f'<div class="rd-question"><span class="rd-label">質問</span><p>{linked_text(ctx, game, question)}</p></div>\n')
    if answered:
        answer_box(ctx, a)
    elif a is None:
        expected = [_expect_words(vocab, e, call) for e, call in info.expects]
        body = "".join(f'<p class="rd-sentence">{esc(x)}</p>' for x in expected)
        doc.add(f'<div class="rd-answer rd-answer-data"><span class="rd-label">期待される結果（データ）</span>{body}'
                f'<p class="rd-answer-meta">{tag("計算なし", "plain")} このゲームにはまだインタプリタがないため、'
                f'答えは計算していません。場面はデータとして収録しています。</p></div>\n')
    else:
        doc.add(f'<div class="rd-answer rd-answer-fail"><span class="rd-label">答えを計算できませんでした</span>'
                f'<p class="rd-sentence">{esc(a.message)}</p><p class="rd-answer-meta">{code(a.loc)}</p></div>\n')

    if answered:
        answer_details(ctx, a)
    ask_editor(ctx, sid)

    # --- the details
    doc.h2("場面の詳細")
    modes = kb.games[game].modes
    rows = [("ID", code(sid)), ("ゲーム", ctx.game(game))]
    if sc.as_of:
        rows.append(("いつの時点で", esc(sc.as_of.ja()) + " " + code(str(sc.as_of))))
    mode = sc.mode or next(iter(modes), None)
    if mode:
        rows.append(("モード", esc(modes.get(mode) or mode)))
    if sc.source:
        rows.append(("出典", ctx.cite(sc.source)))
    if info.pins:
        rows.append(("確かめる裁定・ルール", "、".join(ctx.ref(game, p.target, rev_label(p)) for p in info.pins)))
    doc.dl(rows)
    for n in sc.notes:
        doc.p(n, "rd-note")
    if info.cards:
        doc.h3("登場するカード")
        items = []
        for c in info.cards.values():
            known, _ = known_facts(w, game, c.facts)
            facts = "、".join(known)
            name = esc(f"《{c.name}》") if c.hypothetical else ctx.card(game, c.code)
            kind = tag("仮定のカード", "plain") if c.hypothetical else tag("収録カード", "plain")
            effects = "".join(f"<br>{esc(card_words(vocab, e))}" for e in c.effects)
            items.append(f"{kind} {name}{'：' + facts if facts else ''}{effects}")
        doc.ul(items)
    doc.h3("設定と操作")
    spell = cell_spelling(sc.question)
    steps = [esc(spell(card_words(vocab, call))) for call in info.calls]
    if steps:
        doc.add('<ol class="rd-setup">' + "".join(f"<li>{s}</li>" for s in steps) + "</ol>\n")
    else:
        doc.p("設定と操作はありません。")
    if not answered and a is None and info.expects:
        doc.h3("期待される結果（データ）")
        doc.ul(esc(_expect_words(vocab, e, call)) for e, call in info.expects)

    source = w.sources.block(sc.loc)
    if source:
        doc.h2("DSLでの記述", search=False)
        doc.code(source)


def answer_details(ctx: Ctx, a) -> None:
    """What follows the answer box on a Q&A page: the exact odds (where the answer is a
    distribution), the boards, the expectations checked, the readings, the trace and the grounds.
    The same function renders an answer computed in the reader's browser (browser.py)."""
    w, doc, game = ctx.w, ctx.doc, a.game
    odds = odds_html(a)
    doc.add(odds)
    card_href = lambda code_: w.card_href(game, code_) and ctx.href(w.card_href(game, code_))  # noqa: E731
    boards(ctx, a, card_href)
    checks(ctx, a, choices=not odds)      # the odds table already gives the choices' outcomes
    readings_section(ctx, a)
    doc.h2("手順（トレース）")
    spell = cell_spelling(getattr(a, "question", None))
    firsts = [bs[0] for bs in a.outcomes.values()]
    for b in firsts:
        if len(a.branches) > 1:
            doc.p_html(f"<strong>{esc(spell(b.path))}</strong>")
        doc.add(trace_html(ctx, game, b, spell) + "\n")
    grounds(ctx, a)


def ask_editor(ctx: Ctx, sid: str) -> None:
    """「この質問を変えて聞く」: the editor that asks this question again in the reader's browser
    (ask_page.py), when the build ships the interpreter."""
    from .ask_page import scenario_editor
    scenario_editor(ctx, sid)


def _expect_words(vocab: Vocabulary, e, call: Call) -> str:
    text = card_words(vocab, call)
    mod = MODALITY_JA.get(e.modality or "always", "")
    period = ""
    if e.valid_from or e.valid_until:
        period = f"（{e.valid_from.ja() if e.valid_from else ''}〜{e.valid_until.ja() if e.valid_until else ''}）"
    return f"{mod}：{text}{period}" if e.modality else text + period


def answer_box(ctx: Ctx, a) -> None:
    """The answer in plain sentences, its status (qualified by the sources' authority) and the day it
    is computed for; what it rests on that is not confirmed; a failing expectation's warning."""
    doc = ctx.doc
    said = answer_sentences(a)
    r = getattr(a, "readings", None)
    unsettled = r is not None and len(r.answers) > 1 and not r.same
    cls = "rd-sentence"
    if unsettled and said:
        # another reading of what the sources leave open gives another answer: the sentence says
        # whose reading this is, and is not set in bold as if it were settled
        said = [f"この知識ベースの読みでは、{said[0]}", *said[1:]]
        cls = "rd-sentence rd-sentence-reading"
    sentences = "".join(f'<p class="{cls}">{linked_text(ctx, a.game, x)}</p>' for x in said)
    day = f"{a.as_of.year}年{a.as_of.month}月{a.as_of.day}日"
    doc.add(f'<div class="rd-answer rd-answer-{a.status.value}"><span class="rd-label">答え</span>{sentences}'
            f'<p class="rd-answer-meta">{status_html(a)} <span class="rd-asof">{day}時点</span>'
            f'の裁定で、インタプリタがビルド時に計算した答えです。</p>{readings_line(a)}'
            + "".join(f'<p class="rd-assumption">仮定: {esc(x)}</p>' for x in a.assumptions) + '</div>\n')
    if not a.ok:
        doc.note("インタプリタが計算した答えが、場面に書かれた期待と一致しません（✗の項目）。"
                 "場面か、インタプリタか、裁定のどれかを直す必要があります。", "danger",
                 "この場面の答えは期待と一致しません")
    if a.cautions:
        items = "".join(f"<li>{cite_html(ctx, a.game, c)}" + (f"<br><small>{esc(c.note)}</small>" if c.note else "")
                        + "</li>" for c in a.cautions)
        doc.add(f'<details class="rd-caution rd-caution-{a.status.value}"><summary>この答えは確定していない'
                f'裁定・解釈に依拠しています（最も弱い根拠: {esc(STATUS_JA[a.status])}、{len(a.cautions)}件）'
                f'</summary><ul>{items}</ul></details>\n')
    for f in a.fuzzy:
        doc.note(esc(f), "info", "日付について")


def boards(ctx: Ctx, a, card_href) -> None:
    doc = ctx.doc
    before = a.branches[0].before if a.branches else None
    firsts = [bs[0] for bs in a.outcomes.values()]
    afters = [b for b in firsts if b.after is not None]
    if before is None and not afters:
        return
    doc.h2("盤面（操作の前と後）")
    parts = []
    if before is not None:
        parts.append(render_board(before, card_href, "操作の前"))
    for b in afters:
        caption = "操作の後" + (f"（{b.path}）" if len(a.branches) > 1 else "")
        parts.append(render_board(b.after, card_href, caption))
    doc.add('<div class="rd-boards">' + "".join(x for x in parts if x) + "</div>\n")


def checks(ctx: Ctx, a, choices: bool = True) -> None:
    """Each expectation, checked (✓ holds, ✗ fails — neither green: green is only for 確定), and
    the outcomes of the players' choices."""
    doc = ctx.doc
    spell = cell_spelling(getattr(a, "question", None))
    if a.expectations:
        doc.h2("確かめた結果")
        items = []
        for e in a.expectations:
            if not e.applies:
                items.append(f'<li class="rd-na">— {esc(spell(e.text))}（この日付には適用されない）</li>')
                continue
            mark = "✓" if e.ok else "✗"
            detail = f"{MODALITY_JA.get(e.modality, e.modality)}：{e.holds_in}/{e.branches}の分岐で成立"
            found = "".join(f"<br><small>実際: {esc(spell(x))}</small>" for x in e.found) if not e.ok else ""
            items.append(f'<li class="rd-{"holds" if e.ok else "ng"}"><span class="rd-mark">{mark}</span> {esc(spell(e.text))} '
                         f'<small>（{esc(detail)}）</small>{found}</li>')
        doc.add('<ul class="rd-expect">' + "".join(items) + "</ul>\n")
    outcomes = a.outcomes
    if len(a.branches) > 1 and choices:
        doc.h2("プレイヤーの選択")
        doc.p(f"{len(a.branches)}通りの分岐を調べ、{len(outcomes)}通りの結果になりました。")
        items = []
        for outcome, bs in outcomes.items():
            kind = "必ず" if len(bs) == len(a.branches) else "ありうる"
            paths = "".join(f"<li>{esc(spell(b.path))}</li>" for b in bs)
            items.append(f"<li>[{kind}] {esc(spell(outcome))}<ul>{paths}</ul></li>")
        doc.add('<ul class="rd-outcomes">' + "".join(items) + "</ul>\n")


def grounds(ctx: Ctx, a) -> None:
    w, doc, game = ctx.w, ctx.doc, a.game
    doc.h2("根拠とその状態")
    doc.p_html(f"この答えが依拠する最も弱い根拠: {status_html(a)}")
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
