"""The wiki's parts without a browser: the DSL lexer and its entry point, slugs and escaping, cutting
DSL text out of files, the board picture, the page plan and answers over the bundled knowledge
base, and the build refusing a corpus whose scenario does not come out as expected."""

from __future__ import annotations

import glob
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("pymdownx")

from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # noqa: E402
from pygments.token import Error, Keyword, Name, Number, String  # noqa: E402

from rulesdsl.engine.registry import engine_for  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402
from rulesdsl.wiki.board import render_board  # noqa: E402
from rulesdsl.wiki.escape import Anchors, esc, path_slug  # noqa: E402
from rulesdsl.wiki.lexer import RulesLexer  # noqa: E402
from rulesdsl.wiki.render import Doc, dsl_block  # noqa: E402
from rulesdsl.wiki.search import (  # noqa: E402
    DOCS_PER_SHARD,
    Entry,
    SearchIndex,
    _encode,
    decode,
    key,
    tokenize,
    write_index,
)
from rulesdsl.wiki.site import Failure, Wiki  # noqa: E402
from rulesdsl.wiki.source import SourceTexts, statement_end  # noqa: E402
from rulesdsl.wiki.testing import REPO, build_site, copy_game, write_files  # noqa: E402


@pytest.fixture(scope="module")
def bundled():
    kb = load(REPO)
    w = Wiki(kb)
    w.compute_answers()
    return w


# ----------------------------------------------------------------------------- the lexer

def test_lexer_is_found_by_name_and_file_name_through_the_pygments_entry_point():
    assert isinstance(get_lexer_by_name("rules"), RulesLexer)
    assert isinstance(get_lexer_by_name("rulesdsl"), RulesLexer)
    assert isinstance(get_lexer_for_filename("cards/grm/No.018.rules"), RulesLexer)


def test_lexer_reads_every_bundled_file_back_exactly_and_without_error_tokens():
    lexer = RulesLexer()
    files = glob.glob(str(REPO / "rulings" / "**" / "*.rules"), recursive=True) + \
        glob.glob(str(REPO / "cards" / "**" / "*.rules"), recursive=True)
    assert len(files) > 50
    for f in files:
        text = Path(f).read_text(encoding="utf-8")
        tokens = list(lexer.get_tokens_unprocessed(text))
        assert "".join(v for _, _, v in tokens) == text, f
        assert not [v for _, t, v in tokens if t is Error], f


@pytest.mark.parametrize("source, word, token", [
    ('ruling grm/x "t" {}', "ruling", Keyword.Declaration),
    ('ruling grm/x "t" {}', "grm/x", Name.Namespace),
    ("  revision 2026-03 confirmed {", "2026-03", Number),
    ("  revision 2026-summer unconfirmed {", "2026-summer", Number),
    ("  revision 2026-03 confirmed {", "confirmed", Name.Decorator),
    ("  set battle.zero_weight = battle_occurs", "set", Keyword),
    ("  set battle.zero_weight = battle_occurs", "battle.zero_weight", Name.Namespace),
    ("  weight 60kg", "weight", Name.Function),
    ("  weight 60kg", "60kg", Number),
    ("  text unknown", "unknown", Keyword.Constant),
    ('  field b2 P1 "土台" up; expect face b2 down', "expect", Keyword),
    ('  field b2 P1 "土台" up', '"土台"', String.Double),
    ("  expect never illegal", "never", Keyword.Pseudo),
])
def test_lexer_classifies_keywords_statuses_dates_ids_and_statement_heads(source, word, token):
    tokens = list(RulesLexer().get_tokens(source))
    assert (token, word) in [(t, v) for t, v in tokens] or \
        any(v == word and t in token for t, v in tokens), tokens


def test_highlighted_dsl_escapes_html_in_strings_and_comments():
    html = dsl_block('card grm "<script>x</script>" "n" { # <b>\n}\n')
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;" in html
    assert html.startswith('<div class="language-rules highlight"><pre><span></span><code>')


# ----------------------------------------------------------------------------- names and escaping

@pytest.mark.parametrize("text, slug", [
    ("No.018", "No.018"), ("PROMO015", "PROMO015"), ("zero-weight", "zero-weight"), ("魂魄妖夢", "魂魄妖夢"),
])
def test_path_slug_keeps_codes_that_are_already_safe(text, slug):
    assert path_slug(text) == slug


@pytest.mark.parametrize("text", ["<script>", "../etc", "a/b", "index", "a b", ".hidden", "", "x?y#z"])
def test_path_slug_makes_anything_else_safe_and_distinct(text):
    slug = path_slug(text)
    assert slug and not slug.startswith((".", "-")) and all(c.isalnum() or c in "._-" for c in slug)
    assert slug != text
    assert path_slug(text + "!") != slug


def test_esc_leaves_no_markup_and_no_attribute_break_out():
    assert esc('<a href="x">\'&') == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;"


class _Named(str):
    def __str__(self) -> str:
        return "<名前>"


@pytest.mark.parametrize("value", ["普通の文", "", "a&b", "'", 42, None, 1.5, _Named("x")])
def test_esc_gives_what_html_escape_of_the_values_text_gives(value):
    import html
    assert esc(value) == html.escape(str(value), quote=True)
    assert type(esc(value)) is str


def test_a_file_written_whole_holds_exactly_the_bytes_given_and_nothing_left_of_before(tmp_path):
    from rulesdsl.base.files import write_whole
    path = tmp_path / "page.html"
    write_whole(path, "長い長い前の中身".encode("utf-8") * 1000)
    write_whole(path, "短い".encode("utf-8"))
    assert path.read_bytes() == "短い".encode("utf-8")
    write_whole(str(tmp_path / "empty"), b"")
    assert (tmp_path / "empty").read_bytes() == b""


def test_heading_ids_are_japanese_slugs_made_unique_like_markdowns_toc():
    a = Anchors()
    assert a.new("バトルの勝敗") == "バトルの勝敗"
    assert a.new("バトルの勝敗") == "バトルの勝敗_1"
    assert a.new("No.018《須藤》") == "no018須藤"


def test_doc_search_entries_are_plain_text_per_section_with_their_anchor():
    doc = Doc("題<b>", "../")
    doc.p("前文<script>&")
    doc.h2("節")
    doc.p("本文")
    entries = doc.search_entries("grm/x.html", where="GRM", rank=0)
    assert entries[0] == Entry("grm/x.html", "題<b>", "前文<script>&", "GRM", (), 0)   # shown with textContent
    assert entries[1].url == "grm/x.html#節" and entries[1].text == "本文" and entries[1].where == "GRM ＞ 題<b>"


# ----------------------------------------------------------------------------- search

@pytest.mark.parametrize("text, terms", [
    ("裏向き", ["裏向", "向き"]),
    ("《火野 アラシ》", ["火野", "あら", "らし"]),      # katakana read as hiragana
    ("No.018", ["no.018", "no", "018"]),
    ("ＰＲＯＭＯ０１５", ["promo015"]),
    ("※未確定", ["未確", "確定"]),
    ("EXカード", ["ex", "かど"]),                     # and no long vowel mark
    ("30点以上", ["30", "30点", "点以", "以上"]),      # a number with its unit is a term
    ("裏", ["裏"]),
    ("<script>", ["script"]),
])
def test_search_cuts_text_into_character_pairs_and_latin_words(text, terms):
    assert tokenize(text) == terms


@pytest.mark.parametrize("typed, indexed", [
    ("すたっく", "スタック"), ("ｽﾀｯｸ", "スタック"), ("ガデイアン", "ガデイアン"), ("ガーディアン", "ガディアン"),
    ("３０点", "30点"), ("ＥＸカード", "EXカード"),
])
def test_search_normalises_what_readers_type_as_the_index_is(typed, indexed):
    from rulesdsl.wiki.search import normalize
    assert tokenize(typed) == tokenize(indexed)
    assert normalize(typed) == normalize(indexed)


@pytest.mark.parametrize("text", [
    "効果を使う …", "ＥＸ ²　①", "ｶﾞｰﾃﾞｨｱﾝ", "か\u3099ーど …", "゛と …", "e\u0301 ﬁ …", "\U0001d400 …", "普通の文",
    # katakana runs at either end, beside the long vowel mark and the kana around the folded range
    "ヴァンガード・ヵヶヷヽヾァ", "ーアーｰ", "ゟ゠ァヶ", "ascii only", "",
])
def test_search_normalises_text_exactly_as_nfkc_whatever_characters_it_maps_first(text):
    import unicodedata
    from rulesdsl.wiki.search import _FOLD, normalize
    assert normalize(text) == unicodedata.normalize("NFKC", text).lower().translate(_FOLD)


def test_a_glossary_entry_the_sources_do_not_define_is_no_exact_match_and_ranks_like_other_pages(tmp_path):
    from rulesdsl.wiki.search import Entry, UNDEFINED, postings, write_index
    undefined = Entry("g.html#x", "裏返す", f"{UNDEFINED}。資料での最初の用例: …", "", (), 0)
    assert not [t for t in postings(undefined) if t.startswith("=")]
    write_index(tmp_path, [Entry("r.html#x", "裏返す", "カードを裏返す。", "", (), 0), undefined,
                           Entry("r.html#y", "次", "…", "", (), 0), Entry("r.html#z", "次の次", "…", "", (), 2)])
    meta = (tmp_path / "search" / "meta.js").read_text(encoding="utf-8")
    # the undefined entry ranks 1; r.html#z is a further section of the page before it (2 + 5)
    assert '"rank":"0107"' in meta


def test_search_keys_squeeze_names_to_letters_and_digits():
    assert tokenize("30点") == ["30", "30点"]
    assert key("No.018《髭ヅラ体育教師・須藤》") == "no018髭づら体育教師須藤"      # kana folded as in the text
    assert key("※未確定") == "未確定"


def test_search_index_files_hold_every_terms_entries_and_only_call_the_loader(tmp_path):
    entries = [Entry(f"p{i}.html", f"題{i}", "裏向きのカード <script>x</script>" if i % 2 else "表向き", "", (), 1)
               for i in range(300)]
    stats = write_index(tmp_path, entries)
    assert stats["entries"] == 300
    files = list((tmp_path / "search").rglob("*.js"))
    postings: dict = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert text.startswith("__rdsearch.") and text.endswith(");\n") and "</" not in text
        if "/t/" in f.as_posix():
            head, _, body = text.partition(",")
            for term, (ids, weights) in json.loads(body[:-3]).items():
                postings[term] = [i for i, _ in decode(ids, weights)]
    assert postings["裏向"] == list(range(1, 300, 2)) and postings["表向"] == list(range(0, 300, 2))
    assert postings["=題7"] == [7]
    assert len(list((tmp_path / "search" / "d").glob("*.js"))) == 300 // DOCS_PER_SHARD


def test_search_postings_write_runs_once_and_read_back_as_they_were():
    ids = [0, 1, 2, 3, 4, 5, 9, 40, 41, 42, 43, 44, 100]
    weights = bytearray([1, 1, 1, 1, 1, 8, 9, 1, 1, 1, 1, 1, 35])
    written = _encode(ids, weights)
    assert written == ("0,1.5,4,v,1.4,1k", "1.5.891.5.z")            # runs of four or more, once
    assert decode(*written) == list(zip(ids, weights))
    assert decode(*_encode([7], bytearray([60]))) == [(7, 35)]         # a weight is at most 35


def test_search_parts_start_on_a_whole_file_of_entries():
    with pytest.raises(ValueError):
        SearchIndex(first=5)
    part = SearchIndex()
    part.extend(Entry(f"p{i}", "t", "x") for i in range(DOCS_PER_SHARD * 3 + 1))
    assert part.end == DOCS_PER_SHARD * 4


# ----------------------------------------------------------------------------- DSL text of a node

def test_statement_end_skips_braces_in_strings_triple_strings_and_comments():
    text = 'card x "a{" { b """}\n""" # }\n  c { d } }\nnext {}'
    assert text[:statement_end(text, 0)] == 'card x "a{" { b """}\n""" # }\n  c { d } }'
    assert "set a = b; x"[:statement_end("set a = b; x", 0)] == "set a = b"


def test_source_block_is_the_declaration_as_written(bundled):
    card = bundled.kb.card("grm", "No.018")
    block = SourceTexts(REPO).block(card.card.loc)
    assert block.startswith('card grm No.018 "髭ヅラ体育教師・須藤" {') and block.rstrip().endswith("}")
    assert "range all8" in block


# ----------------------------------------------------------------------------- the board

BOARD = {
    "cells": {f"{c}{r}": [] for c in "abc" for r in "123"},
    "hands": {"P1": ["手<b>札</b>"], "P2": []}, "decks": {"P1": 3, "P2": 0},
    "graveyards": {"P1": [], "P2": ["墓"]}, "active": "P2", "turn": 1,
}
BOARD["cells"]["b2"] = [
    {"name": "土台", "code": "土台", "owner": "P1", "face": "up", "hypothetical": True},
    {"name": "<script>上</script>", "code": "No.018", "owner": "P1", "face": "down", "hypothetical": False},
]
BOARD["cells"]["c2"] = [{"name": "重い", "code": "重い", "owner": "P2", "face": "up", "hypothetical": True}]


def test_board_is_a_3x3_grid_with_owner_face_and_stack_of_every_cell():
    html = render_board(BOARD, lambda code: "../No.018/" if code == "No.018" else None, "操作の後")
    assert html.count('<td class="rd-cell') == 9
    assert html.count('rd-empty') == 7
    assert 'data-cell="b2"' in html and 'rd-owner-1 rd-face-down' in html and 'rd-owner-2 rd-face-up' in html
    assert "P1・裏向き" in html and "P2・表向き" in html
    assert "下に1枚（上から）" in html and "表</span>P1《土台》" in html
    assert '<a href="../No.018/">《&lt;script&gt;上&lt;/script&gt;》</a>' in html   # a known card links to its page
    assert "P1の手札</th><td>《手&lt;b&gt;札&lt;/b&gt;》" in html and "P1の山札</th><td>3枚" in html
    assert "<script>" not in html


def test_board_is_left_out_when_the_interpreter_describes_nothing_it_can_draw():
    assert render_board(None) == "" and render_board({"cells": {"front": []}}) == "" and render_board({}) == ""


def test_board_shows_a_cards_weight_and_note_from_the_board():
    board = {"cells": {"a1": [{"name": "重い", "code": "重い", "owner": "P1", "face": "up", "weight": 60,
                                "note": "<b>負傷</b>", "hypothetical": True}]}}
    html = render_board(board)
    assert '<span class="rd-card-facts">60kg</span>' in html and "&lt;b&gt;負傷&lt;/b&gt;" in html


def test_board_draws_labelled_areas_of_cards_and_info_rows_generically():
    board = {"areas": [{"label": "P1 前列", "cards": [
                {"name": "妖夢", "code": "魂魄妖夢", "owner": "P1", "face": "down", "note": "負傷"},
                {"name": "仮", "code": "仮", "owner": "P1", "face": "up", "hypothetical": True, "power": 3}]},
                       {"label": "チェーン<i>", "cards": []}],
             "info": [["P1のスコア", 3], ["フェイズ", "<攻撃>"]]}
    html = render_board(board, lambda code: "../c.html" if code == "魂魄妖夢" else None, "前")
    assert html.count('class="rd-area"') == 2 and "P1 前列" in html and "チェーン&lt;i&gt;" in html
    assert '<a href="../c.html">《妖夢》</a>' in html and "rd-face-down" in html and "負傷" in html
    assert "power 3" in html and "なし" in html
    assert "<th>P1のスコア</th><td>3</td>" in html and "&lt;攻撃&gt;" in html
    assert "rd-grid" not in html and "<i>" not in html


# ----------------------------------------------------------------------------- pages of the bundled KB

def test_every_scenario_of_a_game_with_an_interpreter_gets_a_computed_answer(bundled):
    kb = bundled.kb
    for sid, info in kb.scenarios.items():
        a = bundled.answers[sid]
        if engine_for(info.game) is not None:
            assert a is not None and not isinstance(a, Failure), sid
        else:
            assert a is None, sid


def test_releasing_the_runs_keeps_what_later_pages_and_the_history_read(bundled):
    """Once the Q&A pages are made, the answers let go of their traces and boards (those of their
    answers under other readings went as the answers were computed): what the history and the index
    pages read of them (the record, what they say, their outcomes and status) is the same, and a
    scenario a ruling page shows with its trace keeps it."""
    import copy

    from rulesdsl.engine.answer import Answer
    from rulesdsl.engine.deciding import answer_key
    from rulesdsl.regress.records import record_of, verdict_of

    kb = bundled.kb
    pinned = {sid for sids in bundled.scenarios_for.values() for sid in sids}
    answered = [sid for sid, a in bundled.answers.items() if isinstance(a, Answer)]
    shown = [sid for sid in answered if sid in pinned][:15] + [sid for sid in answered if sid not in pinned][:40]
    w = Wiki(kb)
    w.answers = {sid: copy.deepcopy(bundled.answers[sid]) for sid in shown}

    def read(a):
        readings = [(r, answer_key(x), verdict_of(x), x.status, x.points, x.rulings) for r, x in a.readings.answers]
        return record_of(kb, kb.scenarios[a.scenario], a), answer_key(a), verdict_of(a), a.verdict(), readings

    before = {sid: read(a) for sid, a in w.answers.items()}
    w.release_runs(set(shown))
    assert {sid: read(a) for sid, a in w.answers.items()} == before
    assert any(b.steps for sid in shown if sid in pinned for b in w.answers[sid].branches)
    for sid in shown:
        a = w.answers[sid]
        assert all(b.steps == [] and b.before is None for _, x in a.readings.answers if x is not a for b in x.branches)
        kept = bundled.answers[sid].branches
        steps = [[s.as_dict() for s in b.steps] for b in a.branches]
        assert steps == ([[s.as_dict() for s in b.steps] for b in kept] if sid in pinned else [[] for _ in kept])


def test_settling_the_answers_leaves_every_page_but_the_qa_pages_as_they_were(bundled):
    """Once the Q&A pages are drawn and the history found, an answer no ruling page shows in full
    keeps only its status and whether its expectations hold (`Wiki.settle_answers`): every page
    still to be made (item and index pages, the Q&A pages aside) is the same as with the whole
    answers, and the answer of a scenario a ruling page pins stays whole."""
    from rulesdsl.engine.answer import Answer
    from rulesdsl.wiki.pages import render
    from rulesdsl.wiki.site import Settled

    # every bundled question is pinned by a ruling: here only those of the first game are
    first = bundled.games[0]
    pins = {k: sids for k, sids in bundled.scenarios_for.items() if k[0] == first}
    pinned = {sid for sids in pins.values() for sid in sids}
    whole, settled = Wiki(bundled.kb, today=bundled.today), Wiki(bundled.kb, today=bundled.today)
    for w in (whole, settled):
        w.answers = dict(bundled.answers)
        w.scenarios_for = pins
        w._changed = {}                 # the history is not what is compared here
    settled.settle_answers()
    kinds = {type(a) for sid, a in settled.answers.items() if sid not in pinned and isinstance(bundled.answers[sid], Answer)}
    assert kinds == {Settled}
    assert all(settled.answers[sid] is bundled.answers[sid] for sid in pinned)
    assert any(isinstance(settled.answers[sid], Answer) for sid in pinned)
    pages = [p for p in whole.pages + whole.items if p.kind != "scenario"]
    assert {p.kind for p in pages} >= {"card", "ruling", "qa", "review", "review_part"}
    for p in pages:
        root = Wiki.root_of(whole.url(p.src))
        assert render(settled, p, root).html() == render(whole, p, root).html(), p.src


def test_every_card_ruling_and_scenario_has_one_page_and_no_two_pages_share_a_path(bundled):
    kb = bundled.kb
    kinds = [p.kind for p in bundled.items]
    assert kinds.count("card") == len(kb.cards)
    assert kinds.count("ruling") == len(kb.rulings)
    assert kinds.count("scenario") == len(kb.scenarios)
    paths = [p.src for p in bundled.items + bundled.pages]
    assert len(paths) == len(set(paths))


def test_item_pages_are_kept_out_of_the_nav(bundled):
    from rulesdsl.wiki.plugin import WikiPlugin
    plugin = WikiPlugin()
    plugin.wiki = bundled
    nav = plugin.nav(["index.md", {"ゲーム": "rulesdsl:games"}, {"変更履歴": "changelog/index.md"}])

    def leaves(items):
        for item in items:
            if isinstance(item, dict):
                for v in item.values():
                    yield from (leaves(v) if isinstance(v, list) else [v])
            else:
                yield item
    srcs = list(leaves(nav))
    assert "grm/cards/index.md" in srcs and "grm/rulings/index.md" in srcs and "grm/qa/index.md" in srcs
    assert not set(srcs) & {p.src for p in bundled.items}
    assert len(srcs) < 120


def test_rule_section_anchors_are_the_japanese_heading_slugs(bundled):
    assert bundled.section_href("grm/battle/outcome") == "grm/rules/battle.html#バトルの勝敗"


def test_a_citation_links_to_its_heading_on_the_source_documents_page(bundled):
    href = bundled.source_href("000_a437c75d0e53c518.txt", "バトルの勝敗")
    assert href == "grm/sources/000_a437c75d0e53c518.html#L44"
    lines = bundled.kb.games["grm"].documents["000_a437c75d0e53c518.txt"].text.splitlines()
    assert lines[43] == "バトルの勝敗"
    assert 44 in bundled.cited_lines("000_a437c75d0e53c518.txt")


def test_glossary_definitions_are_quoted_from_the_sources_or_left_out():
    from rulesdsl.wiki.terms import define, names
    kb = load(REPO)
    docs = kb.games["grm"].documents
    assert define("体重", docs).text == "カードの重さを表す数値（単位：kg）。バトルの勝敗を決定する唯一のパラメータである。"
    assert define("スタック", docs).text == "特定の効果によって、場の既存カードの上に重ねてプレイすることをスタックと呼ぶ。"
    assert define("一番上", docs) is None          # used in the source, never defined
    assert names("表向き (オモテ) / 裏向き (ウラ)") == ["表向き  / 裏向き", "表向き", "裏向き"]


def test_a_definition_is_the_first_heading_of_the_term_whose_next_line_says_enough_in_document_order():
    from types import SimpleNamespace as Doc

    from rulesdsl.kb.sources import normalize_line
    from rulesdsl.wiki.terms import define
    docs = {"a.txt": Doc(text="前文\n【体重】\n短い\n\n# 体重\nカードの重さを表す数値である。\n"),
            "b.txt": Doc(text="体重\nこちらは二つ目の資料の定義である。\n")}
    found = define("体重", docs)       # the first heading's line is too short: the second one of a.txt
    assert (found.document, found.line, found.heading, found.text) == ("a.txt", 6, "# 体重", "カードの重さを表す数値である。")
    assert define("体重", {"b.txt": docs["b.txt"]}).line == 2
    assert define("重さ", docs) is None
    # the marks a line is read without, with and without the characters that start them
    assert normalize_line("・[[体重>x]]は &bold(){重さ}。") == "体重は重さ。"
    assert normalize_line("&size(20){大きい") == "大きい"
    assert normalize_line("　1. 普通の　行 ") == "普通の行"


def test_a_sentence_definition_or_first_use_is_the_first_line_naming_any_form_of_the_term_by_its_line_number():
    """Read line by line as `str.splitlines` cuts them (any line separator counts), lines naming
    none of the term's forms skipped; the first defining sentence, else the first use."""
    from types import SimpleNamespace as Doc

    from rulesdsl.wiki.terms import define, first_use
    docs = {"a.txt": Doc(text="表向きは見える。\r\n裏の話\x0c裏向きの札もある。\u2028ウラとは、伏せた札のことである。\n"),
            "b.txt": Doc(text="オモテとは、見せた札のことである。\n")}
    assert define("表向き (オモテ) / 裏向き (ウラ)", docs) is None     # named (lines 1 and 3), never defined
    found = define("ウラ / 裏向き", docs)
    assert (found.document, found.line, found.heading, found.text) == ("a.txt", 4, None, "ウラとは、伏せた札のことである。")
    assert define("オモテ", docs).document == "b.txt"
    assert (first_use("裏向き / ウラ", docs).line, first_use("裏向き / ウラ", docs).text) == (3, "裏向きの札もある。")
    assert first_use("(注)", docs) is None and define("(注)", docs) is None      # no form left once its remark is cut
    assert first_use("伏せ.札", docs) is None       # a form is text, not a pattern


def test_a_question_highlighted_with_its_last_line_break_is_its_source_block_then_the_break():
    """The Q&A page's editor highlights the page's own source block and adds the line break
    (ask_page._editor): a line break is always a token of its own."""
    from rulesdsl.kb.build import load as load_kb
    from rulesdsl.wiki.render import dsl_block
    from rulesdsl.wiki.source import SourceTexts
    kb = load_kb(REPO)
    texts = SourceTexts(kb.root)
    blocks = [texts.block(info.scenario.loc) for info in list(kb.scenarios.values())[::25]]
    blocks += ['card "A" {\n  text """二行の\n文字列"""\n}  # 終わりのコメント', "expect status unconfirmed"]
    for text in filter(None, blocks):
        alone, broken = dsl_block(text), dsl_block(text + "\n")
        cut = alone.rindex("</code>")
        assert broken == alone[:cut] + "\n" + alone[cut:], text


def test_highlighted_dsl_is_each_tokens_class_and_escaped_text_whether_its_html_was_kept_or_made(monkeypatch):
    """highlight_html keeps the HTML of short lines and tokens it has made (by text; a token by rule
    and text): the same blocks give what the lexer's tokens with their CSS classes give, the first
    time and again, and after the kept HTML is let go of when full, tokens that run past a line
    break included."""
    from rulesdsl.wiki import lexer as lexer_module
    from rulesdsl.wiki.render import _css_class

    def one_by_one(text: str) -> str:
        out = []
        for _, ttype, value in RulesLexer().get_tokens_unprocessed(text):
            cls = _css_class(ttype)
            value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            out.append(f'<span class="{cls}">{value}</span>' if cls else value)
        return "".join(out)

    files = sorted(glob.glob(str(REPO / "rulings" / "**" / "*.rules"), recursive=True))[:40]
    texts = [Path(f).read_text(encoding="utf-8") for f in files]
    texts += ['card grm "<a&b>" { weight 60kg; # <c>\n}\n', "  revision 2026-03 confirmed {\r\n  set a.b = c }",
              'text """三\n行\n"""', '"unterminated', "\u3000play x; expect never illegal", "",
              # blanks that the catch-all `\\s+` rule runs past a line break (the next line's head is then
              # no head), a string and a comment ending at a line's end, ids and numbers there
              "a\x0b\n  weight 60kg\n", "set x\xa0\nplay y", "x\r play\n\n", 'text "a\\\n  b"\n', "# c\n  d\n",
              "  status confirmed\n}\n  status confirmed\n}", "a.b\n3d\n2026-03\ncard\n(x)"]
    lexer = RulesLexer()
    for text in texts + texts:
        assert lexer.highlight_html(text, _css_class) == one_by_one(text), text[:60]
    monkeypatch.setattr(lexer_module, "MEMO", 3)
    monkeypatch.setattr(lexer_module, "MEMO_LINES", 2)
    small = RulesLexer()
    for text in texts + texts:
        assert small.highlight_html(text, _css_class) == one_by_one(text), text[:60]
        assert len(small._memo) <= 3 and len(small._lines) <= 2


@pytest.mark.parametrize("text, start, end", [
    ('card grm "a" {\n  weight 60kg; power 3\n  text "x;}{"\n}\nnext', 0, 53),
    ("a { b { c }; d\n e } f", 0, 19),          # nested braces; `;` and newlines inside end nothing
    ("a { # a comment } with a brace\n }", 0, 33),
    ('a { text """{\n;"""\n}', 0, 20),
    ("set x = y; z", 0, 9),                      # without a block: `;` or a newline ends it
    ("set x = y # note\nz", 0, 16),
    ("a; b { c }", 3, 10),
    ("a { never closed\n", 0, 17),
    ('a { text "}\\"}" }', 0, 17),            # an escaped quote does not close a string
    ('a { text "x\\\n}" }', 0, 17),           # nor does an escaped line break end it
    ('a { text "open\n} b', 0, 16),            # a string unclosed on its line ends there
    ('set x "a\\""; y', 0, 11),
    ('a { text "x\\', 0, 12),                  # a backslash last: the text's end
])
def test_a_statements_source_ends_past_its_closing_brace_or_at_its_lines_end(text, start, end):
    assert statement_end(text, start) == end


def test_changelog_marks_what_differs_between_two_answers_phrase_by_phrase():
    from rulesdsl.wiki.changes import verdict_ja
    from rulesdsl.wiki.phrases import answer_diff, phrase_diff, phrases
    # Japanese cut by script runs, a run keeping the hiragana that follow it (okurigana, particles)
    assert phrases("「バトルの解決順」を誰が選ぶかは資料に定めがない。") == \
        ["「", "バトルの", "解決順", "」", "を", "誰が", "選ぶかは", "資料に", "定めがない", "。"]
    assert "".join(phrases("P1表《100kg扱い》（2通り中1通り）")) == "P1表《100kg扱い》（2通り中1通り）"
    # a change is whole phrases, never single characters inside a word
    before, after = phrase_diff("「バトルの解決順」を誰が選ぶかは資料に定めがない。",
                                "「バトルの解決順」はP1が選ぶ（同時バトルの解決順は対象側のプレイヤーが選ぶ）。")
    assert before == "「バトルの解決順」<del>を誰が選ぶかは資料に定めがない</del>。"
    assert after == "「バトルの解決順」<ins>はP1が選ぶ（同時バトルの解決順は対象側のプレイヤーが選ぶ）</ins>。"
    # sentences both answers share are apart (the page folds them), the changed ones compared
    d = answer_diff("B1のカードは裏向き。「バトルの解決順」を誰が選ぶかは資料に定めがない。",
                    "B1のカードは裏向き。「バトルの解決順」はP1が選ぶ。")
    assert d.same == ["B1のカードは裏向き。"] and len(d.changed) == 1
    assert answer_diff("<a>。", "<b>。").changed == [("&lt;<del>a</del>&gt;。", "&lt;<ins>b</ins>&gt;。")]   # escaped
    assert answer_diff("A。B。", "A。").changed == [("<del>B。</del>", "")]
    assert verdict_ja("x — all 2 expectations hold") == "x（期待2件すべてが成り立つ）"


@pytest.fixture(scope="module")
def plain_wiki():
    """The bundled knowledge base's wiki, no answer computed."""
    return Wiki(load(REPO))


def test_a_changelog_reason_names_the_rule_point_by_its_title_and_the_values_by_their_labels(plain_wiki):
    from rulesdsl.wiki.changes import because_ja, expectation_ja
    from rulesdsl.wiki.common import Ctx
    ctx = Ctx(plain_wiki, Doc("t", "../"))
    said = because_ja(ctx, "grm", "optional.partial_execution: all_or_nothing (unconfirmed, default of "
                      "grm/effects/optional-mandatory) → allowed (provisional, grm/effects/partial-optional@2026-08)")
    text = re.sub(r"<[^>]+>", "", said)
    assert "optional.partial_execution" not in text and "all_or_nothing" not in text and "allowed" not in text
    assert "「一部のみを実行できる」" in text
    assert text.startswith("「複数のアクションを含む任意効果の一部のみの実行」が、「全て実行するか、発動しないかのどちらか」")
    assert "既定値" in text and "に変わった。" in text and "暫定裁定" in text
    assert because_ja(ctx, "grm", "the scenario itself changed") == "Q&Aの場面そのものが書き換えられた。"
    # whether the answer agrees with the Q&A, as a sentence, not 「期待との一致: 不一致 → 一致」
    assert expectation_ja(False, True) == "Q&Aが期待する答えと、改訂の前は一致しなかったが、改訂の後は一致する。"
    assert "→" not in expectation_ja(True, None)


def test_answers_that_a_revision_changed_alike_are_one_block(plain_wiki):
    from rulesdsl.regress.impact import Change
    from rulesdsl.wiki.changes import change_groups
    sids = [s for s, i in plain_wiki.kb.scenarios.items() if i.game == "grm"][:3]
    alike = [Change(s, "", "B1のカードは裏向き。「解決順」を誰が選ぶかは資料に定めがない。", "B1のカードは裏向き。「解決順」はP1が選ぶ。",
                    False, True, "unconfirmed", "confirmed", ["x"]) for s in sids[:2]]
    other = Change(sids[2], "", "A。", "B。", True, True, "unconfirmed", "unconfirmed", ["x"])
    groups = change_groups(plain_wiki, [*alike, other])
    assert [len(members) for members, _ in groups] == [2, 1]


def test_the_review_list_is_cards_and_a_page_per_game_and_status_kept_out_of_the_nav(plain_wiki):
    from rulesdsl.wiki.pages import render
    w = plain_wiki
    parts = [p for p in w.pages if p.kind == "review_part"]
    assert len(parts) == 3 * len(w.games) and all(p.src.startswith("review/") for p in parts)
    grm = next(p for p in parts if p.key == ("grm", "unconfirmed"))
    html = "".join(render(w, grm, "../").parts)
    assert "<table" not in html and 'class="rd-review-item"' in html
    assert set(re.findall(r'data-game="([^"]+)"', html)) == {"grm"}
    assert set(re.findall(r'data-status="([^"]+)"', html)) == {"unconfirmed"}
    review = "".join(render(w, next(p for p in w.pages if p.kind == "review"), "").parts)
    assert "<table" not in review and f'href="{w.url(grm.src)}"' in review and "data-rd-filter" in review


def test_the_trace_checks_and_set_up_spell_cells_as_the_question_does(plain_wiki):
    from rulesdsl.engine.runner import answer
    from rulesdsl.wiki.pages import render
    w = plain_wiki
    sid = "grm/qa/battle-adjacency-corner"        # the question writes A1, B1, A2, B2
    assert "A1" in w.kb.scenarios[sid].scenario.question
    w.answers[sid] = answer(w.kb, w.kb.scenarios[sid])
    page = next(p for p in w.items if p.key == sid)
    html = "".join(render(w, page, "../../").parts)
    article = re.sub(r"<pre.*?</pre>|<code.*?</code>", "", html, flags=re.S)     # the DSL is as written
    trace = article.split('<ol class="rd-trace">', 1)[1].split("</ol>", 1)[0]
    checks = article.split('<ul class="rd-expect">', 1)[1].split("</ul>", 1)[0]
    setup = article.split('<ol class="rd-setup">', 1)[1].split("</ol>", 1)[0]
    for part in (trace, checks, setup):
        assert re.search(r"[AB][12]", part) and not re.search(r"(?<![A-Za-z0-9.#/_-])[ab][12](?![0-9])", part), part
    assert "B1のカードは裏向き" in article


# ----------------------------------------------------------------------------- answers are computed

WRONG = '''
scenario grm/qa/wrong-expectation "重いカードに負けても表のまま？" {
  as of 2026-09-01
  card "軽い" { weight 30kg }
  card "重い" { weight 60kg }
  field b2 P1 "軽い" up
  hand P2 "重い"
  turn P2
  play P2 "重い" c2
  expect face b2 up
}
'''


@pytest.fixture(scope="module")
def wrong_corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("wrong")
    copy_game(root, "grm")
    write_files(root, {"rulings/grm/qa/wrong.rules": WRONG})
    return root


def test_a_scenario_whose_expectation_fails_stops_the_build_naming_it(wrong_corpus, tmp_path):
    result = build_site(wrong_corpus, tmp_path / "site")
    assert result.returncode != 0
    assert "grm/qa/wrong-expectation" in result.output
    assert "rulings/grm/qa/wrong.rules:2:1" in result.output
    assert "expectation(s) fail" in result.output
    assert not (tmp_path / "site" / "index.html").exists()


def test_keep_going_builds_and_marks_the_failing_scenario_on_its_page(wrong_corpus, tmp_path):
    result = build_site(wrong_corpus, tmp_path / "site", keep_going=True)
    assert result.returncode == 0, result.output
    page = (tmp_path / "site" / "grm" / "qa" / "wrong-expectation.html").read_text(encoding="utf-8")
    assert "この場面の答えは期待と一致しません" in page


def test_the_set_ups_the_answers_kept_are_let_go_of_once_the_q_and_a_pages_are_drawn_and_the_history_is_the_same(bundled):
    """The set-ups the answers' runs kept in the knowledge base's memo (`KEPT_SET_UPS`) are there
    while the Q&A pages are drawn (`find_changes`' meanwhile) and let go of before this process's
    share of the history, which finds the same changes as a history they are kept through."""
    from rulesdsl.wiki.site import KEPT_SET_UPS

    def kept() -> int:
        return sum(1 for k in bundled.kb.memo if type(k) is tuple and k[0] == KEPT_SET_UPS)

    through = Wiki(bundled.kb, today=bundled.today)
    through.answers = dict(bundled.answers)
    expected = through.find_changes()       # (no meanwhile: nothing is let go of in this process)
    assert kept() > 0 and expected
    w = Wiki(bundled.kb, today=bundled.today)
    w.answers = dict(bundled.answers)
    seen = []
    assert w.find_changes(meanwhile=lambda: seen.append(kept())) == expected
    assert seen[0] > 0 and kept() == 0


def test_forgetting_a_kind_of_memo_entries_leaves_the_others():
    from rulesdsl.kb.knowledge import KnowledgeBase
    kb = KnowledgeBase(root=REPO)
    kb.memo.update({("a", 1): 1, ("a", 2): 2, ("b", 1): 3, "a": 4, (): 5})
    kb.forget("a")
    assert kb.memo == {("b", 1): 3, "a": 4, (): 5}


def test_the_browser_s_question_texts_are_kept_past_the_q_and_a_pages_only_where_a_new_question_starts(bundled):
    """Once the Q&A pages are drawn (`find_changes`' meanwhile), the texts the browser's
    interpreter carries are let go of but the ones each game's page 「新しい質問」 starts from: the
    Q&A pages drawn meanwhile still had every text, and the new-question pages are the same."""
    from rulesdsl.wiki.ask_bundle import Bundle
    from rulesdsl.wiki.ask_page import template

    w = Wiki(bundled.kb, today=bundled.today)
    w.answers = dict(bundled.answers)
    texts = {sid: w.sources.block(info.scenario.loc) + "\n" for sid, info in w.kb.scenarios.items()}
    w.ask = Bundle(texts=dict(texts))
    before = {g: template(w, g) for g in w.kb.games}
    assert sum(t is not None for t in before.values()) >= 2
    seen = []
    w.find_changes(meanwhile=lambda: seen.append(dict(w.ask.texts)))
    assert seen == [texts]
    assert {g: template(w, g) for g in w.kb.games} == before
    assert len(w.ask.texts) == sum(t is not None for t in before.values()) < len(texts)
