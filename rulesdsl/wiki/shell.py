"""An item page's table of contents as the theme writes it (plugin.py fills each item page into
the page shell mkdocs rendered for its depth): the theme's list item for one heading, with the
heading's title and id put in its slots."""

from __future__ import annotations

from .escape import esc


class TocItems:
    """The theme's table-of-contents items for one shell. An item's HTML depends only on its
    heading's title and id, and most headings recur from page to page (「場面の詳細」, 「手順（トレース）」,
    a revision's date): each is made once and kept (at most KEEP)."""

    KEEP = 512

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces            # the theme's item cut around its slots: text, slot name, text …
        self._made: dict[tuple[str, str], str] = {}

    def html(self, toc: list[dict]) -> str:
        """The items of a page's headings (Python-Markdown toc tokens), nested ones inside theirs."""
        return "".join(map(self.item, toc))

    def item(self, token: dict) -> str:
        name, ident = token["name"], token["id"]
        li = self._made.get((name, ident))
        if li is None:
            li = "".join({"NAME": name, "ID": esc(ident)}[p] if i % 2 else p for i, p in enumerate(self.pieces))
            if len(self._made) >= self.KEEP:
                self._made.clear()
            self._made[name, ident] = li
        if token["children"]:
            inner = self.html(token["children"])
            li = (li[:-len("</li>")] + f'<nav class="md-nav" aria-label="{name}">'
                  f'<ul class="md-nav__list">{inner}</ul></nav></li>')
        return li
