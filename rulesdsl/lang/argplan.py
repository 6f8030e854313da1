"""An argument's plan: which of its types takes an atom, found by a look-up or two.

A vocabulary's argument lists the types it accepts (`arg count int unknown`); an atom is of the
first type whose test takes it (lang/vocab.py `_test_types`, over `_BUILTIN_TESTS` and the enums).
The validator tries ~400,000 atoms at 10,000 cards, almost all against a handful of arguments, so
each argument's answer is worked out once per kind of atom (`plan_of`) and read by `typed_by`:

- a name: the finite types' words (cells, players, enums' values, unknown, yes and no) each typed
  by the tests themselves (None kept: `card` takes no `unknown`), and any other name by the first
  listed type that takes every name but those words (word, section, ruling, card), if any;
- a number: the first type that takes it when it is whole (int or number), and when it is not;
- a quantity: by its unit in lower case (kg, dice); a string: the first of string and card;
- anything else (an array): no type.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

CHECKED = frozenset(("card", "section", "ruling"))     # types whose value the validator finishes
_ANY_NAME = frozenset(("word", "section", "ruling", "card"))    # take every name but a plan's words
_UNITS = {"kg": "kg", "dice": "d"}                      # a quantity's type by its unit, in lower case
_NOT_KEPT = object()


def plan_of(vocab, types: tuple[str, ...], builtin, test_types: Callable) -> dict[str, Any]:
    """The plan of an argument of `types` in `vocab` (its types' tests: `builtin`, the built-in
    types' names, and `test_types(vocab, types, kind, value, unit)`, which tries them in order)."""
    plan: dict[str, Any] = {}
    words: set = {"unknown", "yes", "no", *(vocab.cells if "cell" in types else ()),
                  *(vocab.players if "player" in types else ())}
    for t in types:
        e = vocab.enums.get(t)
        if t not in builtin and e is not None:
            words.update(e.values)
    fixed = {w: test_types(vocab, types, "name", w, None) for w in words}     # None kept too
    plan["name"] = (fixed, next((t for t in types if t in _ANY_NAME), None))
    whole = next((t for t in types if t in ("int", "number")), None)
    if whole is not None:
        plan["number"] = (whole, next((t for t in types if t == "number"), None))
    units: dict[str, str] = {}
    for t in types:
        if t in _UNITS:
            units.setdefault(_UNITS[t], t)
    if units:
        plan["quantity"] = units
    text = next((t for t in types if t in ("string", "card")), None)
    if text is not None:
        plan["string"] = text
    return plan


def typed_by(atom, plan: dict) -> Optional[tuple[str, Any]]:
    """(the type that takes the atom, its value), or None: read from its argument's plan."""
    kind, v, _, unit = atom
    step = plan.get(kind)
    if step is None:
        return None
    if kind == "name":
        found = step[0].get(v, _NOT_KEPT)
        if found is not _NOT_KEPT:
            return found        # one of the words, typed as it is (or None: no type takes it)
        t = step[1]
    elif kind == "number":
        t = step[0] if isinstance(v, int) else step[1]
    elif kind == "quantity":
        t = step.get((unit or "").lower())
    else:
        t = step
    return None if t is None else (t, v)
