"""When evidence is from, and whether that falls inside the period a question asks about.

Years named in the sentence or the document title decide what a chunk is about ("2023 report", published
in February 2024, is about 2023; "AD 2020-18-05" is from 2020); only when none is named does the update
date. An unknown date with no year named is unknown: never inside, never outside. Retrieval ranks by it,
validation checks timeliness and comparisons with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from engine.language import quantities
from engine.results import Evidence, Intent, TimeConstraint


@dataclass(frozen=True)
class Period:
    """An inclusive date range a question asks about; either end may be open."""

    text: str
    start: date | None = None
    end: date | None = None

    def contains(self, day: date) -> bool:
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)

    def overlaps_year(self, year: int) -> bool:
        return (self.start is None or year >= self.start.year) and (self.end is None or year <= self.end.year)

    @property
    def label(self) -> str:
        """"2024" for one whole calendar year, else the question's own words ("since 2024")."""
        if self.start and self.end and self.start.year == self.end.year and (self.start.month, self.start.day) == (
                1, 1) and (self.end.month, self.end.day) == (12, 31):
            return str(self.start.year)
        return self.text

    def years_away(self, year: int) -> int:
        """Whole years between ``year`` and the period (0 inside it)."""
        if self.start and year < self.start.year:
            return self.start.year - year
        if self.end and year > self.end.year:
            return year - self.end.year
        return 0


def in_force(time: TimeConstraint | None, today: date | None = None) -> bool:
    """True for a constraint that asks what is in force now ("current", "latest"): open start, ending today."""
    if time is None or time.start is not None or time.end is None:
        return False
    return time.end >= (today or date.today()) - timedelta(days=1)


def asked_period(intent: Intent, *, question_years: bool = False) -> Period | None:
    """The question's time window; with ``question_years``, else the years it names on their own."""
    window = intent.constraints.time
    if window is not None and (window.start or window.end):
        return Period(window.text or "the asked period", window.start, window.end)
    if question_years:
        years = quantities.years(intent.raw_query, standalone=True)
        if years:
            first, last = min(years), max(years)
            text = str(first) if first == last else f"{first}-{last}"
            return Period(text, date(first, 1, 1), date(last, 12, 31))
    return None


def about(item: Evidence, period: Period, sentence: str = "") -> bool | None:
    """Whether ``sentence`` of ``item`` (or the whole chunk) is about ``period``: None when that is unknown."""
    return about_period(item.metadata.title, item.metadata.update_date, period, sentence)


def about_period(title: str, update: date | None, period: Period, sentence: str = "") -> bool | None:
    """Whether a chunk titled ``title`` and dated ``update`` is about ``period``: named years first, then the date."""
    years = quantities.years(sentence) | quantities.years(title)
    if years:
        return any(period.overlaps_year(y) for y in years)
    return None if update is None else period.contains(update)


def distance(item: Evidence, period: Period, sentence: str = "") -> int | None:
    """Years between what ``sentence`` of ``item`` is about and ``period`` (None when unknown)."""
    years = quantities.years(sentence) | quantities.years(item.metadata.title)
    if not years and item.metadata.update_date is not None:
        years = {item.metadata.update_date.year}
    return min(period.years_away(y) for y in years) if years else None


def when(item: Evidence, period: Period | None = None, sentence: str = "") -> str:
    """What ``sentence`` of ``item`` is dated, in words: the named year nearest ``period``, or the update date."""
    years = quantities.years(sentence) | quantities.years(item.metadata.title)
    if years:
        return str(min(years, key=lambda y: (period.years_away(y) if period else 0, -y)))
    day = item.metadata.update_date
    return day.isoformat() if day else "an unknown date"
