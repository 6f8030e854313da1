"""A 東方グランドメレー set-up checked as far as 001 gives rules: the game uses all 36 cards of the
game (thgm/overview/components, thgm/overview/card-count), each of 2 to 4 players is dealt nine
(thgm/overview/players, thgm/setup/deal), and what is left over is not used."""

from __future__ import annotations

from ...diagnostics import Diagnostic
from ...kb import DeckInfo, KnowledgeBase
from .state import ALL_CARDS, HAND_SIZE

CARDS = "thgm/overview/card-count"
PLAYERS = "thgm/overview/players"


def validate(kb: KnowledgeBase, deck: DeckInfo) -> tuple[list[Diagnostic], list[str]]:
    problems: list[Diagnostic] = []
    notes: list[str] = []
    total = 0
    players = None
    for entry in deck.entries:
        if entry.name == "players":
            n = entry.params["count"]
            if players is not None:
                problems.append(Diagnostic(code="deck", loc=entry.loc, message="the number of players is given twice"))
            players = n
            if not 2 <= n <= 4:
                problems.append(Diagnostic(code="deck", loc=entry.loc,
                                           message=f"{n} players: 東方グランドメレー is played by ２人から４人 ({PLAYERS})",
                                           hint="give 2, 3 or 4"))
            continue
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
    if players is not None and 2 <= players <= 4:
        left = ALL_CARDS - HAND_SIZE * players
        notes.append(f"{players} players are dealt {HAND_SIZE} cards each; {left} cards are left over and not used "
                     "in the game (thgm/setup/deal)")
    notes.append("001 does not say whether the 36 cards are all different, so copies are not checked")
    return problems, notes
