"""Small helpers every part of the プレシャスメモリーズ interpreter uses: citations of cards, the
choices the rules give a player, and card facts the question must supply."""

from __future__ import annotations

from typing import Optional, Sequence

from ...engine.context import Context, EngineError, IllegalAction
from ...engine.trace import Cite
from ...lang.vocab import UNKNOWN
from .state import Card


def choose(ctx: Context, chooser: Optional[str], label: str, options: Sequence[str], cite: Cite) -> int:
    """The index of the option a player takes where the rules (`cite`) leave them the choice."""
    return ctx.choose(chooser, label, options, cite=cite)


def card_cite(ctx: Context, card: Card) -> Cite:
    if card.filler:
        return Cite("scenario", "仮定: 場面で特定されていないカード")
    return ctx.card_cite(card.code, card.hypothetical)


def assumed(text: str) -> Cite:
    """A citation of what the scenario takes as given (its hypothetical cards and set-up)."""
    return Cite("scenario", f"仮定: {text}")


def need(card: Card, fact: str, words: str, example: str):
    """A card fact the question needs; a located error saying how to supply it when unknown."""
    value = card.fact(fact)
    if value is UNKNOWN:
        if card.filler:
            raise EngineError(f"the question needs the {words} of a card the set-up does not name "
                              f"(a card of deck_size / hand_size / points)", card.placed,
                              "name the card in the set-up and define it: card \"名前\" { … }",
                              code="unknown-fact")
        raise EngineError(f"the sources do not give the {words} of {card.label}, and this question needs it",
                          card.loc, f"give it in the scenario: card \"{card.name}\" {{ {example} }}",
                          code="unknown-fact")
    return value


def illegal(message: str, *cites: Cite) -> IllegalAction:
    """What the rules forbid, with every rule and reading the decision rests on."""
    return IllegalAction(message, cites[0] if cites else None, also=cites[1:])


def all_designates_untargetable(ctx: Context) -> tuple[bool, Cite]:
    """Whether a text naming 「すべてのキャラ」 designates the 「対象にならない」 ones too (its
    reading: target.all_designation)."""
    rule, cite = ctx.point("target.all_designation")
    return rule == "includes_all", cite
