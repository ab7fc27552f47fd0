"""Message Batches against a recorded batch lifecycle: create, poll with progress, read results, resume by id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import httpx2
import pytest

from engine.errors import ProviderError
from engine.evaluation.batch import BatchState, each_row, evaluate_review_in_batches, run_in_batches
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.batches import BatchedProvider, BatchPending, MessageBatches, request_key, response_of
from engine.llm.models import ModelResolver
from engine.llm.usage import UsageMeter
from engine.reflection import LLMReviewer
from tests.llm.conftest import load_recording, mock_client, serve
from tests.reflection.builders import AMM_REV12

pytestmark = pytest.mark.unit

RECORDED = json.loads((Path(__file__).parent / "recordings" / "batch_reviews_haiku_5_5.json").read_text())
WHEEL = "Torque the axle nut to 150 lbf.ft and safety it with the lock bolt."
ROWS = [
    {"id": "a", "question": "What torque?", "passages": [WHEEL], "answer": "Torque the axle nut to 150 lbf.ft.",
     "label": 0},
    {"id": "b", "question": "What torque?", "passages": [WHEEL],
     "answer": "Torque the axle nut to 95 lbf.ft while singing loudly in the hangar.", "label": 1},
]


class BatchAPI:
    """The Models API (``models_list_current``) and the Message Batches API as recorded.

    A created batch is polled through ``polls`` (the last repeats); its results file answers each
    request it was created with, in order, by ``respond(params, position)`` (default: the recorded
    messages in turn). ``batches`` keeps each created batch's requests.
    """

    def __init__(self, respond: Callable[[dict[str, Any], int], dict[str, Any]] | None = None) -> None:
        self.respond = respond or (lambda params, n: RECORDED["messages"][n % len(RECORDED["messages"])])
        self.batches: dict[str, list[dict[str, Any]]] = {}
        self.polls: dict[str, int] = {}
        self.paths: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        self.paths.append(f"{request.method} {path}")
        if path.startswith("/v1/models"):
            return serve(load_recording("models_list_current")[0], request)
        if path == "/v1/messages/batches" and request.method == "POST":
            batch_id = f"msgbatch_{len(self.batches) + 1:02d}Kq7Vx3Nt9Rb2Ze5Hw8Jc4M"
            self.batches[batch_id] = json.loads(request.content)["requests"]
            return httpx2.Response(200, json=self._status(RECORDED["create"]["body"], batch_id))
        batch_id = path.split("/")[4]
        if path.endswith("/results"):
            lines = [{"custom_id": r["custom_id"], "result": {"type": "succeeded",
                                                              "message": self.respond(r["params"], n)}}
                     for n, r in enumerate(self.batches[batch_id])]
            return httpx2.Response(200, content="\n".join(json.dumps(line) for line in lines).encode())
        self.polls[batch_id] = self.polls.get(batch_id, 0) + 1
        recorded = RECORDED["polls"][min(self.polls[batch_id], len(RECORDED["polls"])) - 1]["body"]
        return httpx2.Response(200, json=self._status(recorded, batch_id))

    def _status(self, recorded: dict[str, Any], batch_id: str) -> dict[str, Any]:
        size = len(self.batches[batch_id])
        counts = dict(recorded["request_counts"])
        counts.update({k: size for k, v in counts.items() if v})  # the recorded counts, scaled to this batch
        url = recorded["results_url"] and recorded["results_url"].replace(recorded["id"], batch_id)
        return {**recorded, "id": batch_id, "request_counts": counts, "results_url": url}


@pytest.fixture
def claude():
    api = BatchAPI()
    client = mock_client(api)
    yield AnthropicProvider("claude-sonnet-5-5", client=client, models=ModelResolver()), api
    client.close()


def no_wait(seconds: float) -> None:
    return None


def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return path


def test_a_batch_is_created_polled_with_progress_and_read_back(claude):
    provider, api = claude
    batches = MessageBatches(provider.client, sleep=no_wait)
    params = provider.request([{"role": "user", "content": "Check this."}], max_tokens=300, model="claude-haiku-5-5")

    created = batches.submit({request_key(params): params})
    seen = []
    ended = batches.wait(created.batch_id, seen.append, poll_s=0)
    results = batches.results(created.batch_id)

    assert api.batches[created.batch_id] == [{"custom_id": request_key(params), "params": params}]
    assert [p.status for p in seen] == ["in_progress", "ended"] and ended.succeeded == 1
    assert seen[0].describe() == f"batch {created.batch_id}: 0/1 done (0 succeeded), in_progress"
    response = response_of(results[request_key(params)])
    assert response.usage.service_tier == "batch" and response.model == "claude-haiku-5-5"
    assert UsageMeter().record("review", response.model, response.usage).cost_usd == pytest.approx(
        (655 * 0.10 + 57 * 0.50) / 1e6 * 0.5)  # Haiku 5.5 at the batch discount


def test_the_batched_provider_collects_unknown_calls_and_answers_known_ones(claude):
    provider, _ = claude
    reviewer_on = lambda p: LLMReviewer(p, "claude-haiku-5-5", require_citations=False)  # noqa: E731
    collecting = BatchedProvider(provider, {})
    with pytest.raises(BatchPending):
        reviewer_on(collecting).review("What torque?", (AMM_REV12,), "Torque to 150 lbf.ft.")
    (key, params), = collecting.pending.items()
    assert params["model"] == "claude-haiku-5-5" and "output_config" in params and "stream" not in params

    answered = BatchedProvider(provider, {key: {"message": RECORDED["messages"][1]}})
    review = reviewer_on(answered).review("What torque?", (AMM_REV12,), "Torque to 150 lbf.ft.")
    assert not review.valid and review.issues[0].type == "fact" and answered.served == 1
    failed = BatchedProvider(provider, {key: {"error": "overloaded_error: Overloaded"}})
    with pytest.raises(ProviderError, match="batched request failed: overloaded_error"):
        reviewer_on(failed).review("What torque?", (AMM_REV12,), "Torque to 150 lbf.ft.")


def test_eval_review_sends_every_row_in_one_batch_and_scores_as_without(claude, tmp_path):
    provider, api = claude
    state = BatchState(tmp_path / "state.json")
    seen = []

    report, run = evaluate_review_in_batches(rows_file(tmp_path), provider, state, on_progress=seen.append,
                                             poll_s=0, batches=MessageBatches(provider.client, sleep=no_wait))

    assert len(api.batches) == 1 and len(next(iter(api.batches.values()))) == 2
    assert run.passes == 2 and run.requests == 2 and run.batch_ids == tuple(api.batches)
    assert [v["hallucinated"] for v in report.verdicts] == [False, True]
    assert report.metrics["accuracy"] == 1.0
    assert seen[0].status == "in_progress" and seen[-1].ended
    saved = json.loads((tmp_path / "state.json").read_text())
    assert saved["batches"][0]["read"] is True and len(saved["results"]) == 2


def test_an_interrupted_evaluation_resumes_its_batch_instead_of_paying_again(claude, tmp_path):
    provider, api = claude
    state = BatchState(tmp_path / "state.json")
    batches = MessageBatches(provider.client, sleep=no_wait)

    def interrupted(progress):
        raise KeyboardInterrupt  # the person stops the command while the batch runs

    with pytest.raises(KeyboardInterrupt):
        evaluate_review_in_batches(rows_file(tmp_path), provider, state, on_progress=interrupted, poll_s=0,
                                   batches=batches)
    (batch_id,) = api.batches
    resumed = BatchState.load(tmp_path / "state.json")
    assert resumed.unread == [batch_id]

    report, run = evaluate_review_in_batches(rows_file(tmp_path), provider, resumed, poll_s=0, batches=batches)

    assert list(api.batches) == [batch_id] and run.batch_ids == (batch_id,)  # no second batch
    assert [v["hallucinated"] for v in report.verdicts] == [False, True]


def test_a_batch_id_given_by_hand_is_waited_for_and_read(claude, tmp_path):
    provider, api = claude
    batches = MessageBatches(provider.client, sleep=no_wait)
    first = BatchState(tmp_path / "lost.json")
    evaluate_review_in_batches(rows_file(tmp_path), provider, first, poll_s=0, batches=batches)
    (batch_id,) = api.batches

    fresh = BatchState(tmp_path / "new.json")  # the state file was lost; the id was printed
    fresh.add_batch(batch_id)
    report, run = evaluate_review_in_batches(rows_file(tmp_path), provider, fresh, poll_s=0, batches=batches)

    assert list(api.batches) == [batch_id] and report.rows == 2 and run.passes == 1


def test_requests_that_keep_changing_stop_after_the_pass_limit(claude, tmp_path):
    provider, _ = claude
    calls = iter(range(100))

    def work(batched):
        each_row([next(calls)], lambda n: batched.chat([{"role": "user", "content": f"call {n}"}], max_tokens=100))

    with pytest.raises(Exception, match="still had model calls waiting after 2 batches"):
        run_in_batches(work, provider, BatchState(tmp_path / "s.json"), poll_s=0, max_passes=2,
                       batches=MessageBatches(provider.client, sleep=no_wait))


def test_a_batch_of_nothing_or_an_unknown_id_says_what_to_do(claude):
    provider, _ = claude
    batches = MessageBatches(provider.client, sleep=no_wait)
    with pytest.raises(ProviderError, match="at least one request"):
        batches.submit({})
