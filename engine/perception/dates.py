"""Turn a matched time expression into an inclusive date range.

A time rule in ``rules.toml`` names a resolver; each resolver reads the named
groups of the match (``when``, ``start``, ``end``, ``n``, ``unit``) and returns
``(start, end)``, either of which may be open (None).
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Callable

from dateutil.relativedelta import relativedelta

from engine.language.en.lex_attrs import MONTHS, count
from engine.language.quantities import ISO_DAY, MONTH_YEAR, YEAR, YEAR_MONTH

DateRange = tuple[date | None, date | None]

# resolver name -> the named groups its pattern must define
RESOLVERS: dict[str, tuple[str, ...]] = {
    "range": ("start", "end"),
    "since": ("when",),
    "after": ("when",),
    "before": ("when",),
    "period": ("when",),
    "last_n": ("n", "unit"),
    "rolling": ("unit",),
    "calendar": ("unit",),
    "now": (),
}

_MONTHS = {name[:3]: i for i, name in enumerate(MONTHS, start=1)}


def period_of(text: str) -> DateRange | None:
    """The whole day, month or year that ``text`` names (``2023``, ``March 2022``, ``2024-05``, ``2024-05-01``)."""
    text = text.strip()
    try:
        if m := ISO_DAY.fullmatch(text):
            day = date(int(m[1]), int(m[2]), int(m[3]))
            return day, day
        if m := YEAR_MONTH.fullmatch(text):
            return _month(int(m[1]), int(m[2]))
        if m := MONTH_YEAR.fullmatch(text):
            month = _MONTHS.get(m[1][:3].lower())
            return _month(int(m[2]), month) if month else None
        if YEAR.fullmatch(text):
            year = int(text)
            return date(year, 1, 1), date(year, 12, 31)
    except ValueError:  # month 13, February 30...
        return None
    return None


def _month(year: int, month: int) -> DateRange:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _unit_delta(unit: str, n: int) -> relativedelta:
    unit = unit.lower().rstrip("s")
    if unit in ("year", "yr"):
        return relativedelta(years=n)
    if unit == "month":
        return relativedelta(months=n)
    if unit == "week":
        return relativedelta(weeks=n)
    return relativedelta(days=n)


def resolve(resolver: str, groups: dict[str, str | None], today: date, offset: int = 0) -> DateRange | None:
    """Apply ``resolver`` to a match's named groups; None when the values make no sense."""
    return _RESOLVE[resolver](groups, today, offset)


def _range(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    first, last = period_of(g["start"] or ""), period_of(g["end"] or "")
    if not first or not last:
        return None
    return min(first[0], last[0]), max(first[1], last[1])  # type: ignore[type-var]


def _since(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    when = period_of(g["when"] or "")
    return (when[0], today) if when else None


def _after(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    when = period_of(g["when"] or "")
    return (when[1] + timedelta(days=1), today) if when and when[1] else None


def _before(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    when = period_of(g["when"] or "")
    return (None, when[0] - timedelta(days=1)) if when and when[0] else None


def _period(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    return period_of(g["when"] or "")


def _last_n(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    n = count(g["n"] or "")
    if not n:
        return None
    return today - _unit_delta(g["unit"] or "day", n), today


def _rolling(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    return today - _unit_delta(g["unit"] or "day", 1), today


def _calendar(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    if (g["unit"] or "").lower().startswith("month"):
        first = today.replace(day=1) + relativedelta(months=offset)
        start, end = _month(first.year, first.month)
    else:
        start, end = date(today.year + offset, 1, 1), date(today.year + offset, 12, 31)
    return start, min(end, today)


def _now(g: dict[str, str | None], today: date, offset: int) -> DateRange | None:
    """What is in force today: any date up to today (the newest source in force wins; see validation)."""
    return None, today


_RESOLVE: dict[str, Callable[[dict[str, str | None], date, int], DateRange | None]] = {
    "range": _range,
    "since": _since,
    "after": _after,
    "before": _before,
    "period": _period,
    "last_n": _last_n,
    "rolling": _rolling,
    "calendar": _calendar,
    "now": _now,
}
