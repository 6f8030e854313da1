"""The wiki's view of a knowledge base: which pages exist and where, the cross-reference indexes
between rule sections, cards, rulings and scenarios, and the scenarios' answers computed by the
game's interpreter (once per build).

Page paths are docs-relative `.md` paths (`grm/cards/No.018.md`); URLs follow mkdocs'
`use_directory_urls` (`grm/cards/No.018/` or `grm/cards/No.018.html`).
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Union

from ..engine.registry import engine_for
from ..kb.knowledge import KnowledgeBase, ScenarioInfo
from ..kb.timeline import sort_key
from ..lang.model import Revision, Ruling, Section, Status
from ..lang.vocab import Call, CardRef
from .answering import Failure, answer_all, thin_branches
from .escape import Anchors, path_slug, url_quote
from .render import STATUS_JA
from .source import SourceTexts

if TYPE_CHECKING:
    from ..engine.answer import Answer

log = logging.getLogger("mkdocs.plugins.rulesdsl")


class WikiError(Exception):
    """The knowledge base cannot be published as it is (a failing scenario, a fatal error)."""


@dataclass
class Page:
    """A page the wiki generates."""

    src: str                    # docs-relative .md path
    title: str                  # plain text
    kind: str                   # home, game, rules, chapter, cards, card, rulings, ruling, …
    key: Any = None             # what it shows (game id, card key, ruling id …)
    game: Optional[str] = None


@dataclass(frozen=True)
class Settled:
    """What the pages made after the history read of an answer that no ruling page shows in full
    (a scenario's line in a table or list, the review list, the counts of statuses, the new
    question's template): its status, whether its expectations hold, whether any applies."""

    status: Status
    ok: bool
    checked: bool


AnswerResult = Union["Answer", Settled, Failure, None]
JOBS_ENV = "RULESDSL_WIKI_JOBS"   # how many processes share the build's long parts (1: one; unset: as base.shared_work.jobs says)
SHARED_FROM = 200               # questions from which the history and the browser interpreter are made with a forked copy
SCENARIO_HEAD = re.compile(r'^scenario\s+\S+\s+"(?:[^"\\\n]|\\.)*"')   # a worked question's first line (ask_page.template)
# what the answers' runs kept in the knowledge base's memo of the set-ups they made
# (engine.registry GameEngine.set_up / kept_set_up: a copy of each state set up twice)
KEPT_SET_UPS = "engine.set_up"
REVIEW_STATUSES = (Status.provisional, Status.unofficial, Status.unconfirmed)   # the review list's, in order


class Wiki:
    def __init__(self, kb: KnowledgeBase, use_directory_urls: bool = False, keep_going: bool = False,
                 today: Optional[_dt.date] = None) -> None:
        self.kb = kb
        self.dir_urls = use_directory_urls
        self.keep_going = keep_going
        self.today = today or _dt.date.today()
        self.sources = SourceTexts(kb.root)
        self.games = list(kb.games)
        self.answers: dict[str, AnswerResult] = {}
        self.failures: list[Failure] = []
        self._changed: Optional[dict] = None
        self.ask: Any = None                 # what the build ships to answer in the browser (ask_bundle.Bundle)
        self._urls: dict[str, str] = {}
        self._current: dict[str, tuple] = {}
        self.memo: dict = {}                 # what a renderer makes once per build for several pages, by its own key
        self._index()
        self._plan()

    # ------------------------------------------------------------------------- urls
    def url(self, src: str) -> str:
        """The URL of a docs-relative .md path, as mkdocs makes it (percent-encoded). Kept per
        path: every link of every page asks for one."""
        got = self._urls.get(src)
        if got is None:
            got = self._urls[src] = url_quote(self.path(src))
        return got

    def path(self, src: str) -> str:
        """The same URL, not encoded: the output file's path (`index.html` added for a folder)."""
        base = src[:-3]
        if not self.dir_urls:
            return base + ".html"
        if base == "index":
            return ""
        if base.endswith("/index"):
            return base[:-5]
        return base + "/" if self.dir_urls else base + ".html"

    @staticmethod
    def root_of(url: str) -> str:
        """The relative prefix from a page at `url` to the site root."""
        return "../" * url.count("/")

    def game_src(self, game: str) -> str:
        return f"{game}/index.md"

    def ask_src(self, game: str) -> str:
        """The page 「新しい質問」 of a game (ask_page.py)."""
        return f"{game}/ask.md"

    @property
    def page_srcs(self) -> set[str]:
        return {p.src for p in self.pages}

    def card_src(self, game: str, code: str) -> str:
        return self._card_src[(game, code)]

    def ruling_src(self, rid: str) -> str:
        return self._ruling_src[rid]

    def scenario_src(self, sid: str) -> str:
        return self._scenario_src[sid]

    def chapter_src(self, game: str, chapter: str) -> str:
        return f"{game}/rules/{path_slug(chapter)}.md"

    def section_href(self, sid: str) -> Optional[str]:
        sec = self.kb.sections.get(sid)
        if sec is None:
            return None
        return self.url(self.chapter_src(sec.game, self.chapter_of[sid])) + "#" + self.section_anchor[sid]

    def point_href(self, game: str, point: str) -> str:
        return self.url(f"{game}/points.md") + "#" + point_anchor(point)

    def source_src(self, game: str, name: str) -> str:
        return f"{game}/sources/{path_slug(Path(name).stem)}.md"

    def source_doc(self, name: str):
        """(game, SourceDocument) of a document file name, or None."""
        return self._documents.get(name)

    def source_href(self, name: str, heading: Optional[str] = None) -> Optional[str]:
        """The URL of a source document's page, at the line of `heading` when given."""
        memo = self.__dict__.setdefault("_source_hrefs", {})
        got = memo.get((name, heading), False)
        if got is not False:
            return got
        found = self._documents.get(name)
        if found is None:
            url = None
        else:
            game, d = found
            line = d.line_of(heading) if heading else None
            url = self.url(self.source_src(game, name)) + (f"#{line_anchor(line)}" if line else "")
        memo[(name, heading)] = url
        return url

    def card_index(self, game: str) -> tuple[set[str], dict[str, str]]:
        """A game's card codes, and its cards' names to their codes (for linking mentions)."""
        memo = self.__dict__.setdefault("_card_index", {})
        if game not in memo:
            codes = {code for (g, code) in self.kb.cards if g == game}
            names = {}
            for (g, code), c in self.kb.cards.items():
                if g == game and c.card.name:
                    names.setdefault(c.card.name, code)
            memo[game] = (codes, names)
        return memo[game]

    def cited_lines(self, name: str) -> set[int]:
        """Lines of a source document that the knowledge base cites as headings."""
        memo = self.__dict__.setdefault("_cited", None)
        if memo is None:
            memo = self._cited = defaultdict(set)
            kb = self.kb
            cites = [s.source for s in kb.sections.values()]
            cites += [rev.source for r in kb.rulings.values() for rev in r.revisions]
            cites += [c.card.source for c in kb.cards.values()]
            cites += [i.scenario.source for i in kb.scenarios.values()]
            for c in cites:
                if c is not None and c.heading and c.document in self._documents:
                    line = self._documents[c.document][1].line_of(c.heading)
                    if line:
                        memo[c.document].add(line)
        return memo.get(name, set())

    def card_href(self, game: str, code: str) -> Optional[str]:
        src = self._card_src.get((game, code))
        return self.url(src) if src else None

    def ruling_href(self, rid: str, rev: Optional[str] = None) -> Optional[str]:
        src = self._ruling_src.get(rid)
        if src is None:
            return None
        return self.url(src) + (f"#{revision_anchor(rev)}" if rev else "")

    def scenario_href(self, sid: str) -> Optional[str]:
        src = self._scenario_src.get(sid)
        return self.url(src) if src else None

    def ref_href(self, game: str, target: str, rev: Optional[str] = None) -> Optional[tuple[str, str]]:
        """(url, kind) of what a reference names: a ruling, rule section, scenario or card."""
        if target in self.kb.rulings:
            return self.ruling_href(target, rev), "ruling"
        if target in self.kb.sections:
            return self.section_href(target), "section"
        if target in self.kb.scenarios:
            return self.scenario_href(target), "scenario"
        href = self.card_href(game, target)
        if href:
            return href, "card"
        return None

    # ------------------------------------------------------------------------- indexes
    def _index(self) -> None:
        kb = self.kb
        self._documents = {name: (g, d) for g, info in kb.games.items() for name, d in info.documents.items()}
        # rule sections by chapter (the id's second segment), in declaration order
        self.chapters: dict[str, dict[str, list[Section]]] = {g: {} for g in self.games}
        self.chapter_of: dict[str, str] = {}
        for s in kb.sections.values():
            parts = s.id.split("/")
            chapter = parts[1] if len(parts) > 1 else parts[0]
            self.chapters.setdefault(s.game, {}).setdefault(chapter, []).append(s)
            self.chapter_of[s.id] = chapter
        self.chapter_title: dict[tuple[str, str], str] = {}
        self.section_anchor: dict[str, str] = {}
        for game, chapters in self.chapters.items():
            for chapter, sections in chapters.items():
                head = next((s for s in sections if s.id == f"{game}/{chapter}"), sections[0])
                title = head.title
                self.chapter_title[(game, chapter)] = title
                anchors = Anchors()
                anchors.new(title)              # the page's h1
                for s in sections:
                    self.section_anchor[s.id] = anchors.new(s.title)

        # what refers to what
        # (ordered sets: dicts with None values, so that adding stays O(1) on a large corpus)
        self.rulings_for: dict[tuple[str, str], list[str]] = defaultdict(list)   # (game, target) -> rulings
        rulings_for_point: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
        for r in kb.rulings.values():
            targets: dict[str, None] = {}
            for ref in r.refs:
                targets[ref.target] = None
            for rev in r.revisions:
                for ref in rev.refs:
                    targets[ref.target] = None
                for st in rev.settings:
                    if st.card:
                        targets[st.card] = None
                    rulings_for_point[(r.game, st.point)][r.id] = None
            for t in targets:
                self.rulings_for[(r.game, t)].append(r.id)
        self.rulings_for_point: dict[tuple[str, str], list[str]] = {k: list(v) for k, v in rulings_for_point.items()}
        # sections: rulings that refer to them, and rulings that set a point they give
        self.section_points: dict[str, list[str]] = defaultdict(list)
        for game, info in kb.games.items():
            for p in info.points.values():
                if p.default is not None:
                    self.section_points[p.default.section].append(p.name)
        for s in kb.sections.values():
            for name in s.defines:
                if name not in self.section_points[s.id]:
                    self.section_points[s.id].append(name)

        scenarios_for: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)  # pins
        self.scenarios_for_card: dict[tuple[str, str], list[str]] = defaultdict(list)
        for sid, info in kb.scenarios.items():
            for pin in info.pins:
                scenarios_for[(info.game, pin.target)][sid] = None
            for key in sorted(scenario_cards(info)):
                self.scenarios_for_card[key].append(sid)
        self.scenarios_for: dict[tuple[str, str], list[str]] = {k: list(v) for k, v in scenarios_for.items()}

        self.superseded_by: dict[str, list[tuple[str, Revision]]] = kb.timelines.superseded_by

    # ------------------------------------------------------------------------- pages
    def _plan(self) -> None:
        """Every page's path and title; item pages get collision-free slugs."""
        kb = self.kb
        self.pages: list[Page] = []        # rendered by mkdocs (in the nav)
        self.items: list[Page] = []        # cards, rulings, scenarios (rendered directly)
        taken: set[str] = set()

        def add(src: str, title: str, kind: str, key: Any = None, game: Optional[str] = None) -> None:
            taken.add(src)
            self.pages.append(Page(src, title, kind, key, game))

        add("changelog/index.md", "変更履歴", "changelog")
        for year in self.changelog_years():
            add(f"changelog/{year}.md", f"{year}年の変更", "changelog_year", year)
        add("review.md", "要確認一覧（※未確定・暫定・非公式）", "review")
        for g in self.games:            # the review list per game and status (review.py)
            for st in REVIEW_STATUSES:
                add(self.review_src(g, st), f"要確認一覧：{kb.games[g].decl.name}の{STATUS_JA[st]}",
                    "review_part", (g, st.value), g)
        for g in self.games:
            name = kb.games[g].decl.name
            add(self.game_src(g), name, "game", g, g)
            add(f"{g}/rules/index.md", f"{name}：ルール", "rules", g, g)
            for chapter in self.chapters.get(g, {}):
                add(self.chapter_src(g, chapter), self.chapter_title[(g, chapter)], "chapter", (g, chapter), g)
            add(f"{g}/cards/index.md", f"{name}：カード一覧", "cards", g, g)
            add(f"{g}/rulings/index.md", f"{name}：裁定一覧", "rulings", g, g)
            add(f"{g}/qa/index.md", f"{name}：Q&A一覧", "qa", g, g)
            add(f"{g}/points.md", f"{name}：ルールポイント", "points", g, g)
            add(f"{g}/gaps.md", f"{name}：資料の欠落・矛盾", "gaps", g, g)
            add(f"{g}/glossary.md", f"{name}：用語集", "glossary", g, g)
            if engine_for(g) is not None:
                add(self.ask_src(g), f"{name}：新しい質問", "ask", g, g)
            for doc_name, d in kb.games[g].documents.items():
                add(self.source_src(g, doc_name), f"資料：{d.title}", "source", (g, doc_name), g)

        def unique(base: str) -> str:
            src = base + ".md"
            if src in taken or src.lower() in taken:
                n = 2
                while f"{base}-{n}.md" in taken:
                    n += 1
                src = f"{base}-{n}.md"
            taken.add(src)
            taken.add(src.lower())
            return src

        self._card_src: dict[tuple[str, str], str] = {}
        for (g, code), c in kb.cards.items():
            src = unique(f"{g}/cards/{path_slug(code)}")
            self._card_src[(g, code)] = src
            self.items.append(Page(src, card_title(c), "card", (g, code), g))
        self._ruling_src: dict[str, str] = {}
        for rid, r in kb.rulings.items():
            rest = rid.split("/", 1)[1]
            src = unique(f"{r.game}/rulings/" + "/".join(path_slug(x) for x in rest.split("/")))
            self._ruling_src[rid] = src
            self.items.append(Page(src, r.title, "ruling", rid, r.game))
        self._scenario_src: dict[str, str] = {}
        for sid, info in kb.scenarios.items():
            parts = sid.split("/")[1:]
            if len(parts) > 1 and parts[0] == "qa":
                parts = parts[1:]
            src = unique(f"{info.game}/qa/" + "/".join(path_slug(x) for x in parts))
            self._scenario_src[sid] = src
            self.items.append(Page(src, info.scenario.title, "scenario", sid, info.game))

    def review_src(self, game: str, status: Status) -> str:
        return f"review/{game}-{status.value}.md"

    def changelog_years(self) -> list[int]:
        years = {rev.date.year for r in self.kb.rulings.values() for rev in r.revisions if rev.date}
        return sorted(years, reverse=True)

    # ------------------------------------------------------------------------- time
    def current(self, r: Ruling) -> tuple[Optional[Revision], str]:
        """The revision to show as a ruling's state today, and that state: `in_force`,
        `superseded`, `retracted` or `future` (not yet in force). Kept per ruling: the home page,
        every game page and the ruling's own pages ask for it."""
        got = self._current.get(r.id)
        if got is None or got[0] is not r:
            got = self._current[r.id] = (r, self._current_state(r))
        return got[1]

    def _current_state(self, r: Ruling) -> tuple[Optional[Revision], str]:
        rev = self.kb.in_force(r.id, self.today)
        if rev is not None:
            return rev, "in_force"
        started = [x for x in r.revisions if x.date is None or x.date.start() <= self.today]
        if not started:
            return (r.revisions[0] if r.revisions else None), "future"
        last = sorted(started, key=sort_key)[-1]
        if last.status is Status.retracted:
            return last, "retracted"
        return last, "superseded"

    def point_today(self, game: str, point: str, card: Optional[str] = None):
        """A rule point's value today, for one card if given."""
        return self.kb.value(game, point, card=card, as_of=self.today)

    def interval(self, rid: str, rev: Revision) -> Optional[tuple[_dt.date, _dt.date]]:
        iv = self.kb.timelines.interval_of(rid, rev)
        return (iv.begin, iv.end) if iv else None

    # ------------------------------------------------------------------------- answers
    def compute_answers(self) -> list[Failure]:
        """Answer every scenario of a game that has an interpreter (answering.answer_all). Failing
        expectations and questions the interpreter cannot answer are failures."""
        self.failures = answer_all(self.kb, self.answers)
        return self.failures

    def release_runs(self, drawn: Iterable[str]) -> None:
        """Drop from the answers what no page still to be made and not the history reads, once
        the Q&A pages of `drawn` are made: their branches' traces, boards and choices (what a ruling
        page shows of the scenarios it pins is kept). Those of every answer under another reading
        were dropped as it was made (`thin_readings`). Called as each Q&A page is drawn, so that
        the pages drawn take the room of the runs let go of rather than add to them."""
        shown = self.shown_whole()
        for sid in drawn:
            a = self.answers.get(sid)
            if a is None or isinstance(a, Failure) or sid in shown:
                continue
            thin_branches(a, {})        # (a branch shared with another answer's run is thinned there again)

    def shown_whole(self) -> frozenset[str]:
        """The scenarios whose answers a ruling page shows in full (`answers.pinned_answer`)."""
        got = self.__dict__.get("_shown_whole")
        if got is None:
            got = self._shown_whole = frozenset(sid for sids in self.scenarios_for.values() for sid in sids)
        return got

    def settle_answers(self) -> None:
        """Keep of each answer only what the pages still to be made read, once its Q&A page is
        drawn and the history found (`find_changes`): an answer a ruling page shows (the scenarios
        it pins: `answers.pinned_answer`) whole, any other as its `Settled` line. The pages made
        last (the item pages, the index pages) then reuse the answers' memory rather than add to it."""
        from ..engine.answer import Answer
        shown = self.shown_whole()
        for sid, a in self.answers.items():
            if isinstance(a, Answer) and sid not in shown:
                self.answers[sid] = Settled(a.status, a.ok, any(e.applies for e in a.expectations))

    @property
    def changed_answers(self) -> dict:
        """For each ruling revision (`id@date`), the answers it changed (rulesdsl.regress.records)."""
        return self.find_changes()

    def _before_history(self, then: Optional[Callable[[], None]]) -> Callable[[], None]:
        """What the history's forked copy does before it starts (`find_changes`): let go of the
        runs of every answer no ruling page shows whole (`release_runs`: the traces and boards only
        the Q&A pages read, drawn by this process meanwhile; with one process they are let go of
        before the history as each page is drawn, so the history reads the same) and of the
        interpreter for browsers' description, then `then` (the caller's: the C heap's free pages
        handed back). What the history makes then takes that room: the copy's own memory, added to
        all it shares with this process, was the build's peak at 10,000 cards."""
        def first() -> None:
            self.release_runs(list(self.answers))
            self.ask = None
            self._let_go_of_set_ups()
            if then is not None:
                then()
        return first

    def _let_go_of_set_ups(self) -> None:
        """Once the Q&A pages are drawn, the set-ups the answers' runs kept (`KEPT_SET_UPS`: ~38 MB
        at 10,000 cards) let go of, in each process before its share of the history, which
        answers in knowledge bases of its own (each without a revision, with its own memo) and
        takes their room. A board drawn later (a ruling page's pinned answers) sets up afresh:
        the same state as a kept copy (tests/test_kept_set_up.py)."""
        self.kb.forget(KEPT_SET_UPS)

    def template_question(self, game: str) -> Optional[tuple[str, ScenarioInfo, str]]:
        """The game's first worked question that answers as expected and whose text the browser's
        interpreter carries (`ask.texts`), as (id, info, text): where the page 「新しい質問」 starts
        (ask_page.template). None when there is none."""
        texts = getattr(self.ask, "texts", None) or {}
        for sid, info in self.kb.scenarios.items():
            text = texts.get(sid)
            if info.game == game and text and getattr(self.answers.get(sid), "ok", False) and SCENARIO_HEAD.match(text):
                return sid, info, text
        return None

    def _texts_for_templates_only(self) -> None:
        """Once the Q&A pages are drawn (their editors hold the questions' texts: `find_changes`'
        `meanwhile`), the texts the browser's interpreter carries are read only for each game's
        page 「新しい質問」: the others are let go of before this process takes its share of the
        history (~10 MB at 10,000 cards, at the build's peak). `template_question` finds the same
        question after as before: those before it in order had no text for it to take."""
        texts = getattr(self.ask, "texts", None)
        if not texts:
            return
        kept = (self.template_question(g) for g in self.kb.games)
        self.ask.texts = {found[0]: found[2] for found in kept if found is not None}

    def find_changes(self, meanwhile: Optional[Callable[[], None]] = None,
                     in_child: Optional[Callable[[], None]] = None) -> dict:
        """`changed_answers`, found once; shared with a forked copy of this process where it pays
        (base.shared_work), which starts on it while this process does `meanwhile` (work that
        leaves the answers' verdicts and statuses as they are: the Q&A pages); `in_child`: what
        the copy does once it has let go of what the history does not read (`_before_history`)."""
        if self._changed is not None:
            if meanwhile is not None:
                meanwhile()
            return self._changed
        from ..base.shared_work import jobs
        from ..engine.answer import Answer
        from ..regress.impact import revision_effects
        answered = {sid: a for sid, a in self.answers.items() if isinstance(a, Answer)}
        started, stats, aside = time.perf_counter(), {}, [0.0]

        def timed() -> None:
            began = time.perf_counter()
            meanwhile()
            self._texts_for_templates_only()
            self._let_go_of_set_ups()
            aside[0] = time.perf_counter() - began
        self._changed = revision_effects(self.kb, answered, stats, jobs(len(answered), SHARED_FROM, JOBS_ENV),
                                         timed if meanwhile is not None else None, self._before_history(in_child))
        besides = f", {aside[0]:.1f} s of it the other work done beside it" if meanwhile is not None else ""
        log.info(f"rulesdsl: the answers each ruling revision changed found in {time.perf_counter() - started:.1f} s{besides} "
                 f"({stats['pairs']} revisions and answers that consulted them, {stats['answered']} answered "
                 f"again without the revision, {stats['in_full']} of them in full; the tests of what decides "
                 f"took {stats['reused']} answers under other readings from the build's and made {stats['readings']})")
        return self._changed


def revision_anchor(label: str) -> str:
    return "rev-" + label


def line_anchor(line: int) -> str:
    return f"L{line}"


def point_anchor(point: str) -> str:
    return "point-" + point


def card_title(c) -> str:
    if c.card.name and c.card.name != c.code:
        return f"{c.code}《{c.card.name}》"
    return f"《{c.name}》"


def scenario_cards(info: ScenarioInfo) -> set[tuple[str, str]]:
    """Knowledge-base cards a scenario uses (completed inline, or named in its statements)."""
    game = info.game
    found: set[tuple[str, str]] = set()
    for code, c in info.cards.items():
        if not c.hypothetical:
            found.add((game, code))
    for call in info.calls:
        found |= call_cards(call)
    for _, call in info.expects:
        found |= call_cards(call)
    return {k for k in found if k[0] == game}


def call_cards(call: Call) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for v in _values(call.params.values()):
        if isinstance(v, CardRef) and v.key and v.key[0]:
            out.add(v.key)
    for b in call.body or ():
        out |= call_cards(b)
    return out


def _values(values) -> Iterator[Any]:
    for v in values:
        if isinstance(v, (tuple, list)):
            yield from _values(v)
        elif isinstance(v, dict):
            yield from _values(v.values())
        else:
            yield v
