"""Numbers with their units, and years: the one number reader.

``figures("torque 325 N.m (240 lbf.ft)")`` gives each number as written, its value and the unit word
after it; units are compared through the spellings in ``en/units.toml`` ("5 km" = "5 kilometres").
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.language.citations import strip_citations
from engine.language.codes import CODE
from engine.language.en.lex_attrs import NUMBER_WORDS, ORDINAL_SUFFIXES
from engine.language.en.stop_words import STOP_WORDS
from engine.language.tokens import words

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])")
_UNITS = Path(__file__).with_name("en") / "units.toml"


@lru_cache(maxsize=1)
def _table() -> dict:
    with _UNITS.open("rb") as handle:
        return tomllib.load(handle)


@lru_cache(maxsize=1)
def _unit_pattern() -> re.Pattern[str]:
    """The unit after a number, with a rate's denominator ("qt/h", "per hour", "a year") from ``en/units.toml``."""
    per = sorted(_table().get("per", {}).get("spellings", []), key=len, reverse=True)
    rate = "|".join(re.escape(p) for p in per) or "(?!)"
    return re.compile(
        r"\s?(?:(?:US|U\.S\.|imperial|metric)\s+)?(%|°\s?[CF]|[A-Za-z][A-Za-z./°²³·]{0,11}(?<![.·]))"
        rf"(?:\s*(?:/|\bper\s+|\ban?\s+)({rate})\b)?",
        re.IGNORECASE,
    )


_PER = {"hour": "h", "hr": "h", "minute": "min", "second": "s", "sec": "s", "day": "d", "year": "yr"}
_TOLERANCE = re.compile(r"(?:\+/-|\+-|±|\+/−)\s*$")
_TOLERANCE_AFTER = re.compile(r"\s*(?:\+/-|\+-|±|\+/−)\s*\d+(?:\.\d+)?")
CURRENCY_SIGNS = ("US$", "$", "€", "£", "¥")
"""Signs written before an amount ("$1,200"): the figure's unit when no unit word follows it."""
_CURRENCY_CODE = re.compile(r"\b(EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|CZK)\s?$")
"""An ISO currency code written before an amount ("EUR 46"): the figure's unit, as for a sign."""
YEAR = re.compile(r"(?<![\d.,/])((?:19|20)\d{2})(?!\d|[.,]\d)")
"""A year as written in text ("2024", the 2020 of "AD 2020-18-05"), 1900-2099, not part of a longer number or a
decimal ("1,950", "2024.5"); earlier four-digit numbers are far more often quantities ("1500 psi") than years."""
STANDALONE_YEAR = re.compile(r"(?<![\w.,/-])((?:19|20)\d{2})(?![\w/-]|[.,]\d)")
"""A year written on its own, not inside a code or a date ("2022" but not the 2022 of "AD 2022-0193")."""
YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d{2})\s*(?:-|–|to|through|until)\s*((?:19|20)\d{2})(?!\d)")
"""Two years joined as a range ("2022-2024", "2019 to 2021")."""
MAX_RANGE_YEARS = 50
"""A wider pair ("1990-2090") is more likely a code than a period."""
ISO_DAY = re.compile(r"(\d{4})-(\d\d)-(\d\d)")
"""A day written ISO-style ("2024-05-01"): year, month, day groups."""
YEAR_MONTH = re.compile(r"(\d{4})-(\d\d)")
"""A month written ISO-style ("2024-05")."""
MONTH_YEAR = re.compile(r"([a-z]+)\.?\s+(\d{4})", re.IGNORECASE)
"""A month word and a year ("March 2022", "Mar. 2022"): the word is checked against the month names by the reader."""
NUMERIC_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
"""A date in digits inside text ("2024-05-01", "5/1/24")."""


@dataclass(frozen=True)
class Figure:
    """A number as written, its value, and the unit that follows it ("" when none)."""

    text: str
    value: float
    unit: str


def figures(text: str) -> list[Figure]:
    """Numbers in ``text`` with the unit word that follows each (years and codes included as plain numbers)."""
    return [figure for _, figure in located_figures(text)]


def located_figures(text: str) -> list[tuple[int, Figure]]:
    """(offset, figure) for each figure of ``text`` with its citations stripped (offsets index that text)."""
    clean = strip_citations(text)
    found: list[tuple[int, Figure]] = []
    code_spans = [m.span() for m in CODE.finditer(clean)]
    for match in _NUMBER.finditer(clean):
        if any(s <= match.start() and match.end() <= e and (e - s) > (match.end() - match.start())
               for s, e in code_spans):
            continue
        raw = match.group(0)
        unit_match = _unit_pattern().match(clean, match.end())
        unit = ""
        if _TOLERANCE.search(clean[: match.start()]):
            unit_match = None  # "35 +/- 2 psi": the 2 is a tolerance, not a value of its own
        elif (tolerance := _TOLERANCE_AFTER.match(clean, match.end())) is not None:
            unit_match = _unit_pattern().match(clean, tolerance.end())  # "35 +/- 2 psi": 35 is in psi
        if unit_match and clean[unit_match.end(): unit_match.end() + 1].isdigit():
            unit_match = None  # "57 E4027 events": the letter opens a code, it is not a unit
        if unit_match:
            candidate = unit_match.group(1).rstrip(".")
            if candidate.lower() not in STOP_WORDS and candidate.lower() not in ORDINAL_SUFFIXES:
                unit = candidate
                if unit_match.group(2):
                    per = unit_match.group(2).lower()
                    per = per[:-1] if per.endswith("s") and len(per) > 3 else per
                    unit = f"{unit}/{_PER.get(per, per)}"
        value = float(raw.replace(",", ""))
        text_form = clean[match.start(): unit_match.end()].rstrip(".") if unit else raw
        sign = next((s for s in CURRENCY_SIGNS if clean.endswith(s, 0, match.start())), "") if not unit else ""
        code = _CURRENCY_CODE.search(clean, 0, match.start()) if not unit and not sign else None
        if sign:
            unit, text_form = sign, sign + raw
        elif code:
            sign = clean[code.start(): match.start()]
            unit, text_form = code.group(1), sign + raw
        found.append((match.start() - len(sign), Figure(text_form.strip(), value, unit.lower())))
    return found


@lru_cache(maxsize=1)
def _unit_aliases() -> dict[str, str]:
    """Spelling -> canonical unit, from ``en/units.toml``."""
    table = _table().get("units", {})
    aliases: dict[str, str] = {}
    for canonical, spellings in table.items():
        aliases[canonical.lower()] = canonical.lower()
        for spelling in spellings:
            aliases[str(spelling).lower()] = canonical.lower()
    return aliases


def canonical_unit(unit: str) -> str:
    """The canonical spelling of ``unit`` ("kilometres" -> "km", "percent" -> "%"); unknown units as written."""
    text = re.sub(r"\s+", " ", unit.lower().strip().rstrip("."))
    aliases = _unit_aliases()
    if text in aliases:
        return aliases[text]
    if "/" in text:
        head, _, tail = text.partition("/")
        joined = f"{canonical_unit(head)}/{canonical_unit(tail)}"
        return aliases.get(joined, joined)
    return text


def known_unit(unit: str) -> bool:
    """True for a unit listed in ``en/units.toml`` (or a ratio of listed units)."""
    canonical = canonical_unit(unit)
    return canonical in _unit_aliases() or ("/" in canonical and all(p in _unit_aliases() for p in canonical.split("/")))


def units_agree(a: str, b: str) -> bool:
    """False only when both units are given, differ, and at least one is a known unit ("N.m" vs "psi")."""
    if not a or not b:
        return True
    ca, cb = canonical_unit(a), canonical_unit(b)
    return ca == cb or not (known_unit(a) or known_unit(b))


def numbers(text: str, *, spelled: bool = False) -> set[float]:
    """The numeric values in ``text``; with ``spelled``, also number words ("two" -> 2)."""
    found = {f.value for f in figures(text)}
    if spelled:
        found |= {float(NUMBER_WORDS[w]) for w in words(text) if w in NUMBER_WORDS}
    return found




def years(text: str, *, standalone: bool = False) -> set[int]:
    """The years ``text`` names, each year of a range ("2022-2024" -> 2022, 2023, 2024) included.

    ``standalone`` counts only years written on their own, not those inside codes such as "AD 2022-0193".
    """
    clean = strip_citations(text or "")
    found = {int(m.group(1)) for m in (STANDALONE_YEAR if standalone else YEAR).finditer(clean)}
    for match in YEAR_RANGE.finditer(clean):
        first, last = int(match.group(1)), int(match.group(2))
        if 0 < last - first <= MAX_RANGE_YEARS:
            found.update(range(first, last + 1))
    return found
