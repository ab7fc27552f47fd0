"""The review JSON: one strict JSON Schema, the tool spec that names and carries it, and conversion to Review.

The schema reaches the model as structured outputs or as the ``submit_review`` tool, whichever
the model accepts (:func:`engine.llm.structured.structured_call`).

Both reviewers (LLM and offline) produce this shape and are checked against the same schema.
Anything that fails the schema becomes a ``format`` issue with ``valid=False`` and low
confidence, so a malformed review is routed back into the loop instead of crashing it.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from engine.llm.base import ToolSpec
from engine.results import Review, ReviewIssue

ISSUE_TYPES = ["citation", "fact", "logic", "overconfidence", "format", "injection"]
FORMAT_FAILURE_CONFIDENCE = 0.1

REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["valid", "issues", "corrections", "confidence", "reasoning"],
    "properties": {
        "valid": {"type": "boolean", "description": "true when every statement is supported by its cited evidence"},
        "issues": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["type", "description", "location"],
                "properties": {
                    "type": {"type": "string", "enum": ISSUE_TYPES},
                    "description": {"type": "string", "description": "what is wrong and why"},
                    "location": {"type": "string", "description": "the answer sentence, quoted exactly"},
                },
            },
        },
        "corrections": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["type", "original", "corrected"],
                "properties": {
                    "type": {"type": "string", "enum": ISSUE_TYPES},
                    "original": {"type": "string", "description": "exact text from the answer to replace"},
                    "corrected": {"type": "string", "description": "the replacement text"},
                },
            },
        },
        "confidence": {"type": "number", "minimum": 0, "maximum": 1,
                       "description": "how sure the reviewer is that the answer is correct and supported"},
        "reasoning": {"type": "string", "description": "a short summary of the checks made"},
    },
}

REVIEW_TOOL = ToolSpec(
    name="submit_review",
    description=(
        "Submit the review of the answer: whether it is valid, the issues found, exact corrections "
        "(original text from the answer -> corrected text), a confidence in [0, 1] and short reasoning."
    ),
    input_schema=REVIEW_SCHEMA,
    strict=True,
)

_VALIDATOR = jsonschema.Draft202012Validator(REVIEW_SCHEMA)


def schema_errors(payload: Any) -> list[str]:
    """Human-readable schema violations of ``payload`` (empty when it conforms)."""
    errors = sorted(_VALIDATOR.iter_errors(payload), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]


def format_failure(detail: str) -> Review:
    """The review that stands in for reviewer output that could not be used."""
    return Review(
        valid=False,
        issues=(ReviewIssue(type="format", description=f"The reviewer's output was not usable: {detail}"),),
        confidence=FORMAT_FAILURE_CONFIDENCE,
        reasoning="Review output failed the review schema; treated as a failed review.",
    )


def review_from_payload(payload: Any) -> Review:
    """Validate ``payload`` against :data:`REVIEW_SCHEMA` and build a Review; a failure becomes a format issue."""
    problems = schema_errors(payload)
    if problems:
        return format_failure("; ".join(problems[:5]))
    return Review.model_validate(payload)


def review_to_payload(review: Review) -> dict[str, Any]:
    """``review`` as the JSON object the schema describes."""
    return review.model_dump(mode="json")
