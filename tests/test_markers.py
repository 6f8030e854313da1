"""The markers a source puts on a text (kb/markers.py `markers_in`): found by kind, then in the
order of the text; the same words found in another sentence give the same marker; words that name
no date, or name the marker instead of being one, are none — however often they are found."""

from __future__ import annotations

from rulesdsl.kb.markers import Marker, markers_in
from rulesdsl.lang.dates import PartialDate
from rulesdsl.lang.model import Status


def test_markers_come_by_kind_then_in_the_order_of_the_text():
    text = "※未確定。2026年夏の統一裁定。2025年確認済み。2026年8月暫定裁定。2024年1月2日確認済み"
    assert markers_in(text) == [
        Marker("2025年確認済み", Status.confirmed, PartialDate(2025)),
        Marker("2024年1月2日確認済み", Status.confirmed, PartialDate(2024, 1, 2)),
        Marker("2026年8月暫定裁定", Status.provisional, PartialDate(2026, 8)),
        Marker("2026年夏の統一裁定", Status.confirmed, PartialDate(2026, season="summer")),
        Marker("※未確定", Status.unconfirmed, None),
    ]


def test_a_marker_found_again_in_another_sentence_is_the_same_marker():
    first = markers_in("効果は重複しない。（2026年3月確認済み）")
    again = markers_in("別の文（2026年3月確認済み）※暫定ルール・非公式")
    assert first == [Marker("2026年3月確認済み", Status.confirmed, PartialDate(2026, 3))]
    assert again == first + [Marker("※暫定ルール・非公式", Status.unofficial, None)]


def test_words_that_are_no_marker_stay_none_each_time_they_are_found():
    for _ in range(2):
        assert markers_in("2026年13月確認済み") == []          # no such month
        assert markers_in("※未確定と記載されている") == []     # names the marker
        assert markers_in("確認済みではない文") == []           # no date before it
