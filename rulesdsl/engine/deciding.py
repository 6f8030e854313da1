"""What decides an answer: the rule points whose other values would change it.

An answer's status is the weakest status among what *decides* it. A rule point decides an
answer when another admissible value of it gives another answer: for a point the sources leave
open (`unsettled`) its readings; for a point a ruling sets (or a default gives) with a status
weaker than confirmed, its other declared values, among them the value it had before its first
revision. `settle` answers the scenario again under those values — every combination up to
`MAX_READINGS`, else each point varied alone (the answer says which was done) — and keeps among
the answer's cautions only the citations of points that decide it and the citations the engine
made directly (a ruling that sets no point has no other value to try, so it is taken to decide).
The others are listed as touched (「…に触れるが、どの読みでも答えは同じ」) and weaken nothing.

Game-neutral, and below the runner: the runner passes a function that answers under a reading.
"""

from __future__ import annotations

import copy as _copy
import itertools
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..base.record import Record, field
from ..lang.model import Status, weakest
from .context import EngineError, carded_points
from .trace import Cite

if TYPE_CHECKING:
    from ..kb.knowledge import KnowledgeBase
    from .answer import Answer

MAX_READINGS = 64
_WEAK = (Status.provisional, Status.unofficial, Status.unconfirmed)

# A game that dates rulings to seasons declares this rule point: its values are the ways of
# reading a season (dates.CALENDARS), its default the one the knowledge base uses. Read through
# the knowledge base's calendar, not through a run's consults.
SEASON_POINT = "dates.season"


class RunMemo:
    """The runs of one scenario made while its answer is tested (the answer under the default
    reading, then under each other): a run is a function of its script of choices and of the
    values of the rule points it consulted, so a reading that gives every point a run consulted
    the value that run saw gives the same run, and is not run again (a reading that changes
    only points no run of the answer consulted needs no run at all). The season reading changes
    the knowledge base itself: a run made under one season reading is reused under another only
    where it read the same of both (`reads_alike`: most questions' runs consult no ruling whose
    time of force the season moves)."""

    __slots__ = ("runs", "calls", "resumes", "made", "kb", "_kinds", "_said")

    def __init__(self) -> None:
        self.made = 0       # runs made and kept
        self.runs: dict[tuple, list] = {}
        self.calls: Optional[list] = None     # the scenario's actions (engine.actions), made once
        self.resumes = None     # engine.resume.Resumes: the states before each action, where the game copies its state
        # the knowledge base the runs now being made read (the runner's, its season reading's: set
        # before each answer explores), so that `find` may take a run made under another season
        # reading; None: only runs made under the same season reading are taken
        self.kb: Optional["KnowledgeBase"] = None
        # kept runs that saw the same values and ask the same of a reading are of one kind (a dice
        # question's thousands of runs are of a few dozen), and a reading repeats all or none of
        # them: what `meets` says is kept per reading (its items) and kind
        self._kinds: dict[tuple, int] = {}
        self._said: dict[tuple, dict[Any, bool]] = {}

    def find(self, script, reading: dict[str, str]):
        """A run made before with this script that this reading would repeat, as (choices,
        (branch, context)) with a branch of its own; or None: the first kept run `repeats` says
        this reading repeats (`meets`, asked once per kind of kept run and reading): a dice
        question's test of what decides looks for each of its thousands of runs among the runs of
        every reading tried before (a dozen or more), and finds none. Where `kb` is set, a run made
        under another season reading repeats too if the two readings agree on every other point it
        consulted and it read the same of both knowledge bases (`reads_alike`)."""
        kept_runs = self.runs.get(tuple(script))
        if not kept_runs:
            return None
        items = tuple(reading.items())
        said = self._said.get(items)
        if said is None:
            said = self._said[items] = {}
        for kept in kept_runs:
            kind = kept[5]
            if kind is None:    # once needed: the points the run consulted with the values it saw,
                ctx = kept[2][1][1]
                seen = kept[0] = points_seen(ctx)
                needs = kept[4] = repeat_needs(seen, kept[1])     # what they ask of a reading, its kind
                # (and the rulings it read in force: what else of the knowledge base a season moves)
                rulings = tuple(sorted(ctx.rulings))
                try:
                    kind = kept[5] = self._kinds.setdefault((tuple(seen.items()), needs, rulings), len(self._kinds))
                except TypeError:   # a value that cannot be a key: a kind of its own
                    kind = kept[5] = object()
            repeated = said.get(kind)
            if repeated is None:
                needs, kb = kept[4], self.kb
                repeated = said[kind] = meets(needs, kept[0], reading) or (
                    kb is not None and meets(needs[1:], kept[0], reading) and reads_alike(kept[2][1][1], kb))
            if repeated:
                choices, (branch, ctx) = kept[2]
                twin = _copy.copy(branch)
                twin.steps = kept[3]    # as the run made them (an answer adds its own step in a new list)
                return choices, (twin, ctx)
        return None

    def keep(self, script, reading: dict[str, str], made) -> None:
        """Keep a run (choices, (branch, context)) made under `reading`."""
        self.runs.setdefault(tuple(script), []).append([None, dict(reading), made, made[1][0].steps, None, None])
        self.made += 1


def reads_alike(ctx, kb: "KnowledgeBase") -> bool:
    """Whether the run whose context is `ctx` reads of `kb` (its knowledge base with seasons read
    another way: `under_calendar`) all it read of its own, and so goes the same way there. A run
    reads the knowledge base's times of force only through the rule points it consults (each
    point's value, with its ruling, revision, status and notes, as `value` gives it on the run's
    day) and the rulings it cites in force (`Context.ruling`, `assume`, `gap`: its `rulings`);
    the rest (cards, sections, vocabularies, the scenario) is the same in both. A point some
    ruling sets for one card is taken to differ: which card's setting applies is not recorded."""
    was = ctx.kb
    if was is kb:
        return True
    game, day = ctx.game, ctx.day
    carded = carded_points(was)
    for name, card in ctx.points:
        if (game, name) in carded or was.value(game, name, card, day) != kb.value(game, name, card, day):
            return False
    for cited in ctx.rulings:      # 「ruling@revision」
        rid = cited.rpartition("@")[0]
        if was.in_force(rid, day) is not kb.in_force(rid, day):
            return False
    return True


def repeat_needs(seen: dict[str, str], made_under: dict[str, str]) -> tuple[tuple[str, object], ...]:
    """What a reading must give for a run made under `made_under` that consulted `seen` to
    repeat (`repeats`' first two tests, as pairs to compare with the reading's values): the same
    season (always the first pair), and every point the run's own reading set and the run
    consulted at the value seen."""
    needs = [(SEASON_POINT, made_under.get(SEASON_POINT))]
    for key in made_under:
        value = seen.get(key)
        if value is not None:
            needs.append((key, value))
    return tuple(needs)


def meets(needs: tuple, seen: dict[str, str], reading: dict[str, str]) -> bool:
    """`repeats(seen, made_under, reading)`, with `needs = repeat_needs(seen, made_under)` made once
    for a run that is tested against many readings (RunMemo's runs, engine.resume's kept states)."""
    get = reading.get
    for key, value in needs:
        if get(key) != value:
            return False
    for key, value in reading.items():
        had = seen.get(key)
        if had is not None and value != had:
            return False
    return True


def points_seen(ctx) -> dict[str, str]:
    """The rule points a run's context has consulted (「card(X).point」 -> the value it saw)."""
    seen = {}
    for (name, card), r in ctx.points.items():     # a loop: most runs consult a few points
        seen[f"card({card}).{name}" if card else name] = r.value
    return seen


def repeats(seen: dict[str, str], made_under: dict[str, str], reading: dict[str, str]) -> bool:
    """Would a run that consulted the points `seen` (key -> the value it saw) under the reading
    `made_under` go the same way under `reading`? Only the points either reading sets can differ
    (a point `made_under` sets that `reading` leaves at its default differs too: the run saw the
    other value), and the season: what `repeat_needs` asks of a reading, and `meets` tests."""
    return meets(repeat_needs(seen, made_under), seen, reading)


class Readings(Record):
    """The answers under each value of the points an answer consulted that are not confirmed."""

    points: dict[str, dict]          # key -> {"point", "card", "gap", "readings", "status", "kind"}
    answers: list[tuple[dict[str, str], "Answer"]] = field(default_factory=list)  # reading -> answer
    exhaustive: bool = True                        # False: too many combinations, varied one at a time
    errors: list[tuple[dict[str, str], str]] = field(default_factory=list)  # readings it cannot answer under
    deciding: set[str] = field(default_factory=set)   # the points whose value changes the answer

    @property
    def same(self) -> bool:
        keys = {answer_key(a) for _, a in self.answers}
        return len(keys) <= 1 and not self.errors

    def groups(self) -> list[tuple[list[dict[str, str]], "Answer"]]:
        """Readings grouped by the answer they give, the default reading's group first."""
        out: dict[tuple, tuple[list, "Answer"]] = {}
        for reading, a in self.answers:
            out.setdefault(answer_key(a), ([], a))[0].append(reading)
        return list(out.values())

    def unsettled(self) -> dict[str, dict]:
        """The points the sources leave open (their values are readings)."""
        return {k: p for k, p in self.points.items() if p.get("kind", "unsettled") == "unsettled"}


def answer_key(a: "Answer") -> tuple:
    """What an answer says, to compare answers under two readings: its sentences (as written
    from the run, not the scenario's own wording), whether its expectations hold, its outcomes."""
    ok = all(e.ok for e in a.expectations if e.applies and not e.about_status)
    return (tuple(a.derived or a.sentences), ok, tuple(sorted(a.outcomes)))


def split_key(key: str) -> tuple[str, Optional[str]]:
    """「card(No.142).stack_scope」 -> ("stack_scope", "No.142")."""
    if key.startswith("card(") and ")." in key:
        card, name = key[5:].split(").", 1)
        return name, card
    return key, None


def open_points(kb: "KnowledgeBase", a: "Answer") -> dict[str, dict]:
    """The points an answer consulted whose value is not confirmed, with the values to try
    (the one in force first): an unsettled point's readings; a ruled point's other values."""
    out: dict[str, dict] = {}
    # the value in force first (an unconfirmed ruling may set another than the default)
    for key, p in a.unsettled.items():
        values = [p["value"]] + [v for v in p["readings"] if v != p["value"]]
        out[key] = {**p, "readings": values, "kind": "unsettled"}
    decls = kb.games[a.game].points
    for key, v in a.points.items():
        if key in out or Status(v["status"]) not in _WEAK:
            continue
        name, card = split_key(key)
        decl = decls.get(name)
        if decl is None:
            continue
        values = [v["value"]] + [x.name for x in decl.values if x.name != v["value"]]
        if len(values) < 2:
            continue
        out[key] = {"point": name, "card": card, "value": v["value"], "gap": decl.unsettled,
                    "readings": values, "status": v["status"], "from": v["from"], "kind": "ruled"}
    return out


def search(kb: "KnowledgeBase", base: "Answer", run: Callable[[dict[str, str]], "Answer"],
           limit: int = MAX_READINGS) -> Readings:
    """The answer under every combination of other values of its open points (a value may lead
    the run to other open points, which are then tried too); which points decide it."""
    points = open_points(kb, base)
    result = Readings(points=points, answers=[({}, base)])
    if not points:
        return result
    done: dict[tuple, "Answer"] = {(): base}
    failed: dict[tuple, str] = {}
    seen: dict[tuple, tuple] = {}     # per reading answered anew: the points its runs consulted, the reading
    while True:
        combos, exhaustive = _combinations(points, limit)
        grew = False
        for combo in combos:
            key = tuple(sorted(combo.items()))
            if key in done or key in failed:
                continue
            a = _repeated(done, seen, combo)
            if a is None:
                try:
                    a = run(combo)
                except EngineError as e:   # this reading leads where the engine cannot answer: say so
                    failed[key] = e.message.splitlines()[0]
                    continue
                seen[key] = ({k: v["value"] for k, v in a.points.items()}, combo)
            done[key] = a
            for k, v in open_points(kb, a).items():
                if k not in points:
                    points[k] = v
                    grew = True
        if not grew or len(done) > limit * 4:
            break
    result.exhaustive = exhaustive
    wanted = {tuple(sorted(c.items())) for c in _combinations(points, limit)[0]}
    result.answers = [({}, base)] + [(dict(k), a) for k, a in done.items() if k and k in wanted]
    result.errors = [(dict(k), m) for k, m in failed.items() if k in wanted]
    # a point the answer did not consult decides, at most, an answer under another reading
    consulted = set(base.points) | set(base.unsettled)
    result.deciding = {k for k in _deciding(points, done, failed, exhaustive) if k in consulted}
    return result


def _repeated(done: dict[tuple, "Answer"], seen: dict[tuple, tuple],
              reading: dict[str, str]) -> Optional["Answer"]:
    """The answer under `reading`, when an answer under another reading (not the default's, whose
    words differ: a question's own answer words are read out under the default reading only)
    consulted no point to which `reading` gives another value: its runs, and so the answer, are
    the same (RunMemo); only the reading it is under differs."""
    for key, (values, made_under) in seen.items():
        if repeats(values, made_under, reading):
            twin = _copy.copy(done[key])
            twin.reading = dict(reading)
            return twin
    return None


def _deciding(points: dict[str, dict], done: dict[tuple, "Answer"], failed: dict[tuple, str],
              exhaustive: bool) -> set[str]:
    """A point decides when two readings that differ in it alone give different answers (or one
    of them cannot be answered). Varied one at a time, each reading is compared with the default."""
    keys = {k: answer_key(a) for k, a in done.items()}

    def outcome(k: tuple):
        return keys[k] if k in keys else (("error",) if k in failed else None)

    out: set[str] = set()
    for combo in (list(keys) + list(failed)) if exhaustive else [()]:
        if len(out) == len(points):
            break           # every point decides: nothing left to find
        here, mine = dict(combo), outcome(combo)
        for name, p in points.items():
            if name in out:
                continue
            for value in (None, *p["readings"][1:]):
                other = dict(here)
                if value is None:
                    other.pop(name, None)
                else:
                    other[name] = value
                okey = tuple(sorted(other.items()))
                theirs = outcome(okey) if okey != combo else None
                if theirs is not None and theirs != mine:
                    out.add(name)
                    break
    return out


def _combinations(points: dict[str, dict], limit: int) -> tuple[list[dict[str, str]], bool]:
    """Every combination of non-default values (as overrides), or each point varied alone."""
    keys = sorted(points)
    choices = [[None] + list(points[k]["readings"][1:]) for k in keys]
    total = 1
    for c in choices:
        total *= len(c)
    if total <= limit:
        out = []
        for values in itertools.product(*choices):
            combo = {k: v for k, v in zip(keys, values) if v is not None}
            if combo:
                out.append(combo)
        return out, True
    return [{k: v} for k, c in zip(keys, choices) for v in c[1:]], False


def settle(kb: "KnowledgeBase", a: "Answer", run: Callable[[dict[str, str]], "Answer"],
           limit: int = MAX_READINGS) -> "Answer":
    """Test what decides `a`, then keep as its cautions (and count for its status) only what does;
    what it touches without deciding goes to `a.touched`."""
    r = search(kb, a, run, limit)
    a.readings = r
    keep, touched = [], []
    for c in a.cautions:
        via = a.relies.get(c.key())
        if via is None or c.key() in a.direct or via & r.deciding:
            keep.append(c)
        else:
            touched.append((c, sorted(via)))
    # a deciding point counts even where no step of the trace happened to cite it
    cited = {k for c in keep for k in a.relies.get(c.key(), ())}
    for key in sorted(r.deciding - cited):
        v = a.points.get(key) or a.unsettled.get(key)
        if v is None or Status(v["status"]) not in _WEAK:
            continue
        ref = v.get("from") or f"{v.get('gap')}@undated"
        c = Cite("ruling" if "@" in ref else "section", ref, Status(v["status"]), v.get("source"),
                 f"答えを左右する点 {key} の値")
        if c.key() not in {x.key() for x in keep}:
            keep.append(c)
    keep.sort(key=lambda c: (-c.status.rank, c.ref))
    a.cautions = keep
    a.status = weakest([*a.firm, *(c.status for c in keep)])
    a.touched = [{**c.as_dict(), "points": [_touched_point(r, k) for k in via]} for c, via in touched]
    return a


def _touched_point(r: Readings, key: str) -> dict:
    p = r.points.get(key, {})
    return {"key": key, "kind": p.get("kind", "unsettled"), "readings": list(p.get("readings", ())),
            "gap": p.get("gap")}
