"""`rulesdsl show ID [--as-of DATE] [--json]`: a card, rule section, ruling, scenario or rule
point with its revisions; with --as-of, what was in force that day."""

from __future__ import annotations

import argparse
import datetime as _dt
import unicodedata
from typing import Any, Optional

from ..base.cache import find_root
from ..kb.build import load
from ..kb.knowledge import CardInfo, KnowledgeBase
from ..lang.diagnostics import Diagnostic, DslError, did_you_mean
from ..lang.model import Revision, Ruling, Section, Status
from ..lang.vocab import UNKNOWN, in_words
from .main import EXIT_OK, Output, command, dump_json, parse_as_of


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID",
                   help="a ruling, rule section or scenario id (grm/battle/zero-weight), a card code "
                        "(No.018, grm:No.018) or name (《髭ヅラ体育教師・須藤》), or a rule point "
                        "(grm:battle.zero_weight)")
    p.add_argument("--as-of", metavar="DATE", help="what was in force on DATE (2026-09-01, 2026-03, 2026-summer, 2026年夏)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def load_clean(args) -> KnowledgeBase:
    """The knowledge base, refusing to answer from one that does not load."""
    kb = load(args.root or find_root(), use_cache=not args.no_cache)
    fatal = [d for d in kb.diagnostics if d.fatal]
    if fatal:
        raise DslError(fatal)
    return kb


@command("show", "Show a card, rule section, ruling, scenario or rule point, as of a date if given.", configure)
def run(args, out: Output) -> int:
    kb = load_clean(args)
    as_of = parse_as_of(args.as_of)
    day = as_of.start() if as_of else None
    ident = unicodedata.normalize("NFC", args.id.strip())   # names are compared in NFC (lang/builder)
    kind = kb.kind_of(ident)
    if kind == "ruling":
        data = ruling_data(kb, kb.rulings[ident], day)
    elif kind == "section":
        data = section_data(kb, kb.sections[ident], day)
    elif kind == "scenario":
        data = scenario_data(kb, ident)
    elif kind == "game":
        data = game_data(kb, ident, day)
    elif ":" in ident and "." in ident.split(":", 1)[1] and ident.split(":", 1)[1] in kb.games.get(ident.split(":", 1)[0], _NoGame).points:
        game, point = ident.split(":", 1)
        data = point_data(kb, game, point, day)
    else:
        game, _, code = ident.rpartition(":")
        cards = kb.find_cards(code, game or None)
        if len(cards) > 1:
            raise DslError([Diagnostic(code="usage", fatal=True,
                                       message=f"{ident} names {len(cards)} cards: " +
                                       ", ".join(f"{c.game}:{c.code}" for c in cards),
                                       hint="give the game and code, like grm:No.018")])
        if not cards:
            pool = list(kb.rulings) + list(kb.sections) + list(kb.scenarios) + \
                [c for (_, c) in kb.cards] + [c.name for c in kb.cards.values()]
            raise DslError([Diagnostic(code="usage", fatal=True, message=f"nothing is called {ident}",
                                       hint=did_you_mean(ident, pool) or
                                       "ids look like grm/battle/zero-weight; cards No.018 or 《name》")])
        data = card_data(kb, cards[0], day)
    if as_of is not None:
        data["as_of"] = {"date": str(as_of), "ja": as_of.ja(),
                         "note": None if as_of.is_exact else
                         f"{as_of.ja()} is a period; it is read from its first day, {as_of.start().isoformat()}"}
    if args.json:
        print(dump_json(data))
    else:
        print(render_text(data))
    return EXIT_OK


class _NoGame:
    points: dict = {}


# ----------------------------------------------------------------------------- data

def authority(kb: KnowledgeBase, game: str, source) -> Optional[str]:
    """What the cited document is (「ファンwikiのまとめ。公式ルールではない」), if declared."""
    info = kb.games.get(game)
    doc = info.documents.get(source.document) if info and source else None
    return doc.authority if doc else None


def revision_data(kb: KnowledgeBase, rev: Revision, owner: str) -> dict[str, Any]:
    source = authority(kb, owner.split("/", 1)[0], rev.source)
    return {
        "date": rev.date_label, "date_ja": rev.date_ja, "status": rev.status.value,
        "status_ja": rev.status.ja + (f"（出典: {source}）" if source else ""), "authority": source,
        "source": rev.source.raw if rev.source else None,
        "text": rev.text.value if rev.text else None,
        "quotes": [q.text for q in rev.quotes], "reason": rev.reason, "notes": list(rev.notes),
        "sets": [f"{s.target()} = {s.value}" for s in rev.settings],
        "supersedes": [str(s) for s in rev.supersedes],
        "refs": [str(r) for r in rev.refs],
        "scenarios": [s.id for s in rev.scenarios],
        "loc": str(rev.loc),
    }


def ruling_data(kb: KnowledgeBase, r: Ruling, day: Optional[_dt.date]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "ruling", "id": r.id, "title": r.title, "game": r.game, "gap": r.gap,
        "refs": [str(x) for x in r.refs], "notes": list(r.notes),
        "revisions": [revision_data(kb, rev, r.id) for rev in r.revisions],
        "superseded_by": [f"{rid}@{rev.date_label}" for rid, rev in kb.timelines.superseded_by.get(r.id, [])],
        "scenarios": sorted(s.id for s in kb.scenarios.values()
                            if any(p.target == r.id for p in s.pins)),
        "loc": str(r.loc),
    }
    if day is not None:
        data["in_force"] = in_force_data(kb, r, day)
    return data


def in_force_data(kb: KnowledgeBase, r: Ruling, day: _dt.date) -> dict[str, Any]:
    rev = kb.in_force(r.id, day)
    dated = [x for x in r.revisions if x.date is not None]
    if rev is not None:
        fuzzy = None
        if rev.date is not None and not rev.date.is_exact and rev.date.contains(day):
            fuzzy = (f"{day.isoformat()} falls within {rev.date.ja()}: the exact day of this revision is "
                     f"unknown; it is treated as in force from {rev.date.start().isoformat()}")
        return {"state": "in force", "revision": rev.date_label, "status": rev.status.value, "fuzzy": fuzzy}
    started = [x for x in r.revisions if x.date is None or x.date.start() <= day]
    if not started:
        first = min(dated, key=lambda x: x.date) if dated else None
        return {"state": "not yet ruled", "first": first.date_label if first else None,
                "first_ja": first.date_ja if first else None}
    last = started[-1]
    if last.status is Status.retracted:
        return {"state": "retracted", "revision": last.date_label}
    sup = [f"{rid}@{x.date_label}" for rid, x in kb.timelines.superseded_by.get(r.id, [])
           if x.date is None or x.date.start() <= day]
    return {"state": "superseded", "by": sup}


def section_data(kb: KnowledgeBase, s: Section, day: Optional[_dt.date]) -> dict[str, Any]:
    game = kb.games[s.game]
    data: dict[str, Any] = {
        "kind": "section", "id": s.id, "title": s.title, "game": s.game,
        "source": s.source.raw if s.source else None, "text": s.text.value if s.text else None,
        "notes": list(s.notes), "refs": [str(x) for x in s.refs],
        "defines": list(s.defines),
        "revisions": [revision_data(kb, rev, s.id) for rev in s.revisions],
        "rulings": sorted(r.id for r in kb.rulings.values()
                          if any(x.target == s.id for x in r.refs) or
                          any(x.target == s.id for rev in r.revisions for x in rev.refs)),
        "defaults": sorted(p.name for p in game.points.values() if p.default and p.default.section == s.id),
        "loc": str(s.loc),
    }
    if day is not None:
        data["points"] = [point_value(kb, s.game, name, None, day) for name in
                          dict.fromkeys(list(s.defines) + data["defaults"])]
        data["rulings_in_force"] = [f"{rid}@{kb.in_force(rid, day).date_label}" for rid in data["rulings"]
                                    if kb.in_force(rid, day) is not None]
    return data


def point_value(kb: KnowledgeBase, game: str, point: str, card: Optional[str], day) -> dict[str, Any]:
    v = kb.value(game, point, card=card, as_of=day)
    return {"point": point if card is None else f"card({card}).{point}", "value": v.value,
            "status": v.status.value, "from": v.cite, "source": v.source, "fuzzy": v.fuzzy,
            "conflicts": list(v.conflicts)}


def point_data(kb: KnowledgeBase, game: str, point: str, day: Optional[_dt.date]) -> dict[str, Any]:
    p = kb.games[game].points[point]
    settings = [f"{rid}@{rev.date_label} ({rev.status.value}): {s.target()} = {s.value}"
                for rid, rev, s in kb.settings_index.get((game, point), ())]
    data = {"kind": "point", "id": f"{game}:{point}", "label": p.label,
            "values": [f"{v.name}" + (f" ({v.label})" if v.label else "") for v in p.values],
            "default": f"{p.default.value} ({p.default.status.value}) from {p.default.section}" if p.default else None,
            "per": p.per, "reason": p.reason, "set_by": settings, "loc": str(p.loc),
            "unsettled": p.unsettled, "readings": list(p.readings) if p.unsettled else []}
    if day is not None:
        data["value"] = point_value(kb, game, point, None, day)
    return data


def card_data(kb: KnowledgeBase, c: CardInfo, day: Optional[_dt.date]) -> dict[str, Any]:
    vocab = kb.games[c.game].vocab
    shown = c.at(day)
    facts = {}
    for name in vocab.entries["fact"]:
        v = shown.facts.get(name, UNKNOWN)
        facts[name] = "unknown" if v is UNKNOWN else v
    refs = sorted(r.id for r in kb.rulings.values() if r.game == c.game and (
        any(x.target == c.code for x in r.refs) or
        any(x.target == c.code for rev in r.revisions for x in rev.refs) or
        any(s.card == c.code for rev in r.revisions for s in rev.settings)))
    data: dict[str, Any] = {
        "kind": "card", "game": c.game, "code": c.code, "name": c.name,
        "source": c.card.source.raw if c.card.source else None,
        "text": (c.card.text.value if c.card.text and c.card.text.value is not None else "unknown"),
        "facts": facts, "effects": [in_words(e, vocab) for e in shown.effects],
        "notes": list(c.card.notes),
        "errata": [{"date": e.date_label if hasattr(e, "date_label") else (str(e.date) if e.date else "undated"),
                    "status": e.status.value, "source": e.source.raw if e.source else None}
                   for e, _, _ in c.errata],
        "rulings": refs, "loc": str(c.card.loc)}
    if day is not None:
        data["rulings_in_force"] = [f"{rid}@{kb.in_force(rid, day).date_label}" for rid in refs
                                    if kb.in_force(rid, day) is not None]
        per_card = [p for p in kb.games[c.game].points.values() if p.per == "card"]
        data["points"] = [point_value(kb, c.game, p.name, c.code, day) for p in per_card]
    return data


def scenario_data(kb: KnowledgeBase, ident: str) -> dict[str, Any]:
    s = kb.scenarios[ident]
    sc = s.scenario
    return {"kind": "scenario", "id": sc.id, "title": sc.title, "question": sc.question,
            "date": str(sc.as_of) if sc.as_of else None, "mode": sc.mode,
            "pins": [str(p) for p in s.pins], "cards": sorted(s.cards),
            "statements": len(s.calls), "expectations": len(s.expects), "loc": str(sc.loc),
            "expects": [_expect_words(kb, s.game, e, call) for e, call in s.expects]}


def _expect_words(kb: KnowledgeBase, game: str, e, call) -> str:
    """An expectation in words, with its modality and any bound on its probability."""
    from ..lang.vocab import in_words
    head = " ".join(x for x in (e.modality, str(e.probability) if e.probability else None) if x)
    return (f"[{head}] " if head else "") + in_words(call, kb.games[game].vocab)


def game_data(kb: KnowledgeBase, gid: str, day: Optional[_dt.date]) -> dict[str, Any]:
    g = kb.games[gid]
    data = {"kind": "game", "id": gid, "name": g.decl.name, "players": list(g.players),
            "zones": g.zones, "modes": g.modes, "documents": {k: f"{d.title} — {d.authority}" for k, d in g.documents.items()},
            "rule_points": sorted(g.points),
            "counts": {"cards": sum(1 for (x, _) in kb.cards if x == gid),
                       "sections": sum(1 for s in kb.sections.values() if s.game == gid),
                       "rulings": sum(1 for r in kb.rulings.values() if r.game == gid),
                       "scenarios": sum(1 for s in kb.scenarios.values() if s.game == gid)},
            "loc": str(g.decl.loc)}
    if day is not None:
        data["point_values"] = [point_value(kb, gid, p, None, day) for p in sorted(g.points)]
    return data


# ----------------------------------------------------------------------------- text

def render_text(data: dict[str, Any]) -> str:
    kind = data["kind"]
    lines: list[str] = []
    add = lines.append
    if kind == "ruling":
        add(f"ruling {data['id']}  {data['title']}" + (f"  [gap: {data['gap']}]" if data["gap"] else ""))
    elif kind == "section":
        add(f"rule section {data['id']}  {data['title']}")
    elif kind == "card":
        add(f"card {data['game']}:{data['code']}  《{data['name']}》")
    elif kind == "scenario":
        add(f"scenario {data['id']}  {data['title']}")
    elif kind == "point":
        add(f"rule point {data['id']}  {data.get('label') or ''}")
    elif kind == "game":
        add(f"game {data['id']}  {data['name']}")
    if "as_of" in data:
        add(_as_of_line(data))
    add(f"  at {data['loc']}")
    for key in ("source", "text", "question", "date", "mode", "label", "default", "reason"):
        if data.get(key) and not (kind == "point" and key == "label"):
            add(f"  {key}: {_indent(str(data[key]))}")
    if kind == "point" and data.get("unsettled"):
        add(f"  unsettled: the sources leave it open ({data['unsettled']}); readings: {', '.join(data['readings'])}")
    if kind == "game":
        add(f"  players: {'–'.join(map(str, dict.fromkeys(data['players'])))}")
        add("  " + ", ".join(f"{k}: {v}" for k, v in data["counts"].items()))
        for k in ("zones", "modes", "documents"):
            if data[k]:
                add(f"  {k}: " + ", ".join(f"{n}" + (f" ({l})" if l else "") for n, l in data[k].items()))
    if kind == "card":
        for k, v in data["facts"].items():
            add(f"  {k}: {v}")
        for e in data["effects"]:
            add(f"  effect: {e}")
    for key in ("values", "set_by", "defines", "defaults", "refs", "pins", "expects", "cards", "rule_points", "notes",
                "rulings", "superseded_by", "scenarios"):
        if kind == "card" and key == "cards":
            continue
        if data.get(key):
            add(f"  {key}:")
            for v in data[key]:
                add(f"    {v}")
    for rev in data.get("revisions", ()):
        add(f"  revision {rev['date']} ({rev['date_ja']})  {rev['status']} ({rev['status_ja']})")
        for key in ("source", "quotes", "text", "reason"):
            for value in (rev[key] if key == "quotes" else [rev.get(key)]):
                if value:
                    add(f"    {key.rstrip('s') if key == 'quotes' else key}: {_indent(value, 6)}")
        for s in rev["sets"]:
            add(f"    sets {s}")
        for s in rev["supersedes"]:
            add(f"    supersedes {s}")
    if "in_force" in data:
        f = data["in_force"]
        if f["state"] == "in force":
            add(f"  in force on that day: revision {f['revision']} ({f['status']})")
            if f.get("fuzzy"):
                add(f"    note: {f['fuzzy']}")
        elif f["state"] == "not yet ruled":
            first = f" (first revision: {f['first']}, {f['first_ja']})" if f.get("first") else ""
            add(f"  not yet ruled on that day{first}")
        elif f["state"] == "retracted":
            add(f"  retracted on that day (revision {f['revision']})")
        else:
            add(f"  superseded on that day by {', '.join(f['by'])}")
    for key in ("rulings_in_force",):
        if key in data:
            add("  rulings in force on that day: " + (", ".join(data[key]) or "none"))
    for p in [*data.get("points", ()), *data.get("point_values", ()), *([data["value"]] if "value" in data else [])]:
        add(f"  {p['point']} = {p['value']}  ({p['status']}, from {p['from']})")
        if p.get("fuzzy"):
            add(f"    note: {p['fuzzy']}")
        if p.get("conflicts"):
            add(f"    CONTRADICTED by {', '.join(p['conflicts'])}")
    return "\n".join(lines)


def _as_of_line(data) -> str:
    a = data["as_of"]
    line = f"  as of {a['date']} ({a['ja']})"
    if a.get("note"):
        line += f" — {a['note']}"
    return line


def _indent(text: str, n: int = 4) -> str:
    return text.replace("\n", "\n" + " " * n)
