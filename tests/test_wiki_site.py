"""The built wiki: the bundled knowledge base and a hostile corpus are each built once (with
`mkdocs build`, in a subprocess) and checked as files — links, nav, answers, escaping, search
index, no external assets — and, for the tests marked `browser`, in Debian's chromium driven by
Playwright, with the site served by `python -m http.server` on 127.0.0.1.

Run without a browser: `pytest -m "not browser"`. The browser tests skip (with the reason) when
chromium or Playwright is missing, except under CI (CI=true), where they must run.
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")

from rulesdsl.engine.registry import engine_for  # noqa: E402
from rulesdsl.engine.runner import answer  # noqa: E402
from rulesdsl.engine.sentences import cell_spelling  # noqa: E402
from rulesdsl.kb.build import load  # noqa: E402
from rulesdsl.wiki import testing  # noqa: E402
from rulesdsl.wiki.search import DOCS_PER_SHARD, decode  # noqa: E402
from rulesdsl.wiki.testing import (  # noqa: E402
    CARD_CODE,
    HOSTILE,
    IMG,
    JINJA,
    MD,
    REPO,
    RULING_ID,
    SCENARIO_ID,
    SEARCHES,
    XSS,
    build_site,
    find_chromium,
    serve,
    write_hostile_corpus,
)

browser = pytest.mark.browser  # registered in pyproject.toml


# ----------------------------------------------------------------------------- the built sites

@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wiki") / "site"
    result = build_site(REPO, out, strict=True)      # --strict: no warning (broken link, …) either
    assert result.returncode == 0, result.output
    return out


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    root = write_hostile_corpus(base / "kb")
    out = base / "site"
    result = build_site(root, out, extra_env={"RULESDSL_CACHE": str(base / "cache")})
    assert result.returncode == 0, result.output
    return out


def page(site: Path, url: str) -> str:
    url = unquote(url.split("#", 1)[0]) or "index.html"
    return (site / url).read_text(encoding="utf-8")


def card_url(site_root: Path, game: str, code: str) -> str:
    from rulesdsl.wiki.site import Wiki
    kb = load(site_root)
    return Wiki(kb).card_href(game, code)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self.ids: set[str] = set()
        self.scripts: list[str] = []
        self.handlers: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.title = ""
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for k, v in attrs:
            if k.startswith("on"):
                self.handlers.append((tag, f"{k}={v}"))
        if tag == "a" and a.get("href") is not None:
            self.links.append(("a", a["href"]))
        elif tag == "link" and a.get("href"):
            self.links.append(("link", a["href"]))
        elif tag in ("script", "img", "iframe", "source") and a.get("src"):
            self.links.append((tag, a["src"]))
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag in self._in:
            while self._in and self._in.pop() != tag:
                pass

    def handle_data(self, data):
        if self._in and self._in[-1] == "script":
            self.scripts.append(data)
        elif self._in and self._in[-1] == "title":
            self.title += data
        else:
            self.text.append(data)


def parse(html: str) -> _Links:
    p = _Links()
    p.feed(html)
    return p


def html_files(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# ----------------------------------------------------------------------------- files: the bundled site

_HREF = re.compile(r'<(?:a|link)\b[^>]*?\bhref="([^"]*)"|<(?:script|img)\b[^>]*?\bsrc="([^"]*)"')
_ID = re.compile(r'\bid="([^"]*)"')


def test_every_link_and_anchor_in_the_built_wiki_resolves(bundled_site):
    import html as _html
    site = bundled_site.resolve()
    texts = {f.resolve(): f.read_text(encoding="utf-8") for f in html_files(site)}
    ids: dict[Path, set] = {}
    resolved: dict[tuple, Path] = {}
    broken, checked = [], 0
    for f, text in texts.items():
        if f.name == "404.html":
            continue
        for m in _HREF.finditer(text):
            href = _html.unescape(m.group(1) or m.group(2))
            u = urlsplit(href)
            if u.scheme or u.netloc:
                continue
            path = unquote(u.path)
            key = (f.parent, path)
            target = resolved.get(key) if path else f
            if target is None:
                target = f.parent / path
                if path.endswith("/") or target.is_dir():
                    target = target / "index.html"
                target = resolved[key] = Path(os.path.normpath(target))
            checked += 1
            if target not in texts and not target.exists():
                broken.append((str(f.relative_to(site)), href))
            elif u.fragment and target in texts:
                if target not in ids:
                    ids[target] = {_html.unescape(i) for i in _ID.findall(texts[target])}
                if unquote(u.fragment) not in ids[target]:
                    broken.append((str(f.relative_to(site)), href))
    assert checked > 10_000
    assert broken == []


_ASSET = re.compile(r'<(?:link|script|img|iframe|source|video|audio|embed)\b[^>]*?\b(?:href|src)="([^"]*)"')


def test_the_wiki_loads_nothing_from_outside_the_site(bundled_site):
    outside = []
    for f in html_files(bundled_site):
        for href in _ASSET.findall(f.read_text(encoding="utf-8")):
            if urlsplit(href).netloc or href.startswith("//"):
                outside.append((f.name, href))
    for css in bundled_site.rglob("*.css"):
        outside += [(css.name, u) for u in re.findall(r"url\(\s*['\"]?(https?:[^)'\"]+)", css.read_text(encoding="utf-8"))]
        outside += [(css.name, u) for u in re.findall(r"@import\s+['\"]?(https?:[^'\";]+)", css.read_text(encoding="utf-8"))]
    assert outside == []
    home = page(bundled_site, "")
    assert 'lang="ja"' in home and "fonts.googleapis" not in home and "fonts.gstatic" not in home


def test_every_page_type_is_generated_for_the_bundled_knowledge_base(bundled_site):
    kb = load(REPO)
    from rulesdsl.wiki.site import Wiki
    w = Wiki(kb)
    for p in w.pages + w.items:
        assert (bundled_site / w.path(p.src)).exists(), p.src
    for url in ("index.html", "review.html", "changelog/index.html", "guide/statuses.html", "guide/propose.html",
                "grm/sources/000_a437c75d0e53c518.html"):
        assert (bundled_site / url).exists(), url
    assert not (bundled_site / "-rulesdsl-shell").exists()


def test_item_pages_are_not_in_any_pages_nav(bundled_site):
    for url in ("", "grm/cards/index.html", "grm/cards/No.018.html", "grm/rulings/battle/zero-weight.html"):
        html = page(bundled_site, url)
        nav = html.split('<nav class="md-nav md-nav--primary"', 1)[1].split('<div class="md-content"', 1)[0]
        nav = nav.split('md-nav--secondary', 1)[0]
        assert "カード" in nav and "変更履歴" in nav
        assert "No.018" not in nav and "zero-weight" not in nav and "stack-flips" not in nav
        assert "review/" not in nav          # the review list's pages per game and status either


def test_a_scenario_page_shows_the_answer_and_trace_the_interpreter_computes(bundled_site):
    kb = load(REPO)
    info = kb.scenarios["grm/qa/stack-flips-top-only"]
    a = answer(kb, info)
    html = page(bundled_site, "grm/qa/stack-flips-top-only.html")
    assert "インタプリタがビルド時に計算した答えです" in html
    text = "".join(parse(html).text)
    spell = cell_spelling(info.scenario.question)       # the question writes B2: so does the page
    positions = [text.find(spell(s.text)) for s in a.branches[0].steps]
    assert -1 not in positions and positions == sorted(positions)          # every step, in order
    for e in a.expectations:
        assert spell(e.text) in text
    assert html.count('<td class="rd-cell') == 18                           # the board, before and after
    assert "P1・裏向き" in html                                             # 《上》 turned face down


def test_a_royal_scenario_page_shows_the_chain_the_interpreter_resolves(bundled_site):
    kb = load(REPO)
    from rulesdsl.wiki.site import Wiki
    sid = "royal/qa/chain-mixed-speeds"
    a = answer(kb, kb.scenarios[sid])
    html = page(bundled_site, Wiki(kb).scenario_href(sid))
    assert "インタプリタがビルド時に計算した答えです" in html
    text = "".join(parse(html).text)
    positions = [text.find(s.text) for s in a.branches[0].steps]
    assert -1 not in positions and positions == sorted(positions)          # every link, in order
    assert "チェーンを最後に発動したカードから処理する" in text


def test_a_scenario_of_a_game_without_interpreter_says_its_answer_is_not_computed(hostile_site, monkeypatch, tmp_path):
    """(Every bundled game has its interpreter; the hostile corpus's game `evil` has none.)"""
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    kb = load(hostile_site.parent / "kb")
    sid = "evil/qa/hostile"
    assert engine_for(kb.scenarios[sid].game) is None
    from rulesdsl.wiki.site import Wiki
    html = page(hostile_site, Wiki(kb).scenario_href(sid))
    assert "答えは計算していません" in html and "rd-grid" not in html


def test_a_card_page_shows_facts_unknowns_effects_in_dsl_and_words_rulings_and_qa(bundled_site):
    html = page(bundled_site, "grm/cards/No.058.html")
    assert "<h1" in html and "No.058《KUAN》" in html
    assert "未収録" in html                                                  # unknown facts
    assert 'class="language-rules highlight"' in html and '<span class="kd">card</span>' in html
    assert "の効果を無効化する" in html                                         # effect in words
    assert 'class="rd-timeline"' in html and "統一裁定" in html               # its rulings as a timeline
    assert 'href="../../grm/rulings/effects/unified-nullification.html#rev-2026-summer"' in html


def test_rules_fences_in_hand_written_pages_are_highlighted_by_the_registered_lexer(bundled_site):
    html = page(bundled_site, "guide/propose.html")
    assert '<span class="kd">ruling</span>' in html and '<span class="nd">confirmed</span>' in html


def test_a_ruling_page_shows_revisions_supersession_points_and_pinning_scenarios(bundled_site):
    html = page(bundled_site, "grm/rulings/effects/unified-nullification.html")
    assert 'id="rev-2026-summer"' in html and "2026年夏" in html and 'rd-badge rd-confirmed' in html
    # the citation names the document by its title and links to the heading on the document's page
    assert ('<a class="rd-cite" href="../../../grm/sources/000_a437c75d0e53c518.html#L59" title="GRMカード ルールまとめ'
            in html and ">GRMカード ルールまとめ §効果の種類</a>" in html)
    assert "を置き換えた" in html and "effects.nullify_scope" in html
    assert html.index('class="rd-in-force') < html.index('id="改訂履歴"')      # the text in force comes first
    old = page(bundled_site, "grm/rulings/effects/classification.html")
    assert "に置き換えられた" in old and "置き換え済み" in old
    banner = old.split('<div class="rd-banner rd-banner-superseded"', 1)[1].split("</div>", 1)[0]
    assert "今有効なのは" in banner and 'href="../../../grm/rulings/effects/unified-nullification.html#rev-2026-summer"' in banner
    assert old.index("rd-banner") < old.index('id="改訂履歴"') and old.index("rd-banner") < old.index("rd-in-force")


def test_rules_show_each_sections_source_and_the_rulings_refining_it(bundled_site):
    html = page(bundled_site, "grm/rules/battle.html")
    assert 'id="バトルの勝敗"' in html                                       # Japanese heading anchors
    assert ">GRMカード ルールまとめ §バトルの勝敗</a>" in html
    assert 'class="rd-card-link">No.018《髭ヅラ体育教師・須藤》</a>' in html    # card names in rule text link
    section = html.split('id="バトルの勝敗"', 1)[1].split("<h2", 1)[0]
    assert "この節を補う裁定" in section and "0kgのカードを含むバトルも発生する" in section
    assert "rd-badge rd-confirmed" in section


def test_home_changelog_review_gaps_and_glossary_are_filled_from_the_knowledge_base(bundled_site):
    home = page(bundled_site, "")
    assert "最近の裁定の変更" in home and "状態別の件数" in home and "GRMカード" in home
    changelog = page(bundled_site, "changelog/2026.html").split("<article", 1)[1]
    assert "2026年8月" in changelog and "2026年夏" in changelog
    # each ruling change lists the answers it changed, from the impact data, the difference marked
    block = changelog.split("0kgのカードを含むバトルも発生する</a></p>", 1)[1].split("rd-change-head", 1)[0]
    assert "この改訂で変わった答え" in block and "rulings-zero-weight-after-march.html" in block
    assert "<del>" in block and "<ins>" in block
    assert "既定値" in block and "battle_occurs (unconfirmed" not in block      # the reason, in Japanese
    review = page(bundled_site, "review.html").split("<article", 1)[1]
    positions = [review.index(f'id="review-{s}"') for s in ("provisional", "unofficial", "unconfirmed")]
    assert positions == sorted(positions)                  # 暫定裁定, ※暫定ルール・非公式, then ※未確定
    jump = review.split('<ul class="rd-jump">', 1)[1].split("</ul>", 1)[0]
    assert jump.count('href="#review-') == 3 and "件" in jump
    for word in ("※未確定", "暫定裁定", "※暫定ルール・非公式"):   # the sources' own words
        assert re.search(f'<h2 id="[^"]*">{re.escape(word)} <small', review), word
    assert "自己対象不可とされるカードの一覧が空" in page(bundled_site, "grm/gaps.html")
    glossary = page(bundled_site, "grm/glossary.html").split("<article", 1)[1]
    stack = glossary.split('id="スタック"', 1)[1].split("<h2", 1)[0]
    assert "場の既存カードの上に重ねてプレイすることをスタックと呼ぶ。" in stack and "#L" in stack
    assert "資料に定義なし" in glossary.split('id="ロゴカード"', 1)[1].split("<h2", 1)[0]


def _text(html: str) -> str:
    import html as _html
    return _html.unescape(re.sub(r"<[^>]+>", "", html))


def test_the_changelog_marks_whole_phrases_says_its_reasons_in_words_and_folds_what_stayed(bundled_site):
    from rulesdsl.wiki.phrases import phrases
    changelog = page(bundled_site, "changelog/2026.html").split("<article", 1)[1].split("</article>", 1)[0]
    text = _text(changelog)
    # reasons in words: no rule point ids, no value names, no 「期待との一致: 不一致 → 一致」
    assert "optional.partial_execution" not in text and "battle.simultaneous_order" not in text
    assert "all_or_nothing" not in text and "期待との一致" not in text
    assert "Q&Aが期待する答えと、改訂の前は一致しなかったが、改訂の後は一致する。" in text
    assert "「複数のアクションを含む任意効果の一部のみの実行」が、" in text
    # grouped by game under each month; what stayed folded; answers that changed alike shown once
    assert re.search(r"<h3 [^>]*>2026年4月：GRMカード <small", changelog)
    assert '<details class="rd-unchanged">' in changelog and "件の答えが同じように変わった" in changelog
    assert "どの答えにも共通:" in changelog           # a revision's shared reason is said once
    # every mark starts and ends where a phrase does: never one character inside a word
    marks = 0
    for item in re.findall(r"<li><span class=\"rd-label\">改訂の(?:前|後)</span>(.*?)</li>", changelog, re.S):
        plain, cuts, pos = "", set(), 0
        for m in re.finditer(r"</?(?:del|ins)>|<[^>]+>|[^<]+", item):
            t = m.group()
            if t in ("<del>", "<ins>", "</del>", "</ins>"):
                cuts.add(len(plain))
            elif not t.startswith("<"):
                import html as _html
                plain += _html.unescape(t)
        bounds, pos = {0}, 0
        for ph in phrases(plain):
            pos += len(ph)
            bounds.add(pos)
        assert cuts <= bounds, (plain, sorted(cuts - bounds))
        marks += len(cuts)
    assert marks > 10


def test_the_review_list_is_one_card_per_item_with_a_page_per_game_and_status(bundled_site):
    review = page(bundled_site, "review.html").split("<article", 1)[1].split("</article>", 1)[0]
    assert "<table" not in review                            # no 状態 column repeated, no ゲーム column cut
    assert review.count('class="rd-review-item"') > 300 and "data-rd-filter" in review
    assert 'href="review/grm-unconfirmed.html"' in review
    part = page(bundled_site, "review/grm-unconfirmed.html").split("<article", 1)[1].split("</article>", 1)[0]
    assert "<table" not in part and set(re.findall(r'data-game="([^"]+)"', part)) == {"grm"}
    assert set(re.findall(r'data-status="([^"]+)"', part)) == {"unconfirmed"}
    assert part.count('class="rd-review-item"') == len(re.findall(
        r'<li class="rd-review-item" data-game="grm" data-status="unconfirmed">', review))
    assert 'aria-current="page"' in part and 'href="../review.html"' in part


def test_a_game_page_opens_with_what_the_game_is(bundled_site):
    for game, words in (("grm", "GRMカードは、2人で遊ぶカードゲームです。"), ("thgm", "東方グランドメレーは、2〜4人で遊ぶカードゲームです。")):
        html = page(bundled_site, f"{game}/index.html")
        article = html.split("<article", 1)[1]
        assert article.split('<p class="rd-lead">', 1)[1].startswith(words)
        assert article.index("rd-lead") < article.index("<table")


def test_a_source_document_is_a_page_with_its_cited_headings(bundled_site):
    html = page(bundled_site, "grm/sources/000_a437c75d0e53c518.html")
    assert '<h2 id="L44">バトルの勝敗' in html and 'id="L45"' in html
    assert "プレイしたカードの体重が相手カードの体重より重い場合のみバトルに勝利し" in html


def search_entries(site: Path) -> list[list]:
    rows = []
    for f in sorted((site / "search" / "d").glob("*.js"), key=lambda p: int(p.stem)):
        rows += json.loads(f.read_text(encoding="utf-8").split(",", 1)[1][:-3])
    return rows


def search_postings(site: Path) -> dict:
    """term -> {url: weight}, over every part of the index."""
    urls = {}
    for f in (site / "search" / "d").glob("*.js"):
        n = int(f.stem)
        for i, row in enumerate(json.loads(f.read_text(encoding="utf-8").split(",", 1)[1][:-3])):
            urls[n * DOCS_PER_SHARD + i] = row[0]
    out: dict = {}
    for f in (site / "search" / "t").rglob("*.js"):
        for term, (ids, weights) in json.loads(f.read_text(encoding="utf-8").split(",", 1)[1][:-3]).items():
            for n, w in decode(ids, weights):
                out.setdefault(term, {})[urls[n]] = w
    return out


def test_the_search_index_holds_every_page(bundled_site):
    locations = {row[0] for row in search_entries(bundled_site)}
    assert "grm/cards/No.054.html" in locations and "grm/rulings/battle/zero-weight.html" in locations
    assert "grm/qa/stack-flips-top-only.html" in locations and "guide/statuses.html#確定" in locations
    assert "grm/rules/battle.html#バトルの勝敗" in locations and "grm/glossary.html#スタック" in locations
    assert not any("-rulesdsl-shell" in loc for loc in locations)
    assert not (bundled_site / "search" / "search_index.json").exists()     # no lunr index to download


# ----------------------------------------------------------------------------- files: hostile content

def test_hostile_names_and_texts_are_inert_text_on_every_page(hostile_site):
    pages = html_files(hostile_site)
    assert len(pages) > 60
    seen = 0
    for f in pages:
        html = f.read_text(encoding="utf-8")
        p = parse(html)
        assert not [s for s in p.scripts if "__xss" in s], f
        assert not [h for h in p.handlers if "__xss" in h[1]], f
        assert not [href for _, href in p.links if href.strip().lower().startswith("javascript:")], f
        assert "<strong>太字</strong>" not in html and "<em>太字" not in html, f
        assert ">49<" not in html, f
        text = "".join(p.text)
        if "window.__xss=1" in text:
            seen += 1
            assert XSS in text and IMG in text and JINJA in text and MD in text, f
    assert seen >= 15   # card, card index, ruling, ruling index, Q&A, Q&A index, rules, home …


@pytest.mark.parametrize("url_of", ["card", "ruling", "scenario", "evil"])
def test_hostile_page_titles_and_headings_are_text(hostile_site, url_of):
    from rulesdsl.wiki.site import Wiki
    kb_root = hostile_site.parent / "kb"
    w = Wiki(load(kb_root))
    url = {"card": lambda: w.card_href("grm", CARD_CODE), "ruling": lambda: w.ruling_href(RULING_ID),
           "scenario": lambda: w.scenario_href(SCENARIO_ID), "evil": lambda: w.url(w.game_src("evil"))}[url_of]()
    p = parse(page(hostile_site, url))
    assert "window.__xss" in p.title and "<script>" in p.title        # the title element's text
    assert "<script>window.__xss" not in "".join(p.scripts)


def test_hostile_text_in_the_search_index_is_data_in_scripts_that_only_call_the_loader(hostile_site):
    files = list((hostile_site / "search").rglob("*.js"))
    assert files
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert text.startswith("__rdsearch.") and text.endswith(");\n") and "</script" not in text.lower()
        json.loads(text.split("(", 1)[1].split(",", 1)[1][:-3] if not text.startswith("__rdsearch.meta(")
                   else text[len("__rdsearch.meta("):-3])
    hits = [row for row in search_entries(hostile_site) if "window.__xss" in row[1] + row[3]]
    assert hits          # stored as plain text, shown with textContent (see the browser test)


def test_a_ruling_page_lists_every_revision_with_date_status_source_and_text(hostile_site):
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(hostile_site.parent / "kb"))
    html = page(hostile_site, w.ruling_href(RULING_ID))
    for rev, status, text in (("2025-01", "rd-unconfirmed", "最初の読み"), ("2025-06", "rd-provisional", "暫定裁定"),
                              ("2026-spring", "rd-confirmed", "統一裁定")):
        block = html.split(f'id="rev-{rev}"', 1)[1].split("<h3", 1)[0]
        assert status in block and "GRMカード ルールまとめ §バトルの勝敗" in block
        if rev == "2026-spring":      # the revision in force: its text opens the page
            assert "本文と理由はページの先頭に掲載しています" in block
            box = html.split('<div class="rd-in-force rd-in-force-confirmed">', 1)[1].split("</div>", 1)[0]
            assert text in box
        else:
            assert text in block


def test_writing_the_item_pages_in_two_processes_gives_the_same_site(hostile_site, tmp_path):
    out = tmp_path / "site"
    result = build_site(hostile_site.parent / "kb", out, extra_env={
        "RULESDSL_WIKI_JOBS": "2", "RULESDSL_CACHE": str(hostile_site.parent / "cache")})
    assert result.returncode == 0, result.output
    one = {p.relative_to(hostile_site): p.read_bytes() for p in html_files(hostile_site)}
    two = {p.relative_to(out): p.read_bytes() for p in html_files(out)}
    assert one.keys() == two.keys() and one == two

    # the index is written in two parts by the two processes: the same entries and postings
    assert sorted(map(tuple, search_entries(hostile_site))) == sorted(map(tuple, search_entries(out)))
    assert search_postings(hostile_site) == search_postings(out)
    # each part's entries in the pages' order, though the forked writer makes its files last page
    # first: the two parts' entries are two runs of the one process's order, one after the other
    order = {tuple(row): n for n, row in enumerate(search_entries(hostile_site))}
    assert len(order) == len(search_entries(hostile_site))
    places = [order[tuple(row)] for row in search_entries(out)]
    assert sum(b < a for a, b in zip(places, places[1:])) == 1


# ----------------------------------------------------------------------------- in a browser

@pytest.fixture(scope="session")
def bundled_url(bundled_site):
    with serve(bundled_site) as base:
        yield base


@pytest.fixture(scope="session")
def hostile_url(hostile_site):
    with serve(hostile_site) as base:
        yield base


@pytest.fixture(scope="session")
def bundled_file_url(bundled_site):
    """The built site opened as files, as a reader who unpacked it into a folder would."""
    return bundled_site.resolve().as_uri() + "/"


class Watch:
    """A page with its console errors, uncaught errors, dialogs and outside requests recorded."""

    def __init__(self, browser, width: int = 1280, height: int = 900, dark: bool = False) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           color_scheme="dark" if dark else "light")
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: self.outside.append(r.url)
                     if not r.url.startswith(("http://127.0.0.1", "file://", "data:", "blob:")) else None)

    def search(self, base: str, query: str, reload: bool = True) -> list[tuple[str, str]]:
        """Type `query` into the search box; (href relative to `base`, title) of the results shown."""
        pg = self.page
        if reload or not pg.url.startswith(base):
            pg.goto(base + "index.html")
        box = pg.locator("input.md-search__input")
        if not box.is_visible():                        # a phone: the box opens from the header
            pg.click("label.md-header__button[for=__search]")
        box.fill(query)
        # the search marks its result list with the query once the results for it are shown
        pg.wait_for_selector(f".md-search-result[data-rd-query={json.dumps(query, ensure_ascii=False)}]", state="attached")
        self.meta = pg.inner_text(".md-search-result__meta")
        items = pg.locator(".md-search-result__item > a")
        return [(items.nth(i).get_attribute("href").removeprefix(base), items.nth(i).locator("h1").inner_text())
                for i in range(items.count())]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def watch(chromium):
    w = Watch(chromium)
    yield w
    w.close()


@browser
def test_home_page_loads_without_console_errors_or_outside_requests(watch, bundled_url):
    watch.page.goto(bundled_url)
    watch.page.wait_for_load_state("networkidle")
    assert watch.page.locator("h1").first.inner_text().startswith("rulesdsl 裁定wiki")
    assert watch.page.locator("table").first.is_visible()
    assert watch.errors == [] and watch.outside == []


@browser
@pytest.mark.parametrize("scheme", ["http", "file"])
def test_a_card_page_is_reached_from_the_home_page_through_the_card_index(watch, bundled_url, bundled_file_url, scheme):
    base = bundled_url if scheme == "http" else bundled_file_url
    pg = watch.page
    pg.goto(base + "index.html")
    pg.locator("article table a", has_text="18枚").first.click()
    pg.wait_for_url("**/grm/cards/index.html")
    pg.locator("article table a", has_text="火野 アラシ").first.click()
    pg.wait_for_url("**/grm/cards/No.054.html")
    assert "No.054《火野 アラシ》" in pg.locator("h1").inner_text()
    assert pg.locator("article .highlight code").first.is_visible()
    assert watch.errors == []


@browser
def test_from_a_folder_every_nav_link_lands_on_a_page_not_a_directory_listing(watch, bundled_file_url, bundled_site):
    pg = watch.page
    pg.goto(bundled_file_url + "index.html")
    hrefs = pg.eval_on_selector_all("nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")
    targets = sorted({h.split("#", 1)[0] for h in hrefs if h.startswith("file://")})
    assert len(targets) > 30
    for url in targets:
        assert url.endswith(".html"), url                # a folder would open as a directory listing
        pg.goto(url)
        assert pg.locator("article h1").count() == 1, url
    # and a link inside a page: the changelog from the home page
    pg.goto(bundled_file_url + "index.html")
    pg.locator("article a", has_text="変更履歴").first.click()
    pg.wait_for_url("**/changelog/index.html")
    assert pg.locator("article h1").inner_text() == "変更履歴"
    assert watch.errors == []


# ----------------------------------------------------------------------------- search, in the browser



@pytest.fixture(scope="session", params=["http", "file"])
def searcher(request, chromium, bundled_url, bundled_file_url):
    """One page per way of opening the site, used by every search test."""
    w = Watch(chromium)
    w.base = bundled_url if request.param == "http" else bundled_file_url
    w.page.goto(w.base + "index.html")
    yield w
    w.close()


@browser
@pytest.mark.parametrize("query, expected", SEARCHES, ids=[q for q, _ in SEARCHES])
def test_search_puts_the_page_that_defines_a_word_in_the_first_five(searcher, query, expected):
    results = searcher.search(searcher.base, query, reload=False)
    top = [unquote(href) for href, _ in results[:5]]
    assert expected in top, (query, top)
    assert searcher.errors == [] and searcher.outside == []


@browser
def test_search_tokenizes_in_the_browser_as_the_build_does(searcher):
    from rulesdsl.wiki.search import key, term_hash, tokenize
    samples = ["裏向きになる", "《火野 アラシ》", "No.018《髭ヅラ体育教師・須藤》", "ＰＲＯＭＯ０１５", "※未確定（暫定）",
               "EXカードは1枚", "ｶﾞｰﾃﾞｨｱﾝ", "2026-summer", "体重60kg"]
    got = searcher.page.evaluate("xs => xs.map(x => [window.__rdsearch.tokenize(x), window.__rdsearch.key(x),"
                                 " window.__rdsearch.termHash(x)])", samples)
    assert got == [[tokenize(x), key(x), term_hash(x)] for x in samples]


@browser
def test_search_loads_only_the_pieces_a_query_needs(chromium, bundled_url):
    w = Watch(chromium)
    loaded: list[str] = []
    w.page.on("request", lambda r: loaded.append(r.url))
    w.page.goto(bundled_url + "index.html")
    w.page.wait_for_load_state("networkidle")
    assert not [u for u in loaded if "/search/" in u]            # nothing before a query
    shown = w.search(bundled_url, "体重", reload=False)
    pieces = [u for u in loaded if "/search/" in u]
    terms = [u for u in pieces if "/search/t/" in u]
    entries = [u for u in pieces if "/search/d/" in u]
    assert any(u.endswith("search/meta.js") for u in pieces) and len(pieces) == 1 + len(terms) + len(entries)
    # its two terms (体重 and the exact name =体重), one shard each in every part of the index
    assert len(terms) == 2 * len({u.split("/search/t/")[1].split("/")[0] for u in terms}) <= 4, terms
    assert 0 < len(entries) <= min(len(shown), 10), entries                  # only the entries shown
    w.close()


@browser
def test_a_query_typed_key_by_key_loads_each_piece_once(chromium, bundled_url):
    """As an input method commits 「裏」「裏向」「裏向き」…: what an earlier prefix loaded is reused."""
    w = Watch(chromium)
    loaded: list[str] = []
    w.page.on("request", lambda r: loaded.append(r.url) if "/search/" in r.url else None)
    w.page.goto(bundled_url + "index.html")
    for prefix in ("裏", "裏向", "裏向き", "裏向きに", "裏向きにな", "裏向きになる"):
        w.search(bundled_url, prefix, reload=False)
    back = w.search(bundled_url, "裏向き", reload=False)            # back to a prefix already shown
    assert "grm/rules/state.html#表向き裏向き" in [unquote(href) for href, _ in back[:5]]
    assert len(loaded) == len(set(loaded)), sorted(u for u in loaded if loaded.count(u) > 1)
    assert w.errors == []
    w.close()


@browser
def test_a_ruling_page_shows_its_revisions(watch, hostile_url, hostile_site):
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(hostile_site.parent / "kb"))
    pg = watch.page
    pg.goto(hostile_url + w.ruling_href(RULING_ID))
    headings = pg.locator("article h3[id^='rev-']")
    assert headings.count() == 3
    assert [headings.nth(i).inner_text() for i in range(3)][0].startswith("2025年1月")
    assert pg.locator("article h3[id='rev-2026-spring'] ~ table .rd-badge.rd-confirmed").first.is_visible()
    assert watch.dialogs == [] and pg.evaluate("window.__xss") is None


@browser
def test_a_superseded_ruling_opens_with_a_banner_linking_the_ruling_in_force(watch, bundled_url):
    pg = watch.page
    pg.goto(bundled_url + "grm/rulings/effects/classification.html")
    banner = pg.locator("article .rd-banner")
    assert banner.is_visible() and banner.bounding_box()["y"] < 400
    banner.locator("a", has_text="統一裁定").first.click()
    pg.wait_for_url("**/grm/rulings/effects/unified-nullification.html#rev-2026-summer")
    assert pg.locator("article .rd-in-force .rd-badge.rd-confirmed").is_visible()


@browser
def test_a_board_picture_renders_with_the_stack_and_face_states(watch, bundled_url):
    pg = watch.page
    pg.goto(bundled_url + "grm/qa/stack-flips-top-only.html")
    board = pg.locator("figure.rd-board").first
    assert board.is_visible()
    assert board.locator("td.rd-cell").count() == 9
    b2 = board.locator("td[data-cell='b2']")
    assert "P1・表向き" in b2.inner_text() and "下に1枚" in b2.inner_text()
    after = pg.locator("figure.rd-board").nth(1).locator("td[data-cell='b2'] .rd-card")
    assert "rd-face-down" in after.get_attribute("class") and after.bounding_box()["height"] > 10
    assert watch.errors == []


# ----------------------------------------------------------------------------- phones

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(chromium):
    w = Watch(chromium, **PHONE)
    yield w
    w.close()


def one_page_of_every_kind() -> list[str]:
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(REPO))
    seen: dict[str, str] = {}
    for p in w.pages + w.items:
        seen.setdefault(p.kind, w.url(p.src))
    # the Q&A pages of every game (their boards and answers differ)
    for game in w.games:
        sid = next(s for s, i in w.kb.scenarios.items() if i.game == game)
        seen[f"scenario-{game}"] = w.scenario_href(sid)
    odds = [w.scenario_href(s) for s, i in w.kb.scenarios.items() if "odds" in s][:1]     # an odds table
    return sorted(set(seen.values()) | set(odds) | {"index.html", "guide/statuses.html", "guide/propose.html"})


@browser
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_no_page_is_wider_than_a_phone_screen(chromium, bundled_url, dark):
    w = Watch(chromium, dark=dark, **PHONE)
    wide = []
    for url in one_page_of_every_kind():
        w.page.goto(bundled_url + url)
        width = w.page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide.append((url, width))
    # a table wider than the screen scrolls inside itself
    w.page.goto(bundled_url + "grm/index.html")
    overflow = w.page.eval_on_selector_all(".md-typeset__scrollwrap", "els => els.map(e => getComputedStyle(e).overflowX)")
    w.close()
    assert wide == []
    assert overflow and set(overflow) <= {"auto", "scroll"}


@browser
def test_the_review_pages_fit_a_phone_with_nothing_cut(chromium, bundled_url, bundled_site):
    w = Watch(chromium, **PHONE)
    urls = ["review.html"] + sorted(f"review/{p.name}" for p in (bundled_site / "review").glob("*.html"))
    cut = []
    for url in urls:
        laid_out(w.page, bundled_url + url)
        w.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")   # the folded too
        width = w.page.evaluate("document.documentElement.scrollWidth")
        inner = w.page.evaluate("[...document.querySelectorAll('article *')].filter(e => "
                                "e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')"
                                ".map(e => e.tagName + '.' + e.className)")
        if width > PHONE["width"] or inner:
            cut.append((url, width, inner[:3]))
    w.close()
    assert len(urls) > 3 and cut == []


@browser
def test_the_review_list_filters_in_place_by_game_and_status(phone, bundled_url, bundled_site):
    pg = phone.page
    laid_out(pg, bundled_url + "review.html")
    every = pg.locator(".rd-review-item").count()
    assert pg.locator("[data-rd-filter] select").count() == 2 and pg.locator("[data-rd-filter]").is_visible()
    pg.select_option("[data-rd-filter] select >> nth=0", "grm")
    pg.select_option("[data-rd-filter] select >> nth=1", "unconfirmed")
    shown = pg.locator(".rd-review-item:visible")
    expected = page(bundled_site, "review/grm-unconfirmed.html").split("<article", 1)[1].count('class="rd-review-item"')
    assert 0 < shown.count() == expected < every
    assert set(shown.evaluate_all("els => els.map(e => e.dataset.game + '/' + e.dataset.status)")) == {"grm/unconfirmed"}
    assert pg.locator(".rd-review-shown").inner_text() == f"表示中: {expected}件"
    pg.select_option("[data-rd-filter] select >> nth=0", "")
    pg.select_option("[data-rd-filter] select >> nth=1", "")
    assert pg.locator(".rd-review-shown").inner_text() == f"表示中: {every}件"
    assert phone.errors == []


@browser
@pytest.mark.parametrize("sid", ["grm/qa/stack-flips-top-only", "grm/qa/rulings-zero-weight-before-march"])
def test_the_answer_is_on_the_first_phone_screen(phone, bundled_url, sid):
    from rulesdsl.wiki.site import Wiki
    url = Wiki(load(REPO)).scenario_href(sid)
    pg = phone.page
    pg.goto(bundled_url + url)
    for selector in (".rd-question", ".rd-answer .rd-sentence", ".rd-answer .rd-badge", ".rd-answer .rd-asof"):
        box = pg.locator(f"article {selector}").first.bounding_box()
        assert box and box["y"] + box["height"] <= PHONE["height"], (selector, box)
    assert pg.locator("article .rd-answer .rd-sentence").first.inner_text()
    assert pg.locator("article h2").first.bounding_box()["y"] > pg.locator("article .rd-answer").first.bounding_box()["y"]


@browser
def test_search_works_on_a_phone(phone, bundled_url):
    results = phone.search(bundled_url, "体重")
    assert "grm/rules/card.html#体重" in [unquote(h) for h, _ in results[:5]]


@browser
def test_an_xss_payload_in_a_card_name_is_shown_as_text_and_runs_no_script(watch, hostile_url, hostile_site):
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(hostile_site.parent / "kb"))
    pg = watch.page
    for url in (w.card_href("grm", CARD_CODE), "grm/cards/index.html", w.scenario_href(SCENARIO_ID), w.ruling_href(RULING_ID),
                w.url(w.game_src("evil")), "index.html", "review.html", "grm/rules/test.html"):
        pg.goto(hostile_url + url)
        assert pg.evaluate("window.__xss") is None, url
    pg.goto(hostile_url + w.card_href("grm", CARD_CODE))
    assert XSS in pg.locator("h1").inner_text()
    assert pg.locator("article script").count() == 0 and pg.locator("article img").count() == 0
    results = watch.search(hostile_url, "毒")
    assert results and any("window.__xss" in title for _, title in results)
    assert pg.locator(".md-search-result script, .md-search-result img").count() == 0
    assert pg.evaluate("window.__xss") is None
    assert watch.dialogs == [] and watch.errors == []
    assert HOSTILE   # the whole payload is what the corpus puts in names and texts


# ----------------------------------------------------------------------------- anyone can use it

@pytest.fixture(scope="session")
def axe():
    """axe-core's script (tools/axe, installed with `npm ci` from its lock when missing)."""
    script, reason = testing.find_axe()
    if script is None:
        if os.environ.get("CI"):
            pytest.fail(f"the accessibility tests must run in CI: {reason}")
        pytest.skip(reason)
    return script.read_text(encoding="utf-8")


# what axe reports as moderate or minor but the wiki holds to as well
A11Y_RULES_ALWAYS = {"landmark-unique", "empty-table-header", "scrollable-region-focusable", "button-name",
                     "label-content-name-mismatch", "aria-allowed-role", "link-name"}


def laid_out(pg, url: str) -> None:
    """Open `url` and wait until the wiki's page script has run (after the theme's)."""
    pg.goto(url)
    pg.wait_for_selector("body[data-rd-page=ready]", state="attached")


@browser
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("width", [1280, PHONE["width"]], ids=["desktop", "phone"])
def test_axe_finds_no_serious_or_critical_violation_on_any_page_kind(chromium, bundled_url, axe, width, dark):
    w = Watch(chromium, width=width, height=PHONE["height"], dark=dark)
    found = []
    for url in one_page_of_every_kind():
        laid_out(w.page, bundled_url + url)
        w.page.add_script_tag(content=axe)
        violations = w.page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => [v.id, v.impact, v.nodes.slice(0, 3).map(n => n.target.join(' '))])")
        found += [(url, *v) for v in violations if v[1] in ("serious", "critical") or v[0] in A11Y_RULES_ALWAYS]
    w.close()
    assert found == []


@browser
def test_every_navigation_toggle_has_a_name_and_every_landmark_one_of_its_own(chromium, bundled_url):
    w = Watch(chromium, **PHONE)
    laid_out(w.page, bundled_url + "grm/cards/index.html")
    toggles = w.page.eval_on_selector_all(
        "label.md-nav__link[tabindex]", "els => els.map(e => e.textContent.trim())")
    navs = w.page.eval_on_selector_all(
        "nav:not([role=none])", "els => els.map(e => e.getAttribute('aria-label') ||"
        " (document.getElementById(e.getAttribute('aria-labelledby') || '') || {}).textContent || '')")
    w.close()
    assert len(toggles) >= 4 and all(toggles), toggles
    assert "GRMカードの項目" in toggles
    names = [n.strip() for n in navs]
    assert all(names) and len(names) == len(set(names)), names


FOCUS_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  // the theme's colour switch is a hidden radio button whose label, next to it, shows the focus
  const t = e.matches('input.md-option') && e.nextElementSibling ? e.nextElementSibling : e;
  const s = getComputedStyle(t), r = t.getBoundingClientRect();
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1;
  const shadow = s.boxShadow && s.boxShadow !== 'none';
  const shown = r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0
    && r.top < innerHeight && r.left < innerWidth && s.visibility !== 'hidden';
  return [e.tagName + (e.className ? '.' + String(e.className).split(' ')[0] : '') + ' ' + (e.textContent || '').trim().slice(0, 20),
          outline || shadow, shown];
}"""


@browser
@pytest.mark.parametrize("width", [1280, PHONE["width"]], ids=["desktop", "phone"])
@pytest.mark.parametrize("url", ["index.html", "grm/qa/stack-flips-top-only.html"])
def test_every_tab_stop_shows_where_the_focus_is(chromium, bundled_url, width, url):
    w = Watch(chromium, width=width, height=PHONE["height"])
    laid_out(w.page, bundled_url + url)
    stops, hidden = [], []
    for _ in range(60):                             # the header, the nav and the first screens of the page
        w.page.keyboard.press("Tab")
        got = w.page.evaluate(FOCUS_JS)
        if got is None:
            break
        stops.append(got[0])
        if not (got[1] and got[2]):
            hidden.append(got)
    w.close()
    assert len(stops) > 10
    assert hidden == []
