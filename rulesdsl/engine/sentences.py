"""The answer in words: the plain Japanese sentences that open every answer, and the status line
that follows them. Built from what a run established — the action the rules forbid, the
expectations (each game's vocabulary writes them as statements of fact), who chooses, the
readings — so every game gets them without writing any.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Optional

from .chance import chance_sentences, is_chance
from .chance import expectation_sentence as chance_expectation
from .registry import engine_for
from .verdicts import agrees

if TYPE_CHECKING:
    from ..kb.knowledge import KnowledgeBase, ScenarioInfo
    from .answer import Answer, ExpectationResult


def _end(text: str) -> str:
    text = text.strip()
    return text if text.endswith(("。", "！", "？", "）")) and not text.endswith("（）") else text + "。"


def expectation_sentence(e: "ExpectationResult", text: Optional[str] = None) -> str:
    """One expectation as a statement of what the rules give, whether or not it was expected
    (`text`: the expectation in the words the final boards call for, if not its own)."""
    many = e.branches > 1
    text = text or e.text
    if e.ok:
        if e.modality == "never":
            return f"{'どの選択でも' if many else ''}「{text}」とはならない。"
        if e.modality == "possible" and e.holds_in < e.branches:
            return f"選択によっては{text}（{e.branches}通り中{e.holds_in}通り）。"
        return f"{'どの選択でも' if many else ''}{_end(text)}"
    found = "／".join(e.found) if e.found else ""
    if e.modality == "never":
        if not many:
            return _end(text)
        return f"選択によっては{text}（{e.branches}通り中{e.holds_in}通り）。"
    if e.modality == "possible":
        return f"どの選択でも「{text}」とはならない" + (f"（{found}）。" if found else "。")
    if many and e.holds_in:
        return f"選択によっては「{text}」とはならない（{found}）。"
    return f"{_end(found)}（「{text}」ではない）" if found else f"「{text}」ではない。"


# 「…できるか。」: a question that ends (past its spaces and one final 。 or ？) on one of these;
# tested by `str.endswith` (C), not by a pattern tried at every character of the question
_CAN = tuple(can + ask for can in ("できる", "できます", "可能") for ask in ("か", "ですか"))
# a cell not inside a longer word or number: the letter first, then the look behind it (the
# letter and the character before it), so that a search skips to the next letter at C speed
# instead of trying the look-behind at every character of the text (five times faster)
_CELL = re.compile(r"([A-Ia-i](?<![A-Za-z0-9.][A-Ia-i])[1-9])(?![A-Za-z0-9])")
_CAPITAL_CELL = re.compile(r"[A-I](?<![A-Za-z0-9.][A-I])[1-9](?![A-Za-z0-9])")    # a cell the question writes B2


@lru_cache(maxsize=1024)     # asked for every answer of a question (each reading tried): once
def _asks_can(question: str) -> bool:
    """「…プレイできるか。」: a question answered できる or できない."""
    text = question.strip() if question else ""
    return text.endswith(_CAN) or (text[-1:] in ("。", "？", "?") and text[:-1].endswith(_CAN))


@lru_cache(maxsize=1024)     # asked for every answer of a question: its spelling once
def cell_spelling(question: Optional[str]) -> Callable[[str], str]:
    """The question's own spelling of cells, as a function on text: where the question writes
    them in capitals (B2), every cell in the text is written so (not the interpreter's b1, b2);
    else the text is left as it is. For the answer's sentences and for every text shown with the
    question — the checks, the trace, the set-up, the answers over time."""
    if not _CAPITAL_CELL.search(question or ""):
        return _as_written
    return lambda text: _CELL.sub(_upper_cell, text) if text else text


def _upper_cell(m: re.Match) -> str:
    return m.group(1).upper()


def _as_written(text: str) -> str:
    return text


def _in_question_terms(sentences: list[str], question: str) -> list[str]:
    spell = cell_spelling(question)
    return sentences if spell is _as_written else [spell(x) for x in sentences]


def _expectation_words(kb: "KnowledgeBase", a: "Answer", info: "ScenarioInfo", i: int, engine) -> Optional[str]:
    """The game's wording of expectation `i` for the boards the run ended on (「a1のカードは裏向き」
    of a cell that holds one card, where the expectation's template speaks of a stack's top), by
    the answer's game's `engine`."""
    if engine is None or i >= len(info.expects) or not engine.words_from_boards(info.expects[i][1]):
        return None     # the game words no such expectation from the boards: none is drawn for it
    finals = []     # no board drawn for them
    for b in a.branches:
        f = b.final
        if f is not None:
            finals.append(f)
    return engine.expectation_words(kb, info.expects[i][1], finals) if finals else None


def _path_words(branch) -> str:
    """「P2が「解決順」でa2→c2を選んだ」: the choices that lead to a branch, in words."""
    return "、".join(f"{c.by}が{c.options[c.picked]}の" if is_chance(c) else   # chance: 「出目が攻撃力9の」
                    f"{c.chooser + 'が' if c.chooser else ''}「{c.label}」で{c.options[c.picked]}を選んだ"
                    for c in branch.choices)


def answer_sentences(kb: "KnowledgeBase", a: "Answer", info: "ScenarioInfo", own: bool = True) -> list[str]:
    """The answer in sentences; with `own` false, written from the run alone, never in the
    scenario's own `answer` words (to compare the answers under two readings)."""
    out: list[str] = []

    def add(sentence: str) -> None:
        if sentence and sentence not in out:
            out.append(sentence)

    question = getattr(info.scenario, "question", None) or ""
    why = ""
    if a.illegal:
        why = a.illegal["message"].rstrip("。")
        rule = f"（{a.illegal['title']}）" if a.illegal.get("title") else ""
        add(f"ルール上できない：{why}{rule}。")        # 「できない」 to a できるか question, with why
    else:
        partial = []
        for b in a.branches:
            if b.illegal:
                partial.append(b)
        if partial:
            paths = "、または".join(sorted({_path_words(b) for b in partial}))
            add(f"{paths}場合はルール上できない：{partial[0].illegal.rstrip('。')}。")
        elif _asks_can(question) and a.branches:
            add("できる。")             # the question asked できるか: its answer first, the details after
    for sentence in chance_sentences(a.odds):   # exact odds where the dice are not fixed
        add(sentence)
    applicable = []
    for e in a.expectations:
        if e.applies and e.evaluated:
            applicable.append(e)
    if own and info.scenario.answer and applicable and all(e.ok for e in applicable) and not a.reading \
            and agrees(info.scenario.answer, a):   # an answer that contradicts the engine is not read out
        add(_end(info.scenario.answer))
    else:
        engine = engine_for(a.game)     # the answer's game is the question's (a plain field: no property)
        for i, e in enumerate(a.expectations):
            if not (e.applies and e.evaluated):
                continue
            if a.illegal and (e.text.endswith("ルール上できない")
                              or (not e.ok and any(why in f for f in e.found))):
                continue        # the first sentence already says so, with the rule
            words = None if e.probability else _expectation_words(kb, a, info, i, engine)
            add(chance_expectation(a.odds, i, e.statement or e.text, e.probability, e.ok)
                or expectation_sentence(e, words))
    if not applicable and not a.illegal and not chance_sentences(a.odds):
        outcomes = a.outcomes
        if len(outcomes) == 1:
            add(_end(next(iter(outcomes))))
        else:
            add(f"選択によって{len(outcomes)}通りの結果になる。")
    for c in a.choosers:
        rule = f"（{c['title']}）" if c.get("title") else ""
        if c["chooser"]:
            add(f"「{c['label']}」は{c['chooser']}が選ぶ{rule}。")
        else:
            add(f"「{c['label']}」を誰が選ぶかは資料に定めがない。")
    return _in_question_terms(out, question)


