"""Recorded answers: what each answer depended on, whether a record still holds in another state
of the knowledge base, and the memo that reuses an answer while its dependencies hold (impact.py
and periods.py build on these).

An answer is a deterministic function of the scenario, the cards it uses, and the values (with
provenance) of the rule points and rulings it consulted along the way. If every consulted value
is the same in another state of the knowledge base, the run there follows the same path and
gives the same answer. So a recorded answer stays valid while its recorded dependencies do;
this is what lets `impact` re-run only the scenarios whose dependencies changed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

from ..engine.answer import Answer
from ..engine.context import EngineError
from ..engine.registry import engine_for
from ..engine.runner import answer, collector_paused
from ..kb.knowledge import KnowledgeBase, ScenarioInfo

MEMO_VERSION = "2"


# ----------------------------------------------------------------------------- records

class Dep(NamedTuple):
    """One thing an answer consulted and what it found (a named tuple: a memo holds tens of
    thousands, and reading it back is part of every impact run)."""

    kind: str          # "point" or "ruling" or "card"
    key: tuple         # (point, card) / (ruling id,) / (code,)
    found: tuple       # what it was: value and provenance / revision / content digest


@dataclass
class Record:
    scenario: str
    digest: str                     # the scenario itself
    as_of: str
    mode: str
    verdict: str                    # distinct outcomes and expectation results
    ok: bool
    status: str
    deps: tuple[Dep, ...]
    error: Optional[str] = None     # the engine refused to answer
    answer: str = ""                # the answer's sentences (what a reader is shown)

    def summary(self) -> str:
        """The answer as a reader is shown it: its sentences (else the final state)."""
        if self.error:
            return f"error: {self.error}"
        return self.answer or self.verdict

    def same_answer(self, other: "Record") -> bool:
        return (self.verdict, self.answer, self.error, self.ok, self.status) == \
            (other.verdict, other.answer, other.error, other.ok, other.status)

    def points(self) -> tuple:
        """The rule points it rested on, with their values and provenance."""
        return tuple(d for d in self.deps if d.kind == "point")


def scenario_digest(info: ScenarioInfo) -> str:
    """Identifies the scenario's text: the loader's digest of its file (so any edit of the
    file counts as a change), or failing that a digest of the scenario itself."""
    if info.digest is None:
        info.digest = _digest(_strip(info.scenario.model_dump(mode="json")))
    return info.digest


def card_digest(kb: KnowledgeBase, game: str, code: str) -> str:
    card = kb.card(game, code)
    if card is None:
        return "missing"
    if card.digest is None:
        card.digest = _digest(_strip(card.card.model_dump(mode="json")))
    return card.digest


def _digest(value) -> str:
    return hashlib.sha1(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "loc" and not k.endswith("_loc")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def verdict_of(a: Answer, status_checks: bool = True) -> str:
    """Distinct outcomes and the expectations that fail (without `status_checks`, the status
    expectations are left out: what the answer says of the game, whatever its status)."""
    outcomes = " | ".join(sorted(a.outcomes))
    if a.odds is not None and a.odds.chance_points:   # the exact distribution, plan by plan
        outcomes = " | ".join((f"{p.label}: " if len(a.odds.plans) > 1 else "") +
                              ", ".join(f"{o} {pr}" for o, pr in sorted(p.outcomes)) for p in a.odds.plans)
    # a status expectation is checked on the scenario's own date only: listed when it fails
    checks = "; ".join(f"{'✓' if e.ok else '✗'} {e.text}" for e in a.expectations
                       if e.applies and (not e.about_status or (status_checks and not e.ok)))
    return f"{outcomes}" + (f" [{checks}]" if checks else "")


def ruling_found(kb: KnowledgeBase, rid: str, day: _dt.date) -> tuple:
    rev = kb.in_force(rid, day)
    if rev is None:
        return ("none",)
    return (rev.date_label, rev.status.value, rev.text.value if rev.text else None)


def record(kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date] = None,
           point_cache: Optional[dict] = None) -> tuple[Record, Optional[Answer]]:
    """Answer a scenario and record what it depended on."""
    try:
        a = answer(kb, info, as_of=day, point_cache=point_cache)
    except EngineError as e:
        when = day or (info.scenario.as_of.start() if info.scenario.as_of else _dt.date.today())
        return Record(info.id, scenario_digest(info), when.isoformat(), info.scenario.mode or "",
                      "", False, "", (), error=e.message), None
    return record_of(kb, info, a), a


def record_of(kb: KnowledgeBase, info: ScenarioInfo, a: Answer) -> Record:
    """The record of an answer already computed (what `record` makes of the answer it computes)."""
    deps: list[Dep] = []
    for key, v in a.points.items():
        point, card = _split_point(key)
        deps.append(Dep("point", (point, card), (v["value"], v["status"], *_provenance(v["from"]))))
    via_points = {v["from"] for v in a.points.values()}
    for r in a.rulings:
        if r in via_points:
            continue  # already a point's provenance
        rid = r.split("@", 1)[0]
        deps.append(Dep("ruling", (rid,), ruling_found(kb, rid, a.as_of)))
    for code in a.cards:
        deps.append(Dep("card", (code,), (card_digest(kb, info.game, code),)))
    return Record(info.id, scenario_digest(info), a.as_of.isoformat(), a.mode, verdict_of(a), a.ok,
                  a.status.value, tuple(sorted(set(deps), key=lambda d: (d.kind, d.key))),
                  answer="".join(a.sentences))


def _split_point(key: str) -> tuple[str, Optional[str]]:
    if key.startswith("card("):
        code, _, point = key[5:].partition(").")
        return point, code
    return key, None


def _provenance(cite: str) -> tuple:
    if "@" in cite:
        rid, rev = cite.rsplit("@", 1)
        return (rid, rev, None)
    return (None, None, cite)


def still_valid(kb: KnowledgeBase, info: ScenarioInfo, rec: Record, day: Optional[_dt.date] = None,
                cache: Optional[dict] = None) -> Optional[Dep]:
    """None if the record holds in this knowledge base; else the first dependency that moved.
    `cache` keeps what dependencies are found to be in this knowledge base (many answers
    share them) across the calls of one run."""
    when = day or (info.scenario.as_of.start() if info.scenario.as_of else None)
    if when is None or rec.as_of != when.isoformat() or rec.digest != scenario_digest(info) or rec.error:
        return Dep("scenario", (info.id,), ("changed",))
    for d in rec.deps:
        if cache is None:
            found = now(kb, info, d, when)
        else:
            key = (info.game, d.kind, d.key, when)
            found = cache.get(key)
            if found is None:
                found = cache[key] = now(kb, info, d, when)
        if found != d.found:
            return d
    return None


def now(kb: KnowledgeBase, info: ScenarioInfo, d: Dep, day: _dt.date) -> tuple:
    if d.kind == "point":
        v = kb.value(info.game, d.key[0], card=d.key[1], as_of=day)
        return (v.value, v.status.value, v.ruling, v.revision, v.section if not v.ruling else None)
    if d.kind == "ruling":
        return ruling_found(kb, d.key[0], day)
    if d.kind == "card":
        return (card_digest(kb, info.game, d.key[0]),)
    return ()


# ----------------------------------------------------------------------------- the memo

def engine_digest() -> str:
    here = Path(__file__).resolve().parents[1]
    h = hashlib.sha1(MEMO_VERSION.encode())
    for f in sorted([*(here / "engine").glob("*.py"), *(here / "games").rglob("*.py"),
                     *(here / "kb").glob("*.py"), here / "lang" / "vocab.py"]):
        h.update(f.read_bytes())
    return h.hexdigest()


class Memo:
    """Recorded answers, kept between runs as a cache entry (JSON under a MAC bound to the
    engine's code: see rulesdsl/base/cache.py) in the knowledge base's private cache folder."""

    def __init__(self, path: Optional[Path]) -> None:
        from ..base import cache
        self.path = path
        self.key = engine_digest()
        self.records: dict[str, Record] = {}
        # decoded with the collector paused: a record per question makes hundreds of thousands of
        # containers and no cycles, and the collector would walk everything alive again and again
        # (10,363 records beside two loaded knowledge bases and the records just made: 0.41-0.54 s,
        # paused 0.12-0.15 s)
        with collector_paused():
            data = cache.read_json(path, "answers", self.key) if path else None
            try:
                for r in data or ():
                    deps = tuple(Dep(d[0], tuple(d[1]), tuple(d[2])) for d in r.pop("deps"))
                    rec = Record(**r, deps=deps)
                    self.records[rec.scenario] = rec
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                cache.note(f"ignoring {path}: not a record of answers")
                self.records = {}
        self.dirty = False

    def get(self, kb: KnowledgeBase, info: ScenarioInfo, day: Optional[_dt.date] = None,
            cache: Optional[dict] = None) -> Optional[Record]:
        rec = self.records.get(info.id)
        if rec is not None and still_valid(kb, info, rec, day, cache) is None:
            return rec
        return None

    def put(self, rec: Record) -> None:
        self.records[rec.scenario] = rec
        self.dirty = True

    def save(self) -> None:
        if self.path and self.dirty:
            from ..base import cache
            cache.write_json(self.path, "answers", self.key,
                             [dict(vars(r), deps=[list(d) for d in r.deps]) for r in self.records.values()])


def answer_all(kb: KnowledgeBase, infos: Iterable[ScenarioInfo], memo: Optional[Memo] = None,
               progress=None) -> dict[str, Record]:
    """A record for every scenario that has an interpreter, reusing the memo where it holds."""
    out: dict[str, Record] = {}
    cache: dict = {}
    infos = [i for i in infos if engine_for(i.game) is not None]
    # paused over every answer, not only within each (runner.collector_paused): resumed between
    # two, it would walk each answer's objects still alive, and now and then every record and
    # cache kept so far (10,363 questions: 10.8-13.4 s running, 8.7-9.0 s paused)
    with collector_paused():
        for n, info in enumerate(infos, 1):
            rec = memo.get(kb, info) if memo else None
            if rec is None:
                rec, _ = record(kb, info, point_cache=cache)
                if memo:
                    memo.put(rec)
            out[info.id] = rec
            if progress:
                progress(n, len(infos))
    return out


# ----------------------------------------------------------------------------- impact


# ----------------------------------------------------------------------------- timelines


# ----------------------------------------------------------------------------- reporting


# ----------------------------------------------------------------------------- pinned expectations


# ----------------------------------------------------------------------------- what each revision changed

