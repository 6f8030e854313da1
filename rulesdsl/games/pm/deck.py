"""Deck construction (pm/deck/*): exactly 60 cards, at most 4 of the same card. Cards are the
same card when their card numbers agree once a trailing letter (promo, sign cards) is dropped;
a card that differs only in its work counts as the same card (a reading: deck.work_variant).
The same test decides "the same card" on the field (pm/main/enter, pm/main/support)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from ...lang.diagnostics import Diagnostic, Related
from ...lang.vocab import UNKNOWN

if TYPE_CHECKING:
    from ...engine.context import Context
    from ...kb.knowledge import DeckInfo, KnowledgeBase
    from .state import Card, State

DECK_SIZE = 60
MAX_COPIES = 4
_TRAILING_LETTERS = re.compile(r"[A-Za-zＡ-Ｚａ-ｚ]+$")


class Desc(NamedTuple):
    """What deck construction looks at in a card."""

    key: str            # the card's code (a scenario's own card: its name)
    name: str           # its card name (cards linked by `same_name` share one)
    number: object      # its card number, or UNKNOWN
    work: object        # its work, or UNKNOWN


def normalize(number: object) -> Optional[str]:
    if number is UNKNOWN or not isinstance(number, str):
        return None
    return _TRAILING_LETTERS.sub("", number.strip())


def same(a: Desc, b: Desc, work_variant: Callable[[], str]) -> bool:
    """Whether two cards are "the same card" for the 4-copy and the once-on-the-field rules."""
    if a.key == b.key:
        return True
    na, nb = normalize(a.number), normalize(b.number)
    if na is not None and nb is not None and na == nb:
        return True
    if a.name == b.name and a.work is not UNKNOWN and b.work is not UNKNOWN and a.work != b.work:
        return work_variant() == "same_card"
    return False


def desc_of(st: "State", card: "Card") -> Desc:
    return Desc(card.code, st.name_of(card), card.fact("number"), card.fact("work"))


def same_card(ctx: "Context", st: "State", a: "Card", b: "Card") -> bool:
    return same(desc_of(st, a), desc_of(st, b), lambda: ctx.point("deck.work_variant")[0])


class Problem(NamedTuple):
    kind: str               # "size" or "copies"
    count: int
    names: tuple[str, ...]  # the cards counted together (copies)
    locs: tuple             # where they are listed


def problems(entries: list[tuple[Desc, int, object]], work_variant: Callable[[], str]) -> tuple[int, list[Problem]]:
    """(total, problems) for a list of (card, count, where listed)."""
    total = 0
    for _, n, _ in entries:     # a loop: the generator cost more than the few entries' sum
        total += n
    found: list[Problem] = []
    if total != DECK_SIZE:
        found.append(Problem("size", total, (), ()))
    # cards are grouped by what makes them the same: their code, their number without a
    # trailing letter, and (a reading) their name across different works
    parent = list(range(len(entries)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: dict[tuple, int] = {}
    by_name: dict[str, list[int]] = {}
    for i, (d, _, _) in enumerate(entries):
        number = normalize(d.number)
        for key in (("code", d.key), ("number", number) if number is not None else None):
            if key is None:
                continue
            if key in seen:
                parent[root(i)] = root(seen[key])
            else:
                seen[key] = i
        by_name.setdefault(d.name, []).append(i)
    for same_name in by_name.values():
        # cards of one name not grouped yet by code or number are the same card only as
        # variants of different works (`same`): only those whose work is known can be, so the
        # pairs are tried among them alone (a deck of 56 unnamed others is not 1,540 pairs)
        known = [i for i in same_name if entries[i][0].work is not UNKNOWN]
        if len(known) < 2:
            continue
        for a in known:
            for b in known:
                if a < b and root(a) != root(b) and same(entries[a][0], entries[b][0], work_variant):
                    parent[root(b)] = root(a)
    grouped: dict[int, list[tuple[Desc, int, object]]] = {}
    for i, entry in enumerate(entries):
        grouped.setdefault(root(i), []).append(entry)
    groups = list(grouped.values())
    for g in groups:
        n = 0       # (a loop: most groups are one card, and a generator per group costs more)
        for _, x, _ in g:
            n += x
        if n > MAX_COPIES:
            names = tuple(dict.fromkeys(d.key for d, _, _ in g))
            found.append(Problem("copies", n, names, tuple(loc for _, _, loc in g)))
    return total, found


def words_ja(player: str, total: int, found: list[Problem]) -> str:
    """A plain statement of what was found, for an expectation."""
    if not found:
        return f"{player}のデッキは{total}枚で、同じカードは4枚以内"
    parts = []
    for p in found:
        if p.kind == "size":
            parts.append(f"{player}のデッキは{p.count}枚（60枚ちょうどでなければならない）")
        else:
            parts.append("・".join(f"《{n}》" for n in p.names) + f"は同じカードとして{p.count}枚（4枚まで）")
    return "、".join(parts)


def validate(kb: "KnowledgeBase", deck: "DeckInfo") -> tuple[list[Diagnostic], list[str]]:
    """`rulesdsl deck`: problems located at the deck lines that cause them, and notes."""
    notes: list[str] = []
    entries = []
    bad: list[Diagnostic] = []
    for entry in deck.entries:
        ref = entry.params["card"]
        n = entry.params.get("count") or 1
        if n < 1:
            bad.append(Diagnostic(code="deck", loc=entry.loc, message=f"a count must be at least 1, not {n}"))
            continue
        game, code = ref.key or ("", ref.text)
        info = deck.cards.get(code) if game == "" else kb.card(game, code)
        facts = info.facts if info else {}
        name = info.name if info else code
        number = facts.get("number", UNKNOWN)
        if number is UNKNOWN:
            notes.append(f"《{name}》: its card number is not given; it is counted as a card of its own")
        entries.append((Desc(code, name, number, facts.get("work", UNKNOWN)), n, entry.loc))
    used: list[str] = []

    def work_variant() -> str:
        v = kb.value(deck.game, "deck.work_variant")
        if not used:
            used.append(v.value)
            notes.append(f"cards that differ only in their work count as {'one card' if v.value == 'same_card' else 'different cards'} "
                         f"(deck.work_variant = {v.value}, {v.status.value}: {v.cite})")
        return v.value

    total, found = problems(entries, work_variant)
    for p in found:
        if p.kind == "size":
            bad.append(Diagnostic(code="deck", loc=deck.deck.loc,
                                  message=f"the deck has {total} cards; a deck has exactly {DECK_SIZE} "
                                          "(pm/deck/size: デッキの枚数は60枚ちょうど)",
                                  hint=f"{'add' if total < DECK_SIZE else 'remove'} {abs(DECK_SIZE - total)}"))
        else:
            related = tuple(Related(loc=loc, message="counted as the same card") for loc in p.locs[:-1])
            bad.append(Diagnostic(code="deck", loc=p.locs[-1], related=related,
                                  message=f"{'・'.join('《' + n + '》' for n in p.names)}: {p.count} copies of the same card; "
                                          f"at most {MAX_COPIES} (pm/deck/copies: 同じカードは4枚まで)",
                                  hint="a card number with a trailing letter (a promo or sign card) counts as the number "
                                       "without it (pm/deck/card-identity)"))
    notes.append("deck rules applied: pm/deck/size, pm/deck/copies, pm/deck/card-identity (確定, source "
                 "004_b16f2fd495c48e23.txt §デッキ構築)")
    return bad, notes
