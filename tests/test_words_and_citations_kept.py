"""The expectations' words and the rule sections' citations, as the engines' hot paths make them:
an enum value worded by its label, a value with no label as written, a parameter left out as
nothing (vocab.in_words); a section's citation made once per knowledge base, whichever run's
context asks for it (Context.section)."""

from __future__ import annotations

import datetime as dt

from rulesdsl.engine.context import Context
from rulesdsl.lang.vocab import Call, in_words


def test_in_words_gives_an_enum_value_its_label_a_plain_value_as_written_and_a_missing_one_nothing(kb):
    vocab = kb.games["grm"].vocab
    face = vocab.enums["face"]
    value, label = next(iter(face.values.items()))
    said = in_words(Call("expect", "face", {"cell": "a1", "face": value}, None), vocab)
    assert said == vocab.entries["expect"]["face"].label.format(cell="a1", face=label)
    unlabelled = in_words(Call("expect", "face", {"cell": "a1", "face": "no-such-face"}, None), vocab)
    assert unlabelled.endswith("no-such-face")
    assert in_words(Call("expect", "face", {"cell": "a1"}, None), vocab) == \
        vocab.entries["expect"]["face"].label.format(cell="a1", face="")


def test_a_rule_sections_citation_is_one_object_for_every_run_on_a_knowledge_base(kb):
    day = dt.date(2026, 11, 30)
    first, second = Context(kb, "grm", day, "casual"), Context(kb, "grm", day, "casual")
    sid = next(s for s in kb.sections if s.startswith("grm/"))
    cite = first.section(sid)
    assert second.section(sid) is cite
    assert (cite.kind, cite.ref, cite.status.value) == ("section", sid, "confirmed")
    assert sid in first.sections and sid in second.sections
