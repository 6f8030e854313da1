"""What the theme's HTML lacks for screen readers and keyboards, put right on every rendered page
(index pages and the item pages' shells alike, in the plugin's `on_post_page`).

* A nav section with an index page has an expand toggle (a focusable `<label>`) holding only an
  icon: it gets a name (「GRMカードの項目」, as text only a screen reader reads: a `<label>` may not
  carry aria-label), and the section's
  `<nav>`, labelled by that empty toggle, gets the section's title (one name per landmark).
* The footer's previous/next links carry `aria-label="前: …"` built from a nav title that is already
  HTML and escaped again (「Q&amp;amp;A」): a name that is not the text shown. It is unescaped once.

Checked by axe-core in tests/test_wiki_a11y.py.
"""

from __future__ import annotations

import html as _html
import re

from .escape import esc

_TOGGLE = re.compile(
    r'(<a href="[^"]*" class="md-nav__link[^"]*">\s*<span class="md-ellipsis">\s*(?P<title>[^<]*?)\s*</span>\s*</a>\s*)'
    r'<label class="md-nav__link ?" for="(?P<for>__nav_[\w]+)" id="(?P=for)_label" tabindex="0">')
_FOOTER_LABEL = re.compile(r'(<a href="[^"]*" class="md-footer__link[^"]*" aria-label=")([^"]*)(")')


def fix_page(page: str) -> str:
    named: dict[str, str] = {}

    def toggle(m: re.Match) -> str:
        title = _html.unescape(m.group("title"))
        named[m.group("for")] = title
        return (f'{m.group(1)}<label class="md-nav__link" for="{m.group("for")}" id="{m.group("for")}_label" '
                f'tabindex="0"><span class="rd-sr-only">{esc(title)}の項目</span>')

    page = _TOGGLE.sub(toggle, page)
    for ident, title in named.items():
        page = page.replace(f'aria-labelledby="{ident}_label"', f'aria-label="{esc(title)}"', 1)
    return _FOOTER_LABEL.sub(lambda m: m.group(1) + esc(_html.unescape(_html.unescape(m.group(2)))) + m.group(3), page)
