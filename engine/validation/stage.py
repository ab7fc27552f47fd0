"""The Validation stage: run the checks over a final answer and map its sentences to evidence."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from engine.results import Evidence, Intent, Validation, ValidationIssue
from engine.validation.checks import check_citations, check_comparison, check_timeliness, evidence_map
from engine.validation.cited import check_cited_texts

Check = Callable[[str, Sequence[Evidence], Intent], list[ValidationIssue]]
CHECKS = ("citation", "timeliness", "comparison")


class Validator:
    """Checks an answer's citations, timeliness and comparison completeness.

    ``checks`` picks which run (default: all three); ``min_content_words`` is how many content
    words make a sentence a key statement that needs a citation.
    """

    def __init__(self, checks: Sequence[str] = CHECKS, *, min_content_words: int = 3) -> None:
        unknown = [c for c in checks if c not in CHECKS]
        if unknown:
            raise ValueError(f"unknown validation check(s) {unknown}; choose from {list(CHECKS)}")
        if not checks:
            raise ValueError("at least one validation check must run")
        if min_content_words < 1:
            raise ValueError("min_content_words must be at least 1")
        self.checks = tuple(dict.fromkeys(checks))
        self.min_content_words = min_content_words

    def run(self, answer: str, evidence: Sequence[Evidence], intent: Intent,
            citations: Sequence[Any] = ()) -> Validation:
        """Validate ``answer`` against the ``evidence`` it cites as [1]..[n] and the question's ``intent``.

        ``citations`` are the passages the model cited itself (Claude's citations,
        :class:`~engine.reflection.citing.CitedSpan`); with the citation check on, each must occur in
        the evidence it points at.
        """
        evidence = tuple(evidence)
        issues: list[ValidationIssue] = []
        for name in self.checks:
            issues.extend(self._check(name)(answer, evidence, intent))
            if name == "citation" and citations:
                issues.extend(check_cited_texts(citations, evidence))
        return Validation(is_valid=not issues, issues=tuple(issues), evidence_map=evidence_map(answer, evidence))

    def _check(self, name: str) -> Check:
        if name == "citation":
            return lambda a, e, i: check_citations(a, e, i, min_content_words=self.min_content_words)
        return {"timeliness": check_timeliness, "comparison": check_comparison}[name]
