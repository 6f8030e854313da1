"""What of the permanent effects is in force as the field stands (grm/effects/kinds): the
nullifications first — aimed at one card when their source resolved, or over a scope that
takes in the field's cards as they are now — then the cards whose permanent effects they leave.
Pure functions of the state; effects.py words them in steps."""

from __future__ import annotations

from .state import Card, State, neighbours

SCOPED = {"all_opponent_cards", "all_adjacent_cards"}   # selectors that name a scope, not one card


def nullified(st: State, card: Card, _seen: frozenset = frozenset()) -> bool:
    """Whether a nullification applies to the card now: a one-shot one, a permanent one aimed
    at it when its source resolved, or a permanent one whose scope (「相手のフィールドの全カード」)
    takes it in as the field stands — cards that entered later included. A permanent
    nullification applies only while its source is itself in force (grm/effects/kinds); this
    is the first layer of the continuous effects, the others read what it leaves."""
    return nullifier_of(st, card, _seen) is not False


def nullifier_of(st: State, card: Card, _seen: frozenset = frozenset()):
    """What nullifies the card: the source card of a permanent nullification in force, None for
    a one-shot nullification, False when nothing does. `_seen` breaks a cycle of nullifiers
    (each one is weighed as though the other's effect on it were not there: both apply,
    grm/reading/mutual-nullification)."""
    if card.nullified:
        return None
    seen = _seen | {card.uid}
    for link in st.links:
        if link.target != card.uid:
            continue
        if link.source is None:
            return None  # a one-shot nullification lasts
        source = next((c for _, c in st.field_cards() if c.uid == link.source), None)
        if source is not None and source.uid not in seen and _in_force(st, source, seen):
            return source
    for cell, source in st.field_cards():
        if source.uid in seen or source.face != "up":
            continue
        for sel in scoped_nullifications(source):
            if card in scope(st, source, cell, sel):
                if _in_force(st, source, seen):
                    return source
                break
    return False


def scoped_nullifications(card: Card) -> list[str]:
    """The scopes of the card's permanent nullifications that name a scope, not a card."""
    out = []
    for e in card.effects("permanent"):     # loops: a card has an effect or two
        for v in e.body or ():
            if v.name == "nullify" and v.params.get("target") in SCOPED:
                out.append(v.params.get("target"))
    return out


def scope(st: State, source: Card, cell: str, selector: str) -> list[Card]:
    """The field's top cards a scoped effect of `source` (in `cell`) reaches as the field stands."""
    if selector == "all_opponent_cards":
        return [c for _, c in st.field_cards() if c.owner != source.owner]
    near = set(neighbours(cell))
    return [c for cell_, c in st.field_cards() if cell_ in near]


def _in_force(st: State, card: Card, seen: frozenset) -> bool:
    return card.face == "up" and st.is_top(card) and not nullified(st, card, seen)


def mutual(st: State, card: Card, source) -> bool:
    """Whether `card` and its nullifier `source` nullify each other."""
    return source not in (None, False) and nullifier_of(st, source, frozenset()) is card


def mutual_scoped(st: State, card: Card, source) -> bool:
    """Whether `card` would nullify its nullifier `source` in turn, by a scoped effect."""
    cell = st.cell_of(card)
    return source not in (None, False) and cell is not None and \
        any(source in scope(st, card, cell, sel) for sel in scoped_nullifications(card))


def permanent_active(st: State, card: Card) -> bool:
    """Permanent effects last while the card is face-up, on top of its cell and not nullified
    (grm/effects/kinds)."""
    return card.face == "up" and st.is_top(card) and not nullified(st, card)


def nullified_words(st: State, card: Card, source) -> str:
    if source is None:
        return "無効化されている"
    cell = st.cell_of(source)
    return f"{cell}の{source.label}の永続効果により無効化されている"


def permanents(st: State, verb_name: str):
    """Every card on the field, or that was and left it, with a permanent effect using
    `verb_name`: (card, the verb's call). What is in force is asked of `lost`."""
    # most games: no card of the game has a permanent effect (and then no generator is made)
    return _permanents(st, verb_name, st.permanent) if st.permanent else ()


def _permanents(st: State, verb_name: str, uids: set[int]):
    seen = set()
    # the field's cards, then those that left it (a card on the field that left it and came
    # back is met first on the field): asked at every check of every play, so one pass each,
    # over the cards that have a permanent effect at all
    cards = []
    for stack in st.cells.values():
        for c in stack:
            if c.uid in uids:
                cards.append(c)
    for zone in (st.hand, st.deck, st.grave):
        for held in zone.values():
            for c in held:      # (a loop: a comprehension here is a function made per player and zone)
                if c.left_field and c.uid in uids:
                    cards.append(c)
    for card in cards:
        if card.uid in seen:
            continue
        seen.add(card.uid)
        for e in card.info.effects:
            if e.name == "permanent":
                for v in e.body or ():
                    if v.name == verb_name:
                        yield card, v
