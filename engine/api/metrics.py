"""Prometheus metrics of one API app: requests, latency, time per pipeline stage, refusals, validation failures,
and the model calls' tokens and estimated cost per stage (zero on the offline provider)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from engine.llm.usage import usage_of
from engine.results import Answer

TOKEN_KINDS = ("input", "output", "cache_read", "cache_write")

STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """Counters and histograms in a registry of their own (one per app, so several apps never collide)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("workbench_http_requests", "HTTP requests by method, route and status code.",
                                ["method", "route", "status"], registry=self.registry)
        self.latency = Histogram("workbench_http_request_seconds", "Time to answer an HTTP request, by route.",
                                 ["route"], registry=self.registry, buckets=STAGE_BUCKETS)
        self.stages = Histogram("workbench_stage_seconds", "Time per pipeline stage of each answered question.",
                                ["stage"], registry=self.registry, buckets=STAGE_BUCKETS)
        self.answers = Counter("workbench_answers", "Answers by status (success, refused, failure).", ["status"],
                               registry=self.registry)
        self.refusals = Counter("workbench_refusals", "Questions the engine refused to answer.",
                                registry=self.registry)
        self.validation_failures = Counter(
            "workbench_validation_failures", "Validation failures: 'request' for a request that did not match its "
            "schema (422), or the answer check that failed (citation, timeliness, comparison).", ["kind"],
            registry=self.registry)
        self.tokens = Counter("workbench_llm_tokens", "Model tokens used by answered questions, by stage (draft, "
                              "review, revise) and kind (input, output, cache_read, cache_write).", ["stage", "kind"],
                              registry=self.registry)
        self.cost = Counter("workbench_llm_cost_usd", "Estimated cost of the model calls in US dollars, by stage "
                            "(from the price list in engine/llm/prices.toml).", ["stage"], registry=self.registry)
        self.unpriced = Counter("workbench_llm_unpriced_calls", "Model calls whose model has no price in the price "
                                "list; a stage with one adds no cost to workbench_llm_cost_usd.", ["stage"],
                                registry=self.registry)

    def record_answer(self, answer: Answer) -> None:
        self.answers.labels(answer.status).inc()
        if answer.status == "refused":
            self.refusals.inc()
        for stage, ms in answer.timings.items():
            if stage != "total":
                self.stages.labels(stage).observe(max(float(ms), 0.0) / 1000)
        if answer.validation is not None and not answer.validation.is_valid:
            for check in sorted({issue.check for issue in answer.validation.issues}):
                self.validation_failures.labels(check).inc()
        self.record_usage(answer)

    def record_usage(self, answer: Answer) -> None:
        """Add the answer's model tokens and estimated cost, per stage."""
        for stage, used in usage_of(answer).stages.items():
            counts = (used.input_tokens, used.output_tokens, used.cache_read_tokens, used.cache_write_tokens)
            for kind, count in zip(TOKEN_KINDS, counts):
                if count:
                    self.tokens.labels(stage, kind).inc(count)
            if used.unpriced_calls:
                self.unpriced.labels(stage).inc(used.unpriced_calls)
            if used.cost_usd:
                self.cost.labels(stage).inc(used.cost_usd)

    def record_request_validation(self, request: Request) -> None:
        self.validation_failures.labels("request").inc()

    async def middleware(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        finally:
            route = getattr(request.scope.get("route"), "path", None) or "unmatched"
            self.requests.labels(request.method, route, str(status)).inc()
            self.latency.labels(route).observe(time.perf_counter() - started)

    def render(self) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)
