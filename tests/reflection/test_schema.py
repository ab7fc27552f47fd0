"""The review JSON Schema: strict shape, and malformed output turned into a format issue."""

from __future__ import annotations

import jsonschema
import pytest

from engine.reflection.schema import REVIEW_SCHEMA, REVIEW_TOOL, review_from_payload, review_to_payload, schema_errors
from engine.results import Correction, Review, ReviewIssue

pytestmark = pytest.mark.unit

GOOD = {
    "valid": False,
    "issues": [{"type": "fact", "description": "wrong torque", "location": "Torque to 120 lbf.ft [1]."}],
    "corrections": [{"type": "fact", "original": "120 lbf.ft", "corrected": "150 lbf.ft"}],
    "confidence": 0.3,
    "reasoning": "checked one sentence",
}


def test_schema_is_strict_at_every_level():
    jsonschema.Draft202012Validator.check_schema(REVIEW_SCHEMA)
    assert REVIEW_SCHEMA["additionalProperties"] is False
    assert set(REVIEW_SCHEMA["required"]) == {"valid", "issues", "corrections", "confidence", "reasoning"}
    for part in ("issues", "corrections"):
        items = REVIEW_SCHEMA["properties"][part]["items"]
        assert items["additionalProperties"] is False and items["required"]
        assert items["properties"]["type"]["enum"] == ["citation", "fact", "logic", "overconfidence", "format", "injection"]
    assert REVIEW_TOOL.name == "submit_review" and REVIEW_TOOL.strict is True


def test_a_conforming_payload_becomes_a_review_and_round_trips():
    review = review_from_payload(GOOD)
    assert review == Review(valid=False, issues=(ReviewIssue(type="fact", description="wrong torque",
                                                             location="Torque to 120 lbf.ft [1]."),),
                            corrections=(Correction(type="fact", original="120 lbf.ft", corrected="150 lbf.ft"),),
                            confidence=0.3, reasoning="checked one sentence")
    assert review_to_payload(review) == GOOD
    assert schema_errors(GOOD) == []


@pytest.mark.parametrize("bad", [
    {**GOOD, "extra": 1},
    {k: v for k, v in GOOD.items() if k != "reasoning"},
    {**GOOD, "confidence": 1.5},
    {**GOOD, "valid": "yes"},
    {**GOOD, "issues": [{"type": "style", "description": "x", "location": ""}]},
    {**GOOD, "corrections": [{"type": "fact", "original": "a"}]},
    "not an object",
])
def test_malformed_payload_becomes_a_format_issue(bad):
    review = review_from_payload(bad)
    assert review.valid is False
    assert [i.type for i in review.issues] == ["format"]
    assert review.confidence <= 0.2
