"""`rulesdsl deck FILE`: validate the deck lists in FILE against their game's construction rules."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..base.cache import find_root
from ..engine.registry import engine_for
from ..kb.build import load, names_of, refuse_folder
from ..kb.lint import run_checks
from ..lang.diagnostics import Diagnostic, DslError
from .main import EXIT_FINDINGS, EXIT_OK, Output, command, exit_code


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", type=Path, help='a .rules file of deck lists (`deck GAME/… "名前" { … }`)')


@command("deck", "Validate deck lists against their game's deck rules, naming the rules applied and their status.", configure)
def run(args, out: Output) -> int:
    refuse_folder(args.file)
    kb = load(args.root or find_root(), extra=[args.file], use_cache=not args.no_cache)
    shown = names_of(kb, [args.file])        # a folder, a device or a missing file: reported there
    problems = [d for d in kb.diagnostics + run_checks(kb) if d.loc is not None and d.loc.file in shown]
    if problems:
        out.diagnostics(problems)
        return exit_code(problems) if any(d.fatal for d in problems) else 2
    decks = [d for d in kb.decks.values() if d.deck.loc.file in shown]
    if not decks:
        raise DslError([Diagnostic(code="usage", fatal=True, message=f"{args.file} holds no deck",
                                   hint='write: deck grm/decks/mine "デッキ名" { add No.018 2; add "60kgのカード" 2 }')])
    invalid = 0
    for d in decks:
        engine = engine_for(d.game)
        result = engine.validate_deck(kb, d) if engine else None
        if result is None:
            print(f"{d.id}: {d.game} has no deck rules in the interpreter yet")
            continue
        found, notes = result
        total = sum(e.params.get("count") or 1 for e in d.entries)
        if found:
            invalid += 1
            out.diagnostics(found)
            print(f"{d.id} 《{d.deck.title}》: INVALID ({total} cards, {len(found)} problem(s))")
        else:
            print(f"{d.id} 《{d.deck.title}》: valid ({total} cards)")
        for n in notes:
            print(f"  note: {n}")
    return EXIT_FINDINGS if invalid else EXIT_OK
