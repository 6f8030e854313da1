"""Resuming a run from the state before one of its actions (issue 25).

A run is a function of its script of choices and of the values of the rule points it consults
(`engine.deciding.RunMemo`), and so is every prefix of it: the state before action k is a
function of the choices picked before it and of the values of the points consulted before it.
A later run — another branch of the same answer (a script that picks the same options up to
there) or the answer under another reading (one that gives every point consulted up to there
the value seen) — starts from a copy of the deepest such state instead of from the set-up: a
reading that changes only points consulted late runs only the tail.

The hook a game provides (the core never names a game): its engine's `copy_state(state)`, an
independent copy of the game's state that later actions can change without touching the
original (what the state shares with the knowledge base — card declarations, the scenario's
calls, distributions that are replaced, never changed — it may share). A game without it is run
from its set-up every time, as before. `graph_copier(*kinds)` makes one for a game whose state
is a graph of objects of its own classes `kinds` (copied wherever they are held, each once)
and containers (copied), everything else being a value never changed in place (shared).

A state is kept only where resuming from it can pay: a resumed run pays a copy instead of the
set-up and the actions before, and keeping the state costs another, so the state before an
action is kept only when the run so far cost more than a few copies (each game's copy time is
measured as copies are made). In most worked questions a run's set-up and actions cost less
than copying the state they build — the copy walks every card the state holds — so they are
run from the set-up as before; a question whose runs are many and long (dice enumerated, a
reroll and a defence decided after them) resumes nearly every run. Whether a run is resumed
never changes what it finds (tests/test_resume.py).
"""

from __future__ import annotations

import time
import weakref
from typing import Any, Callable, Optional

from .deciding import meets, points_seen, repeat_needs

__all__ = ["MIN_RUNS", "Resumes", "copier", "graph_copier"]

# the seconds a copy of a game's state takes, per copy function (measured, a moving average):
# a state is kept only where the run so far cost more than _PAYS copies (Resumes.worth)
_COPY_TIME: dict[Callable, float] = {}
_PAYS = 3.0
# a question resumes its runs only once it has made this many: most make a handful, each cheaper
# than the bookkeeping and copies resuming costs; a question of hundreds or thousands of runs
# (dice enumerated under every reading) is where a run's shared prefix is worth keeping
MIN_RUNS = 32


def copier(engine: Any) -> Optional[Callable[[Any], Any]]:
    """The game's `copy_state`, or None: its runs are not resumed."""
    return getattr(engine, "copy_state", None)


def graph_copier(*kinds: type) -> Callable[[Any], Any]:
    """A `copy_state` for a state made of objects of the classes `kinds` (with `__slots__` or a
    `__dict__`), lists, tuples, sets and dicts of them, weak references to them, and values
    never changed in place."""
    mutable = frozenset(kinds)
    deep = mutable | _SHELLS
    slots = {k: tuple(n for n in getattr(k, "__slots__", ()) if n != "__weakref__") for k in kinds}

    def copy_state(state: Any) -> Any:
        return _twin(state, {}, mutable, deep, slots)
    return copy_state


# what may hold a part of the state: looked into; any other value is never changed in place and
# is shared without a call (most of what a state holds is ints, strings, card declarations)
_SHELLS = frozenset((list, set, tuple, dict, weakref.ref))
_ABSENT = object()


def _twin(v: Any, made: dict[int, Any], mutable: frozenset, deep: frozenset, slots: dict) -> Any:
    """`v` (an object of the state or a container: a type in `deep`) copied where the game may
    change it, shared where it never does (a module-level function: a nested one naming itself
    would be a reference cycle per copy). Each item is looked into only if it too may hold the
    state: a call per value would be most of the copy's time."""
    t = type(v)
    if t in mutable:
        found = made.get(id(v))
        if found is None:
            found = made[id(v)] = object.__new__(t)
            for name in slots[t]:
                x = getattr(v, name, _ABSENT)
                if x is not _ABSENT:
                    setattr(found, name, _twin(x, made, mutable, deep, slots) if type(x) in deep else x)
            own = getattr(v, "__dict__", None)
            if own is not None:
                # `fresh` names the knowledge base's memo (GameEngine.set_up): shared, never copied
                found.__dict__.update({k: _twin(x, made, mutable, deep, slots)
                                       if type(x) in deep and k != "fresh" else x
                                       for k, x in own.items()})
        return found
    if t is list:
        return [_twin(x, made, mutable, deep, slots) if type(x) in deep else x for x in v]
    if t is dict:
        return {k: _twin(x, made, mutable, deep, slots) if type(x) in deep else x for k, x in v.items()}
    if t is set:
        return {_twin(x, made, mutable, deep, slots) if type(x) in deep else x for x in v}
    if t is tuple:      # a tuple of values is itself a value: rebuilt only where it holds state
        items = [_twin(x, made, mutable, deep, slots) if type(x) in deep else x for x in v]
        return v if all(a is b for a, b in zip(items, v)) else tuple(items)
    if t is weakref.ref:    # a weak reference to an object of the state: to its copy
        target = v()
        return weakref.ref(_twin(target, made, mutable, deep, slots)) if type(target) in mutable else v
    return v        # a value never changed in place: shared


class _Snapshot:
    __slots__ = ("k", "cost", "state", "kb", "seen", "needs", "before", "done", "steps", "choices",
                 "assigned", "points", "sections", "cards", "rulings", "point_cites", "direct", "fixed")



class Resumes:
    """The states before each action of the runs of one question (kept with its RunMemo):
    per action index, per number of choices met before it, per the options picked."""

    __slots__ = ("copy", "at", "resumed", "kept", "base", "t0")

    def __init__(self, copy_state: Callable[[Any], Any]) -> None:
        self.copy = copy_state
        self.at: dict[int, dict[int, dict[tuple, list[_Snapshot]]]] = {}
        self.resumed = 0        # runs started from a kept state (bench_engine reports them)
        self.kept = 0
        self.base = 0.0         # the run being made: what its start cost (the kept prefix it resumed)
        self.t0 = 0.0           # and when it started (or resumed)

    def start(self, resumed: Optional[_Snapshot]) -> None:
        """A run starts (from the set-up, or from `resumed`): its prefix is timed from here."""
        self.base = resumed.cost if resumed is not None else 0.0
        self.t0 = time.perf_counter()

    def worth(self) -> bool:
        """Whether the state before the next action is worth keeping: a later run resumed from
        it saves what the run cost so far and pays a copy, and keeping it costs one more, so it
        is kept only when the run so far cost several copies (the game's copy time is measured
        as copies are made). A copy that does not pay is never made: in most questions a run's
        set-up and actions cost less than copying the state they build."""
        if self.kept >= 8 and self.resumed * 4 < self.kept:
            return False        # this question's kept states are seldom resumed: keep no more
        spent = self.base + time.perf_counter() - self.t0
        return spent > _PAYS * _COPY_TIME.get(self.copy, 0.0)

    def find(self, script, reading: dict[str, str], kb, boards: bool) -> Optional[_Snapshot]:
        """The state before the latest action that a run with `script` under `reading` would
        reach as a kept run did: the same options picked before it (a choice beyond the script
        takes its first option), every point consulted before it at the value seen, the same
        knowledge base (the season reading makes another) — and the board before the actions
        where this run shows it."""
        script = list(script)
        for k in sorted(self.at, reverse=True):
            for n, by_prefix in self.at[k].items():
                prefix = tuple(script[:n]) + (0,) * (n - len(script))
                for snap in by_prefix.get(prefix, ()):
                    if snap.kb is not kb or (boards and snap.before is None):
                        continue
                    if meets(snap.needs, snap.seen, reading):
                        return snap
        return None

    def keep(self, k: int, ctx, state, done: list, before, reading: dict[str, str]) -> None:
        """Keep the state before action `k` of a run (`done`: the actions it performed)."""
        s = _Snapshot()
        t = time.perf_counter()
        s.cost = self.base + t - self.t0
        s.k, s.state, s.kb, s.seen = k, self.copy(state), ctx.kb, points_seen(ctx)
        s.needs = repeat_needs(s.seen, reading)   # what it asks of a reading that would resume from it (deciding.repeats)
        took = time.perf_counter() - t
        self.t0 += took         # the copy is not the run's own cost
        was = _COPY_TIME.get(self.copy)
        _COPY_TIME[self.copy] = took if was is None else 0.8 * was + 0.2 * took
        s.before, s.done = before, list(done)
        _carry(ctx, s)
        prefix = tuple(c.picked for c in ctx.choices)
        self.at.setdefault(k, {}).setdefault(len(prefix), {}).setdefault(prefix, []).append(s)
        self.kept += 1

    def restore(self, s: _Snapshot, ctx) -> tuple[Any, Any, list]:
        """Put the kept run's trace, choices and consults into the fresh context `ctx` (its own
        script and reading kept); (a copy of the state, the board before, the actions done)."""
        _carry(s, ctx)
        self.resumed += 1
        return self.copy(s.state), s.before, list(s.done)



def _carry(src, dst) -> None:
    """What a run has gathered so far (its trace, choices, consults, fixed choices left), copied
    from a context to a snapshot or back: the two never share a container."""
    dst.steps, dst.choices, dst.assigned = list(src.steps), list(src.choices), list(src.assigned)
    dst.points, dst.direct = dict(src.points), dict(src.direct)
    dst.sections, dst.cards, dst.rulings = set(src.sections), set(src.cards), set(src.rulings)
    dst.point_cites = {k: set(v) for k, v in src.point_cites.items()}
    dst.fixed = {k: list(v) for k, v in src.fixed.items()}
