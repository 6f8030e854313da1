"""A 東方グランドメレー card set checked as far as 001 gives rules: the game is played with all
36 cards of the game (thgm/overview/components, thgm/overview/card-count); dealt nine each to 2–4
players (thgm/setup/deal), what is left over is not used."""

from __future__ import annotations

from ...kb.knowledge import DeckInfo, KnowledgeBase
from ...lang.diagnostics import Diagnostic
from .state import ALL_CARDS, HAND_SIZE

CARDS = "thgm/overview/card-count"


def validate(kb: KnowledgeBase, deck: DeckInfo) -> tuple[list[Diagnostic], list[str]]:
    problems: list[Diagnostic] = []
    total = 0
    for entry in deck.entries:
        n = entry.params.get("count") or 1
        if n < 1:
            problems.append(Diagnostic(code="deck", loc=entry.loc, message=f"a count must be at least 1, not {n}"))
            continue
        total += n
    if total != ALL_CARDS:
        problems.append(Diagnostic(
            code="deck", loc=deck.deck.loc,
            message=f"the set has {total} cards; the game is played with all of its cards, ３６枚 ({CARDS})",
            hint=f"{'add' if total < ALL_CARDS else 'remove'} {abs(ALL_CARDS - total)}"))
    notes = [f"dealt {HAND_SIZE} each, {n} players leave {ALL_CARDS - HAND_SIZE * n} cards unused (thgm/setup/deal)"
             for n in (2, 3, 4)]
    notes.append("001 does not say whether the 36 cards are all different, so copies are not checked")
    return problems, notes
