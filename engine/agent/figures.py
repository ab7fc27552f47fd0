"""Figures (a number with a unit) found in evidence text, with the sentence they came from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

UNITS = (
    "%", "percent", "per cent", "°c", "°f", "lbf.ft", "lbf·ft", "lbf-ft", "lb-ft", "ft-lb", "in-lb", "n·m", "n.m", "nm",
    "mm", "cm", "km", "m", "inch", "inches", "ft", "feet", "lb", "lbs", "kg", "g", "t", "tonnes", "psi",
    "bar", "kpa", "mpa", "qt", "quarts", "l", "litres", "liters", "ml", "gal", "gallons", "h", "hr", "hrs", "hours",
    "min", "minutes", "s", "sec", "seconds", "days", "weeks", "months", "years", "kt", "kts", "knots", "v",
    "w", "kw", "hz", "rpm", "cycles", "fh", "flight hours", "usd", "eur", "gbp", "$", "€", "£",
)
_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
FIGURE = re.compile(
    rf"(?P<cur>[$€£])?\s?(?P<num>(?<![\w.])-?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|(?<![\w.])-?\d+(?:\.\d+)?)"
    rf"\s?(?P<unit>(?:{_UNIT})(?![\w]))?",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])|\n+")
WORD = re.compile(r"[a-z0-9]+")
DEFAULT_AUTHORITY = 3
"""A document that states no authority ranks in the middle of the 1-5 scale (as in retrieval's credibility)."""
STOP = frozenset("the a an of for and or to in on at by with is are was were be what which how".split())


@dataclass(frozen=True)
class Figure:
    """One number with its unit, as written, and the sentence around it."""

    value: float
    unit: str
    text: str
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def sentences(text: str) -> list[str]:
    """Sentences and lines of ``text``, stripped, empties dropped."""
    return [s.strip() for s in SENTENCE.split(text or "") if s and s.strip()]


def _figures(sentence: str) -> list[tuple[int, Figure]]:
    found = []
    for match in FIGURE.finditer(sentence):
        unit = match.group("unit") or match.group("cur")
        if unit:
            value = float(match.group("num").replace(",", ""))
            found.append((match.start("num"), Figure(value, unit.strip(), match.group(0).strip(), sentence[:300])))
    return found


def extract_figures(text: str) -> list[Figure]:
    """Every number that carries a unit or currency in ``text`` (bare numbers, like years, are skipped)."""
    return [figure for sentence in sentences(text) for _, figure in _figures(sentence)]


def words(text: str) -> set[str]:
    """Content words of ``text``, lower-cased."""
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def relevant_figures(text: str, entity: str, attribute: str) -> list[Figure]:
    """Figures for ``entity``: in each sentence naming it, the first figure after the name (else the last before).

    When the entity is named in ``text`` (a title line, say) but in no sentence with a figure, falls back
    to the figures in sentences sharing the attribute's words. Sentences sharing more of them come first.
    """
    name, attr_words = entity.lower().strip(), words(attribute)
    chosen: list[Figure] = []
    fallback: list[Figure] = []
    for sentence in sentences(text):
        found = _figures(sentence)
        at = sentence.lower().find(name) if name else -1
        if at >= 0 and found:
            after = [f for pos, f in found if pos >= at + len(name)]
            chosen.append(after[0] if after else found[-1][1])
        elif attr_words & words(sentence):
            fallback.extend(f for _, f in found)
    pool = chosen or (fallback if name and name in text.lower() else [])
    return sorted(pool, key=lambda f: -len(attr_words & words(f.sentence)))


def unit_key(unit: str) -> str:
    """A unit as compared between sources: lower case, punctuation dropped ('N.m', 'n·m' and 'Nm' agree)."""
    return re.sub(r"[^a-z%$€£]+", "", unit.lower())


def prefer_authority(candidates: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Candidates (most relevant first; ``value``, ``unit``, ``authority``, ``doc_id``) reordered, and conflicts.

    The first candidate fixes what is measured (its unit). Among the candidates in that unit, the one
    from the most authoritative source leads (ties keep relevance order). A conflict is a figure in
    that unit from another document whose value the leading document does not state anywhere (so a
    second quantity both give, such as a seating torque beside a final torque, is not one), once per
    document and value. The other candidates keep their order after the leader.
    """
    if not candidates:
        return [], []
    key = unit_key(candidates[0]["unit"])
    same = [c for c in candidates if unit_key(c["unit"]) == key]
    lead = max(same, key=lambda c: (c.get("authority", DEFAULT_AUTHORITY), -candidates.index(c)))
    stated = {c["value"] for c in same if c.get("doc_id") == lead.get("doc_id")}
    conflicts, seen = [], set()
    for c in same:
        if c["value"] not in stated and (c.get("doc_id"), c["value"]) not in seen:
            seen.add((c.get("doc_id"), c["value"]))
            conflicts.append(c)
    return [lead, *(c for c in candidates if c is not lead)], conflicts
