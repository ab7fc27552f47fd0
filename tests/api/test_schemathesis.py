"""Schemathesis against /openapi.json: for every operation, the schema's examples, then generated valid requests
and generated invalid ones. No response may be a 5xx; every 4xx carries a JSON ``error`` that says what to fix."""

from __future__ import annotations

from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.api.conftest import make_client

pytestmark = [pytest.mark.integration, pytest.mark.slow]
VALID_PER_OPERATION = 12
INVALID_PER_OPERATION = 8
"""Generated cases per operation (16 operations: a few hundred requests, about two minutes on two cores)."""


def fuzz(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                    database=None)


@pytest.fixture(scope="module")
def api_schema(api_store_template, tmp_path_factory):
    with make_client(api_store_template, tmp_path_factory.mktemp("api-fuzz"), max_file_mb=1,
                     api_max_upload_mb=2) as client:
        yield schemathesis.openapi.from_asgi("/openapi.json", client.app)


def _check(case, counts: Counter, kind: str) -> None:
    response = case.call(timeout=120)
    counts[(kind, response.status_code // 100)] += 1
    assert response.status_code < 500, f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text}"
    if 400 <= response.status_code < 500:
        assert response.json().get("error"), response.text


def checker(counts: Counter, kind: str):
    return lambda case: _check(case, counts, kind)


def test_no_request_gets_a_server_error(api_schema):
    counts: Counter = Counter()
    skipped: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 16
    for operation in operations:
        for strategy in operation.get_strategies_from_examples():
            fuzz(1)(given(strategy)(checker(counts, "example")))()
        for mode, n in ((GenerationMode.POSITIVE, VALID_PER_OPERATION),
                        (GenerationMode.NEGATIVE, INVALID_PER_OPERATION)):
            kind = "valid" if mode == GenerationMode.POSITIVE else "invalid"
            try:
                fuzz(n)(given(operation.as_strategy(generation_mode=mode))(checker(counts, kind)))()
            except Unsatisfiable:  # an operation with no inputs has no invalid request
                assert mode == GenerationMode.NEGATIVE and not list(operation.iter_parameters()), operation.label
                skipped.append(operation.label)
    total = sum(counts.values())
    summary = {f"{kind} {klass}xx": n for (kind, klass), n in sorted(counts.items())}
    print(f"\nschemathesis: {total} cases over {len(operations)} operations: {summary}; no invalid request for "
          f"{skipped}")
    assert total >= 250 and not any(klass == 5 for _, klass in counts)
    assert counts[("example", 2)] >= 5  # the examples are valid requests that succeed
