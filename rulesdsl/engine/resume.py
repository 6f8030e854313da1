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
from its set-up every time, as before.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["Resumes", "copier"]


def copier(engine: Any) -> Optional[Callable[[Any], Any]]:
    """The game's `copy_state`, or None: its runs are not resumed."""
    return getattr(engine, "copy_state", None)


class _Snapshot:
    __slots__ = ("k", "state", "kb", "seen", "made_under", "before", "done", "steps", "choices",
                 "assigned", "points", "sections", "cards", "rulings", "point_cites", "direct", "fixed")


def _seen(ctx) -> dict[str, str]:
    return {f"card({card}).{name}" if card else name: r.value for (name, card), r in ctx.points.items()}


class Resumes:
    """The states before each action of the runs of one question (kept with its RunMemo):
    per action index, per number of choices met before it, per the options picked."""

    __slots__ = ("copy", "at", "resumed", "kept")

    def __init__(self, copy_state: Callable[[Any], Any]) -> None:
        self.copy = copy_state
        self.at: dict[int, dict[int, dict[tuple, list[_Snapshot]]]] = {}
        self.resumed = 0        # runs started from a kept state (bench_engine reports them)
        self.kept = 0

    def find(self, script, reading: dict[str, str], kb, boards: bool) -> Optional[_Snapshot]:
        """The state before the latest action that a run with `script` under `reading` would
        reach as a kept run did: the same options picked before it (a choice beyond the script
        takes its first option), every point consulted before it at the value seen, the same
        knowledge base (the season reading makes another) — and the board before the actions
        where this run shows it."""
        from .deciding import _repeats
        script = list(script)
        for k in sorted(self.at, reverse=True):
            for n, by_prefix in self.at[k].items():
                prefix = tuple(script[:n]) + (0,) * (n - len(script))
                for snap in by_prefix.get(prefix, ()):
                    if snap.kb is not kb or (boards and snap.before is None):
                        continue
                    if _repeats(snap.seen, snap.made_under, reading):
                        return snap
        return None

    def keep(self, k: int, ctx, state, done: list, before, reading: dict[str, str]) -> None:
        """Keep the state before action `k` of a run (`done`: the actions it performed)."""
        s = _Snapshot()
        s.k, s.state, s.kb, s.seen, s.made_under = k, self.copy(state), ctx.kb, _seen(ctx), dict(reading)
        s.before, s.done = before, list(done)
        _save(s, ctx)
        prefix = tuple(c.picked for c in ctx.choices)
        self.at.setdefault(k, {}).setdefault(len(prefix), {}).setdefault(prefix, []).append(s)
        self.kept += 1

    def restore(self, s: _Snapshot, ctx) -> tuple[Any, Any, list]:
        """Put the kept run's trace, choices and consults into the fresh context `ctx` (its own
        script and reading kept); (a copy of the state, the board before, the actions done)."""
        _load(s, ctx)
        self.resumed += 1
        return self.copy(s.state), s.before, list(s.done)


def _save(s: _Snapshot, ctx) -> None:
    s.steps, s.choices, s.assigned = list(ctx.steps), list(ctx.choices), list(ctx.assigned)
    s.points, s.direct = dict(ctx.points), dict(ctx.direct)
    s.sections, s.cards, s.rulings = set(ctx.sections), set(ctx.cards), set(ctx.rulings)
    s.point_cites = {k: set(v) for k, v in ctx.point_cites.items()}
    s.fixed = {k: list(v) for k, v in ctx.fixed.items()}


def _load(s: _Snapshot, ctx) -> None:
    ctx.steps, ctx.choices, ctx.assigned = list(s.steps), list(s.choices), list(s.assigned)
    ctx.points, ctx.direct = dict(s.points), dict(s.direct)
    ctx.sections, ctx.cards, ctx.rulings = set(s.sections), set(s.cards), set(s.rulings)
    ctx.point_cites = {k: set(v) for k, v in s.point_cites.items()}
    ctx.fixed = {k: list(v) for k, v in s.fixed.items()}
