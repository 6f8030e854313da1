"""The changelog's parts a maintainer reads: per ruling change its status, source and the day the
knowledge base learned it (from git), and for every worked answer it changed the answer before and
after with the difference marked and the reason in Japanese. No wide tables: each change is a
block that reads on a phone."""

from __future__ import annotations

import datetime as _dt
import difflib
import logging
import re
import subprocess
from pathlib import Path
from typing import Optional

from ..lang.model import Revision, Ruling, Status
from .common import Ctx, value_label
from .escape import esc
from .render import badge, tag

log = logging.getLogger("mkdocs.plugins.rulesdsl")

KIND_CLASS = {"新規": "plain", "改訂": "plain", "撤回": "superseded"}
BLAME_FILES_MAX = 200       # git blame is run once per file: beyond this, the day learned is left out


def marked_diff(before: str, after: str) -> tuple[str, str]:
    """`before` and `after` as HTML, what was removed in <del>, what was added in <ins>."""
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    old, new = [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        a, b = esc(before[i1:i2]), esc(after[j1:j2])
        if op == "equal":
            old.append(a)
            new.append(b)
            continue
        if a:
            old.append(f"<del>{a}</del>")
        if b:
            new.append(f"<ins>{b}</ins>")
    return "".join(old), "".join(new)


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


def because_ja(ctx: Ctx, game: str, reason: str) -> str:
    """One reason of rulesdsl.regress.records (`point: value (status, source) → value (status, source)`)
    as Japanese HTML with links; anything else is shown as it is."""
    if reason == "the scenario itself changed":
        return "場面そのものが変わった"
    m = _POINT.match(reason)
    if not m:
        return esc(reason)
    point = m.group("point")
    side = []
    for part in (m.group("old"), m.group("new")):
        v = _VALUE.match(part)
        if not v:
            side.append(esc(part))
            continue
        label = esc(value_label(ctx.w, game, point, v.group("value")))
        try:
            status = badge(Status(v.group("status")))
        except ValueError:
            status = esc(v.group("status"))
        origin = (f"既定値（{ctx.section(v.group('section'))}）" if v.group("section")
                  else ctx.ruling(v.group("ruling"), v.group("rev")))
        side.append(f"「{label}」 {status} {origin}")
    card = f"（カード {ctx.card(game, m.group('card'))}）" if m.group("card") else ""
    return f"{ctx.point(game, point)}{card}: {side[0]} → {side[1]}"


def change_block(ctx: Ctx, r: Ruling, rev: Revision, kind: str) -> None:
    """One ruling change: its date, status, kind, source, game, the day the knowledge base learned
    it; then each answer it changed."""
    w, doc = ctx.w, ctx.doc
    # a block, not a heading: a year of changes at scale is thousands of them (the months are the
    # table of contents)
    doc.add(f'<p class="rd-change-head"><span class="rd-date">{esc(rev.date_ja)}</span>　'
            f'{ctx.ruling(r.id, rev.date_label, r.title)}</p>\n')
    meta = [badge(rev.status), tag(kind, KIND_CLASS.get(kind, "plain")), ctx.game(r.game)]
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
    for c in changed:
        before, after = marked_diff(verdict_ja(c.before), verdict_ja(c.after))
        sb = badge(Status(c.status_before)) + " " if c.status_before else ""
        sa = badge(Status(c.status_after)) + " " if c.status_after else ""
        if c.status_before != c.status_after:           # the status changed: marked like the text
            sb, sa = f"<del>{sb}</del>", f"<ins>{sa}</ins>"
        if c.before == c.after:
            after += '<br><span class="rd-muted">（答えの内容は同じで、依拠する根拠の状態だけが変わった）</span>'
        elif c.ok_before != c.ok_after:
            after += f'<br><span class="rd-muted">（期待との一致: {_ok(c.ok_before)} → {_ok(c.ok_after)}）</span>'
        because = "".join(f"<li>{because_ja(ctx, r.game, x)}</li>" for x in c.because)
        doc.add(f'<div class="rd-change"><p>{ctx.scenario(c.scenario)}</p>'
                f'<p><span class="rd-label">改訂の前</span>{sb}{before}</p>'
                f'<p><span class="rd-label">改訂の後</span>{sa}{after}</p>'
                + (f'<p class="rd-label">理由</p><ul class="rd-because">{because}</ul>' if because else "")
                + "</div>\n")


def _ok(ok: Optional[bool]) -> str:
    return "答えられない" if ok is None else ("一致" if ok else "不一致")


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

