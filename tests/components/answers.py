"""A complete Answer built by hand (no engine run), for rendering tests."""

from __future__ import annotations

from datetime import date

from engine.results import (
    Answer, Constraints, Correction, Entity, Evidence, EvidenceMeta, Intent, RetrievalTask, Review, ReviewIssue,
    TimeConstraint, Validation, ValidationIssue,
)

QUESTION = "What is the current final torque for the A320 MLG axle nut since 2024?"


def make_answer(**changes) -> Answer:
    """An answer with two evidence chunks, a review round with issues, and a failed-then-fixed validation."""
    intent = Intent(action="lookup", raw_query=QUESTION,
                    entities=(Entity(text="A320", label="AIRCRAFT"), Entity(text="MLG", label="COMPONENT")),
                    constraints=Constraints(time=TimeConstraint(text="since 2024", start=date(2024, 1, 1))))
    tasks = (
        RetrievalTask(query="A320 MLG axle nut final torque", search_type="hybrid", knowledge_base="manuals",
                      weight=1.0, reason="base task: hybrid search over manuals"),
        RetrievalTask(query="axle nut torque", search_type="keyword", knowledge_base="faq", weight=0.4,
                      priority=1, reason="keyword task for exact figures"),
    )
    evidence = (
        Evidence(chunk_id="c1", doc_id="rev12", knowledge_base="manuals", score=0.91, credibility=0.88,
                 text="Final torque: 325 N.m (240 lbf.ft), dry threads. <img src=https://evil.example/x.png>",
                 found_by=("T1:hybrid@manuals",),
                 metadata=EvidenceMeta(title="A320 AMM 32-41-11 Rev 12", update_date=date(2025, 3, 3),
                                       authority=5, doc_type="manual", page=2, revision="Rev 12")),
        Evidence(chunk_id="c2", doc_id="shop", knowledge_base="faq", score=0.42, credibility=0.3,
                 text="Torque the axle nut to 250 N.m and back off to align. ![t](https://evil.example/t.gif)",
                 found_by=("T2:keyword@faq",),
                 metadata=EvidenceMeta(title="Shop note 2019", update_date=date(2019, 3, 12), authority=2)),
    )
    review = Review(valid=False, confidence=0.4, reasoning="one figure is not supported",
                    issues=(ReviewIssue(type="fact", description="250 N.m is superseded", location="sentence 2"),
                            ReviewIssue(type="overconfidence", description="'always' is not supported",
                                        location="sentence 1")),
                    corrections=(Correction(type="fact", original="250 N.m", corrected="325 N.m"),))
    fields = dict(
        question=QUESTION, intent=intent, tasks=tasks, evidence=evidence,
        draft="The torque is always 250 N.m [2]. Use dry threads [1].",
        reviews=(review, Review(valid=True, confidence=0.95)),
        revised="The torque is 325 N.m [1]. Use dry threads [1].",
        final="The torque is 325 N.m [1]. Use dry threads [1].",
        validation=Validation(is_valid=True, evidence_map={"The torque is 325 N.m [1].": ["c1"]}),
        status="success", iterations=2, trace_id="abc123", provider="offline", strategy_version="v1",
        timings={"perception": 12.0, "orchestration": 3.0, "retrieval": 150.0, "reflection": 80.0,
                 "reflection.draft": 20.0, "reflection.review": 60.0, "validation": 9.0, "total": 260.0},
        extra={"reflection": True, "mode": "dual", "rounds": [], "rollout_bucket": "rollout:reflection@100%",
               "attempts": [{"valid": False, "changes": ["date filter 2024-01-01 to ... added to the base tasks"]},
                            {"valid": True, "changes": []}],
               "task_runs": [{"task": "T1:hybrid@manuals", "hits": 8, "ms": 40.0, "error": None},
                             {"task": "T2:keyword@faq", "hits": 3, "ms": 12.0, "error": None}]},
    )
    fields.update(changes)
    return Answer(**fields)


def failed_validation() -> Validation:
    return Validation(is_valid=False, issues=(
        ValidationIssue(check="timeliness", message="[2] is dated 2019-03-12, before the asked window"),))
