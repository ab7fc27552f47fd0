"""Typed values in evidence sentences: numbers with units, dates, names of people, places and organisations, codes.

A value counts only when the question does not already contain it ("Who founded X?" is not
answered by "X"). Names come from spaCy's NER (the same model Perception loads once).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

from engine.answerability.question import VERSION, interrogative
from engine.reflection.focus import codes_in
from engine.reflection.text import figures, located_figures, normalise_phrase

_NER_TYPES = {
    "person": ("PERSON",),
    "organisation": ("ORG", "PRODUCT", "WORK_OF_ART", "FAC", "NORP"),
    "place": ("GPE", "LOC", "FAC"),
    "date": ("DATE",),
    "work": ("WORK_OF_ART", "PRODUCT", "EVENT", "ORG"),
}
_YEAR = re.compile(r"(?<![\d.,-])(?:1[0-9]|20)\d{2}(?![\d,])s?")
_MONTH_DATE = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+\d{1,2})?,?\s+\d{4}\b|"
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\s+century\b", re.IGNORECASE)
_COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.IGNORECASE)
_DURATION = re.compile(r"\bhow\s+often\b|\bhow\s+long\s+(?:ago|must|should|may|can|does|do|did|will|before|after|"
                       r"until)\b|\bfor\s+how\s+(?:long|many\s+(?:hours|days|weeks|months|years))\b", re.IGNORECASE)
"""Questions answered by a duration or interval ("how long must records be kept"), not "how long is the trail"."""
_TIME_UNIT = re.compile(r"^(?:h|hrs?|hours?|d|days?|weeks?|months?|years?|yrs?|min(?:ute)?s?|s|sec(?:ond)?s?|"
                        r"cycles?|flights?|landings?|fc|fh)\b", re.IGNORECASE)
_VERSION_OR_ID = re.compile(rf"{VERSION.pattern}|(?<![\w.])\d{{6,}}(?!\w|\.\d)"
                            r"|(?<![\w.-])\d{2,4}-\d{2,4}(?:-\d{1,4})?(?![\w-])")
"""Versions ("0.10.4"), dated ids ("20231228") and numbered documents ("2025-0042", "2020-18-05")."""
_ASKS_VERSION = re.compile(r"^\W*(?:which|what)\s+(?:[\w.-]+\s+)?(?:version|release)s?\b", re.IGNORECASE)
"""A question asking for a version ("Which pdfplumber release ..."): only a version number answers it."""
_STAMP = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
"""A version stamped with its date ("20231228", as pdfminer.six numbers its releases)."""
_MONEY = re.compile(r"(?:[$€£¥]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD)\s?)\d[\d,]*(?:\.\d+)?"
                    r"(?:\s?(?:million|billion|bn|m|k)\b)?")
"""An amount of money written with its currency first."""
_OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b", re.IGNORECASE)
_FREQUENCY_CUE = re.compile(r"\b(?:every|each|intervals?|exceed\w*|once|twice|per|daily|weekly|monthly|"
                            r"frequency)\b", re.IGNORECASE)
FREQUENCY_CUE_CHARS = 40
"""How far before a figure a frequency word ("at intervals not exceeding 48 hours", "every 600 FC") is looked for."""
RECORD_KEY_WORDS = 2
"""...and at least two of them: "torque_nm" names a torque, not the final torque of the main wheel axle nut."""
RECORD_KEY_SHARE = 0.5
"""A record field answers the question when at least half of its key's words are asked attribute words."""
_MAX_NER_CHARS = 600
"""Longest sentence sent to NER; longer units are tables or run-on text where names are unreliable."""


_CACHE_SIZE = 20000
"""Sentences whose entities are remembered (evidence is re-read across rounds and questions)."""
_cache: OrderedDict[str, tuple[tuple[str, str], ...]] = OrderedDict()
_lock = threading.Lock()


def prime(sentences: Sequence[str]) -> None:
    """Run NER over many sentences in one batch (faster than one call each)."""
    from engine.perception.entities import load_nlp

    with _lock:
        todo = [s for s in dict.fromkeys(sentences) if s and s not in _cache]
    if not todo:
        return
    docs = load_nlp().pipe([s[:_MAX_NER_CHARS] for s in todo], batch_size=64)
    found = [(s, tuple((e.text, e.label_) for e in doc.ents)) for s, doc in zip(todo, docs)]
    with _lock:
        for sentence, ents in found:
            _cache[sentence] = ents
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def entities(sentence: str) -> tuple[tuple[str, str], ...]:
    """(text, label) of the named entities in ``sentence``."""
    with _lock:
        found = _cache.get(sentence)
    if found is None:
        prime([sentence])
        with _lock:
            found = _cache.get(sentence, ())
    return found


def typed_values(sentence: str, answer_type: str, question: str, near: Sequence[str] = ()) -> list[str]:
    """Values of ``answer_type`` in ``sentence`` that the question does not already state.

    Ordered by closeness to the words in ``near`` (stems of the asked attribute: the value next
    to "final torque" is the torque), then in reading order.
    """
    asked = f" {normalise_phrase(question)} "
    found: list[tuple[str, int]] = []

    def add(value: str, at: int | None = None) -> None:
        value = value.strip(" ,.;:()[]\"'")
        key = normalise_phrase(value)
        if key and f" {key} " not in asked and value not in [v for v, _ in found]:
            if at is None:  # the value as a word of its own: "2" is not the 2 inside "E4027"
                where = re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", sentence)
                at = where.start() if where else len(sentence)
            found.append((value, at))

    if answer_type == "number":
        measures = {m.lower() for m in _ACRONYM.findall(question)}  # "MTBUR", "MTBF": a measure named outright
        for value in _record_values(sentence, near, measures):  # "fuel_kg_per_block_hour: 2080": the key is the unit
            if f" {normalise_phrase(value)} " not in asked:
                found.append((value, -1))
        counts = bool(_COUNT.search(question))
        timed = bool(_DURATION.search(question))
        often = bool(_OFTEN.search(question))
        for match in _MONEY.finditer(sentence):  # "$99", "USD 1,200", "£40": the sign stands before the amount
            add(match.group(0), match.start())
        for at, figure in located_figures(sentence):
            yearlike = figure.value.is_integer() and 1000 <= figure.value <= 2100 and "," not in figure.text
            if yearlike or not (figure.unit or counts):
                continue  # a year is not a quantity; a bare number answers "how many", not "what is the torque"
            if timed and not _TIME_UNIT.match(figure.unit):
                continue  # "how often" / "how long" is answered by a duration or an interval
            if often and not _FREQUENCY_CUE.search(sentence[max(0, at - FREQUENCY_CUE_CHARS): at]):
                continue  # "how often": "kept for at least 12 months" is a retention, not an interval
            add(figure.text, at)
    elif answer_type == "date":
        for match in _MONTH_DATE.finditer(sentence):
            add(match.group(0))
        for text, label in entities(sentence):
            if label == "DATE" and re.search(r"\d", text):
                add(text)
        for match in _YEAR.finditer(sentence):
            add(match.group(0))
        for figure in figures(sentence):  # "when must it be checked?" - "5 to 60 minutes after shutdown"
            if figure.unit and _TIME_UNIT.match(figure.unit):
                add(figure.text)
    elif answer_type == "code":
        # "which version added X?": a version (or a date-stamped one, "20231228"), not an issue number or a date
        versions_only = _ASKS_VERSION.search(interrogative(question)) is not None
        for match in _VERSION_OR_ID.finditer(sentence):  # versions and dated ids: "0.10.4", "20231228"
            if not versions_only or VERSION.fullmatch(match.group(0)) or _STAMP.fullmatch(match.group(0)):
                add(match.group(0))
        for code in [] if versions_only else sorted(codes_in(sentence), key=lambda c: sentence.lower().find(c)):
            at = sentence.lower().find(code)
            add(sentence[at: at + len(code)] if at >= 0 else code)
    elif answer_type in _NER_TYPES:
        for text, label in entities(sentence):
            if label in _NER_TYPES[answer_type]:
                add(text)
    anchors = _anchors(sentence, near)
    if anchors:
        counted = answer_type == "number" and bool(_COUNT.search(question))  # "57 events": a count precedes its noun
        labels = _label_hits(sentence, found, near) if answer_type == "number" and not counted else {}
        found.sort(key=lambda item: (item[1] >= 0, -labels.get(item, 0),
                                     min(label_distance(item[1], a, counted) for a in anchors), item[1]))
    if not _ASKS_FROM.search(question):  # "from 20221105 to 20231228": what it changed to, unless asked "from what"
        found.sort(key=lambda item: _changed_from(sentence, item[1]))
    return list(dict.fromkeys(value for value, _ in found))


_ASKS_FROM = re.compile(r"\bfrom\s+(?:what|which)\b|\b(?:what|which)\b[^?]*\bfrom\W*$", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\W+(?:\S+\W+){1,3}?to\b", re.IGNORECASE)
"""A change written "from A to B": a question about the change asks for B unless it asks "from what"."""


def _changed_from(sentence: str, at: int) -> bool:
    """The value at ``at`` is the A of "from A to B" (the old value of a change)."""
    lead = re.search(r"\bfrom\W*$", sentence[max(at - 12, 0): at], re.IGNORECASE)
    return lead is not None and _FROM_TO.match(sentence, max(at - 12, 0) + lead.start()) is not None


def _label_hits(sentence: str, found: list[tuple[str, int]], near: Sequence[str]) -> dict[tuple[str, int], int]:
    """For each figure, the asked words in its label: the text since the figure before it.

    In a flattened table row ("... seating torque (wheel turning) 450 N.m 332 lbf.ft MLG axle nut - final
    torque (wheel turning, dry threads) 325 N.m ...") a value's label is what precedes it, up to the previous
    value; the nearest attribute word ("torque" of "seating torque") may belong to the row before.
    """
    from engine.reflection.text import stem

    wanted = set(near)
    out: dict[tuple[str, int], int] = {}
    previous = 0
    for value, at in sorted((item for item in found if item[1] >= 0), key=lambda item: item[1]):
        label = sentence[previous:at]
        out[(value, at)] = len({stem(w.lower()) for w in re.findall(r"[A-Za-z][\w-]*", label)} & wanted)
        previous = max(previous, at + len(value))
    return out


_FIELD = re.compile(r"(?:^|[;:]\s*)([A-Za-z][\w ()/%.-]{0,60}?)(?::|\s+is)\s*([-+]?\d[\d,]*(?:\.\d+)?)\s*(?=;|$|\.$)")
"""A numeric field of a record, as exported ("fuel_kg_per_block_hour: 2080") or as quoted ("... hour is 2080")."""


_ACRONYM = re.compile(r"\b[A-Z]{3,}\b")


def _record_values(sentence: str, near: Sequence[str], measures: set[str] = frozenset()) -> list[str]:
    """Numbers of a "key: value; key: value" record whose key names most of the asked attribute, best first.

    A key holding a measure the question names by its acronym ("mtbur_hours" for "the MTBUR")
    answers with that one word: the acronym is the measure, not a loose word like "torque".
    """
    from engine.reflection.text import stem

    wanted = set(near)
    if not wanted or ";" not in sentence:
        return []
    scored = []
    for match in _FIELD.finditer(sentence):
        key = {stem(w) for w in re.split(r"[\W_]+", match.group(1).lower()) if w}
        share = len(key & wanted) / len(key) if key else 0.0
        named = bool(key & wanted & measures)
        if share >= RECORD_KEY_SHARE and (len(key & wanted) >= RECORD_KEY_WORDS or named):
            scored.append((len(key & wanted), share, match.group(2)))
    return [value for *_, value in sorted(scored, key=lambda item: (-item[0], -item[1]))]


BEFORE_LABEL_COST = 3
"""A value before an attribute word is this much farther than one after it: labels precede values."""


def label_distance(value_at: int, anchor_at: int, counted: bool = False) -> int:
    """How far a value stands from a label word; a value before its label costs BEFORE_LABEL_COST per character."""
    if counted:  # "Of the 57 E4027 events, 40 were corrected": the number before the counted noun counts it
        return (value_at - anchor_at) * BEFORE_LABEL_COST if value_at >= anchor_at else anchor_at - value_at
    return value_at - anchor_at if value_at >= anchor_at else (anchor_at - value_at) * BEFORE_LABEL_COST


def _anchors(sentence: str, near: Sequence[str]) -> list[int]:
    """Character offsets of the words of ``sentence`` whose stem is in ``near``."""
    from engine.reflection.text import stem

    wanted = set(near)
    return [m.start() for m in re.finditer(r"[A-Za-z][\w-]*", sentence) if stem(m.group(0).lower()) in wanted]
