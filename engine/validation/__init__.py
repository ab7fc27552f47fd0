"""Validation of a final answer: citation traceability, timeliness, comparison completeness."""

from engine.validation.checks import (
    check_citations,
    check_comparison,
    check_timeliness,
    compared_entities,
    entity_evidence,
    evidence_map,
    newest_in_series,
)
from engine.validation.stage import CHECKS, Validator

__all__ = [
    "CHECKS",
    "Validator",
    "check_citations",
    "check_comparison",
    "check_timeliness",
    "compared_entities",
    "entity_evidence",
    "evidence_map",
    "newest_in_series",
]
