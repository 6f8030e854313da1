"""The synthetic corpus's worked questions: variations of the repository's own, kept only where
the interpreter answers them and their expectations hold — so a benchmark that runs them measures
answers, not quick failures (used by gen_corpus.py).

A random set-up drawn from the vocabulary's signatures is almost never a position the game can be
in (1,000 of them: 921 errors, 75 failed expectations, 4 passed), so the questions start from the
repository's worked questions instead — the ones that pass there and name no card of the
repository (the corpus has its own cards) — and vary what a question varies: its id, the names of
its hypothetical cards, the day it is asked (`as of`, so other synthetic rulings are in force),
now and then a known card of the corpus completed (`assume card CODE { … }`). (Pins are left
out: what a question pins can decide its answer's status, so they cannot be added after it is
answered.) Then every variation is answered against the corpus itself: one the
interpreter refuses is dropped; an expectation the corpus's rulings make false is dropped, and
when none would be left the first is rewritten to what the interpreter found (never / possible /
always over every branch); a scenario's own `answer` sentence is kept only while every
expectation stays as written. An `expect status` line is checked too (its result follows the
others', after the test of what decides the answer) and, where the corpus's own rulings and gaps
in force on the day asked give another status than the repository's, rewritten to the status
found; a question whose expectations were dropped or rewritten is answered again as changed
before it is kept, as what decides its status may have gone with them. What is written is what
`rulesdsl test` passes."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Optional

from rulesdsl.kb.build import load
from rulesdsl.kb.knowledge import KnowledgeBase, ScenarioInfo
from rulesdsl.regress.failures import pinned_failures
from rulesdsl.regress.records import record

PER_FILE = 8
FIRST_ASKED = dt.date(2020, 1, 1)
_CARD_DEF = re.compile(r'^  card ("(?:[^"\\]|\\.)*") \{')
_EXPECT = re.compile(r"^  expect (?:(always|possible|never) )?(.*)$")
_HEAD = ("  source ", "  question ", "  note ", "  answer ", "  mode ")


def _block(root: Path, info: ScenarioInfo, files: dict) -> list[str]:
    f = info.scenario.loc.file
    if f not in files:
        files[f] = (root / f).read_text(encoding="utf-8").splitlines()
    lines = files[f]
    first = info.scenario.loc.line - 1
    last = next(i for i in range(first, len(lines)) if lines[i] == "}")
    return lines[first:last + 1]


def templates(kb: KnowledgeBase, games) -> dict[str, list[list[str]]]:
    """Per game, the text of every worked question of the repository under rulings/<game>/qa/
    that passes there and names none of the repository's cards."""
    out: dict[str, list[list[str]]] = {g: [] for g in games}
    files: dict = {}
    cache: dict = {}
    for info in sorted(kb.scenarios.values(), key=lambda s: (s.scenario.loc.file, s.scenario.loc.line)):
        if info.game not in out or info.owner or f"rulings/{info.game}/qa/" not in info.scenario.loc.file:
            continue
        block = _block(kb.root, info, files)
        text = "\n".join(block)
        if any(g == info.game and (re.search(r"(?<![\w.])" + re.escape(code) + r"(?![\w.])", text)
                                   or f"《{c.card.name}》" in text) for (g, code), c in kb.cards.items()):
            continue
        _, a = record(kb, info, point_cache=cache)
        if a is None or not a.ok or pinned_failures(kb, info):
            continue
        out[info.game].append(block)
    return out


class Variations:
    """Candidate scenarios for one corpus: `make` writes their text, `keep` answers them against
    the corpus and returns the ones that pass, rewritten where the corpus's rulings moved them."""

    def __init__(self, gen, templates: dict[str, list[list[str]]], last_day: dt.date, is_name) -> None:
        self.gen, self.rng, self.templates = gen, gen.rng, templates
        self.last_day, self.is_name = last_day, is_name
        # candidates answered, refused by the interpreter, kept as written, with expectations dropped,
        # with one rewritten to what was found; `expect status` lines rewritten to the status found
        self.counts = {"answered": 0, "refused": 0, "as_written": 0, "dropped": 0, "rewritten": 0,
                       "status_rewritten": 0, "settled_again": 0}
        # per game, variations whose expectations were dropped or rewritten while they state a
        # status: what decides the status changed with them, so they are answered again as changed
        # (the next call of `keep`) before they are kept
        self.again: dict[str, list[tuple[str, list[str]]]] = {}

    def make(self, g, n: int, hypo_names) -> list[tuple[str, list[str]]]:
        rng = self.rng
        pool = self.templates[g.id]
        if not pool:
            return []
        completable = [c for c in g.cards if c.unknown_facts and self.is_name(c.code)]
        out = []
        for _ in range(n):
            block = list(rng.choice(pool))
            head = re.match(r'^scenario (\S+) ', block[0])
            tail = head.group(1).rsplit("/", 1)[-1]
            sid = self.gen.uid(f"{g.id}/qa/{tail}")
            block[0] = f"scenario {sid} " + block[0][head.end():]
            block = self._rename_cards(block, hypo_names)
            # `expect status …` is kept and settled with the rest (`_settle`): the status of an answer
            # here rests on the corpus's own rulings on the day asked, not the repository's
            block = [x for x in block if not x.startswith(("  as of ", "  pins "))]
            at = max((i for i, x in enumerate(block) if x.startswith(_HEAD)), default=0) + 1
            asked = self._asked(block)
            extra = [f"  as of {asked}"]
            if completable and rng.random() < 0.05:
                c = rng.choice(completable)
                e = g.info.vocab.entries["fact"][rng.choice(c.unknown_facts)]
                t = next((t for t in e.params[0].types if t != "unknown" and self.gen.satisfiable(g, t, "card")),
                         None)
                if t is not None:
                    value, _ = self.gen.value(g, t, [], "card")
                    extra.append(f"  assume card {c.code} {{ {e.name} {value} }}")
            out.append((sid, block[:at] + extra + block[at:]))
        return out

    def _asked(self, block: list[str]) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return next((x.split()[-1] for x in block if x.startswith("  as of ")), "2026-11-30")
        span = (self.last_day - FIRST_ASKED).days
        return (FIRST_ASKED + dt.timedelta(days=rng.randint(0, span))).isoformat()

    def _rename_cards(self, block: list[str], hypo_names) -> list[str]:
        names = [m.group(1) for x in block if (m := _CARD_DEF.match(x))]
        if not names:
            return block
        text = "\n".join(block)
        fresh = [x for x in hypo_names if f'"{x}"' not in text]
        self.rng.shuffle(fresh)
        mapping = {}
        for old, new in zip(names, fresh):
            mapping[old] = '"' + new + '"'
        if not mapping:
            return block
        pattern = re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))
        return [pattern.sub(lambda m: mapping[m.group(0)], x) if not x.startswith(_HEAD) else x for x in block]

    def keep(self, root: Path, candidates: dict[str, list[tuple[str, list[str]]]],
             wanted: dict[str, int]) -> dict[str, list[list[str]]]:
        """Answer every candidate against the corpus under `root` (written without its questions)
        and return, per game, up to `wanted` that pass as rewritten."""
        kept: dict[str, list[list[str]]] = {g: [] for g in candidates}
        # answered where they will be: inside the knowledge base, in its games' qa/ folders (a
        # question from outside the knowledge base is not answered quite the same way)
        written: list[Path] = []
        try:
            starts: dict[str, tuple[str, int]] = {}
            for gid, items in candidates.items():
                folder = root / "rulings" / gid / "qa"
                folder.mkdir(parents=True, exist_ok=True)
                for k in range(0, len(items), PER_FILE):
                    name = f"candidates-{k // PER_FILE:05d}.rules"
                    lines: list[str] = []
                    for sid, block in items[k:k + PER_FILE]:
                        starts[sid] = (f"rulings/{gid}/qa/{name}", len(lines) + 1)
                        lines += block + [""]
                    written.append(folder / name)
                    written[-1].write_text("\n".join(lines), encoding="utf-8")
            kb = load(root, use_cache=False)
            cache: dict = {}
            for gid, items in candidates.items():
                for sid, block in items:
                    if len(kept[gid]) >= wanted[gid]:
                        break
                    info = kb.scenarios.get(sid)
                    if info is None or not info.scenario.loc.file.endswith(starts[sid][0]):
                        continue
                    done = self._settle(kb, info, block, starts[sid][1], cache)
                    if done is None:
                        continue
                    out, settled = done
                    if settled:
                        kept[gid].append(out)
                    else:
                        self.again.setdefault(gid, []).append((sid, out))
        finally:
            for f in written:
                f.unlink(missing_ok=True)
        return kept

    def _settle(self, kb: KnowledgeBase, info: ScenarioInfo, block: list[str], first: int,
                cache: dict) -> Optional[tuple[list[str], bool]]:
        """The block as `rulesdsl test` passes it, and whether that is settled: a status is the
        weakest of what decides the answer's expectations, so one found while an expectation was
        still there that is now dropped or rewritten may not be the status of what is written
        (e.g. `expect battle …` dropped: whether a battle happens no longer decides anything)."""
        _, a = record(kb, info, point_cache=cache)
        self.counts["answered"] += 1
        if a is None or not a.expectations:
            self.counts["refused"] += 1
            return None
        block = list(block)
        pinned = {f.expectation for f in pinned_failures(kb, info)}
        drop, keep_answer = set(), True
        rewrite: Optional[tuple[int, str]] = None
        stated = set()       # expectations of the answer itself (`expect status …` says how sure it is)
        for (e, _), r in zip(info.expects, a.expectations):
            i = e.loc.line - first
            m = _EXPECT.match(block[i]) if 0 <= i < len(block) else None
            if m is None:
                return None
            if not m.group(2).startswith("status "):
                stated.add(i)
            if r.text not in pinned and (r.ok or not r.applies):
                continue
            keep_answer = False
            drop.add(i)
            if (rewrite is None and i in stated and r.probability is None and r.evaluated == r.branches > 0
                    and r.text not in pinned and " from " not in m.group(2) and " until " not in m.group(2)):
                modality = ("never " if r.holds_in == 0 else "" if r.holds_in == r.branches else "possible ")
                rewrite = (i, f"  expect {modality}{m.group(2)}")
        # `expect status …` (after the test of what decides the answer: not in `info.expects`, its
        # results follow theirs): the template's status is the repository's, the corpus's synthetic
        # rulings and gaps in force on the day asked decide this one, so a status the corpus moved
        # is rewritten to the one found; a status line with `from`/`until` speaks of the
        # repository's dates and is dropped
        for e, r in zip(info.scenario.status_expects, a.expectations[len(info.expects):]):
            i = e.loc.line - first
            if not (0 <= i < len(block)) or not block[i].startswith("  expect status ") or not r.about_status:
                return None
            if e.valid_from is not None or e.valid_until is not None:
                drop.add(i)
            elif not r.ok:
                block[i] = f"  expect status {a.status.value}"
                self.counts["status_rewritten"] += 1
        if not stated - drop:
            if rewrite is None:
                self.counts["refused"] += 1
                return None
            drop.discard(rewrite[0])
            block[rewrite[0]] = rewrite[1]
            self.counts["rewritten"] += 1
        elif drop:
            self.counts["dropped"] += 1
        else:
            self.counts["as_written"] += 1
        out = [x for n, x in enumerate(block) if n not in drop and (keep_answer or not x.startswith("  answer "))]
        changed = bool(drop) or rewrite is not None
        states = any(x.startswith("  expect status ") for x in out)
        if changed and states:
            self.counts["settled_again"] += 1
        return out, not (changed and states)

