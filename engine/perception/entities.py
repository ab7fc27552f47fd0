"""Entities in a question: rule-file patterns first, then spaCy named entities.

The spaCy pipeline is the "ner" view of ``engine.language.nlp``: loaded once per process, with only the
components that named-entity recognition needs.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from engine.perception.rules import Rules
from engine.results import Entity

if TYPE_CHECKING:
    from spacy.language import Language

_NER_LOCK = threading.Lock()  # one shared pipeline per process; calls are serialised
_EDGE = re.compile(r"^(?:the|a|an)\s+|[\s.,;:!?'\"()]+$", re.IGNORECASE)


@dataclass(frozen=True)
class Found:
    """An entity candidate with its character span in the question."""

    start: int
    end: int
    text: str
    label: str
    key: str

    def overlaps(self, start: int, end: int) -> bool:
        return self.start < end and start < self.end


def _key(text: str, strip: re.Pattern[str] | None) -> str:
    key = re.sub(r"\s+", " ", text.lower()).strip()
    return strip.sub("", key) if strip else key


def pattern_entities(question: str, rules: Rules) -> list[Found]:
    """Entities matched by the rule-file patterns; overlaps go to the longer span, then the earlier rule."""
    candidates: list[tuple[int, int, Found]] = []
    for order, rule in enumerate(rules.entities):
        for match in rule.pattern.finditer(question):
            group = "value" if "value" in rule.pattern.groupindex and match.group("value") else 0
            start, end = match.span(group)
            if start == end:
                continue
            text = re.sub(r"\s+", " ", match.group(group).strip())
            for regex, replacement in rule.replace:
                text = regex.sub(replacement, text)
            found = Found(start, end, text, rule.label, _key(text, rule.key_strip))
            candidates.append((-(end - start), order, found))
    kept: list[Found] = []
    for _, _, found in sorted(candidates, key=lambda c: (c[0], c[1], c[2].start)):
        if not any(found.overlaps(k.start, k.end) for k in kept):
            kept.append(found)
    return sorted(kept, key=lambda f: f.start)


def ner_entities(question: str, nlp: "Language", rules: Rules, blocked: Iterable[tuple[int, int]]) -> list[Found]:
    """spaCy entities, minus dropped labels, generic words and anything inside a ``blocked`` span."""
    blocked = list(blocked)
    found: list[Found] = []
    with _NER_LOCK:
        doc = nlp(question)
    for ent in doc.ents:
        if ent.label_ in rules.drop_labels:
            continue
        start, end, text = ent.start_char, ent.end_char, ent.text
        trimmed = _EDGE.sub("", text)
        while trimmed != text:  # drop a leading article and trailing punctuation
            start += text.find(trimmed) if trimmed else 0
            end = start + len(trimmed)
            text, trimmed = trimmed, _EDGE.sub("", trimmed)
        if not text or text.lower() in rules.drop_texts or not any(c.isalnum() for c in text):
            continue
        if any(start < b_end and b_start < end for b_start, b_end in blocked):
            continue
        found.append(Found(start, end, text, ent.label_, _key(text, None)))
    return found


def merge(*groups: Iterable[Found]) -> tuple[Entity, ...]:
    """All candidates in question order, without duplicate keys (the first mention is kept)."""
    seen: set[str] = set()
    out: list[Entity] = []
    for found in sorted((f for g in groups for f in g), key=lambda f: (f.start, f.end)):
        if found.key in seen:
            continue
        seen.add(found.key)
        out.append(Entity(text=found.text, label=found.label))
    return tuple(out)
