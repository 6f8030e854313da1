"""What an answer is: its branches, the result of each expectation, the answer itself with its
verdict and its JSON form, and the status line in the sources' own words.

Here so that the runner that makes answers, the sentence writer and the readings that read them
all import these types from below, without importing each other."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Optional

from ..base.record import Record, field
from ..lang.model import Status
from .chance import Odds, is_chance, odds_text, probability_of
from .context import ChoicePoint
from .trace import Cite, Step


class Branch(Record):
    choices: list[ChoicePoint]
    steps: list[Step]
    outcome: str                        # a one-line summary of the final state (Japanese)
    illegal: Optional[str]              # the message if an action was illegal
    before: Any                         # the game's board before the actions
    after: Any                          # and after
    results: list[Optional[tuple[bool, str]]]   # per expectation: holds?, what was found (None: not reached)
    illegal_cite: Optional[Cite] = None
    refused: list[str] = field(default_factory=list)   # actions refused that the game went on from

    def __init__(self, choices, steps, outcome, illegal, before, after, results, illegal_cite=None,
                 refused=None) -> None:
        # written out (one per branch): Record's own constructor is slower than this
        self.choices = choices
        self.steps = steps
        self.outcome = outcome
        self.illegal = illegal
        self.before = before
        self.after = after
        self.results = results
        self.illegal_cite = illegal_cite
        self.refused = [] if refused is None else refused

    @property
    def final(self) -> Any:
        """What the branch ended on, as a game's expectation words read it: its board after the
        actions, or (a run's branch whose board is not drawn yet) the state it would be drawn from."""
        return self.after

    @property
    def path(self) -> str:
        if not self.choices:
            return "（選択なし）"
        return " → ".join(f"{c.by if is_chance(c) else c.chooser or '—'}: {c.options[c.picked]}"
                          for c in self.choices)

    @property
    def probability(self):
        """The exact probability of this branch given its choices (1 without chance points)."""
        return probability_of(self.choices)


class ExpectationResult(Record):
    text: str                           # the expectation in words
    modality: str                       # always / possible / never
    ok: bool
    applies: bool                       # False when the as-of date is outside its period
    holds_in: int
    branches: int
    found: list[str]                    # what each branch found, when it did not hold
    loc: str
    evaluated: int = -1                 # branches where it could be checked (not after an illegal action)
    probability: Optional[str] = None   # the bound of a probability expectation (`>= 1/2`)
    statement: Optional[str] = None     # its text without the bound
    odds: Optional[list] = None         # with chance: per plan, the exact probability it holds
    about_status: bool = False          # `expect status …`: of the answer's status, not of the game

    def __init__(self, text, modality, ok, applies, holds_in, branches, found, loc, evaluated=-1,
                 probability=None, statement=None, odds=None, about_status=False) -> None:
        # written out (one per expectation and answer): Record's own constructor is slower than this
        self.text = text
        self.modality = modality
        self.ok = ok
        self.applies = applies
        self.holds_in = holds_in
        self.branches = branches
        self.found = found
        self.loc = loc
        self.evaluated = branches if evaluated < 0 else evaluated    # __post_init__, written in
        self.probability = probability
        self.statement = statement
        self.odds = odds
        self.about_status = about_status

    def __post_init__(self) -> None:
        if self.evaluated < 0:
            self.evaluated = self.branches


class Answer(Record, slots=True):      # (slots: tens of thousands kept by a wiki build, base/record.py)
    scenario: str
    title: str
    question: Optional[str]
    game: str
    as_of: _dt.date
    mode: str
    branches: list[Branch]
    expectations: list[ExpectationResult]
    status: Status
    cautions: list[Cite]                # what the answer rests on that is not confirmed
    fuzzy: list[str]
    points: dict[str, dict]             # rule point -> value and provenance
    sections: list[str]
    cards: list[str]
    rulings: list[str]
    sentences: list[str] = field(default_factory=list)   # the answer, in plain Japanese, first
    choosers: list[dict] = field(default_factory=list)   # who chooses what, under which rule
    illegal: Optional[dict] = None      # every branch ended on an action the rules forbid: why, cited
    unsettled: dict[str, dict] = field(default_factory=dict)   # unsettled points consulted: readings
    reading: dict[str, str] = field(default_factory=dict)      # the reading answered under (non-default values)
    assumptions: list[str] = field(default_factory=list)       # facts the scenario assumes (仮定)
    authority: list[str] = field(default_factory=list)         # what the sources relied on are
    readings: Optional[Any] = None      # the answers under other readings (see engine.readings)
    gaps: list[dict] = field(default_factory=list)             # gaps of the sources noted (no status)
    odds: Optional[Odds] = None         # with chance (or a probability expectation): see chance.summarize
    touched: list[dict] = field(default_factory=list)          # weak reliances consulted that decide nothing
    derived: list[str] = field(default_factory=list)           # the sentences as written from the run alone
    # for engine.deciding: the rule points each citation came through, the citations made
    # directly, and the statuses of what is not a caution (confirmed, retracted)
    relies: dict[tuple, set[str]] = field(default_factory=dict, repr=False)
    direct: set[tuple] = field(default_factory=set, repr=False)
    firm: list[Status] = field(default_factory=list, repr=False)

    def __init__(self, scenario, title, question, game, as_of, mode, branches, expectations, status,
                 cautions, fuzzy, points, sections, cards, rulings, sentences=None, choosers=None,
                 illegal=None, unsettled=None, reading=None, assumptions=None, authority=None,
                 readings=None, gaps=None, odds=None, touched=None, derived=None, relies=None, direct=None,
                 firm=None) -> None:
        # written out (several per question, with its readings): Record's own constructor is slower than this
        self.scenario = scenario
        self.title = title
        self.question = question
        self.game = game
        self.as_of = as_of
        self.mode = mode
        self.branches = branches
        self.expectations = expectations
        self.status = status
        self.cautions = cautions
        self.fuzzy = fuzzy
        self.points = points
        self.sections = sections
        self.cards = cards
        self.rulings = rulings
        self.sentences = [] if sentences is None else sentences
        self.choosers = [] if choosers is None else choosers
        self.illegal = illegal
        self.unsettled = {} if unsettled is None else unsettled
        self.reading = {} if reading is None else reading
        self.assumptions = [] if assumptions is None else assumptions
        self.authority = [] if authority is None else authority
        self.readings = readings
        self.gaps = [] if gaps is None else gaps
        self.odds = odds
        self.touched = [] if touched is None else touched
        self.derived = [] if derived is None else derived
        self.relies = {} if relies is None else relies
        self.direct = set() if direct is None else direct
        self.firm = [] if firm is None else firm

    @property
    def ok(self) -> bool:
        return all(e.ok for e in self.expectations if e.applies)

    @property
    def outcomes(self) -> dict[str, list[Branch]]:
        groups: dict[str, list[Branch]] = {}
        for b in self.branches:
            groups.setdefault(b.outcome, []).append(b)
        return groups

    def verdict(self) -> str:
        # a status expectation is counted only when it fails: it is checked on the scenario's own
        # date, and a verdict that changed with the day it is computed on would split timelines
        applicable = [e for e in self.expectations if e.applies and (not e.about_status or not e.ok)]
        failed = [e for e in applicable if not e.ok]
        outcomes = self.outcomes
        if self.odds is not None and self.odds.chance_points and len(self.odds.plans) == 1:
            head = " / ".join(f"{o.split('; ')[0]} {odds_text(p)}" for o, p in self.odds.plans[0].outcomes)
        elif self.odds is not None and self.odds.chance_points:
            head = f"{len(outcomes)} outcomes are possible, depending on the dice and {len(self.odds.plans) or 'the'} choices"
        elif len(outcomes) == 1:
            head = next(iter(outcomes))
        else:
            head = f"{len(outcomes)} outcomes are possible, depending on the choices"
        if self.illegal and any(e.evaluated == 0 for e in failed):
            return f"{head} — the action is not allowed, so the scenario's expectations were not reached"
        if not applicable:
            return head
        if failed:
            return f"{head} — {len(failed)} of {len(applicable)} expectations FAIL"
        return f"{head} — all {len(applicable)} expectations hold"

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario, "title": self.title, "question": self.question,
            "answer": self.sentences,
            "game": self.game, "as_of": self.as_of.isoformat(), "mode": self.mode,
            "verdict": self.verdict(), "ok": self.ok, "status": self.status.value,
            "status_words": status_words(self), "authority": self.authority,
            "cautions": [c.as_dict() for c in self.cautions], "fuzzy": self.fuzzy,
            "illegal": self.illegal, "choosers": self.choosers, "assumptions": self.assumptions,
            "gaps": self.gaps, "touched": self.touched,
            "readings": readings_json(self),
            "expectations": [{
                "text": e.text, "modality": e.modality, "ok": e.ok, "applies": e.applies,
                "holds_in": e.holds_in, "branches": e.branches, "evaluated": e.evaluated,
                "found": e.found, "loc": e.loc, **({"status": True} if e.about_status else {}),
                **({"probability": e.probability} if e.probability else {}),
                **({"odds": e.odds} if e.odds is not None else {})}
                for e in self.expectations],
            "outcomes": [{
                "outcome": outcome, "branches": [b.path for b in bs]}
                for outcome, bs in self.outcomes.items()],
            **({"odds": self.odds.as_dict()} if self.odds is not None else {}),
            "branches": [{
                "choices": [{"chooser": c.chooser, "label": c.label, "options": list(c.options),
                             "picked": c.options[c.picked], "rule": c.cite.ref if c.cite else None,
                             **({"chance": True, "probabilities": [str(w) for w in c.weights]} if is_chance(c) else {})}
                            for c in b.choices],
                **({"probability": str(b.probability)} if self.odds is not None else {}),
                "outcome": b.outcome, "illegal": b.illegal, "before": b.before, "after": b.after,
                "trace": [s.as_dict() for s in b.steps]} for b in self.branches],
            "depends_on": {"points": self.points, "sections": self.sections, "cards": self.cards,
                           "rulings": self.rulings},
        }


def status_words(a: Answer) -> str:
    """The status line's words: the weakest reliance first, in the sources' own words, then every
    other weaker-than-confirmed reliance once; qualified by what the sources are."""
    return status_line(a)


# The order of weakness an answer's status follows, strongest first (model.Status.rank), and the
# words the sources themselves use for each status (000: 確認済み・統一裁定 / 2026年8月暫定裁定 /
# ※暫定ルール・非公式 / ※未確定). 確定: the source states it, or marks it 確認済み or 統一裁定.
STATUS_WORDS = {
    Status.confirmed: "確定",
    Status.provisional: "暫定裁定",
    Status.unofficial: "※暫定ルール・非公式",
    Status.unconfirmed: "※未確定",
    Status.retracted: "撤回",
}


STATUS_MEANING = {
    Status.confirmed: "資料が定める（「確認済み」「統一裁定」を含む）",
    Status.provisional: "資料が「暫定裁定」とする",
    Status.unofficial: "資料自身が「※暫定ルール・非公式」とする",
    Status.unconfirmed: "資料に定めがなく、この知識ベースの読み",
    Status.retracted: "撤回された",
}


def status_line(a: "Answer") -> str:
    """「※未確定、※暫定ルール・非公式（…）」: every status weaker than confirmed that decides the
    answer, the weakest first, in the sources' words; 確定 alone when there is none. Qualified by
    what the sources are (「出典: ファンwikiのまとめ。公式ルールではない」)."""
    seen = sorted({c.status for c in a.cautions}, key=lambda s: -s.rank)
    words = "、".join(STATUS_WORDS[s] for s in seen) if seen else STATUS_WORDS[Status.confirmed]
    if a.authority:
        words += f"（出典: {'／'.join(a.authority)}）"
    return words


def readings_json(a: "Answer") -> Optional[dict]:
    if not a.unsettled and a.readings is None:
        return None
    out: dict = {"points": [{"key": k, **v} for k, v in a.unsettled.items()], "reading": a.reading}
    if a.readings is not None:
        out["same"] = a.readings.same
        out["exhaustive"] = a.readings.exhaustive
        out["deciding"] = sorted(a.readings.deciding)
        out["tried"] = [{"key": k, "kind": p.get("kind", "unsettled"), "readings": list(p["readings"])}
                        for k, p in sorted(a.readings.points.items())]
        out["answers"] = [{"reading": r, "answer": x.sentences, "ok": x.ok, "status": x.status.value}
                          for r, x in a.readings.answers]
        out["errors"] = [{"reading": r, "error": m} for r, m in a.readings.errors]
    return out
