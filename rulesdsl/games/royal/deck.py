"""Deck construction (royal/deck/main, royal/deck/extra, royal/deck/colours, royal/deck/royal-colours):
a main deck of 40 skill and equip cards with at most 4 of a name; an extra deck of 15 — 5 royal
and 10 guardian cards — with at most 1 of a name; skill, equip and guardian colours within three
neighbours of the colour wheel; royal colours within two neighbours (never white with black).

One check serves both `rulesdsl deck` (problems located at the deck's lines) and scenarios
(`deck_entry` … `expect deck_problem`). Cards are the same card when their names are the same."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple, Optional

from ...kb.knowledge import CardInfo
from ...lang.model import Loc
from ...lang.vocab import UNKNOWN

MAIN_SIZE, EXTRA_SIZE, ROYALS, GUARDIANS = 40, 15, 5, 10
MAIN_COPIES, EXTRA_COPIES = 4, 1
# the kinds whose own section also states the copy limit (同名カードは4枚まで / 1枚まで)
KIND_SECTION = {"skill": "royal/cards/skill", "royal": "royal/cards/royal", "guardian": "royal/cards/guardian"}
WHEEL = ("red", "orange", "yellow", "green", "blue", "purple")        # 赤↔橙↔黄↔緑↔青↔紫↔赤
ROYAL_LINE = ("white", "grey", "black")                               # 白↔灰↔黒
COLOUR_JA = {"red": "赤", "orange": "橙", "yellow": "黄", "green": "緑", "blue": "青", "purple": "紫",
             "white": "白", "grey": "灰", "black": "黒"}


class Entry(NamedTuple):
    info: CardInfo
    count: int
    deck: str          # "main" or "extra"
    loc: Optional[Loc]


class Problem(NamedTuple):
    code: str          # a value of the vocabulary's deck_problem enum
    message: str       # Japanese, for answers
    english: str       # for `rulesdsl deck`
    section: str       # the rule it breaks
    loc: Optional[Loc]
    related: tuple[Loc, ...] = ()
    also: tuple[str, ...] = ()   # further rules it breaks (a card kind's own copy limit)


def fits_wheel(colours: set[str]) -> bool:
    """Whether the colours lie within three neighbours of the six-colour wheel."""
    return any(colours <= {WHEEL[(i + k) % 6] for k in range(3)} for i in range(6))


def fits_line(colours: set[str]) -> bool:
    """Whether the royal colours lie within two neighbours of white–grey–black."""
    return any(colours <= set(ROYAL_LINE[i:i + 2]) for i in range(2))


def _colour(info: CardInfo, fact: str) -> Optional[str]:
    v = info.facts.get(fact, UNKNOWN)
    return v if isinstance(v, str) and v != "none" else None


def check(entries: list[Entry], colour_scope: str) -> tuple[list[Problem], list[str]]:
    """(problems, notes) for the decks the entries give; a deck no entry mentions is not checked
    (a question about the main deck says nothing about the extra deck)."""
    problems: list[Problem] = []
    notes: list[str] = []
    for deck in ("main", "extra"):
        mine = [e for e in entries if e.deck == deck]
        if not mine:
            continue
        total = 0
        for e in mine:      # a loop: the generator cost more than the sum of a deck's lines
            total += e.count
        if deck == "main" and total != MAIN_SIZE:
            problems.append(Problem("main_size", f"メインデッキは{total}枚（40枚でなければならない）",
                                    f"the main deck has {total} cards; it must have {MAIN_SIZE}", "royal/deck/main", mine[-1].loc))
        if deck == "extra":
            if total != EXTRA_SIZE:
                problems.append(Problem("extra_size", f"エクストラデッキは{total}枚（15枚でなければならない）",
                                        f"the extra deck has {total} cards; it must have {EXTRA_SIZE}", "royal/deck/extra",
                                        mine[-1].loc))
            royals = sum(e.count for e in mine if e.info.facts.get("kind") == "royal")
            guardians = sum(e.count for e in mine if e.info.facts.get("kind") == "guardian")
            if royals != ROYALS:
                problems.append(Problem("royal_count", f"エクストラデッキのロイヤルカードは{royals}枚（5枚でなければならない）",
                                        f"the extra deck has {royals} royal cards; it must have {ROYALS}", "royal/deck/extra",
                                        mine[-1].loc))
            if guardians != GUARDIANS:
                problems.append(Problem("guardian_count", f"エクストラデッキのガーディアンカードは{guardians}枚（10枚でなければならない）",
                                        f"the extra deck has {guardians} guardian cards; it must have {GUARDIANS}",
                                        "royal/deck/extra", mine[-1].loc))
        allowed = ("skill", "equip") if deck == "main" else ("royal", "guardian")
        by_name: "OrderedDict[str, list[Entry]]" = OrderedDict()
        for e in mine:
            by_name.setdefault(e.info.name, []).append(e)
            kind = e.info.facts.get("kind", UNKNOWN)
            if kind is UNKNOWN:
                notes.append(f"《{e.info.name}》: its kind is not given; whether it belongs in the {deck} deck is not checked")
            elif kind not in allowed:
                where = "メインデッキ" if deck == "main" else "エクストラデッキ"
                problems.append(Problem("wrong_deck", f"《{e.info.name}》は{_kind_ja(kind)}であり、{where}には入らない",
                                        f"《{e.info.name}》 is a {kind} card; it does not go in the {deck} deck",
                                        "royal/deck/main" if kind in ("royal", "guardian") else "royal/deck/extra", e.loc))
        limit = MAIN_COPIES if deck == "main" else EXTRA_COPIES
        for name, es in by_name.items():
            n = 0   # (a loop: most names are one entry, and a generator per name costs more)
            for entry in es:
                n += entry.count
            if n > limit:
                code = "main_copies" if deck == "main" else "extra_copies"
                where = "メインデッキ" if deck == "main" else "エクストラデッキ"
                kind = KIND_SECTION.get(es[0].info.facts.get("kind"))
                problems.append(Problem(code, f"{where}に同名カード《{name}》が{n}枚ある（同名カードは{limit}枚まで）",
                                        f"《{name}》: {n} copies; at most {limit} of one name in the {deck} deck",
                                        "royal/deck/main" if deck == "main" else "royal/deck/extra", es[-1].loc,
                                        tuple(e.loc for e in es[:-1] if e.loc), (kind,) if kind else ()))
    groups = [[e for e in entries if e.info.facts.get("kind") in ("skill", "equip", "guardian")]]
    if colour_scope == "per_deck":
        groups = [[e for e in g if e.deck == d] for g in groups for d in ("main", "extra")]
    for group in groups:
        colours = set()
        for e in group:
            c = _colour(e.info, "colour")
            if c:
                colours.add(c)
        if colours and not fits_wheel(colours):
            shown = "・".join(COLOUR_JA[c] for c in WHEEL if c in colours)
            problems.append(Problem("colours", f"カラーが{shown}の{len(colours)}色で、隣り合う3色に収まらない",
                                    f"the colours {', '.join(c for c in WHEEL if c in colours)} are not three neighbours of the wheel",
                                    "royal/deck/colours", group[-1].loc))
    royals = [e for e in entries if e.info.facts.get("kind") == "royal"]
    rcolours = {c for c in (_colour(e.info, "royal_colour") for e in royals) if c}
    if rcolours and not fits_line(rcolours):
        shown = "・".join(COLOUR_JA[c] for c in ROYAL_LINE if c in rcolours)
        problems.append(Problem("royal_colours", f"ロイヤルカラーが{shown}で、隣り合う2色に収まらない（白と黒は同じデッキに入れられない）",
                                f"the royal colours {', '.join(c for c in ROYAL_LINE if c in rcolours)} are not two neighbours "
                                "(white and black cannot be in one deck)", "royal/deck/royal-colours", royals[-1].loc))
    for e in entries:
        fact = "royal_colour" if e.info.facts.get("kind") == "royal" else "colour"
        if e.info.facts.get(fact, UNKNOWN) is UNKNOWN and e.info.facts.get("kind") is not UNKNOWN:
            notes.append(f"《{e.info.name}》: its {fact.replace('_', ' ')} is not given; the colour rule does not count it")
    return problems, list(OrderedDict.fromkeys(notes))


def _kind_ja(kind: Any) -> str:
    from .state import KIND_JA
    return KIND_JA.get(kind, str(kind))


def validate(kb, deck) -> tuple[list, list[str]]:
    """`rulesdsl deck`: problems located at the deck's lines."""
    from ...lang.diagnostics import Diagnostic, Related
    entries = []
    for call in deck.entries:
        ref = call.params["card"]
        n = call.params.get("count") or 1
        game, code = ref.key or ("", ref.text)
        info = deck.cards.get(code) if game == "" else kb.card(game, code)
        if n < 1:
            return [Diagnostic(code="deck", loc=call.loc, message=f"a count must be at least 1, not {n}")], []
        entries.append(Entry(info, n, call.name, call.loc))
    resolved = kb.value("royal", "deck.colour_scope")
    problems, notes = check(entries, resolved.value)
    out = [Diagnostic(code="deck", loc=p.loc or deck.deck.loc,
                      message=f"{p.english} ({p.section}: {p.message})",
                      related=tuple(Related(loc=l, message="also counted here") for l in p.related))
           for p in problems]
    if resolved.status.value != "confirmed":
        notes.append(f"the colour rule is counted {'over the main and extra decks together' if resolved.value == 'combined' else 'per deck'}: "
                     f"deck.colour_scope = {resolved.value} ({resolved.status.value}, {resolved.cite})")
    return out, notes
