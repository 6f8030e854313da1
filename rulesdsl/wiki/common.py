"""What the wiki's page renderers share: a page's link maker (`Ctx`), card facts and rule-point
values in words, a ruling's state today, a scenario's answer in a table cell."""

from __future__ import annotations

import re
from typing import Any, Optional

from ..lang.model import Revision, Ruling, Status
from ..lang.vocab import UNKNOWN, Call, Vocabulary, in_words
from .escape import esc, esc_lines
from .render import UNKNOWN_TAG, Doc, badge, code, link, tag
from .site import Failure, Settled, Wiki

STATUS_ORDER = (Status.confirmed, Status.provisional, Status.unofficial, Status.unconfirmed, Status.retracted)
MODALITY_JA = {"always": "必ず", "possible": "ありうる", "never": "ありえない"}

# ----------------------------------------------------------------------------- helpers

class Ctx:
    """What a renderer needs: the wiki and the page's relative prefix to the site root."""

    def __init__(self, w: Wiki, doc: Doc) -> None:
        self.w = w
        self.doc = doc
        self.root = doc.root

    def href(self, url: Optional[str]) -> Optional[str]:
        return None if url is None else self.root + url

    def a(self, url: Optional[str], text: str, cls: Optional[str] = None) -> str:
        if url is None:
            return esc(text)
        return link(self.root + url, esc(text), cls)

    def ruling(self, rid: str, rev: Optional[str] = None, text: Optional[str] = None) -> str:
        r = self.w.kb.rulings.get(rid)
        label = text if text is not None else (r.title if r else rid)
        return self.a(self.w.ruling_href(rid, rev), label)

    def card(self, game: str, code_: str, text: Optional[str] = None) -> str:
        c = self.w.kb.card(game, code_)
        label = text if text is not None else (f"{code_}《{c.card.name}》" if c and c.card.name else code_)
        return self.a(self.w.card_href(game, code_), label)

    def section(self, sid: str, text: Optional[str] = None) -> str:
        s = self.w.kb.sections.get(sid)
        return self.a(self.w.section_href(sid), text if text is not None else (s.title if s else sid))

    def scenario(self, sid: str, text: Optional[str] = None) -> str:
        info = self.w.kb.scenarios.get(sid)
        return self.a(self.w.scenario_href(sid), text if text is not None else (info.scenario.title if info else sid))

    def point(self, game: str, name: str) -> str:
        p = self.w.kb.games[game].points.get(name)
        label = p.label if p and p.label else name
        return self.a(self.w.point_href(game, name), label) + " " + code(name)

    def ref(self, game: str, target: str, rev: Optional[str] = None) -> str:
        """A reference (ruling, section, scenario or card) as a link with a kind label."""
        found = self.w.ref_href(game, target, rev)
        if found is None:
            return code(target)
        url, kind = found
        if kind == "ruling":
            return "裁定 " + self.ruling(target, rev)
        if kind == "section":
            return "ルール " + self.section(target)
        if kind == "scenario":
            return "Q&A " + self.scenario(target)
        return "カード " + self.card(game, target)

    def cite(self, c) -> str:
        """A citation (`Citation`) as a link to its heading on the source document's page, named by
        the document's short title rather than its file name."""
        if c is None:
            return ""
        found = self.w.source_doc(c.document)
        if found is None:
            return esc(c.raw)
        _, d = found
        label = short_title(d.title) + (f" §{c.heading}" if c.heading else "")
        href = self.w.source_href(c.document, c.heading)
        if href is None:
            return esc(label)
        return (f'<a class="rd-cite" href="{esc(self.root + href)}" title="{esc(d.title)}（{esc(c.document)}）">'
                f"{esc(label)}</a>")

    def game(self, game: str) -> str:
        return self.a(self.w.url(self.w.game_src(game)), self.w.kb.games[game].decl.name)


_MENTION = re.compile(r"(?<![A-Za-z0-9.])([A-Za-z]+\.?\d+)(?![0-9])(?:《([^《》\n]{1,60})》)?|《([^《》\n]{1,60})》")


def linked_text(ctx: "Ctx", game: str, text: str) -> str:
    """Escaped text (line breaks kept) whose card mentions — `No.054《火野 アラシ》`, `《火野 アラシ》`,
    `No.054` — link to the card's page when the knowledge base has the card."""
    codes, names = ctx.w.card_index(game)
    out, pos = [], 0
    for m in _MENTION.finditer(text):
        code_, name = m.group(1), m.group(2) or m.group(3)
        target = code_ if code_ in codes else names.get(name) if name else None
        if target is None and code_ and name:
            target = names.get(name)
        if target is None:
            continue
        href = ctx.w.card_href(game, target)
        if href is None:
            continue
        out.append(esc_lines(text[pos:m.start()]))
        out.append(link(ctx.root + href, esc(m.group()), "rd-card-link"))
        pos = m.end()
    out.append(esc_lines(text[pos:]))
    return "".join(out)


def short_title(title: str) -> str:
    """A document's title without its parenthesised remarks: 「GRMカード ルールまとめ」."""
    head = title.split("（", 1)[0].split("(", 1)[0].strip()
    return head or title


def value_label(w: Wiki, game: str, point: str, value: str) -> str:
    p = w.kb.games[game].points.get(point)
    if p:
        for v in p.values:
            if v.name == value and v.label:
                return v.label
    return value


def card_words(vocab: Vocabulary, call: Call) -> str:
    return in_words(call, vocab, card_name=lambda r: f"《{r.text.strip('《》')}》")


def fact_html(vocab: Vocabulary, name: str, value: Any) -> str:
    """A card fact's value in words (enum labels, units); 未収録 for an explicit unknown."""
    if value is UNKNOWN:
        return UNKNOWN_TAG
    entry = vocab.entries["fact"].get(name)
    params = list(entry.params) if entry else []
    if isinstance(value, dict):
        by_name = {p.name: p for p in params}
        return "、".join(f"{esc(k)}: {_value_html(vocab, v, by_name.get(k))}" for k, v in value.items())
    return _value_html(vocab, value, params[0] if params else None)


def _value_html(vocab: Vocabulary, v: Any, param) -> str:
    types = param.types if param is not None else ()
    if v is UNKNOWN:
        return UNKNOWN_TAG
    if isinstance(v, (tuple, list)):
        return "、".join(_value_html(vocab, x, param) for x in v) or "なし"
    if isinstance(v, bool):
        return "あり" if v else "なし"
    if isinstance(v, (int, float)):
        n = int(v) if isinstance(v, float) and v.is_integer() else v
        if "kg" in types:
            return f"{n}kg"
        if "dice" in types:
            return f"{n}D"
        return esc(n)
    if hasattr(v, "text"):          # a CardRef
        return esc(f"《{v.text.strip('《》')}》")
    text = str(v)
    for t in types:
        label = vocab.enum_label(t, text)
        if label:
            return esc(label)
    return esc(text)


def known_facts(w: Wiki, game: str, facts: dict) -> tuple[list[str], int]:
    vocab = w.kb.games[game].vocab
    known, unknown = [], 0
    for name, entry in vocab.entries["fact"].items():
        v = facts.get(name, UNKNOWN)
        if v is UNKNOWN:
            unknown += 1
            continue
        known.append(f"{esc(entry.label or name)}: {fact_html(vocab, name, v)}")
    return known, unknown


def ruling_state(ctx: Ctx, r: Ruling) -> tuple[Optional[Revision], str, str]:
    """(revision shown, state, badge html) of a ruling as of the build day."""
    rev, state = ctx.w.current(r)
    if rev is None:
        return None, state, tag("改訂なし")
    b = badge(rev.status)
    if state == "superseded":
        b += " " + tag("置き換え済み", "superseded")
    elif state == "future":
        b += " " + tag("未発効", "future")
    return rev, state, b


def answer_summary(ctx: Ctx, sid: str) -> str:
    """A short state of a scenario's answer for tables: status and whether expectations hold."""
    a = ctx.w.answers.get(sid)
    if a is None:
        return tag("計算なし", "plain", "このゲームにはまだインタプリタがない")
    if isinstance(a, Failure):
        return tag("計算できず", "fail", a.message)
    checked = a.checked if isinstance(a, Settled) else any(e.applies for e in a.expectations)
    mark = ("✓" if a.ok else "✗") if checked else ""
    return badge(a.status) + (f' <span class="rd-{"ok" if a.ok else "ng"}">{mark}</span>' if mark else "")




def rev_label(ref) -> Optional[str]:
    if ref.undated:
        return "undated"
    return str(ref.date) if ref.date else None
