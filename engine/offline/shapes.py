"""What a candidate answer looks like from its text alone, against what the question asks.

The entity recogniser may call the same date a name in one sentence and a date in another; the shape is read from
the characters (a month and a number, a number and a time unit, a code...), so the ranker learns "a date question
wants a date-shaped span" once. Features are computed the same way at run time (``engine.offline.reader``) and when
fitting (tools/train_reader.py adds them to stored rows).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from engine.language.codes import codes_in
from engine.language.names import MONTH_WORDS
from engine.language.quantities import NUMERIC_DATE, YEAR, canonical_unit, known_unit, located_figures
from engine.language.tokens import STOP_WORDS, words

_TIME_UNITS = frozenset({"second", "seconds", "sec", "s", "minute", "minutes", "min", "mins", "hour", "hours", "h",
                         "hr", "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years", "yr"})
_ALPHA = re.compile(r"[A-Za-z]")


def shape(text: str) -> str:
    """What a candidate looks like, read from its text alone (the entity recogniser may call the same date a name
    in one sentence and a date in another): date, year, percent, money, duration, quantity, number, code, name or
    phrase."""
    tokens = text.lower().replace(",", " ").split()
    figs = located_figures(text)
    if NUMERIC_DATE.search(text) or (any(t.strip(".") in MONTH_WORDS for t in tokens)
                                     and any(c.isdigit() for c in text)):
        return "date"
    if YEAR.fullmatch(text.strip()):
        return "year"
    if "%" in text or "percent" in tokens or "per cent" in text.lower():
        return "percent"
    if any(sign in text for sign in ("$", "€", "£", "¥")) or any(t in ("usd", "eur", "gbp", "dollars") for t in tokens):
        return "money"
    if codes_in(text) and len(tokens) <= 3:
        return "code"
    if figs:
        units = [f.unit for _, f in figs if f.unit]
        if units and units[0].split("/")[0] in _TIME_UNITS:
            return "duration"
        if units:
            return "quantity"
        if not _ALPHA.search(text):
            return "number"
    if any(c.isdigit() for c in text):
        return "code" if len(tokens) <= 2 else "phrase"
    if text[:1].isupper() and all(t[:1].isupper() or not t[:1].isalpha() for t in text.split()):
        return "name"
    return "phrase"


@lru_cache(maxsize=4096)
def asked_units(question: str) -> frozenset[str]:
    """The units a question names ("how many litres", "in minutes"), canonical."""
    return frozenset(canonical_unit(w) for w in words(question)
                     if len(w) > 2 and w not in STOP_WORDS and known_unit(w))


def shape_features(text: str, answer_type: str, head: str, wh: str, question: str = "") -> dict[str, float]:
    """Features of a candidate's text against what the question asks: its shape crossed with the expected answer
    type, the question's head word and wh-word; whether its unit is one the question names; how much of it is the
    value; unbalanced brackets (a cut span)."""
    kind = shape(text)
    figs = located_figures(text)
    units = {canonical_unit(f.unit) for _, f in figs if f.unit and known_unit(f.unit)}
    wanted = asked_units(question) if question else frozenset()
    value_chars = sum(len(f.text) for _, f in figs)
    extra = max(len(text.split()) - sum(len(f.text.split()) for _, f in figs), 0) if figs else len(text.split())
    return {
        f"shape={kind}": 1.0,
        f"type={answer_type}|shape={kind}": 1.0,
        f"wh={wh or '-'}|shape={kind}": 1.0,
        f"head={head or '-'}|shape={kind}": 1.0,
        "value_share": min(value_chars / max(len(text), 1), 1.0),
        "extra_words_log": math.log1p(extra),
        "unbalanced": float(text.count("(") != text.count(")") or text.count("[") != text.count("]")),
        "unit_asked": float(bool(units & wanted)),
        "unit_not_asked": float(bool(wanted) and bool(units) and not units & wanted),
    }
