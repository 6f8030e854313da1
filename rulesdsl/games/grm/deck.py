"""GRM deck construction (grm/deck/construction): at least 8 cards, at most 2 of one code,
at most 1 of an ONLY ONE card. Codes, not names, make cards the same card."""

from __future__ import annotations

from collections import OrderedDict

from ...engine.answer import STATUS_WORDS
from ...kb.knowledge import DeckInfo, KnowledgeBase
from ...lang.diagnostics import Diagnostic, Related
from ...lang.model import Status
from ...lang.vocab import UNKNOWN

SECTION = "grm/deck/construction"
MIN_CARDS = 8
MAX_COPIES = 2
MAX_ONLY_ONE = 1


def rules_applied(kb: KnowledgeBase, game: str) -> str:
    """The deck rules applied, with their status in the source's words and what the source is:
    「grm/deck/construction《デッキ構築ルール》: 確定（出典: ファンwikiのまとめ。公式ルールではない）」."""
    sec = kb.sections.get(SECTION)
    if sec is None:
        return f"rules applied: {SECTION}"
    words = STATUS_WORDS[Status.confirmed]
    doc = kb.games[game].documents.get(sec.source.document) if sec.source else None
    if doc is not None:
        words += f"（出典: {doc.authority}）"
    where = f" — {sec.source.raw}" if sec.source else ""
    return f"rules applied: {SECTION}《{sec.title}》: {words}{where}"


def validate(kb: KnowledgeBase, deck: DeckInfo) -> tuple[list[Diagnostic], list[str]]:
    """(problems, notes): problems are located at the deck lines that cause them; the first
    note names the rules applied and their status."""
    problems: list[Diagnostic] = []
    notes: list[str] = [rules_applied(kb, deck.deck.game)]
    counts: "OrderedDict[tuple, list]" = OrderedDict()
    for entry in deck.entries:
        ref = entry.params["card"]
        n = entry.params.get("count") or 1
        if n < 1:
            problems.append(Diagnostic(code="deck", loc=entry.loc, message=f"a count must be at least 1, not {n}"))
            continue
        counts.setdefault(ref.key, []).append((entry, n))
    total = sum(n for lines in counts.values() for _, n in lines)
    cite = f" ({SECTION}: デッキは8枚以上であれば上限なく構築できる)"
    if total < MIN_CARDS:
        problems.append(Diagnostic(code="deck", loc=deck.deck.loc,
                                   message=f"the deck has {total} cards; a deck needs at least {MIN_CARDS}{cite}",
                                   hint=f"add {MIN_CARDS - total} more"))
    for key, lines in counts.items():
        n = sum(x for _, x in lines)
        game, code = key
        info = deck.cards.get(code) if game == "" else kb.card(game, code)
        label = f"{code}《{info.name}》" if info and info.card.name else f"《{code}》"
        related = tuple(Related(loc=e.loc, message="also counted here") for e, _ in lines[:-1])
        only_one = info.facts.get("only_one", UNKNOWN) if info else UNKNOWN
        if only_one is True and n > MAX_ONLY_ONE:
            problems.append(Diagnostic(code="deck", loc=lines[-1][0].loc, related=related,
                                       message=f"{label} is an ONLY ONE card: 1 copy at most, the deck has {n} ({SECTION})"))
        elif n > MAX_COPIES:
            problems.append(Diagnostic(code="deck", loc=lines[-1][0].loc, related=related,
                                       message=f"{label}: {n} copies; at most {MAX_COPIES} cards of one code ({SECTION})",
                                       hint="a card with the same name but another code counts separately "
                                            "(PROMO018 and PROMO030《じゃっくん》)"))
        if only_one is UNKNOWN and n > MAX_ONLY_ONE:
            notes.append(f"{label}: whether it is an ONLY ONE card is not in the sources; "
                         f"if it is, only 1 copy is allowed")
    return problems, notes
