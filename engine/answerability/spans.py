"""Typed values in evidence sentences: numbers with units, dates, names of people, places and organisations, codes.

A value counts only when the question does not already contain it ("Who founded X?" is not
answered by "X"). Names come from spaCy's NER (the same model Perception loads once).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

from engine.reflection.focus import codes_in
from engine.reflection.text import figures, normalise_phrase

_NER_TYPES = {
    "person": ("PERSON",),
    "organisation": ("ORG", "PRODUCT", "WORK_OF_ART", "FAC", "NORP"),
    "place": ("GPE", "LOC", "FAC"),
    "date": ("DATE",),
}
_YEAR = re.compile(r"(?<![\d.,-])(?:1[0-9]|20)\d{2}(?![\d,])s?")
_MONTH_DATE = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+\d{1,2})?,?\s+\d{4}\b|"
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\s+century\b", re.IGNORECASE)
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


def typed_values(sentence: str, answer_type: str, question: str) -> list[str]:
    """Values of ``answer_type`` in ``sentence`` that the question does not already state, in reading order."""
    asked = f" {normalise_phrase(question)} "
    out: list[str] = []

    def add(value: str) -> None:
        value = value.strip(" ,.;:()[]\"'")
        key = normalise_phrase(value)
        if key and f" {key} " not in asked and value not in out:
            out.append(value)

    if answer_type == "number":
        for figure in figures(sentence):
            if not _YEAR.fullmatch(figure.text):
                add(figure.text)
    elif answer_type == "date":
        for match in _MONTH_DATE.finditer(sentence):
            add(match.group(0))
        for text, label in entities(sentence):
            if label == "DATE" and re.search(r"\d", text):
                add(text)
        for match in _YEAR.finditer(sentence):
            add(match.group(0))
    elif answer_type == "code":
        for code in sorted(codes_in(sentence), key=lambda c: sentence.lower().find(c)):
            at = sentence.lower().find(code)
            add(sentence[at: at + len(code)] if at >= 0 else code)
    elif answer_type in _NER_TYPES:
        for text, label in entities(sentence):
            if label in _NER_TYPES[answer_type]:
                add(text)
    return out
