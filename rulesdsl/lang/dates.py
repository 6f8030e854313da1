"""Partial dates: a ruling may be dated to a year, a month, a day or a season.

A partial date names a *period* (2026-03 is all of March 2026). A revision is in force from the
start of its period; a question asked on a day inside the period is flagged as fuzzy, because the
source does not say on which day of the period the ruling was made.

Seasons follow the Japanese meteorological convention by default (春 March–May, 夏 June–August,
秋 September–November, 冬 December–February). The sources never say which months a season covers,
so this is the project's own reading: the solar terms (二十四節気) and the astronomical seasons are
the other readings (CALENDARS), and an answer on a day they disagree about says so.
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import total_ordering
from typing import Any

from ..base.patterns import LazyPattern

SEASONS = {"spring": (3, "春"), "summer": (6, "夏"), "autumn": (9, "秋"), "winter": (12, "冬")}
_JA_SEASONS = {ja: name for name, (_, ja) in SEASONS.items()}
_ORDER = ("spring", "summer", "autumn", "winter")

# Where a season begins, by three ways of reading a season (the sources say which none of them
# is). A season ends the day before the next one begins. The solar terms and the astronomical
# seasons move by a day from year to year; these are their usual days.
CALENDARS = {
    "meteorological": ("気象庁の区分（夏は6月1日〜8月31日）",
                       {"spring": (3, 1), "summer": (6, 1), "autumn": (9, 1), "winter": (12, 1)}),
    "solar_terms": ("二十四節気（夏は立夏〜立秋の前日。5月5日ごろ〜8月6日ごろ）",
                    {"spring": (2, 4), "summer": (5, 5), "autumn": (8, 7), "winter": (11, 7)}),
    "astronomical": ("天文学上の区分（夏は夏至〜秋分の前日。6月21日ごろ〜9月22日ごろ）",
                     {"spring": (3, 20), "summer": (6, 21), "autumn": (9, 23), "winter": (12, 22)}),
}
DEFAULT_CALENDAR = "meteorological"

_ISO = re.compile(r"^(\d{4})(?:-(?:(\d{1,2})(?:-(\d{1,2}))?|(spring|summer|autumn|winter)))?$")
_JA = LazyPattern(r"^(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})日)?|(春|夏|秋|冬))?$")


class DateError(ValueError):
    """A date that is not of one of the accepted forms; the message says which forms are."""


@total_ordering
class PartialDate:
    """A year, year-month, full date or year-season. Immutable and hashable."""

    __slots__ = ("year", "month", "day", "season")

    def __init__(self, year: int, month: int | None = None, day: int | None = None,
                 season: str | None = None) -> None:
        if season is not None and (month is not None or day is not None):
            raise DateError("a season date has no month or day")
        if day is not None and month is None:
            raise DateError("a day needs a month")
        if not 1 <= year <= 9999:
            raise DateError(f"year {year} is out of range")
        if month is not None and not 1 <= month <= 12:
            raise DateError(f"month {month} is not between 1 and 12")
        if day is not None:
            last = _month_days(year, month)  # type: ignore[arg-type]
            if not 1 <= day <= last:
                raise DateError(f"day {day} does not exist in {year}-{month:02d}")
        if season is not None and season not in SEASONS:
            raise DateError(f"unknown season {season!r}; use spring, summer, autumn or winter")
        object.__setattr__(self, "year", year)
        object.__setattr__(self, "month", month)
        object.__setattr__(self, "day", day)
        object.__setattr__(self, "season", season)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("PartialDate is immutable")

    def __reduce__(self):
        return (PartialDate, (self.year, self.month, self.day, self.season))

    # -- construction -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> "PartialDate":
        """Parse `2026`, `2026-03`, `2026-03-14`, `2026-summer`, or the Japanese forms
        `2026年`, `2026年3月`, `2026年3月14日`, `2026年夏`."""
        text = text.strip()
        m = _ISO.match(text)
        if m:
            year, month, day, season = m.groups()
        else:
            m = _JA.match(text)
            if not m:
                raise DateError(
                    f"{text!r} is not a date; write 2026, 2026-03, 2026-03-14 or 2026-summer")
            year, month, day, season_ja = m.groups()
            season = _JA_SEASONS.get(season_ja) if season_ja else None
        return cls(int(year), int(month) if month else None, int(day) if day else None, season)

    @classmethod
    def from_date(cls, d: _dt.date) -> "PartialDate":
        return cls(d.year, d.month, d.day)

    # -- the period ---------------------------------------------------------------------
    @property
    def precision(self) -> str:
        if self.season:
            return "season"
        if self.day:
            return "day"
        if self.month:
            return "month"
        return "year"

    @property
    def is_exact(self) -> bool:
        return self.day is not None

    def start(self, reading: str | None = None) -> _dt.date:
        """The first day of the period; a season's by `reading` (a CALENDARS key)."""
        if self.season:
            month, day = CALENDARS[reading or DEFAULT_CALENDAR][1][self.season]
            return _dt.date(self.year, month, day)
        return _dt.date(self.year, self.month or 1, self.day or 1)

    def end(self, reading: str | None = None) -> _dt.date:
        """The last day of the period (inclusive)."""
        if self.day:
            return self.start()
        if self.season:
            i = _ORDER.index(self.season)
            following = PartialDate(self.year + (1 if i == 3 else 0), season=_ORDER[(i + 1) % 4])
            return following.start(reading) - _dt.timedelta(days=1)
        if self.month:
            return _dt.date(self.year, self.month, _month_days(self.year, self.month))
        return _dt.date(self.year, 12, 31)

    def contains(self, day: _dt.date) -> bool:
        return self.start() <= day <= self.end()

    def starts(self) -> tuple[_dt.date, _dt.date]:
        """The earliest and the latest first day the period has under any reading of seasons."""
        days = [self.start(r) for r in CALENDARS] if self.season else [self.start()]
        return min(days), max(days)

    def window(self) -> tuple[_dt.date, _dt.date]:
        """Every day that lies in the period under some reading of seasons."""
        if not self.season:
            return self.start(), self.end()
        return min(self.start(r) for r in CALENDARS), max(self.end(r) for r in CALENDARS)

    # -- rendering ----------------------------------------------------------------------
    def __str__(self) -> str:
        if self.season:
            return f"{self.year}-{self.season}"
        if self.day:
            return f"{self.year}-{self.month:02d}-{self.day:02d}"
        if self.month:
            return f"{self.year}-{self.month:02d}"
        return f"{self.year}"

    def ja(self) -> str:
        """Japanese rendering: 2026年, 2026年3月, 2026年3月14日, 2026年夏."""
        if self.season:
            return f"{self.year}年{SEASONS[self.season][1]}"
        if self.day:
            return f"{self.year}年{self.month}月{self.day}日"
        if self.month:
            return f"{self.year}年{self.month}月"
        return f"{self.year}年"

    def __repr__(self) -> str:
        return f"PartialDate({str(self)!r})"

    # -- ordering: by start of period, then the wider period first -------------------------
    _WIDTH = {"year": 0, "season": 1, "month": 2, "day": 3}

    def _key(self) -> tuple:
        return (self.start(), self._WIDTH[self.precision], self.season or "")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartialDate):
            return NotImplemented
        return (self.year, self.month, self.day, self.season) == (
            other.year, other.month, other.day, other.season)

    def __lt__(self, other: "PartialDate") -> bool:
        if not isinstance(other, PartialDate):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash((self.year, self.month, self.day, self.season))

    # -- pydantic integration: validates from a string, serialises to one ----------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any):
        from pydantic_core import core_schema

        def validate(value: Any) -> "PartialDate":
            if isinstance(value, PartialDate):
                return value
            if isinstance(value, _dt.date):
                return cls.from_date(value)
            if isinstance(value, (str, int)):
                return cls.parse(str(value))
            raise ValueError("expected a partial date")

        return core_schema.no_info_plain_validator_function(
            validate, serialization=core_schema.plain_serializer_function_ser_schema(str))


def today() -> PartialDate:
    return PartialDate.from_date(_dt.date.today())


def _month_days(year: int, month: int) -> int:
    """The number of days in `month` of `year` (calendar.monthrange's, without importing calendar
    and its locale machinery on a new question's path)."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31
