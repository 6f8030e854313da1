import datetime as dt

import pytest

from rulesdsl.lang.dates import DateError, PartialDate


@pytest.mark.parametrize("text, precision, start, end, ja", [
    ("2026", "year", dt.date(2026, 1, 1), dt.date(2026, 12, 31), "2026年"),
    ("2026-03", "month", dt.date(2026, 3, 1), dt.date(2026, 3, 31), "2026年3月"),
    ("2026-03-14", "day", dt.date(2026, 3, 14), dt.date(2026, 3, 14), "2026年3月14日"),
    ("2026-summer", "season", dt.date(2026, 6, 1), dt.date(2026, 8, 31), "2026年夏"),
    ("2026-winter", "season", dt.date(2026, 12, 1), dt.date(2027, 2, 28), "2026年冬"),
    ("2026年3月", "month", dt.date(2026, 3, 1), dt.date(2026, 3, 31), "2026年3月"),
    ("2026年夏", "season", dt.date(2026, 6, 1), dt.date(2026, 8, 31), "2026年夏"),
])
def test_partial_date_period_and_japanese_rendering(text, precision, start, end, ja):
    d = PartialDate.parse(text)
    assert d.precision == precision
    assert (d.start(), d.end()) == (start, end)
    assert d.ja() == ja
    assert PartialDate.parse(str(d)) == d


@pytest.mark.parametrize("text", ["2026-13", "2026-02-30", "2026-fall", "26-03", "2026/03", ""])
def test_invalid_dates_are_rejected_with_the_accepted_forms(text):
    with pytest.raises(DateError):
        PartialDate.parse(text)


def test_dates_order_by_start_of_period_wider_first():
    dates = [PartialDate.parse(x) for x in ["2026-08", "2026-summer", "2026", "2026-03-14", "2026-03"]]
    assert [str(d) for d in sorted(dates)] == ["2026", "2026-03", "2026-03-14", "2026-summer", "2026-08"]


def test_fuzzy_period_contains_days_inside_it_only():
    summer = PartialDate.parse("2026-summer")
    assert summer.contains(dt.date(2026, 7, 15))
    assert not summer.contains(dt.date(2026, 9, 1))
    assert not PartialDate.parse("2026-03-14").contains(dt.date(2026, 3, 15))
