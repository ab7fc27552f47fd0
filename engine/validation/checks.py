"""The three validation checks: citation traceability, timeliness and comparison completeness.

Each check is a function ``(answer, evidence, intent) -> list[ValidationIssue]``; citations
are [n] markers pointing at ``evidence[n - 1]``.
"""

from __future__ import annotations

from typing import Sequence

from engine.reflection.text import (
    citations,
    compared_entities,
    figures,
    is_key_statement,
    mentions,
    numbers,
    split_sentences,
    strip_citations,
)
from engine.results import Evidence, Intent, ValidationIssue


def _quote(sentence: str, width: int = 80) -> str:
    body = strip_citations(sentence)
    return f'"{body if len(body) <= width else body[: width - 3] + "..."}"'


def evidence_map(answer: str, evidence: Sequence[Evidence]) -> dict[str, list[str]]:
    """Each cited or key sentence (without its markers) -> the chunk ids it cites."""
    mapping: dict[str, list[str]] = {}
    for sentence in split_sentences(answer):
        cited = citations(sentence)
        if not cited and not is_key_statement(sentence):
            continue
        ids = [evidence[n - 1].chunk_id for n in cited if 1 <= n <= len(evidence)]
        key = strip_citations(sentence)
        mapping[key] = list(dict.fromkeys(mapping.get(key, []) + ids))
    return mapping


def check_citations(answer: str, evidence: Sequence[Evidence], intent: Intent,
                    *, min_content_words: int = 3) -> list[ValidationIssue]:
    """Every key statement carries a citation, and every [n] points at retrieved evidence."""
    issues: list[ValidationIssue] = []
    for sentence in split_sentences(answer):
        cited = citations(sentence)
        if not cited and is_key_statement(sentence, min_content_words):
            issues.append(ValidationIssue(
                check="citation",
                message=f"{_quote(sentence)} has no citation; cite the evidence that supports it or remove it."))
        for n in cited:
            if not 1 <= n <= len(evidence):
                issues.append(ValidationIssue(
                    check="citation",
                    message=f"[{n}] in {_quote(sentence)} points at no retrieved evidence "
                            f"(only [1]..[{len(evidence)}] exist)."))
    return issues


def newest_in_series(evidence: Sequence[Evidence], item: Evidence) -> Evidence | None:
    """A retrieved chunk of the same document series with a later update date, newest first."""
    meta = item.metadata
    if not meta.series or not meta.update_date:
        return None
    later = [e for e in evidence if e.metadata.series == meta.series and e.metadata.update_date
             and e.metadata.update_date > meta.update_date]
    return max(later, key=lambda e: e.metadata.update_date) if later else None


def check_timeliness(answer: str, evidence: Sequence[Evidence], intent: Intent) -> list[ValidationIssue]:
    """Cited evidence older than the question's time window; statements cited only to a superseded revision."""
    issues: list[ValidationIssue] = []
    window = intent.constraints.time
    cited_numbers: list[int] = []
    for sentence in split_sentences(answer):
        cited = [n for n in citations(sentence) if 1 <= n <= len(evidence)]
        cited_numbers.extend(cited)
        if not cited:
            continue
        newer = [newest_in_series(evidence, evidence[n - 1]) for n in cited]
        new = newer[0]
        if new is not None and all(item is not None for item in newer):
            old = evidence[cited[0] - 1]
            number = next(i for i, e in enumerate(evidence, start=1) if e is new)
            issues.append(ValidationIssue(
                check="timeliness", chunk_id=old.chunk_id,
                message=f"{_quote(sentence)} cites only [{cited[0]}] {_revision(old)}, but [{number}] "
                        f"{_revision(new)} of the same document was retrieved; cite the newer revision."))
    if window is not None and window.start is not None:
        for n in dict.fromkeys(cited_numbers):
            item = evidence[n - 1]
            date = item.metadata.update_date
            if date is not None and date < window.start:
                issues.append(ValidationIssue(
                    check="timeliness", chunk_id=item.chunk_id,
                    message=f"[{n}] {item.metadata.title!r} is dated {date.isoformat()}, before the question's "
                            f"time window ({window.text!r}, from {window.start.isoformat()}); "
                            "use evidence from that period."))
    return issues


def _revision(item: Evidence) -> str:
    meta = item.metadata
    label = meta.revision or (meta.update_date.isoformat() if meta.update_date else "")
    return f"({meta.title}, {label})" if label else f"({meta.title})"


def entity_evidence(evidence: Sequence[Evidence], entity: str) -> list[Evidence]:
    """Evidence whose text or title mentions ``entity`` (case-insensitive, hyphens and punctuation ignored)."""
    return [e for e in evidence if mentions(e.text, entity) or mentions(e.metadata.title, entity)]


def check_comparison(answer: str, evidence: Sequence[Evidence], intent: Intent) -> list[ValidationIssue]:
    """Each compared entity has evidence and is covered; figures said of an entity appear in its evidence."""
    entities = compared_entities(intent)
    if not entities:
        return []
    issues: list[ValidationIssue] = []
    support = {entity: entity_evidence(evidence, entity) for entity in entities}
    for entity, items in support.items():
        if not items:
            issues.append(ValidationIssue(
                check="comparison",
                message=f"No retrieved evidence mentions {entity!r}; search for it before comparing."))
        elif not mentions(answer, entity):
            issues.append(ValidationIssue(
                check="comparison", message=f"The answer says nothing about {entity!r}, which the question compares."))
    for sentence in split_sentences(answer):
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
