"""An item page's table of contents filled into the theme's item (rulesdsl/wiki/shell.py)."""

from rulesdsl.wiki.shell import TocItems

PIECES = ['<li class="md-nav__item"><a href="#', "ID", '" class="md-nav__link">', "NAME", "</a></li>"]


def _token(name, ident, *children):
    return {"level": 3 if not children else 2, "id": ident, "name": name, "children": list(children)}


def test_a_pages_toc_items_are_the_themes_item_per_heading_nested_under_theirs_whether_made_or_kept(monkeypatch):
    toc = [_token("場面の詳細", "場面の詳細", _token("登場するカード", "登場するカード"), _token("A&amp;B", 'a"b')),
           _token("手順（トレース）", "手順トレース")]
    want = ('<li class="md-nav__item"><a href="#場面の詳細" class="md-nav__link">場面の詳細</a>'
            '<nav class="md-nav" aria-label="場面の詳細"><ul class="md-nav__list">'
            '<li class="md-nav__item"><a href="#登場するカード" class="md-nav__link">登場するカード</a></li>'
            '<li class="md-nav__item"><a href="#a&quot;b" class="md-nav__link">A&amp;B</a></li>'
            '</ul></nav></li>'
            '<li class="md-nav__item"><a href="#手順トレース" class="md-nav__link">手順（トレース）</a></li>')
    items = TocItems(PIECES)
    assert items.html(toc) == want
    assert items.html(toc) == want                       # the items kept
    # a heading with sub-headings on one page and none on another: its kept item is the plain one
    assert items.html([_token("場面の詳細", "場面の詳細")]) == want[:want.index("<nav")] + "</li>"
    monkeypatch.setattr(TocItems, "KEEP", 1)
    few = TocItems(PIECES)
    assert few.html(toc) == want and few.html(toc) == want and len(few._made) <= 1
    assert TocItems(PIECES).html([]) == ""
