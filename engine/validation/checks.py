"""The three validation checks: citation traceability, timeliness and comparison completeness.

Each check is a function ``(answer, evidence, intent) -> list[ValidationIssue]``; citations
are [n] markers pointing at ``evidence[n - 1]``. Citations live here; timeliness and comparison
have a module each and are re-exported.
"""

from __future__ import annotations

from typing import Sequence

from engine.language.citations import citations, strip_citations
from engine.language.layout import is_key_statement
from engine.language.sentences import split_sentences
from engine.validation.comparison import compared_entities
from engine.results import Evidence, Intent, ValidationIssue
from engine.validation.comparison import check_comparison, entity_evidence
from engine.validation.timeliness import check_timeliness, newest_in_series

__all__ = [
    "check_citations", "check_comparison", "check_timeliness", "compared_entities", "entity_evidence",
    "evidence_map", "newest_in_series",
]


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
