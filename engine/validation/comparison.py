"""Comparison completeness: every compared entity is backed by cited evidence for the asked attribute and period.

For each entity of a comparison (see ``compared_entities``) the evidence cited by the answer's sentences
about it must mention the entity, state a value for the asked attribute (a figure in a sentence that shares
the attribute's words, the document title counting as context) and, when the question has a time window
or names a year, be about that period. Figures the answer gives for an entity must appear in its evidence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.language import lexicons
from engine.language.citations import citations, strip_citations
from engine.language.question import coordinated
from engine.language.quantities import figures, numbers, years
from engine.language.sentences import split_sentences
from engine.language.tokens import STOP_WORDS as STOPWORDS
from engine.language.tokens import WORD, content_words, mentions, stem
from engine.results import Evidence, Intent, ValidationIssue
from engine.periods import Period, about, asked_period, distance, when

ATTRIBUTE_SHARE = 0.5
"""Share of the asked attribute's words that a value sentence (with its document title) must contain. On the sample
fuel-efficiency reports, for "fuel burn per block hour": the fuel tables and summary lines score 0.75, the seat-count
line 0.25; on the test product reviews, for "battery life": battery lines 1.0, the weight line 0."""

FRAMING_WORDS = lexicons.words("framing_words")
"""Words that frame a comparison question rather than name what is compared (``en/framing_words.txt``)."""


@dataclass(frozen=True)
class Attribute:
    """What a comparison asks about each entity: the stems to match and the words to show."""

    stems: frozenset[str]
    label: str

    def needed(self) -> int:
        return max(1, math.ceil(ATTRIBUTE_SHARE * len(self.stems))) if self.stems else 0


@dataclass(frozen=True)
class Value:
    """A sentence of a retrieved chunk that states a value of the attribute for one entity."""

    number: int
    item: Evidence
    sentence: str



def compared_entities(intent: Intent) -> list[str]:
    """The entities a question compares: all of them for a "compare" question, else the names of one kind
    when the question joins two of them by "and" / "or" (not when two merely occur in it: "checks for Texas in
    NICS")."""
    texts = list(dict.fromkeys(e.text for e in intent.entities if e.text.strip()))
    if intent.action == "compare":
        return texts if len(texts) >= 2 else []
    by_label: dict[str, list[str]] = {}
    for entity in intent.entities:
        if entity.text.strip() and entity.text not in by_label.setdefault(entity.label, []):
            by_label[entity.label].append(entity.text)
    for names in by_label.values():
        if len(names) >= 2 and coordinated(intent.raw_query, names):  # "the weight of the A320 and the B737"
            return names
    return []

def _quote(sentence: str, width: int = 80) -> str:
    body = strip_citations(sentence)
    return f'"{body if len(body) <= width else body[: width - 3] + "..."}"'


def asked_attribute(intent: Intent, entities: Sequence[str]) -> Attribute:
    """The question's content words other than entity names, time words and framing words."""
    text = intent.raw_query
    time = intent.constraints.time
    if time is not None and time.text:
        text = text.replace(time.text, "|")
    for entity in sorted(entities, key=len, reverse=True):
        text = re.sub(re.escape(entity), "|", text, flags=re.IGNORECASE)
    phrases: list[list[str]] = []
    for clause in re.split(r"[|,;:?!()]|\.(?=\s|$)", text):
        run: list[str] = []
        for token in clause.split():
            word = token.strip("\"'").lower()
            if _keeps(word):
                run.append(token.strip("\"'"))
            elif run and word in STOPWORDS and word not in FRAMING_WORDS:
                run.append(token)  # a connective inside the phrase: "fuel burn per block hour"
            else:
                phrases.append(_trim(run))
                run = []
        phrases.append(_trim(run))
    words = [w for phrase in phrases for w in phrase if _keeps(w.lower())]
    if not words:
        return Attribute(frozenset(), "")
    label = max(phrases, key=lambda phrase: sum(_keeps(w.lower()) for w in phrase))
    return Attribute(frozenset(stem(w.lower()) for w in words), " ".join(label))


def _keeps(word: str) -> bool:
    return bool(WORD.fullmatch(word)) and word not in STOPWORDS and word not in FRAMING_WORDS and not (
        word.isdigit() and years(word)) and (len(word) > 1 or word.isdigit())


def _trim(run: list[str]) -> list[str]:
    while run and not _keeps(run[-1].lower()):
        run = run[:-1]
    return run


def has_value(sentence: str) -> bool:
    """True when ``sentence`` states a figure that is not a year."""
    return any(not (f.unit == "" and f.value.is_integer() and years(f.text)) for f in figures(sentence))


def states_value(item: Evidence, sentence: str, attribute: Attribute) -> bool:
    """``sentence`` gives a figure and, with the title as context, enough of the attribute's words."""
    if not has_value(sentence):
        return False
    text = f"{sentence}\n{item.metadata.title}"
    found = (set(content_words(text)) | spelled_out(text, attribute.label)) & attribute.stems
    return len(found) >= attribute.needed()


def spelled_out(text: str, phrase: str) -> set[str]:
    """Stems of the words of ``phrase`` that an acronym in ``text`` stands for: "MLG" -> main, landing, gear."""
    words = [w for w in phrase.split() if w[:1].isalpha()]
    initials = "".join(w[0].lower() for w in words)
    out: set[str] = set()
    for acronym in re.findall(r"\b[A-Z]{2,5}\b", text):
        at = initials.find(acronym.lower())
        if at >= 0:
            out.update(stem(w.lower()) for w in words[at: at + len(acronym)])
    return out


def values_for(entity: str, others: Sequence[str], items: Sequence[tuple[int, Evidence]],
               attribute: Attribute) -> list[Value]:
    """Sentences in ``items`` that state a value of ``attribute`` for ``entity``."""
    found: list[Value] = []
    for number, item in items:
        if not (mentions(item.text, entity) or mentions(item.metadata.title, entity)):
            continue
        sentences = split_sentences(item.text)
        for i, sentence in enumerate(sentences):
            if not states_value(item, sentence, attribute):
                continue
            nearby = mentions(item.metadata.title, entity) or (i > 0 and mentions(sentences[i - 1], entity))
            if mentions(sentence, entity) or (nearby and not any(mentions(sentence, o) for o in others)):
                found.append(Value(number, item, sentence))
    return found


def _in_period(value: Value, period: Period | None) -> bool:
    return period is None or about(value.item, period, value.sentence) is not False


def _closest(values: Sequence[Value], period: Period) -> Value:
    return min(values, key=lambda v: (distance(v.item, period, v.sentence) or 0, v.number))


def entity_evidence(evidence: Sequence[Evidence], entity: str) -> list[Evidence]:
    """Evidence whose text or title mentions ``entity`` (case-insensitive, hyphens and punctuation ignored)."""
    return [e for e in evidence if mentions(e.text, entity) or mentions(e.metadata.title, entity)]


def check_comparison(answer: str, evidence: Sequence[Evidence], intent: Intent) -> list[ValidationIssue]:
    """Each compared entity has cited evidence for the asked attribute and period; its figures are its own."""
    entities = compared_entities(intent)
    if not entities:
        return []
    issues: list[ValidationIssue] = []
    support = {entity: entity_evidence(evidence, entity) for entity in entities}
    sentences = split_sentences(answer)
    attribute = asked_attribute(intent, entities)
    period = asked_period(intent, question_years=True)
    retrieved = list(enumerate(evidence, start=1))
    for entity, items in support.items():
        if not items:
            issues.append(ValidationIssue(
                check="comparison",
                message=f"No retrieved evidence mentions {entity!r}; search for it before comparing."))
            continue
        if not mentions(answer, entity):
            issues.append(ValidationIssue(
                check="comparison", message=f"The answer says nothing about {entity!r}, which the question compares."))
            continue
        cited = sorted({n for s in sentences if mentions(s, entity) for n in citations(s) if 1 <= n <= len(evidence)})
        others = [e for e in entities if e != entity]
        given = values_for(entity, others, [(n, evidence[n - 1]) for n in cited], attribute)
        if any(_in_period(v, period) for v in given):
            continue
        issues.append(_missing(entity, attribute, period, given, values_for(entity, others, retrieved, attribute)))
    for sentence in sentences:
        mentioned = [e for e in entities if mentions(sentence, e) and support[e]]
        if not mentioned:
            continue
        have = set().union(*(numbers(item.text) for e in mentioned for item in support[e]))
        for figure in figures(sentence):
            if figure.unit and figure.value not in have:
                names = " / ".join(mentioned)
                issues.append(ValidationIssue(
                    check="comparison",
                    message=f"{figure.text} in {_quote(sentence)} does not appear in the evidence about {names}; "
                            "take each figure from that entity's own evidence."))
    return issues


def _missing(entity: str, attribute: Attribute, period: Period | None, cited: list[Value],
             retrieved: list[Value]) -> ValidationIssue:
    what = f"the {attribute.label}" if attribute.label else "a value"
    span = f" for {period.label}" if period else ""
    usable = [v for v in retrieved if _in_period(v, period)]
    if usable:
        best = usable[0]
        message = (f"The answer cites no evidence that gives {what} of {entity!r}{span}; [{best.number}] "
                   f"{best.item.metadata.title!r} does: cite it.")
    elif period is not None and (cited or retrieved):
        near = _closest(cited or retrieved, period)
        message = (f"No evidence for {entity!r} gives {what}{span}; the closest is dated "
                   f"{when(near.item, period, near.sentence)} ([{near.number}] {near.item.metadata.title!r}). "
                   f"Cite evidence from {period.label} or say that it is missing.")
    else:
        message = f"No evidence for {entity!r} gives {what}{span}; search for it or say that it is missing."
    return ValidationIssue(check="comparison", message=message)
