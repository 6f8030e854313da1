"""A knowledge-base card is one its source names: its code stands in the cited section with that
name (`No.018《髭ヅラ体育教師・須藤》`; a game whose cards have no code is cited by the name). A card
the source does not name is a scenario's hypothetical card, never a knowledge-base card."""

from __future__ import annotations

import re
from typing import Iterator

from ..lang.diagnostics import Diagnostic
from .checks import check, diag
from .knowledge import KnowledgeBase
from .sources import normalize_line


def _named(doc, code: str, name: str, heading: str) -> bool:
    if code == name:
        return doc.find(name, heading)
    return doc.find(f"{code}《{name}》", heading)


@check("card-source")
def cards_named_by_source(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for (game, code), c in kb.cards.items():
        cite = c.card.source
        if c.hypothetical or cite is None or cite.heading is None or game not in kb.games:
            continue
        doc = kb.games[game].documents.get(cite.document)
        if doc is None or not doc.has_heading(cite.heading) or _named(doc, code, c.card.name, cite.heading):
            continue
        # what the source does give for this code, to say what is wrong
        names = re.findall(re.escape(normalize_line(code)) + r"《([^》]+)》", doc._flat)
        if names:
            problem = (f"{cite.document} names {code} 《{'》《'.join(dict.fromkeys(names))}》"
                       + ("" if c.card.name in names else f", never 《{c.card.name}》")
                       + ("" if c.card.name not in names else f", but not under \"{cite.heading}\""))
        else:
            problem = f"{cite.document} never names a card {code}"
        yield diag("card-source", c.card.loc, f"card {code} 《{c.card.name}》: {problem}",
                   "a knowledge-base card is one the source names by its code and name, under the cited "
                   "heading; a card of your own is a scenario's hypothetical card (`card CODE \"name\" { … }` "
                   "inside the scenario)")
