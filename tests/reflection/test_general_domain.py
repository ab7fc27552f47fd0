"""The offline reviewer on hand-written everyday cases (recipes, city budgets, release notes, sports).

``general_cases.jsonl`` holds (evidence, answer, expected verdict) rows covering negation, figures
bound to their unit and subject, absolute wording and paraphrases that are supported. No row
comes from the data the reviewer's constants were tuned on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.offline.reviewer import OfflineReviewer
from tests.reflection.builders import evidence

pytestmark = pytest.mark.integration

CASES = [json.loads(line) for line in Path(__file__).with_name("general_cases.jsonl").read_text("utf-8").splitlines()
         if line.strip()]


@pytest.fixture(scope="module")
def reviewer() -> OfflineReviewer:
    return OfflineReviewer()


def test_the_cases_cover_every_check_in_several_domains():
    checks = {c["check"] for c in CASES}
    assert {"negation", "unit", "subject", "absolute", "paraphrase"} <= checks
    assert len({c["domain"] for c in CASES}) >= 4 and 20 <= len(CASES) <= 40
    assert sum(c["supported"] for c in CASES) >= 8  # enough supported rows to see false alarms


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_general_domain_verdict(reviewer, case):
    items = [evidence(f"{case['id']}#{n}", text, case["domain"].title())
             for n, text in enumerate(case["evidence"], start=1)]
    review = reviewer.review(case["question"], items, case["answer"])
    assert review.valid == case["supported"], [i.description for i in review.issues]
    if not case["supported"]:
        assert case["issue"] in {i.type for i in review.issues}, [i.description for i in review.issues]
    evidence_words = " ".join(case["evidence"]).lower()
    for fix in review.corrections:  # a correction only ever brings in the evidence's own words
        added = set(fix.corrected.lower().split()) - set(fix.original.lower().split())
        assert all(word.strip(".,[]0123456789") in evidence_words for word in added), fix
