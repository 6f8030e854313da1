"""Checks over a loaded knowledge base: references, revisions, rule points, citations, cards,
scenarios and notes. Each check registers itself with `@check(code)` (checks.py) and yields
located diagnostics; `run_checks` runs them all, with those of markers.py (status words) and
fidelity.py (cards named by their source)."""

from __future__ import annotations

from pathlib import Path

import datetime as _dt
from collections import defaultdict
from typing import Iterator, Optional

from ..base.patterns import LazyPattern
from ..lang.diagnostics import Diagnostic, Related, did_you_mean
from ..lang.model import RevRef, Status, Text
from .checks import ABOUT_SCENARIOS, CHECKS, check, diag
from .knowledge import KnowledgeBase
from .timeline import sort_key

GAP_KINDS = {
    "missing": "the source leaves something out",
    "contradiction": "the source says two things that cannot both hold",
    "ambiguity": "the source can be read more than one way",
    "typo": "the source misnames something",
    "duplication": "the source repeats itself",
}


def run_checks(kb: KnowledgeBase, scenarios_only: bool = False) -> list[Diagnostic]:
    """Every check's findings; `scenarios_only`: those of the checks about scenarios alone
    (checks.py), all of which are in this module."""
    if scenarios_only:
        return [d for name, fn in CHECKS.items() if name in ABOUT_SCENARIOS for d in fn(kb)]
    from . import fidelity, markers  # noqa: F401  (their checks register on import)
    out: list[Diagnostic] = []
    for fn in CHECKS.values():
        out.extend(fn(kb))
    return out


_d = diag


# ----------------------------------------------------------------------------- references

def resolve_ref(kb: KnowledgeBase, ref: RevRef, game: str) -> Optional[str]:
    """A problem with a reference to a ruling, section, scenario or card, or None."""
    target = ref.target
    kind = kb.kind_of(target)
    if kind is None:
        if kb.card(game, target) is not None and ref.date is None and not ref.undated:
            return None
        pool = list(kb.rulings) + list(kb.sections) + list(kb.scenarios) + \
            [c for (g, c) in kb.cards if g == game]
        hint = did_you_mean(target, pool)
        return f"unknown reference {target}" + (f"; {hint}" if hint else "")
    if (ref.date is not None or ref.undated):
        if kind != "ruling":
            return f"{target} is a {kind}; only rulings have revisions to pick with @"
        revs = kb.rulings[target].revisions
        if not any((r.date is None) if ref.undated else (r.date == ref.date) for r in revs):
            dates = ", ".join(r.date_label for r in revs)
            return f"{target} has no revision {('undated' if ref.undated else ref.date)} (it has {dates})"
    return None


def _unknown_refs(kb: KnowledgeBase, items, game: str) -> Iterator[Diagnostic]:
    for ref in items:
        problem = resolve_ref(kb, ref, game)
        if problem:
            yield _d("unknown-ref", ref.loc, problem, width=len(str(ref)))


@check("unknown-ref")
def references(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    def refs(items, game):
        return _unknown_refs(kb, items, game)

    for s in kb.sections.values():
        yield from refs(s.refs, s.game)
    for (game, _), c in kb.cards.items():
        yield from refs(c.card.refs, game)
    for r in kb.rulings.values():
        game = r.game       # (read from the ruling's id: once per ruling, not per revision)
        yield from refs(r.refs, game)
        for rev in r.revisions:
            yield from refs(rev.refs, game)
            for sup in rev.supersedes:
                problem = resolve_ref(kb, sup, game)
                if problem is None and kb.kind_of(sup.target) != "ruling":
                    problem = f"{sup.target} is not a ruling; only rulings can be superseded"
                if problem is None and sup.target == r.id:
                    problem = "a ruling's newer revisions replace its older ones already; supersedes names another ruling"
                if problem:
                    yield _d("unknown-ref", sup.loc, problem, width=len(str(sup)))


@check("unknown-ref/scenarios", about="scenarios")
def scenario_references(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for s in kb.scenarios.values():
        yield from _unknown_refs(kb, s.scenario.pins, s.game)


# ----------------------------------------------------------------------------- rulings

@check("revision-order")
def revision_order(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for owner in list(kb.rulings.values()) + list(kb.sections.values()):
        revs = owner.revisions
        for a, b in zip(revs, revs[1:]):
            if sort_key(b) < sort_key(a):
                yield _d("revision-order", b.loc,
                         f"revision {b.date_label} is written after {a.date_label}; keep revisions oldest first",
                         "undated revisions come first", (Related(loc=a.loc, message="the later one"),))
            elif a.date is not None and a.date == b.date or (a.date is None and b.date is None):
                yield _d("revision-order", b.loc, f"two revisions are dated {b.date_label}",
                         "merge them, or give the newer one its own date",
                         (Related(loc=a.loc, message="the other one"),))
    for r in kb.rulings.values():
        if not r.revisions:
            yield _d("empty-ruling", r.loc, f"ruling {r.id} has no revision",
                     "add `revision DATE STATUS { source …; text … }`")


@check("missing-source")
def missing_source(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for r in kb.rulings.values():
        for rev in r.revisions:
            if rev.source is None:
                yield _d("missing-source", rev.loc, f"revision {rev.date_label} of {r.id} cites no source",
                         'add `source "FILE §見出し"`')
            if rev.text is None and rev.status is not Status.retracted:
                yield _d("missing-source", rev.loc, f"revision {rev.date_label} of {r.id} has no text",
                         'add `text "…"` with the ruling in Japanese')
    parents = {sid.rsplit("/", 1)[0] for sid in kb.sections}
    for s in kb.sections.values():
        if s.source is None:
            yield _d("missing-source", s.loc, f"rule section {s.id} cites no source", 'add `source "FILE §見出し"`')
        if s.text is None and s.id not in parents:  # a heading that only groups sections needs no text
            yield _d("missing-source", s.loc, f"rule section {s.id} has no text", 'add `text "…"`')
    for c in kb.cards.values():
        if c.card.source is None:
            yield _d("missing-source", c.card.loc, f"card {c.code} cites no source",
                     'add `source "FILE §見出し"` for where the card is named')


@check("unconfirmed-reason")
def unconfirmed_reason(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for r in kb.rulings.values():
        for rev in r.revisions:
            if rev.status is Status.unconfirmed and not rev.reason:
                yield _d("unconfirmed-reason", rev.loc,
                         f"revision {rev.date_label} of {r.id} is unconfirmed but gives no reason",
                         'say why the knowledge base reads it this way: reason "…"')
    for g in kb.games.values():
        for p in g.points.values():
            if p.default and p.default.status is Status.unconfirmed and not p.reason:
                yield _d("unconfirmed-reason", p.default.loc,
                         f"the default of {p.name} is unconfirmed but the point gives no reason",
                         'add reason "…" to the point')


@check("gap")
def gap_kinds(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for r in kb.rulings.values():
        if r.gap is not None and r.gap not in GAP_KINDS:
            yield _d("gap", r.gap_loc, f'unknown gap kind "{r.gap}"',
                     did_you_mean(r.gap, GAP_KINDS) or "gap kinds: " + ", ".join(GAP_KINDS))
        if r.gap is not None and not any(rev.status is Status.unconfirmed for rev in r.revisions):
            yield _d("gap", r.loc, f"gap {r.id} has no unconfirmed revision",
                     "a gap is recorded as the knowledge base's own reading: an unconfirmed revision with a reason")


# ----------------------------------------------------------------------------- rule points

@check("setting")
def settings(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for r in kb.rulings.values():
        game = kb.games[r.game]
        for rev in r.revisions:
            if rev.status is Status.retracted and rev.settings:
                yield _d("setting", rev.settings[0].loc,
                         "a retracted revision sets nothing; it ends the ruling",
                         "remove its settings")
            for s in rev.settings:
                p = game.points.get(s.point)
                if p is None:
                    yield _d("unknown-ref", s.loc, f"{r.game} has no rule point {s.point}",
                             did_you_mean(s.point, game.points) or
                             "declare it in the game: point NAME \"label\" { value …; default … from SECTION }")
                    continue
                allowed = [v.name for v in p.values]
                if s.value not in allowed:
                    yield _d("setting", s.loc, f"{s.value} is not a value of {s.point} (allowed: {', '.join(allowed)})",
                             did_you_mean(s.value, allowed))
                if s.card is not None:
                    # a game-wide point set for one card: a proposed ruling about one card (a
                    # what-if, from a file outside the knowledge base) applies it while an action
                    # about that card is answered; a ruling of the knowledge base's own may not
                    if p.per != "card" and _inside(kb, s.loc):
                        yield _d("setting", s.loc, f"{s.point} is game-wide; it cannot be set for one card",
                                 "declare `per card` in the point to allow it, or ask it as a what-if: "
                                 "a proposed ruling in a file outside the knowledge base (impact --with FILE)")
                    if kb.card(r.game, s.card) is None and not _scenario_card(kb, r.game, s.card):
                        yield _d("unknown-ref", s.loc, f"unknown card {s.card} in {r.game}",
                                 did_you_mean(s.card, [c for (g, c) in kb.cards if g == r.game]))
    for g in kb.games.values():
        for p in g.points.values():
            values = [v.name for v in p.values]
            if not values:
                yield _d("setting", p.loc, f"rule point {p.name} has no values", "add `value NAME \"label\"` lines")
            if p.default is None:
                yield _d("setting", p.loc, f"rule point {p.name} has no default",
                         "add `default VALUE from SECTION` naming the rule section that gives it")
                continue
            if p.default.value not in values:
                yield _d("setting", p.default.loc, f"default {p.default.value} is not a value of {p.name}",
                         did_you_mean(p.default.value, values))
            if p.default.section not in kb.sections:
                yield _d("unknown-ref", p.default.loc, f"unknown rule section {p.default.section}",
                         did_you_mean(p.default.section, kb.sections))
            if p.per not in (None, "card"):
                yield _d("setting", p.per_loc, f"`per {p.per}`: a point can only be scoped per card")
    for s in kb.sections.values():
        game = kb.games[s.game]
        for name in s.defines:
            if name not in game.points:
                yield _d("unknown-ref", s.defines_loc, f"{s.game} has no rule point {name}",
                         did_you_mean(name, game.points))


@check("contradiction")
def contradictions(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """Two revisions in force at the same time that set the same point differently."""
    groups: dict[tuple, list] = defaultdict(list)
    for (game, point), items in kb.settings_index.items():
        for rid, rev, setting in items:
            iv = kb.timelines.interval_of(rid, rev)
            if iv is not None:
                groups[(game, point, setting.card)].append((iv.begin, iv.end, rid, rev, setting))
    for (game, point, card), items in groups.items():
        items.sort(key=lambda x: (x[0], x[2]))
        active: list = []
        reported: set = set()
        for item in items:
            begin = item[0]
            active = [a for a in active if a[1] > begin]
            for other in active:
                if other[4].value != item[4].value and other[2] != item[2]:
                    pair = (other[2], item[2])
                    if pair in reported:
                        continue
                    reported.add(pair)
                    when = max(begin, other[0])
                    yield _d("contradiction", item[4].loc,
                             f"{item[4].target()} is set to {item[4].value} here and to {other[4].value} by "
                             f"{other[2]}@{other[3].date_label}, both in force from {_when(when)}",
                             "retract or supersede one of them, or date them so they do not overlap",
                             (Related(loc=other[4].loc, message=f"{other[2]} sets {other[4].value}"),))
            active.append(item)


def _when(day: _dt.date) -> str:
    return "the beginning" if day == _dt.date.min else day.isoformat()


# ----------------------------------------------------------------------------- citations

def _citations(kb: KnowledgeBase):
    """(game, citation, [(text, loc, must_match)]) for everything that cites a source."""
    for gid, g in kb.games.items():
        yield gid, g.decl.source, [_text(g.decl.text, True)]
    for s in kb.sections.values():
        yield s.game, s.source, [_text(s.text, True)]
        for rev in s.revisions:
            yield s.game, rev.source, [_text(rev.text, True)]
    for r in kb.rulings.values():
        game = r.game       # (once per ruling)
        for rev in r.revisions:
            quoted = rev.status not in (Status.unconfirmed,)
            yield game, rev.source, [_text(rev.text, quoted)] + [(q.text, q.loc, True) for q in rev.quotes]
    for c in kb.cards.values():
        if c.hypothetical:
            continue
        name = (c.card.name, c.card.loc, True)
        yield c.game, c.card.source, [name]
        for e in c.card.errata:
            yield c.game, e.source, [_text(e.text, True)]


def _scenario_citations(kb: KnowledgeBase):
    """The same for the scenarios that cite a source."""
    for s in kb.scenarios.values():
        if s.scenario.source is not None:
            yield s.game, s.scenario.source, []


def _text(t: Optional[Text], must: bool):
    if t is None or t.value is None:
        return (None, None, False)
    return (t.value, t.loc, must)


@check("citation")
def citations(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for info in kb.games.values():
        for doc in info.documents.values():
            if doc.quote and not doc.find(doc.quote):
                yield _d("citation", doc.quote_loc, f"this text does not occur in {doc.name}",
                         "quote the document's own words about what it is, exactly")
    yield from _cited(kb, _citations(kb))


@check("citation/scenarios", about="scenarios")
def scenario_citations(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    yield from _cited(kb, _scenario_citations(kb))


def _cited(kb: KnowledgeBase, cited) -> Iterator[Diagnostic]:
    """The problems of these (game, citation, texts): see `_citations`."""
    for game, cite, texts in cited:
        if cite is None:
            continue
        docs = kb.games[game].documents
        doc = docs.get(cite.document)
        if doc is None:
            yield _d("citation", cite.loc, f'unknown source document "{cite.document}" for {game}',
                     did_you_mean(cite.document, docs) or
                     (f"{game} declares: " + ", ".join(docs) if docs else
                      f'declare it in the {game} game block: document "sources/FILE" "title"'))
            continue
        if cite.heading is None:
            yield _d("citation", cite.loc, f'the citation "{cite.raw}" names no heading',
                     f'write "{cite.document} §見出し" with the heading the text comes from')
            continue
        if not doc.has_heading(cite.heading):
            close = doc.close_headings(cite.heading)
            yield _d("citation", cite.loc,
                     f'"{cite.heading}" is a line of {cite.document} but not a heading' if doc.is_line(cite.heading)
                     else f'{cite.document} has no heading "{cite.heading}"',
                     ("did you mean " + " or ".join(f'"{c}"' for c in close) + "?") if close else
                     "cite the heading the passage stands under")
            continue
        for text, loc, must in texts:
            if text and must and not doc.find(text, cite.heading):
                under = doc.heading_of(text)
                yield _d("citation", loc,
                         f'this text is not in {cite.document} under "{cite.heading}"' if under else
                         f"this text does not occur in {cite.document} as written",
                         f'it stands under "{under}"; cite that heading' if under else
                         "quote the source exactly and contiguously (layout and wiki markup aside), marking "
                         "each omission 「…」; the knowledge base's own words belong in an unconfirmed "
                         "revision with a reason")


# ----------------------------------------------------------------------------- cards and scenarios

@check("unknown-fact")
def explicit_unknowns(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """Every fact a game declares is given for every card, as a value or as `unknown`."""
    for (game, code), c in kb.cards.items():
        if c.hypothetical:
            continue
        facts = kb.games[game].vocab.entries["fact"]
        missing = [f for f in facts if f not in c.facts]
        if missing:
            yield _d("unknown-fact", c.card.loc, f"card {code} does not say its {', '.join(missing)}",
                     "write `" + "; ".join(f"{f} unknown" for f in missing) + "` where the sources do not give them")
        if c.card.text is None:
            yield _d("unknown-fact", c.card.loc, f"card {code} does not say its printed text",
                     "write `text unknown` when the sources do not give it")


@check("scenario", about="scenarios")
def scenario_shape(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    for s in kb.scenarios.values():
        sc = s.scenario
        if sc.expects and sc.as_of is None:
            yield _d("scenario", sc.loc, f"scenario {sc.id} has expectations but no date",
                     "add `as of 2026-09-01` so that its answer does not change with the day it is run")
        for e in sc.expects:
            if e.valid_from and e.valid_until and e.valid_until < e.valid_from:
                yield _d("scenario", e.loc, "this expectation's period ends before it begins")


# ----------------------------------------------------------------------------- fidelity
# What the knowledge base says must be what its sources say; its own readings are marked as such.

@check("unsettled")
def unsettled_points(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """An unsettled point names the gap ruling recording why, and defaults to an unconfirmed
    reading; a point that a gap ruling reads (sets) is declared unsettled, and its default is
    not `confirmed` when the gap says the source leaves it open."""
    read_by_gap: dict[tuple[str, str], tuple] = {}
    for r in kb.rulings.values():
        if r.gap is None:
            continue
        for rev in r.revisions:
            if rev.status is not Status.unconfirmed:
                continue
            for s in rev.settings:
                read_by_gap.setdefault((r.game, s.point), (r, s))
    for g in kb.games.values():
        for p in g.points.values():
            if p.unsettled is not None:
                ruling = kb.rulings.get(p.unsettled)
                if ruling is None:
                    yield _d("unknown-ref", p.unsettled_loc, f"unknown ruling {p.unsettled}",
                             did_you_mean(p.unsettled, kb.rulings) or
                             "name the gap ruling that records why the sources leave this point open")
                elif ruling.gap is None:
                    yield _d("unsettled", p.unsettled_loc, f"{p.unsettled} is not a gap ruling",
                             "name a ruling with `gap missing|contradiction|ambiguity|…` that records the reason")
                if len(p.values) < 2:
                    yield _d("unsettled", p.loc, f"unsettled point {p.name} has only one value",
                             "list every reading of the sources as a value")
                if p.default and p.default.status is not Status.unconfirmed:
                    yield _d("unsettled", p.default.loc,
                             f"the default of unsettled point {p.name} is marked {p.default.status.value}",
                             "a default the sources leave open is the knowledge base's reading: mark it unconfirmed")
            found = read_by_gap.get((g.decl.id, p.name))
            if found is not None:
                r, s = found
                if p.default and p.default.status is Status.confirmed:
                    yield _d("unsettled", p.default.loc,
                             f"the default of {p.name} is marked confirmed, but gap {r.id} says the sources leave it open",
                             "mark the default unconfirmed with a reason", (Related(loc=s.loc, message="read here"),))
                if p.unsettled is None:
                    yield _d("unsettled", p.loc, f"{p.name} is read by gap {r.id} but not declared unsettled",
                             f"add `unsettled {r.id}` so that answers can be given under each reading",
                             (Related(loc=s.loc, message="read here"),))


_RULE_REF = LazyPattern(r"[a-z][a-z0-9_]*(?:/[A-Za-z0-9_\-.]+)+|[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+")
_QUOTED = LazyPattern(r"「([^「」]{4,})」")


def _records_reading(kb: KnowledgeBase, game: str, name: str) -> bool:
    """Whether name is a ruling that records the knowledge base's reading (an unconfirmed
    revision, with its reason) or a rule point the sources leave open."""
    ruling = kb.rulings.get(name)
    if ruling is not None:
        return any(rev.status is Status.unconfirmed for rev in ruling.revisions)
    point = kb.games[game].points.get(name) if game in kb.games else None
    return point is not None and point.unsettled is not None


def _note_ok(kb: KnowledgeBase, game: str, note: str, doc) -> bool:
    """A note passes when it is the source's words, quotes the source (every 「…」 in it is
    found there, and there is one), or names the ruling or unsettled point that records the
    knowledge base's reading. No word lets a note pass by itself: 資料, 原文 or a rule section's
    id say nothing about whether what the note states is so."""
    if doc is not None and doc.find(note):
        return True
    if any(_records_reading(kb, game, n) for n in _RULE_REF.findall(note)):
        return True
    quoted = _QUOTED.findall(note)
    return bool(doc is not None and quoted and all(doc.find(q) for q in quoted))


@check("note")
def notes_state_no_rule(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """A note on a rule section or on a revision the source gives is the knowledge base's own
    words: it may speak about the document, quote it, or name the ruling or point that records
    a reading — never state a rule (or a reading as fact) that the source does not."""
    def doc_of(game, cite):
        return kb.games[game].documents.get(cite.document) if cite and game in kb.games else None

    for s in kb.sections.values():
        doc = doc_of(s.game, s.source)
        for note in s.notes:
            if not _note_ok(kb, s.game, note, doc):
                yield _d("note", s.loc, f"a note on {s.id} states what {s.source.document if s.source else 'the source'} "
                         f"does not say: {note[:60]}{'…' if len(note) > 60 else ''}",
                         "quote the source; or record the reading as an unconfirmed gap ruling (with a reason) "
                         "and name it in the note")
    for r in kb.rulings.values():
        game = r.game       # (once per ruling)
        for rev in r.revisions:
            if rev.status is Status.unconfirmed:
                continue   # the revision is itself the knowledge base's reading, with its reason
            doc = doc_of(game, rev.source)
            for note in rev.notes:
                if not _note_ok(kb, game, note, doc):
                    yield _d("note", rev.loc, f"a note on {r.id}@{rev.date_label} states what the source "
                             f"does not say: {note[:60]}{'…' if len(note) > 60 else ''}",
                             "quote the source; or record the reading as an unconfirmed gap ruling and name it")


@check("assumption", about="scenarios")
def assumed_cards(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """A scenario that supplies facts of a card the sources name marks them as its assumption."""
    for info in kb.scenarios.values():
        for c in info.scenario.cards:
            if not c.assumed and kb.card(info.game, c.code) is not None and c.clauses:
                yield _d("assumption", c.loc,
                         f"scenario {info.id} gives {c.code} facts the sources do not give, without saying so",
                         f"write `assume card {c.code} {{ … }}`: the answer then shows them as 仮定")


@check("answer", about="scenarios")
def answerable(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """A scenario that asks a question has expectations or its own answer to open the answer with."""
    for info in kb.scenarios.values():
        sc = info.scenario
        if sc.question and not sc.expects and not sc.answer:
            yield _d("answer", sc.loc, f"scenario {sc.id} asks a question but states no expectation or answer",
                     "add `expect …` lines (the answer is written from them) or `answer \"…\"`")


@check("reading-excluded")
def _reading_excluded(kb: KnowledgeBase) -> Iterator[Diagnostic]:
    """A rule point's value that the source's own words exclude (a numeric bound): kb/bounds.py."""
    from .bounds import excluded_readings
    yield from excluded_readings(kb)


def _scenario_card(kb, game: str, code: str) -> bool:
    """Whether a scenario of `game` defines a card of that code (its own, hypothetical card)."""
    return any(info.game == game and code in info.cards for info in kb.scenarios.values())


def _inside(kb, loc) -> bool:
    """Whether a location is in a file the knowledge base loads on its own (not a what-if given
    with it, such as a proposed ruling under examples/)."""
    if loc is None or not loc.file:
        return True
    path = Path(loc.file)
    path = path if path.is_absolute() else kb.root / path
    resolved = path.resolve()
    for folder in ("rulings", "cards"):   # the folders the knowledge base loads on its own
        try:
            resolved.relative_to((kb.root / folder).resolve())
            return True
        except ValueError:
            continue
    return False
