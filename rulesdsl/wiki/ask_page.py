"""The wiki's parts for asking in the reader's browser: 「この質問を変えて聞く」 on every worked
question's page, the page 「新しい質問」 of each game (with a board builder for a grid game whose
vocabulary plays weighted cards onto cells), and the note a site built without the interpreter
shows instead (ask_bundle.py says why it has none).

The markup is inert until site/docs/assets/rdask.js runs: the page carries the question's text
(already on it, under 「DSLでの記述」) and a small script; the runtime (≈14.5 MB, see
ask_bundle.py) is fetched only when the reader opens the editor, and kept by the browser
(site/docs/rdask-sw.js) for the next visits.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from .common import Ctx
from .escape import esc
from .render import Doc, dsl_block
from .site import SCENARIO_HEAD, Wiki

SERVE = "rulesdsl wiki serve"
BUILDER_NEEDS = {"setup": ("field", "stack", "hand", "turn"), "action": ("play",), "fact": ("weight",)}


def _bundle(w: Wiki):
    return getattr(w, "ask", None)


def _unavailable(ctx: Ctx) -> None:
    b = _bundle(ctx.w)
    if b is None:
        return
    ctx.doc.note("このサイトは、読者のブラウザでインタプリタを動かす機能なしでビルドされました"
                 f"（理由: {esc(b.missing)}）。手元で質問するには rulesdsl ask を使ってください。",
                 "info", "この質問を変えて聞く：利用できません")


def _assets(ctx: Ctx) -> str:
    return ctx.root + "assets/"


def _editor(ctx: Ctx, game: str, text: str, kind: str, extra: str = "") -> str:
    """The editor (the text highlighted as the wiki's code blocks are), 「答える」, the progress
    indicator, the errors and the answer; then the module script that brings it to life."""
    b = _bundle(ctx.w)
    # the text without its last line break, highlighted as the page's own source block (its
    # highlighting is kept: render.dsl_block), then the break: a line break is a token of its own
    body = text[:-1] if text.endswith("\n") else text
    highlighted = dsl_block(body)
    start = highlighted.index("<code>") + len("<code>")
    end = highlighted.rindex("</code>")
    highlighted = highlighted[:end] + text[len(body):] + highlighted[end:]
    end += len(text) - len(body)
    size = b.total_bytes(game)
    return (
        f'<link rel="stylesheet" href="{esc(_assets(ctx))}rdask.css">\n'
        f'<div class="rd-ask" data-rd-ask="{esc(kind)}" data-game="{esc(game)}" data-root="{esc(ctx.root)}" '
        f'data-assets="{esc(_assets(ctx))}ask/" data-bytes="{size}" data-keep="{esc(b.manifest["keep"])}">\n'
        f'{extra}'
        f'<div class="rd-editor language-rules highlight"><pre class="rd-editor-hl" aria-hidden="true"><code>'
        f'{highlighted[start:end]}\n</code></pre>'
        f'<textarea class="rd-editor-text" spellcheck="false" autocapitalize="off" autocomplete="off" '
        f'aria-label="質問のDSL" rows="{min(40, text.count(chr(10)) + 2)}">{esc(text)}</textarea></div>\n'
        f'<p class="rd-ask-bar"><button type="button" class="md-button md-button--primary rd-ask-go">答える</button> '
        f'<span class="rd-ask-status" role="status"></span></p>\n'
        f'<div class="rd-ask-progress" hidden><progress max="1"></progress> <span></span></div>\n'
        f'<div class="rd-ask-file" hidden></div>\n'
        f'<div class="rd-ask-errors" role="alert"></div>\n'
        f'<div class="rd-ask-answer" aria-live="polite"></div>\n'
        f'<p class="rd-muted rd-ask-about">インタプリタはこのページの中（読者のブラウザ）で動きます。サーバーには何も送りません。'
        f'初回だけ実行環境（約{size / 1e6:.0f} MB、Pyodide {esc(b.manifest["pyodide"]["version"])}・'
        f'CPython {esc(b.manifest["pyodide"]["python"])}）を読み込み、ブラウザが保存します。</p>\n'
        f'</div>\n<script defer src="{esc(_assets(ctx))}rdask.js"></script>\n')


def scenario_editor(ctx: Ctx, sid: str) -> None:
    """「この質問を変えて聞く」 on a worked question's page."""
    b = _bundle(ctx.w)
    if b is None:
        return
    if not b.available:
        _unavailable(ctx)
        return
    text = b.texts.get(sid)
    if text is None:
        return
    game = ctx.w.kb.scenarios[sid].game
    ctx.doc.h2("この質問を変えて聞く", search=False)
    ctx.doc.p("体重・表裏・カード・日付などを書き換えて「答える」を押すと、インタプリタがこの場で答えます。"
              "元の質問のページの答えは変わりません。")
    ctx.doc.add(f'<details class="rd-ask-open"><summary>エディタを開く</summary>\n{_editor(ctx, game, text, "scenario")}</details>\n')


# ----------------------------------------------------------------------------- 新しい質問

def template(w: Wiki, game: str) -> Optional[str]:
    """The new question's starting text: the game's first worked question that answers as
    expected, under a new id and title (what it asks is real, so 「答える」 answers at once)."""
    found = w.template_question(game)
    if found is None:
        return None
    _, info, text = found
    body = SCENARIO_HEAD.sub(f'scenario {game}/new/question "新しい質問"', text, count=1)
    return ("# 新しい質問：場面（カード・盤面・操作）を書き換えて「答える」を押してください。\n"
            f"# 出発点は Q&A「{info.scenario.title}」です。\n" + body)


def builder_fits(w: Wiki, game: str) -> bool:
    """Whether the board builder can write this game's questions: a grid, and a vocabulary that
    places weighted cards on cells, stacks them, and plays one from a hand."""
    vocab = w.kb.games[game].vocab
    return bool(vocab.cells) and all(name in vocab.entries.get(kind, {})
                                     for kind, names in BUILDER_NEEDS.items() for name in names)


def _builder(w: Wiki, game: str) -> str:
    vocab = w.kb.games[game].vocab
    cards = [{"code": code, "name": c.card.name or ""} for (g, code), c in sorted(w.kb.cards.items()) if g == game]
    config = {"game": game, "cells": list(vocab.cells), "players": list(vocab.players[:2]), "cards": cards,
              "today": w.today.isoformat()}
    cells = "".join(f'<button type="button" class="rd-bb-cell" data-cell="{esc(c)}" aria-label="マス{esc(c)}">'
                    f'<span class="rd-bb-name">{esc(c)}</span><span class="rd-bb-stack"></span></button>' for c in vocab.cells)
    columns = len({re.match(r"[A-Za-z]+", c).group() for c in vocab.cells}) or 1
    return (f'<div class="rd-bb" data-config="{esc(json.dumps(config, ensure_ascii=False))}">\n'
            f'<p>マスをタップしてカードを置き（重ねるときは同じマスにもう一度）、プレイするカードと置き場所を選んで'
            f'「DSLに書き出す」を押すと、下のエディタに質問が書かれます。</p>\n'
            f'<div class="rd-bb-grid" style="grid-template-columns: repeat({columns}, 1fr)">{cells}</div>\n'
            '<fieldset class="rd-bb-form"><legend>選んだマスに置くカード：<span class="rd-bb-at">—</span></legend>'
            '<label>プレイヤー <select class="rd-bb-player"></select></label> '
            '<label>向き <select class="rd-bb-face"><option value="up">表</option><option value="down">裏</option></select></label> '
            '<label>体重 <input class="rd-bb-weight" type="number" min="0" step="1" value="30" inputmode="numeric">kg</label> '
            '<label>または収録カード <select class="rd-bb-card"><option value="">（体重で指定）</option></select></label> '
            '<button type="button" class="md-button rd-bb-put">このマスに置く・重ねる</button> '
            '<button type="button" class="md-button rd-bb-clear">このマスを空にする</button></fieldset>\n'
            '<fieldset class="rd-bb-play"><legend>プレイするカード</legend>'
            '<label>プレイヤー <select class="rd-bb-pplayer"></select></label> '
            '<label>体重 <input class="rd-bb-pweight" type="number" min="0" step="1" value="60" inputmode="numeric">kg</label> '
            '<label>または収録カード <select class="rd-bb-pcard"><option value="">（体重で指定）</option></select></label> '
            '<label>置くマス <select class="rd-bb-target"></select></label> '
            f'<label>日付 <input class="rd-bb-date" type="date" value="{esc(w.today.isoformat())}"></label></fieldset>\n'
            '<p><button type="button" class="md-button md-button--primary rd-bb-write">DSLに書き出す</button></p>\n'
            '</div>\n')


def ask_page(w: Wiki, doc: Doc, game: str) -> None:
    """The page 「新しい質問」 of a game."""
    ctx = Ctx(w, doc)
    b = _bundle(w)
    doc.p("このゲームの場面を自分で書いて、インタプリタに答えを聞くページです。答えはQ&Aのページと同じ形"
          "（答え・根拠の状態・盤面・手順と引用）で、このブラウザの中で計算されます。")
    if b is None or not b.available:
        _unavailable(ctx)
        return
    text = template(w, game)
    if text is None:
        doc.p("このゲームには出発点にできるQ&Aがまだありません。")
        return
    extra = ""
    if builder_fits(w, game):
        doc.h2("盤面から質問を作る", search=False)
        extra = _builder(w, game)
    doc.h2("質問を書く", search=False)
    doc.add(_editor(ctx, game, text, "new", extra))
    versions = ", ".join(f"{esc(k)} {esc(v)}" for k, v in b.manifest["versions"].items())
    doc.p_html(f'<small class="rd-muted">実行環境: Pyodide {esc(b.manifest["pyodide"]["version"])}'
               f'（CPython {esc(b.manifest["pyodide"]["python"])}）, {versions}。'
               f'フォルダから開いたページ（file://）ではブラウザが実行環境の読み込みを許さないため、'
               f'<code>{SERVE}</code> で配信してから開いてください。</small>')


def lexer_table() -> dict:
    """The DSL lexer's rules (lexer.py) for the editor's highlighting in JavaScript, with the
    Pygments CSS classes the wiki's code blocks use: one definition of the highlighting."""
    from . import lexer
    from .render import _css_class
    from pygments.token import Name
    rules = []
    for pattern, kind in lexer._RULES:
        rules.append([pattern, kind if isinstance(kind, str) else _css_class(kind)])
    words = {}
    for group in (lexer.DECLARATIONS, lexer.KEYWORDS, lexer.MODALITIES, lexer.STATUSES, lexer.CONSTANTS):
        for word in group:
            words[word] = _css_class(lexer._word_token(word))
    return {"rules": rules, "words": words, "head": _css_class(Name.Function), "word": _css_class(Name),
            "space": lexer._SPACE}
