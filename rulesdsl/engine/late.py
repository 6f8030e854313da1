"""A run's boards drawn late: the board after the actions drawn from the state a run ended on,
and the board before them drawn from the set-up made again, each when it is first read (the JSON,
a page, the terminal), not in every run: `rulesdsl test`, the readings' answers and the
benchmarks never read them (engine.runner makes the branches that hold them). And an answer's
sentences and the authority of its sources, written when they are first read (`RunAnswer`)."""

from __future__ import annotations

import copy as _copy

from ..base.record import shallow_copy
from .answer import Answer, Branch, ExpectationResult


class Pending:
    """A board not drawn yet: `draw(state)` of the state a run ended on, drawn once when it is
    first read (every copy of the branch reads the same picture)."""
    __slots__ = ("draw", "state", "picture")

    def __init__(self, draw, state) -> None:
        self.draw, self.state, self.picture = draw, state, None

    def drawn(self):
        if self.state is not None:
            self.picture, self.state = self.draw(self.state), None   # the state is no longer kept
        return self.picture


class Redrawn:
    """The board before the actions, not drawn yet: drawn when first read (`redraw(picks)`: the
    set-up made again on a scratch context with the picks the run's set-up met — a run is
    deterministic given them, as `rebuild` relies on — and the board drawn from it as the run
    would have drawn it, through `GameEngine.board_before`), then kept. A first-asked question's
    runs drew it for nothing where nothing reads it (`rulesdsl test`, the history, the
    benchmarks: 4–10 % of the instructions of such a question, benchmarks/README.md); where it is
    read (the JSON, a page, the terminal) the set-up is made again once. Holds the knowledge base
    the answer was made on (through `redraw`), as long as the board is not drawn."""
    __slots__ = ("redraw", "picks", "picture")

    def __init__(self, redraw, picks: list[int]) -> None:
        self.redraw, self.picks, self.picture = redraw, picks, None

    def drawn(self):
        if self.redraw is not None:
            self.picture = self.redraw(self.picks)
            self.redraw = self.picks = None     # the knowledge base and the question no longer held
        return self.picture


def drawn_late(slot: str, late: type) -> property:
    """A branch's board kept in `slot`, drawn when first read where it is a `late` one."""
    def read(self):
        v = getattr(self, slot)
        return v.drawn() if v.__class__ is late else v

    def write(self, value) -> None:
        setattr(self, slot, value)
    return property(read, write)


class RunBranch(Branch):
    """A run's branch, whose boards are drawn when they are first read (the JSON, the page, the
    terminal; a game's expectation words read the state itself: `final`), not in every run:
    `rulesdsl test` and the readings' answers never read them. A board is a function of the state alone, and
    the state a run ends on is never changed after the run (a later run starts from a copy or
    from the set-up), so the picture drawn later is the one the run would have drawn; the board
    before the actions is drawn from the set-up made again (`Redrawn`)."""

    before = drawn_late("_before", Redrawn)
    after = drawn_late("_after", Pending)

    @property
    def final(self):    # the state itself while no board is drawn from it: none is drawn for the words
        v = self._after
        return (v.picture if v.state is None else v.state) if v.__class__ is Pending else v


class Worded:
    """An answer's words not written yet (its sentences, what its sources are): `write(*args)`,
    written once when first read (every copy of the answer reads the same list), then only the
    list is kept. `args` hold what the words are written from as it was when the answer was made
    (`RunAnswer`)."""
    __slots__ = ("write", "args", "words")

    def __init__(self, write, args: tuple) -> None:
        self.write, self.args, self.words = write, args, None

    def drawn(self):
        if self.write is not None:
            self.words = self.write(*self.args)
            self.write = self.args = None       # the knowledge base, the question and the view no longer held
        return self.words

    def __deepcopy__(self, memo: dict):
        """A deep copy of the answer holds the words themselves, written now: not a copy of the
        knowledge base and the question they are written from."""
        return _copy.deepcopy(self.drawn(), memo)


class RunAnswer(Answer):
    """A run's answer, whose sentences (and the sentences written from the run alone, `derived`;
    and what the documents it cites are, `authority`) are written when they are first read — the JSON, the terminal, a page, the test of what
    decides comparing two readings' words — not for every answer: `rulesdsl test` reads the
    verdict alone, as do the history's quick answers and the benchmarks' runs. They are written
    from a view of the answer as it was made (a shallow copy, with a list of its expectations of
    its own: the status checks appended later, the readings' twins and the pages' slimmed
    branches do not reach it), so they say what the sentences written at once said."""

    __slots__ = ("_sentences", "_derived", "_authority")
    sentences = drawn_late("_sentences", Worded)
    derived = drawn_late("_derived", Worded)
    authority = drawn_late("_authority", Worded)     # what the documents cited are: read with the status line

    def __copy__(self) -> "RunAnswer":
        """A shallow copy (`copy.copy`: a twin under another reading, the view the sentences are
        written from), made without the reduction protocol `copy` otherwise goes through (three
        times the cost)."""
        return shallow_copy(self)


class RunExpectation(ExpectationResult):
    """A run's result of one expectation, whose words (`text`; a probability expectation's words
    without the bound, `statement`) are written when first read — the sentences, the JSON, the
    terminal — not for every answer: the verdict reads whether it holds, not its words. The words
    depend on the expectation and the knowledge base alone (engine.runner: `describe`), so every
    answer of a question shares them."""

    text = drawn_late("_text", Worded)
    statement = drawn_late("_statement", Worded)


def write_words(a: Answer) -> None:
    """Write now the words an answer and its expectations write when first read (`RunAnswer`,
    `RunExpectation`), so that the answer lets go of the view they are written from: for a caller
    that keeps many answers and reads every one's words later anyway (the wiki's Q&A pages)."""
    if isinstance(a, RunAnswer):
        for name in ("sentences", "derived", "authority"):
            getattr(a, name)
    for e in a.expectations:
        if isinstance(e, RunExpectation):
            e.text
            e.statement
