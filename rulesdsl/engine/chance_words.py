"""A best play's decision rules in a player's words (engine.chance `best_play`): which options
are best after what the player saw, as ranges of the outcomes where they are numbered alike."""

from __future__ import annotations

from ..base.patterns import LazyPattern


def decision_words(label: str, table: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> str:
    """A decision rule a player can follow: 「出目の攻撃力が9以下なら「振りなおす」（それ以外は
    「振りなおさない」）」. `table` maps what the player saw (a chance outcome in words, e.g.
    攻撃力9) to the options that are best there (several: it makes no difference)."""
    options = next(iter(table.values()))[1]
    strict = {cond: best[0] for cond, (best, _) in table.items() if len(best) == 1}
    ties = [c for c, (best, _) in table.items() if len(best) > 1]
    chosen = [o for o in options if o in set(strict.values())]
    if not strict:
        return f"「{label}」はどちらを選んでも確率は変わらない"
    if len(chosen) == 1 and not ties:
        return f"「{label}」では、見た{_seen_words(list(table))}によらず常に「{chosen[0]}」を選ぶ"
    if ties:   # name only where it matters: 「出目の攻撃力が8なら「使用する」、9なら「使用しない」」
        parts = [f"{_condition([c for c, o in strict.items() if o == opt], [])}なら「{opt}」" for opt in chosen]
        return "、".join(parts) + "（それ以外はどちらを選んでも確率は変わらない）"
    first = chosen[0]
    conds = [c for c, o in strict.items() if o == first]
    others = [c for c, o in strict.items() if o != first]
    return f"{_condition(conds, others)}なら「{first}」（それ以外は「{chosen[1]}」）"


_NUMBERED = LazyPattern(r"^(\D*?)(\d+)(.*)$")


def _condition(conds: list[str], others: list[str]) -> str:
    """The outcomes `conds` in words, as a range where they are numbered alike (出目の攻撃力が9以下),
    grouped by what follows the number (・ダブりあり); `others` are the outcomes not meant."""
    groups: dict[tuple, tuple[list[int], list[int]]] = {}
    loose: list[str] = []
    for mine, items in ((True, conds), (False, others)):
        for c in items:
            m = _NUMBERED.match(c)
            if m is None:
                if mine:
                    loose.append(c)
                continue
            groups.setdefault((m.group(1), m.group(3).lstrip("・")), ([], []))[0 if mine else 1].append(int(m.group(2)))
    words = []
    for (head, tail), (mine, rest) in groups.items():
        if not mine:
            continue
        mine, rest = sorted(mine), sorted(rest)
        where = f"（{tail}）" if tail else ""
        if not rest and tail:
            words.append(f"出目が{tail}")
        elif not rest or mine[-1] < rest[0]:
            words.append(f"出目の{head}が{mine[-1]}{'以下' if len(mine) > 1 or rest else ''}{where}")
        elif mine[0] > rest[-1]:
            words.append(f"出目の{head}が{mine[0]}{'以上' if len(mine) > 1 else ''}{where}")
        else:
            words.append(f"出目の{head}が{'・'.join(map(str, mine))}{where}")
    words += [f"出目が{c}" for c in loose]
    return "、または".join(dict.fromkeys(words))


def _seen_words(conds: list[str]) -> str:
    return "出目" if any(conds) else "結果"
