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
from rulesdsl.kb import load  # noqa: E402
from rulesdsl.wiki import testing  # noqa: E402
from rulesdsl.wiki.testing import (CARD_CODE, HOSTILE, IMG, JINJA, MD, REPO, RULING_ID,  # noqa: E402
                                   SCENARIO_ID, XSS, build_site, find_chromium, serve, write_hostile_corpus)


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
    path = site / unquote(url)
    return (path / "index.html" if url.endswith("/") or not url else path).read_text(encoding="utf-8")


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
        assert (bundled_site / w.path(p.src) / "index.html").exists(), p.src
    for url in ("", "review/", "changelog/", "guide/statuses/", "guide/propose/"):
        assert (bundled_site / url / "index.html").exists(), url
    assert not (bundled_site / "-rulesdsl-shell").exists()


def test_item_pages_are_not_in_any_pages_nav(bundled_site):
    for url in ("", "grm/cards/", "grm/cards/No.018/", "grm/rulings/battle/zero-weight/"):
        html = page(bundled_site, url)
        nav = html.split('<nav class="md-nav md-nav--primary"', 1)[1].split('<div class="md-content"', 1)[0]
        nav = nav.split('md-nav--secondary', 1)[0]
        assert "カード" in nav and "変更履歴" in nav
        assert "No.018" not in nav and "zero-weight" not in nav and "stack-flips" not in nav


def test_a_scenario_page_shows_the_answer_and_trace_the_interpreter_computes(bundled_site):
    kb = load(REPO)
    info = kb.scenarios["grm/qa/stack-flips-top-only"]
    a = answer(kb, info)
    html = page(bundled_site, "grm/qa/stack-flips-top-only/")
    assert "インタプリタがビルド時に計算した答えです" in html
    text = "".join(parse(html).text)
    positions = [text.find(s.text) for s in a.branches[0].steps]
    assert -1 not in positions and positions == sorted(positions)          # every step, in order
    for e in a.expectations:
        assert e.text in text
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


def test_a_scenario_of_a_game_without_interpreter_says_its_answer_is_not_computed(bundled_site):
    kb = load(REPO)
    sid = next((s for s, i in kb.scenarios.items() if engine_for(i.game) is None), None)
    if sid is None:
        pytest.skip("every bundled game has an interpreter")
    from rulesdsl.wiki.site import Wiki
    html = page(bundled_site, Wiki(kb).scenario_href(sid))
    assert "答えは計算していません" in html and "rd-grid" not in html


def test_a_card_page_shows_facts_unknowns_effects_in_dsl_and_words_rulings_and_qa(bundled_site):
    html = page(bundled_site, "grm/cards/No.058/")
    assert "<h1" in html and "No.058《KUAN》" in html
    assert "未収録" in html                                                  # unknown facts
    assert 'class="language-rules highlight"' in html and '<span class="kd">card</span>' in html
    assert "の効果を無効化する" in html                                         # effect in words
    assert 'class="rd-timeline"' in html and "統一裁定" in html               # its rulings as a timeline
    assert 'href="../../../grm/rulings/effects/unified-nullification/#rev-2026-summer"' in html


def test_rules_fences_in_hand_written_pages_are_highlighted_by_the_registered_lexer(bundled_site):
    html = page(bundled_site, "guide/propose/")
    assert '<span class="kd">ruling</span>' in html and '<span class="nd">confirmed</span>' in html


def test_a_ruling_page_shows_revisions_supersession_points_and_pinning_scenarios(bundled_site):
    html = page(bundled_site, "grm/rulings/effects/unified-nullification/")
    assert 'id="rev-2026-summer"' in html and "2026年夏" in html and 'rd-badge rd-confirmed' in html
    assert "000_a437c75d0e53c518.txt §効果の種類" in html
    assert "を置き換えた" in html and "effects.nullify_scope" in html
    old = page(bundled_site, "grm/rulings/effects/classification/")
    assert "に置き換えられた" in old and "置き換え済み" in old


def test_rules_show_each_sections_source_and_the_rulings_refining_it(bundled_site):
    html = page(bundled_site, "grm/rules/battle/")
    assert 'id="バトルの勝敗"' in html                                       # Japanese heading anchors
    assert "出典: 000_a437c75d0e53c518.txt §バトルの勝敗" in html
    section = html.split('id="バトルの勝敗"', 1)[1].split("<h2", 1)[0]
    assert "この節を補う裁定" in section and "0kgのカードを含むバトルも発生する" in section
    assert "rd-badge rd-confirmed" in section


def test_home_changelog_review_gaps_and_glossary_are_filled_from_the_knowledge_base(bundled_site):
    home = page(bundled_site, "")
    assert "最近の裁定の変更" in home and "状態別の件数" in home and "GRMカード" in home
    changelog = page(bundled_site, "changelog/2026/")
    assert "2026年8月" in changelog and "2026年夏" in changelog
    # each ruling change lists the answers it changed, from the impact data
    assert "0kgのカードを含むバトルも発生する（2026年3月）で変わった答え" in changelog
    assert "grm/qa/rulings-zero-weight-after-march" in changelog or "rulings-zero-weight-after-march/" in changelog
    assert "battle.zero_weight: battle_occurs (unconfirmed, default of grm/battle/occurrence) → " in changelog
    review = page(bundled_site, "review/")
    for word in ("※未確定", "暫定", "非公式"):
        assert re.search(f'<h2 id="[^"]*">{re.escape(word)} <small', review), word
    assert "自己対象不可とされるカードの一覧が空" in page(bundled_site, "grm/gaps/")
    assert "スタック" in page(bundled_site, "grm/glossary/")


def test_the_search_index_holds_every_item_page_with_escaped_text(bundled_site):
    data = json.loads((bundled_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {d["location"] for d in data["docs"]}
    assert "grm/cards/No.054/" in locations and "grm/rulings/battle/zero-weight/" in locations
    assert any(d["location"].startswith("grm/qa/stack-flips-top-only/") for d in data["docs"])
    assert not any("-rulesdsl-shell" in loc for loc in locations)
    sep = data["config"]["separator"]
    for ch in "・《》「」『』（）※":
        assert ch in sep
    assert "." not in sep.replace("\\.", "")


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


def test_hostile_text_in_the_search_index_is_escaped(hostile_site):
    data = json.loads((hostile_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    hits = [d for d in data["docs"] if "window.__xss" in d["title"] + d["text"]]
    assert hits
    for d in hits:
        assert "<script" not in d["title"] + d["text"] and "<img" not in d["title"] + d["text"]


def test_a_ruling_page_lists_every_revision_with_date_status_source_and_text(hostile_site):
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(hostile_site.parent / "kb"))
    html = page(hostile_site, w.ruling_href(RULING_ID))
    for rev, status, text in (("2025-01", "rd-unconfirmed", "最初の読み"), ("2025-06", "rd-provisional", "暫定裁定"),
                              ("2026-spring", "rd-confirmed", "統一裁定")):
        block = html.split(f'id="rev-{rev}"', 1)[1].split("<h3", 1)[0]
        assert status in block and text in block and "000_a437c75d0e53c518.txt §バトルの勝敗" in block


def test_writing_the_item_pages_in_two_processes_gives_the_same_site(hostile_site, tmp_path):
    out = tmp_path / "site"
    result = build_site(hostile_site.parent / "kb", out, extra_env={
        "RULESDSL_WIKI_JOBS": "2", "RULESDSL_CACHE": str(hostile_site.parent / "cache")})
    assert result.returncode == 0, result.output
    one = {p.relative_to(hostile_site): p.read_bytes() for p in html_files(hostile_site)}
    two = {p.relative_to(out): p.read_bytes() for p in html_files(out)}
    assert one.keys() == two.keys() and one == two

    def docs(site):
        data = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
        return sorted(json.dumps(d, sort_keys=True, ensure_ascii=False) for d in data["docs"])
    assert docs(hostile_site) == docs(out)


# ----------------------------------------------------------------------------- in a browser

@pytest.fixture(scope="session")
def chromium():
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright for Python is not installed (pip install -e '.[test]')"
    exe = find_chromium()
    if exe is None:
        reason = reason or "Debian's chromium is not installed (apt-get install -y chromium)"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=testing.CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def bundled_url(bundled_site):
    with serve(bundled_site) as base:
        yield base


@pytest.fixture(scope="session")
def hostile_url(hostile_site):
    with serve(hostile_site) as base:
        yield base


class Watch:
    """A page with its console errors, uncaught errors, dialogs and outside requests recorded."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: self.outside.append(r.url)
                     if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)

    def search(self, base: str, query: str, reload: bool = True) -> list[tuple[str, str]]:
        """Type `query` into Material's search box; (href, title) of the results."""
        pg = self.page
        if reload or not pg.url.startswith(base):
            pg.goto(base)
        pg.click("input.md-search__input")
        pg.keyboard.press("Control+A")
        pg.keyboard.press("Backspace")
        pg.type("input.md-search__input", query, delay=10)
        pg.keyboard.press("End")   # a key event: Japanese text is inserted without one
        # every keystroke searches; wait until the result count has settled on the whole query
        last, same = None, 0
        for _ in range(120):
            pg.wait_for_timeout(250)
            meta = pg.inner_text(".md-search-result__meta")
            ready = "初期化" not in meta and "入力" not in meta
            same = same + 1 if (ready and meta == last) else 0
            last = meta
            if same >= 3:
                break
        self.meta = pg.inner_text(".md-search-result__meta")
        items = pg.locator(".md-search-result__item > a")
        return [(items.nth(i).get_attribute("href"), items.nth(i).locator("h1, h2").first.inner_text())
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
def test_a_card_page_is_reached_from_the_home_page_through_the_card_index(watch, bundled_url):
    pg = watch.page
    pg.goto(bundled_url)
    pg.locator("article table a", has_text="18枚").first.click()
    pg.wait_for_url("**/grm/cards/")
    pg.locator("article table a", has_text="火野 アラシ").first.click()
    pg.wait_for_url("**/grm/cards/No.054/")
    assert "No.054《火野 アラシ》" in pg.locator("h1").inner_text()
    assert pg.locator("article .highlight code").first.is_visible()
    assert watch.errors == []


@pytest.fixture(scope="session")
def searcher(chromium, bundled_url):
    """One page whose search index is built once and used by every search test."""
    w = Watch(chromium)
    w.page.goto(bundled_url)
    yield w
    w.close()


@browser
@pytest.mark.parametrize("query, expected", [
    ("《火野 アラシ》", "grm/cards/No.054/"),
    ("火野", "grm/cards/No.054/"),
    ("No.018", "grm/cards/No.018/"),
    ("PROMO015", "grm/cards/PROMO015/"),
    ("《髭ヅラ体育教師・須藤》", "grm/cards/No.018/"),
])
def test_search_finds_a_card_by_its_name_and_by_its_code(searcher, bundled_url, query, expected):
    results = searcher.search(bundled_url, query, reload=False)
    assert any(expected in href for href, _ in results[:5]), (query, results[:5])
    assert searcher.errors == []


@browser
def test_search_finds_the_unconfirmed_items(searcher, bundled_url):
    watch = searcher
    results = watch.search(bundled_url, "未確定", reload=False)
    hrefs = [h for h, _ in results]
    assert any("/review/" in h for h in hrefs), (watch.meta, results[:8])
    assert len(results) >= 5


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
def test_a_board_picture_renders_with_the_stack_and_face_states(watch, bundled_url):
    pg = watch.page
    pg.goto(bundled_url + "grm/qa/stack-flips-top-only/")
    board = pg.locator("figure.rd-board").first
    assert board.is_visible()
    assert board.locator("td.rd-cell").count() == 9
    b2 = board.locator("td[data-cell='b2']")
    assert "P1・表向き" in b2.inner_text() and "下に1枚" in b2.inner_text()
    after = pg.locator("figure.rd-board").nth(1).locator("td[data-cell='b2'] .rd-card")
    assert "rd-face-down" in after.get_attribute("class") and after.bounding_box()["height"] > 10
    assert watch.errors == []


@browser
def test_an_xss_payload_in_a_card_name_is_shown_as_text_and_runs_no_script(watch, hostile_url, hostile_site):
    from rulesdsl.wiki.site import Wiki
    w = Wiki(load(hostile_site.parent / "kb"))
    pg = watch.page
    for url in (w.card_href("grm", CARD_CODE), "grm/cards/", w.scenario_href(SCENARIO_ID), w.ruling_href(RULING_ID),
                w.url(w.game_src("evil")), "", "review/", "grm/rules/test/"):
        pg.goto(hostile_url + url)
        assert pg.evaluate("window.__xss") is None, url
    pg.goto(hostile_url + w.card_href("grm", CARD_CODE))
    assert XSS in pg.locator("h1").inner_text()
    assert pg.locator("article script").count() == 0 and pg.locator("article img").count() == 0
    results = watch.search(hostile_url, "毒")
    assert results and any("window.__xss" in title for _, title in results)
    assert pg.evaluate("window.__xss") is None
    assert watch.dialogs == [] and watch.errors == []
    assert HOSTILE   # the whole payload is what the corpus puts in names and texts
