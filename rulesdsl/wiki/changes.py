"""The changelog's parts a maintainer reads: per ruling change its status, source and the day the
knowledge base learned it (from git), and for every worked answer it changed the answer before and
after — what changed phrase by phrase, what stayed folded — and the reason in words. No wide
tables: each change is a block that reads on a phone; answers that changed alike are one block."""

from __future__ import annotations

import datetime as _dt
import logging
import re
import subprocess
from pathlib import Path
from typing import Optional

from ..engine.sentences import cell_spelling
from ..lang.model import Revision, Ruling, Status
from .common import Ctx, value_label
from .escape import esc
from .phrases import Diff, answer_diff
from .render import badge, tag

log = logging.getLogger("mkdocs.plugins.rulesdsl")

KIND_CLASS = {"新規": "plain", "改訂": "plain", "撤回": "superseded"}
BLAME_FILES_MAX = 200       # git blame is run once per file: beyond this, the day learned is left out


_VERDICT = [
    (re.compile(r" — all (\d+) expectations hold$"), r"（期待\1件すべてが成り立つ）"),
    (re.compile(r" — (\d+) of (\d+) expectations FAIL$"), r"（期待\2件のうち\1件が成り立たない）"),
    (re.compile(r"^(\d+) outcomes are possible, depending on the choices"), r"選択により\1通りの結果がありうる"),
    (re.compile(r"^error: "), "答えられない: "),
]


def verdict_ja(text: str) -> str:
    for pattern, repl in _VERDICT:
        text = pattern.sub(repl, text)
    return text


_POINT = re.compile(r"^(?:card\((?P<card>[^)]*)\)\.)?(?P<point>[\w.]+): (?P<old>.+?) → (?P<new>.+)$")
_VALUE = re.compile(r"^(?P<value>\S+) \((?P<status>\w+), (?:default of (?P<section>\S+)|(?P<ruling>[^@\s]+)@(?P<rev>\S+))\)$")
_RULING = re.compile(r"^(?P<ruling>\S+): revision (?P<old>\S+) \((?P<os>\w*)\) → (?P<new>\S+) \((?P<ns>\w*)\)$")
_CARD = re.compile(r"^card (?P<card>.+) changed$")


def because_ja(ctx: Ctx, game: str, reason: str) -> str:
    """One reason of rulesdsl.regress.impact (`point: value (status, source) → value (status,
    source)`, `ruling: revision A (status) → B (status)`, `card CODE changed`) as a Japanese
    sentence with links: the rule point by its title, the values by their labels, where each came
    from — no DSL ids. Anything else is shown as it is."""
    if reason == "the scenario itself changed":
        return "Q&Aの場面そのものが書き換えられた。"
    m = _POINT.match(reason)
    if m:
        point = m.group("point")
        side = [_value_ja(ctx, game, point, m.group(k)) for k in ("old", "new")]
        p = ctx.w.kb.games[game].points.get(point) if game in ctx.w.kb.games else None
        title = ctx.a(ctx.w.point_href(game, point), p.label if p and p.label else point)
        whose = f"カード{ctx.card(game, m.group('card'))}の" if m.group("card") else ""
        return f"{whose}「{title}」が、{side[0]}から、{side[1]}に変わった。"
    m = _RULING.match(reason)
    if m:
        def rev(label: str, status: str) -> str:
            if label == "none":
                return "有効な改訂なし"
            try:
                st = " " + badge(Status(status))
            except ValueError:
                st = ""
            return ctx.ruling(m.group("ruling"), label, _label_ja(label)) + st
        return (f"裁定{ctx.ruling(m.group('ruling'))}の有効な改訂が、{rev(m.group('old'), m.group('os'))}から、"
                f"{rev(m.group('new'), m.group('ns'))}に変わった。")
    m = _CARD.match(reason)
    if m:
        return f"カード{ctx.card(game, m.group('card'))}のデータが変わった。"
    return esc(reason)


def _label_ja(label: str) -> str:
    return "日付のない改訂" if label == "undated" else f"{label}の改訂"


def _value_ja(ctx: Ctx, game: str, point: str, part: str) -> str:
    """「全て実行するか、発動しないかのどちらか」（※未確定、既定値: 任意効果と強制効果）"""
    v = _VALUE.match(part)
    if not v:
        return f"「{esc(part)}」"
    label = esc(value_label(ctx.w, game, point, v.group("value")))
    try:
        status = badge(Status(v.group("status")))
    except ValueError:
        status = esc(v.group("status"))
    origin = (f"{ctx.section(v.group('section'))}の既定値" if v.group("section")
              else "裁定" + ctx.ruling(v.group("ruling"), v.group("rev")))
    return f"「{label}」（{status}、{origin}）"


def expectation_ja(ok_before: Optional[bool], ok_after: Optional[bool]) -> str:
    """Whether the answer agrees with what the Q&A expects, before and after, as a sentence."""
    before = {None: "改訂の前は答えが出なかったが", True: "改訂の前は一致していたが",
              False: "改訂の前は一致しなかったが"}[ok_before]
    after = {None: "改訂の後は答えが出ない", True: "改訂の後は一致する", False: "改訂の後は一致しない"}[ok_after]
    return f"Q&Aが期待する答えと、{before}、{after}。"


def _status_pair(c) -> tuple[str, str]:
    sb = badge(Status(c.status_before)) if c.status_before else ""
    sa = badge(Status(c.status_after)) if c.status_after else ""
    return sb, sa


def change_groups(w, changed) -> list[tuple[list, Diff]]:
    """The answers a revision changed, those that changed alike (the same passages, statuses,
    agreement with the Q&A and reasons) together, in the order of their first answer; cells
    spelled as each question spells them."""
    groups: dict[tuple, tuple[list, Diff]] = {}
    for c in changed:
        info = w.kb.scenarios.get(c.scenario)
        spell = cell_spelling(info.scenario.question if info else None)
        d = answer_diff(spell(verdict_ja(c.before)), spell(verdict_ja(c.after)))
        k = (d.key(), c.status_before, c.status_after, c.ok_before, c.ok_after, tuple(c.because))
        groups.setdefault(k, ([], d))[0].append((c, d))
    return list(groups.values())


SHOWN = 3      # the answers of a group named before the fold


def change_block(ctx: Ctx, r: Ruling, rev: Revision, kind: str) -> None:
    """One ruling change: its date, status, kind, source, game, the day the knowledge base learned
    it; then the answers it changed, those that changed alike once, each with what changed
    (phrase by phrase), what stayed (folded) and why, in words."""
    w, doc = ctx.w, ctx.doc
    # a block, not a heading: a year of changes at scale is thousands of them (the months and the
    # games are the table of contents)
    doc.add(f'<p class="rd-change-head"><span class="rd-date">{esc(rev.date_ja)}</span>　'
            f'{ctx.ruling(r.id, rev.date_label, r.title)}</p>\n')
    meta = [badge(rev.status), tag(kind, KIND_CLASS.get(kind, "plain"))]
    if rev.source:
        meta.append("出典: " + ctx.cite(rev.source))
    if rev.supersedes:
        meta.append("、".join(ctx.ruling(s.target) for s in rev.supersedes) + "を置き換え")
    doc.p_html(" ・ ".join(meta), "rd-meta")
    learned = learned_day(w, rev)
    if learned:
        doc.p(f"知識ベースに記録された日: {learned.year}年{learned.month}月{learned.day}日（git の履歴より。"
              "裁定の日付とは別です）", "rd-learned")
    if rev.text and rev.text.value:
        doc.p(rev.text.value, "rd-ruling-text")
    changed = w.changed_answers.get(f"{r.id}@{rev.date_label}", [])
    if not changed:
        return
    doc.p_html(f"<strong>この改訂で変わった答え（{len(changed)}件）</strong>")
    groups = change_groups(w, changed)
    # what every group shares (the status change, the agreement with the Q&A, the reasons) is said
    # once, before them
    shared = {k for k, get in _SHARED.items() if len({get(m[0][0]) for m, _ in groups}) == 1} if len(groups) > 1 else set()
    common = _parts(ctx, r.game, groups[0][0][0][0], shared) if shared else ""
    if common:
        doc.add(f'<div class="rd-change rd-change-shared"><p class="rd-muted">どの答えにも共通:</p>{common}</div>\n')
    for members, d in groups:
        doc.add(_group_html(ctx, r.game, members, d, set(_SHARED) - shared))


_SHARED = {"status": lambda c: (c.status_before, c.status_after), "expect": lambda c: (c.ok_before, c.ok_after),
           "because": lambda c: tuple(c.because)}


def _parts(ctx: Ctx, game: str, c, which: set) -> str:
    """The status change, the agreement with the Q&A and the reasons of change `c`, those in `which`."""
    parts = []
    sb, sa = _status_pair(c)
    if "status" in which and c.status_before != c.status_after:
        parts.append(f'<p class="rd-status-change"><span class="rd-label">状態</span><del>{sb}</del> → <ins>{sa}</ins></p>')
    if "expect" in which and c.ok_before != c.ok_after:
        parts.append(f'<p class="rd-expect">{esc(expectation_ja(c.ok_before, c.ok_after))}</p>')
    if "because" in which and c.because:
        because = "".join(f"<li>{because_ja(ctx, game, x)}</li>" for x in c.because)
        parts.append(f'<p class="rd-label">理由</p><ul class="rd-because">{because}</ul>')
    return "".join(parts)


def _group_html(ctx: Ctx, game: str, members: list, d: Diff, which: set) -> str:
    c = members[0][0]
    links = [ctx.scenario(m.scenario) for m, _ in members]
    head = "、".join(links[:SHOWN])
    if len(links) > SHOWN:
        head += (f'<details class="rd-more"><summary>ほか{len(links) - SHOWN}件（同じように変わった答え）</summary>'
                 f'<p>{"、".join(links[SHOWN:])}</p></details>')
    alike = f'<p class="rd-muted">{len(links)}件の答えが同じように変わった。</p>' if len(links) > 1 else ""
    parts = [f'<div class="rd-change"><p class="rd-change-qa">{head}</p>{alike}']
    if "status" in which:
        parts.append(_parts(ctx, game, c, {"status"}))
    if d.changed:
        rows = "".join(f'<li><span class="rd-label">改訂の前</span>{old or "（なし）"}</li>'
                       f'<li><span class="rd-label">改訂の後</span>{new or "（なし）"}</li>' for old, new in d.changed)
        parts.append(f'<ul class="rd-diff">{rows}</ul>')
    else:
        parts.append('<p class="rd-muted">答えの内容は同じで、依拠する根拠の状態だけが変わった。</p>')
    parts.append(_parts(ctx, game, c, which - {"status"}))
    same = [(m, x) for m, x in members if x.same]
    if same:
        if len(members) == 1:
            inner = "".join(f"<p>{s}</p>" for s in same[0][1].same)
            count = f"{len(same[0][1].same)}文"
        else:
            inner = "".join(f"<p>{ctx.scenario(m.scenario)}：{''.join(x.same)}</p>" for m, x in same)
            count = f"{len(same)}件"
        parts.append(f'<details class="rd-unchanged"><summary>変わらない部分（{count}）</summary>{inner}</details>')
    parts.append("</div>\n")
    return "".join(parts)


# ----------------------------------------------------------------------------- when the knowledge base learned it

def learned_day(w, rev: Revision) -> Optional[_dt.date]:
    """The day of the commit that wrote the revision's first line (git blame), or None outside
    git or for a large knowledge base (see BLAME_FILES_MAX)."""
    memo = w.__dict__.get("_learned")
    if memo is None:
        memo = w.__dict__["_learned"] = _blame_all(w)
    loc = rev.loc
    if loc is None:
        return None
    return memo.get((str(loc.file), loc.line))


def _blame_all(w) -> dict[tuple[str, int], _dt.date]:
    root = Path(w.kb.root)
    files = sorted({str(rev.loc.file) for r in w.kb.rulings.values() for rev in r.revisions
                    if rev.date is not None and rev.loc is not None})
    if not files or not (root / ".git").exists():
        return {}
    if len(files) > BLAME_FILES_MAX:
        log.info(f"rulesdsl: {len(files)} ruling files: the day each revision was recorded (git blame) is left out "
                 f"of the changelog beyond {BLAME_FILES_MAX} files")
        return {}
    out: dict[tuple[str, int], _dt.date] = {}
    for f in files:
        path = Path(f) if Path(f).is_absolute() else root / f
        try:
            text = subprocess.run(["git", "-C", str(root), "blame", "--line-porcelain", "--", str(path)],
                                  capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return {}
        line = 0
        for row in text.splitlines():
            if row and row[0] != "\t" and len(row) > 41 and row[40] == " " and all(c in "0123456789abcdef" for c in row[:40]):
                line = int(row.split()[2])
            elif row.startswith("committer-time "):
                out[(f, line)] = _dt.datetime.fromtimestamp(int(row.split()[1]), _dt.timezone.utc).date()
    return out

