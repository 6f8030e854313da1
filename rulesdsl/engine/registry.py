"""How a game plugs into the engine.

A game's interpreter lives in `rulesdsl.games.<game id>` and exposes `ENGINE`, an instance of a
`GameEngine` subclass. The core finds it by the game id the data declares; it never names a game.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from ..lang.vocab import CardRef, in_words
from .context import Fixed, StepLimit
from .deciding import points_seen, repeats

if TYPE_CHECKING:
    from ..kb.knowledge import KnowledgeBase, ScenarioInfo
    from ..lang.vocab import Call
    from .context import Context


class GameEngine:
    """The seam between the game-neutral runner and one game's rules.

    `setup` builds the state from the scenario's set-up calls; `act` performs one action;
    `expect` checks one expectation against the final state; `board` and `outcome` describe
    the state for the reader. Verb handlers for card effects register in `VERBS`."""

    game_id: str = ""

    def fixed_choices(self, info: "ScenarioInfo") -> dict[str, list["Fixed"]]:
        """Choices the scenario fixes in advance, per player, in the order they will be met: by
        default the options its `choose PLAYER option…` actions name (worked out once per scenario:
        read, never changed — a run's context takes lists of its own)."""
        return self.per_scenario(info, "fixed_choices", _chosen)

    def setup(self, ctx: "Context", info: "ScenarioInfo") -> Any:
        raise NotImplementedError

    def scenario_card(self, ctx: "Context", info: "ScenarioInfo", ref: Any, at: Any) -> tuple[Any, bool, Any]:
        """A card a scenario names: (its CardInfo as printed on the run's day, whether it is the
        scenario's own hypothetical card, where a fact it lacks would be supplied — the scenario's
        `card` block for it, else `at`)."""
        game, code = ref.key or ("", ref.text)
        if game == "":
            info_ = info.cards[code]
            return info_.at(ctx.day), True, info_.card.loc
        info_ = info.cards.get(code) or ctx.kb.card(game, code)
        where = self.block_of(info, code, at)
        return info_.at(ctx.day), False, where

    def block_of(self, info: "ScenarioInfo", code: str, at: Any) -> Any:
        """Where the scenario's `card CODE { … }` block for a known card is (the first, if it has
        several), else `at`: where a fact the card lacks would be supplied."""
        return self.per_scenario(info, "card_blocks", _card_blocks).get(code, at)

    def subjects(self, state: Any, call: "Call") -> tuple[str, ...]:
        """The codes of the cards an action is about (a scenario's own card by its name): a rule
        point set for one of them applies while the action runs. By default the cards it names
        (the same for every run of the action: worked out once per action)."""
        return _kept(_SUBJECTS, id(call), call, _named_cards)

    def actions(self, info: "ScenarioInfo") -> Iterable["Call"]:
        """The actions to perform, in order (a `choose` fixes a choice and is not performed)."""
        out = []    # a loop: one function less per question
        for c in info.calls:
            if c.kind == "action" and c.name != "choose":
                out.append(c)
        return out

    def act(self, ctx: "Context", state: Any, call: "Call") -> None:
        raise NotImplementedError

    def per_scenario(self, info: "ScenarioInfo", what: str, make: Callable[["ScenarioInfo"], Any]) -> Any:
        """`make(info)`, made once per scenario and kept with the engine: what a scenario's text
        says once and for all (every run and reading of it replays the same calls)."""
        memo = self.__dict__.get("_per_scenario")
        if memo is None:        # not a new dict made for `setdefault` at every call
            memo = self.__dict__["_per_scenario"] = {}
        return _kept(memo, (what, id(info)), info, make)

    def expect(self, ctx: "Context", state: Any, call: "Call", illegal: Optional[str]
               ) -> Optional[tuple[bool, str]]:
        """(holds, what was found — a plain statement of fact) for one expectation; None when
        an action was illegal (`illegal` is its message) and the expectation is not about that."""
        raise NotImplementedError

    def board(self, state: Any) -> Any:
        return None

    # -- the board before the actions, built once -------------------------------------
    # Every run of a scenario (each branch, each reading tried) starts from the same set-up, so
    # its board before the actions is the same: a game's `setup` ends with `set_up`, its `act`
    # begins with `acting`, and its `board` asks `board_before` first. The board is kept (from the
    # second time it is drawn) in the knowledge base's memo under what a set-up can depend on (the
    # scenario, the day, the mode and the reading), and only for a set-up that met no choice and no chance. Boards are
    # never changed once built (readers only), so runs share it.
    def set_up(self, ctx: "Context", info: "ScenarioInfo", state: Any) -> None:
        """Mark `state` as fresh from `info`'s set-up (see above); and, the second time the same
        set-up is made, keep a copy of it with what the set-up wrote into `ctx`, for
        `kept_set_up` to hand the later runs of the same set-up."""
        if ctx.choices or ctx.assigned:
            state.fresh = None
            return
        reading = tuple(sorted(ctx.readings.items())) if ctx.readings else ()
        state.fresh = (ctx.kb.memo, ("engine.board_before", id(info), ctx.day, ctx.mode, reading), info)
        copy = getattr(self, "copy_state", None) if self.keeps_set_up else None
        if copy is None:
            return
        key = ("engine.set_up", id(info), ctx.day, ctx.mode)
        found = ctx.kb.memo.get(key)
        if found is None or found[0] is not info:
            found = ctx.kb.memo[key] = (info, [])
        entry = _set_up_for(found[1], ctx.readings)
        if entry is None:       # the first: most set-ups are made once (a question asked once, one run)
            found[1].append([points_seen(ctx), dict(ctx.readings), None, None])
        elif entry[2] is None:  # made again: kept from now on
            kept = copy(state)
            # kept without the memo it is kept in (a cycle, left for the collector once the
            # knowledge base is dropped: the history makes one per ruling revision), which
            # `kept_set_up` gives each copy back
            kept.fresh = None
            entry[2], entry[3] = kept, _written(ctx)
            entry.append(state.fresh[1:])

    # -- the set-up, made once --------------------------------------------------------------
    # Every run of a scenario starts from the same set-up (see above): a game that can copy its
    # state (`copy_state(state)`, as engine.resume asks: every card and every list, dict and set a
    # run may change its own) and sets `keeps_set_up` begins its `setup` with `kept_set_up`, which
    # hands each later run a copy of the state a set-up made before, and writes into the run's
    # context what that set-up wrote into its own: its steps, the rule points it consulted, what
    # it cited. The copy is kept the second time a set-up is made (a question asked once, with one
    # run, never pays it), and a set-up under a reading that leaves every point it consulted at
    # the value seen is the same set-up (deciding.repeats), whatever else the reading changes.
    keeps_set_up: bool = False

    def kept_set_up(self, ctx: "Context", info: "ScenarioInfo") -> Any:
        """A copy of the state the same set-up made before (scenario, day, mode, and every rule
        point it consulted at the value the run's reading gives it: engine.deciding's test of a
        run repeated), with what it wrote replayed into `ctx`; None: none kept, set up afresh."""
        copy = getattr(self, "copy_state", None)
        if copy is None or ctx.steps or ctx.points or ctx.choices:      # no copies, or not a fresh run's context
            return None
        found = ctx.kb.memo.get(("engine.set_up", id(info), ctx.day, ctx.mode))
        if found is None or found[0] is not info:
            return None
        entry = _set_up_for(found[1], ctx.readings)
        if entry is None or entry[2] is None:
            return None
        steps, points, sections, cards, rulings, point_cites, direct = entry[3]
        if len(steps) > ctx.bounds.max_steps:       # as `Context.step` would have stopped it
            raise StepLimit()
        ctx.steps.extend(steps)
        ctx.points.update(points)
        ctx.sections.update(sections)
        ctx.cards.update(cards)
        ctx.rulings.update(rulings)
        ctx.point_cites.update({k: set(v) for k, v in point_cites.items()})
        ctx.direct.update(direct)
        twin = copy(entry[2])
        twin.fresh = (ctx.kb.memo, *entry[4])     # what `set_up` marked it (the memo it is kept in)
        return twin

    @staticmethod
    def acting(state: Any) -> None:
        """The state is about to change: its board is no longer the set-up's."""
        state.fresh = None

    @staticmethod
    def board_before(state: Any, build) -> Any:
        """`build(state)`, or the board remembered for the same set-up while `state` is fresh."""
        fresh = state.fresh
        if fresh is None:
            return build(state)
        state.fresh = None      # asked once: the runner's next board is the one after the actions
        memo, key, info = fresh
        found = memo.get(key)
        if found is not None and found[0] is info and found[1] is not _DRAWN_ONCE:
            return found[1]
        picture = build(state)
        # kept the second time it is drawn, as a set-up is: a question asked once, with one run, keeps
        # no board the collector would walk again and again until the question is forgotten
        memo[key] = (info, picture if found is not None and found[0] is info else _DRAWN_ONCE)
        return picture

    def outcome(self, state: Any, illegal: Optional[str]) -> str:
        return illegal or ""

    def describe(self, kb: "KnowledgeBase", call: "Call") -> str:
        return in_words(call, kb.games[self.game_id].vocab, card_name=_quoted)

    def render_board(self, board: Any) -> str:
        return ""

    def expectation_words(self, kb: "KnowledgeBase", call: "Call", boards: list) -> Optional[str]:
        """An expectation in the words its answer sentence needs for what the branches ended on,
        where they differ from the template's (`describe`); None: the template's. Each of `boards`
        is a board (`board`) or, where none was drawn yet, the state it would be drawn from (a
        board is a function of the state: the words are the same either way)."""
        return None

    def words_from_boards(self, call: "Call") -> bool:
        """Whether `expectation_words` may word this expectation from the boards at all: where it
        cannot, no board is drawn for it (a board after the actions is drawn when first read)."""
        return type(self).expectation_words is not GameEngine.expectation_words

    def answer_sentences(self, answer: Any) -> Optional[list[str]]:
        """The answer's opening sentences, if this game words them itself (the core writes them
        from the expectations, the illegal action, the choosers and the odds otherwise)."""
        return None

    def validate_deck(self, kb: "KnowledgeBase", deck: Any) -> Optional[tuple[list, list[str]]]:
        """(problems, notes) for a deck list, or None if this game has no deck rules here."""
        return None


def _quoted(ref: CardRef) -> str:
    """A card named in words: 《its name as the scenario writes it》."""
    return f"《{ref.text.strip('《》')}》"


_DRAWN_ONCE = object()     # a board before the actions drawn once and not kept (GameEngine.board_before)

# id(call) -> (call, the codes of the cards it names): GameEngine.subjects, asked before every
# action of every run; the call is kept with its entry, so an id is never taken for another's
_SUBJECTS: dict[int, tuple] = {}


def _kept(memo: dict, key: Any, obj: Any, make: Callable[[Any], Any]) -> Any:
    """`make(obj)`, remembered in `memo` under `key` (made from `id(obj)`): the object is kept with
    its entry, so that an id is never taken for another object's; past 20,000 entries (a
    long-running server) the memo forgets old questions and starts again."""
    found = memo.get(key)
    if found is not None and found[0] is obj:
        return found[1]
    if len(memo) > 20_000:
        memo.clear()
    value = make(obj)
    memo[key] = (obj, value)
    return value


def _set_up_for(entries: list, reading: dict[str, str]) -> Optional[list]:
    """The set-up made before (`[points seen, reading made under, state, what it wrote, how it
    was marked fresh]`) that a set-up under `reading` would repeat: one whose every consulted
    point the reading leaves at the value it saw (engine.deciding's test of a run repeated)."""
    for entry in entries:
        if repeats(entry[0], entry[1], reading):
            return entry
    return None


def _written(ctx: "Context") -> tuple:
    """What a set-up wrote into its context (see `GameEngine.kept_set_up`), copied."""
    return (tuple(ctx.steps), dict(ctx.points), frozenset(ctx.sections), frozenset(ctx.cards),
            frozenset(ctx.rulings), {k: frozenset(v) for k, v in ctx.point_cites.items()}, dict(ctx.direct))


def _chosen(info: "ScenarioInfo") -> dict[str, list["Fixed"]]:
    fixed: dict[str, list[Fixed]] = {}
    for c in info.calls:
        if c.kind == "action" and c.name == "choose":
            fixed.setdefault(c.params["player"], []).extend(Fixed(str(x), c.loc) for x in c.params["choice"])
    return fixed


def _card_blocks(info: "ScenarioInfo") -> dict[str, Any]:
    return {c.code: c.loc for c in reversed(info.scenario.cards)}     # the first block of a code wins


def _named_cards(call: "Call") -> tuple[str, ...]:
    out = []
    for value in call.params.values():
        if isinstance(value, CardRef):
            out.append((value.key or ("", value.text))[1])
        elif isinstance(value, (list, tuple)):
            out += [(ref.key or ("", ref.text))[1] for ref in value if isinstance(ref, CardRef)]
    return tuple(out)


@lru_cache(maxsize=None)
def engine_for(game: str) -> Optional[GameEngine]:
    try:
        module = importlib.import_module(f"rulesdsl.games.{game}")
    except ModuleNotFoundError as e:
        if e.name and (e.name == f"rulesdsl.games.{game}" or e.name == "rulesdsl.games"):
            return None
        raise
    return getattr(module, "ENGINE", None)
