"""Hand-built Answers and a fake pipeline for experiment tests."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

from engine.pipeline.options import AskOptions
from engine.results import Answer, Intent, Review, ReviewIssue, Validation, ValidationIssue

_ids = count(1)


def make_answer(question: str = "q", status: str = "success", valid: bool | None = True, issues: int = 0,
                iterations: int = 1, total_ms: float | None = 100.0, trace_id: str | None = None,
                extra: dict | None = None, final: str = "") -> Answer:
    """An Answer with the fields experiments read; ``valid=None`` means no validation ran."""
    validation = None if valid is None else Validation(
        is_valid=valid, issues=() if valid else (ValidationIssue(check="citation", message="uncited"),))
    reviews = (Review(valid=issues == 0, confidence=0.5,
                      issues=tuple(ReviewIssue(type="fact", description=f"issue {i}") for i in range(issues))),) \
        if issues else ()
    return Answer(question=question, intent=Intent(action="lookup", raw_query=question), status=status,
                  validation=validation, reviews=reviews, iterations=iterations,
                  timings={} if total_ms is None else {"retrieval": 1.0, "total": total_ms},
                  trace_id=trace_id or f"t{next(_ids):05d}", extra=extra or {}, final=final)


class FakePipeline:
    """Answers with ``respond(question, options)`` and records every call."""

    def __init__(self, respond: Callable[[str, AskOptions], Answer]) -> None:
        self.respond = respond
        self.calls: list[tuple[str, AskOptions]] = []

    def run(self, question: str, options: AskOptions) -> Answer:
        self.calls.append((question, options))
        return self.respond(question, options)


def reflection_respond(question: str, options: AskOptions) -> Answer:
    """Reflection on: valid, more iterations, slower; off: every other question fails validation."""
    n = len(question)
    if options.reflection:
        return make_answer(question, valid=True, issues=1, iterations=2, total_ms=300.0 + n)
    return make_answer(question, status="refused" if n % 2 else "success", valid=n % 2 == 0, iterations=0,
                       total_ms=100.0 + n)
