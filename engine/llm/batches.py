"""Message Batches: many Messages API requests in one batch, at half price, answered within 24 hours.

:class:`MessageBatches` submits requests keyed by a custom id, reports a batch's progress, waits for
it with a progress callback, and reads its results back as ChatResponses (or the error each request
got). :class:`BatchedProvider` stands in for an :class:`~engine.llm.anthropic_provider.AnthropicProvider`
during a batch evaluation: a call whose result is known is answered from it; any other call is kept
as pending and raises :class:`BatchPending`, so one pass over a question set collects every call the
set needs next (:mod:`engine.evaluation.batch`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Sequence

import anthropic

from engine.errors import ProviderError
from engine.llm.anthropic_provider import AnthropicProvider, map_api_error, to_chat_response
from engine.llm.base import ChatResponse, Message, ToolSpec
from engine.llm.capabilities import ModelCapabilities
from engine.llm.errors import ProviderCallError

POLL_S = 30.0  # Anthropic suggests polling a batch no more often than this; most small batches end in minutes
MAX_REQUESTS = 100_000  # the API's limit per batch


@dataclass(frozen=True)
class BatchProgress:
    """Where one batch stands: its status and how many requests are in each state."""

    batch_id: str
    status: str
    processing: int = 0
    succeeded: int = 0
    errored: int = 0
    canceled: int = 0
    expired: int = 0

    @property
    def total(self) -> int:
        return self.processing + self.succeeded + self.errored + self.canceled + self.expired

    @property
    def ended(self) -> bool:
        return self.status == "ended"

    def describe(self) -> str:
        """One line for a progress display."""
        done = self.total - self.processing
        parts = [f"{self.succeeded} succeeded"] + [f"{n} {what}" for n, what in (
            (self.errored, "errored"), (self.canceled, "canceled"), (self.expired, "expired")) if n]
        return f"batch {self.batch_id}: {done}/{self.total} done ({', '.join(parts)}), {self.status}"

    @classmethod
    def from_api(cls, batch: Any) -> "BatchProgress":
        counts = batch.request_counts
        return cls(batch.id, batch.processing_status, counts.processing, counts.succeeded, counts.errored,
                   counts.canceled, counts.expired)


class BatchPending(ProviderError):
    """A call that waits for a Message Batch result; the evaluation submits it with the other pending calls."""


def request_key(params: Mapping[str, Any]) -> str:
    """A custom id for a request (``[A-Za-z0-9_-]``, at most 64 characters): the same request, the same id."""
    digest = hashlib.sha256(json.dumps(params, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    return f"req_{digest[:40]}"


class MessageBatches:
    """The Message Batches API over an SDK client; SDK errors become ProviderErrors that say what to do."""

    def __init__(self, client: anthropic.Anthropic, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self._sleep = sleep
        self._clock = clock

    def submit(self, requests: Mapping[str, Mapping[str, Any]]) -> BatchProgress:
        """Create one batch of ``requests`` (custom id -> ``messages.create`` parameters)."""
        if not requests:
            raise ProviderError("A Message Batch needs at least one request.")
        if len(requests) > MAX_REQUESTS:
            raise ProviderError(f"A Message Batch takes at most {MAX_REQUESTS} requests, not {len(requests)}; "
                                "evaluate fewer questions at a time (--limit).")
        body = [{"custom_id": key, "params": dict(params)} for key, params in requests.items()]
        try:
            return BatchProgress.from_api(self.client.messages.batches.create(requests=body))
        except anthropic.APIError as exc:
            raise self._error(exc) from exc

    def progress(self, batch_id: str) -> BatchProgress:
        """The batch's current status and request counts."""
        try:
            return BatchProgress.from_api(self.client.messages.batches.retrieve(batch_id))
        except anthropic.NotFoundError as exc:
            raise ProviderCallError(f"There is no Message Batch {batch_id!r} for this API key; check the id "
                                    "(it starts with msgbatch_) and the key it was created with.",
                                    status_code=exc.status_code) from exc
        except anthropic.APIError as exc:
            raise self._error(exc) from exc

    def wait(self, batch_id: str, on_progress: Callable[[BatchProgress], None] | None = None, *,
             poll_s: float = POLL_S, timeout_s: float | None = None) -> BatchProgress:
        """Poll until the batch has ended, reporting each poll; ProviderError after ``timeout_s``."""
        started = self._clock()
        while True:
            status = self.progress(batch_id)
            if on_progress is not None:
                on_progress(status)
            if status.ended:
                return status
            if timeout_s is not None and self._clock() - started >= timeout_s:
                raise ProviderError(f"Message Batch {batch_id} had not ended after {timeout_s:g} s "
                                    f"({status.describe()}). Run the command again later to resume it.")
            self._sleep(poll_s)

    def results(self, batch_id: str) -> dict[str, dict[str, Any]]:
        """Each request's outcome by custom id: ``{"message": {...}}`` or ``{"error": "what went wrong"}``."""
        found: dict[str, dict[str, Any]] = {}
        try:
            for item in self.client.messages.batches.results(batch_id):
                result = item.result
                if result.type == "succeeded":
                    found[item.custom_id] = {"message": result.message.model_dump(mode="json", exclude_none=True)}
                elif result.type == "errored":
                    error = getattr(result.error, "error", None)
                    found[item.custom_id] = {"error": f"{getattr(error, 'type', 'error')}: "
                                                      f"{getattr(error, 'message', result.error)}"}
                else:
                    found[item.custom_id] = {"error": f"the request was {result.type} before it ran"}
        except anthropic.APIError as exc:
            raise self._error(exc) from exc
        return found

    def _error(self, exc: anthropic.APIError) -> ProviderError:
        return map_api_error(exc, model="(Message Batches)", retries=self.client.max_retries, timeout=None)


def response_of(outcome: Mapping[str, Any]) -> ChatResponse:
    """A stored batch outcome as the ChatResponse a direct call would have given; ProviderCallError for an error."""
    if "message" not in outcome:
        raise ProviderCallError(f"The batched request failed: {outcome.get('error', 'no result')}. Run the "
                                "evaluation again to retry it in a new batch.")
    return to_chat_response(anthropic.types.Message.model_validate(outcome["message"]))


class BatchedProvider:
    """An AnthropicProvider whose calls are answered from batch results, or collected for the next batch.

    ``results`` maps request keys (:func:`request_key`) to stored outcomes. A call whose request has an
    outcome returns it (an errored request raises ProviderCallError); any other call is added to
    :attr:`pending` and raises BatchPending. Requests are shaped exactly as the provider shapes them
    for a direct call.
    """

    def __init__(self, provider: AnthropicProvider, results: Mapping[str, Mapping[str, Any]]) -> None:
        self.provider = provider
        self.results = results
        self.pending: dict[str, dict[str, Any]] = {}
        self.served = 0

    @property
    def name(self) -> str:
        return self.provider.name

    @property
    def model(self) -> str:
        return self.provider.model

    def capabilities(self, model: str | None = None) -> ModelCapabilities:
        return self.provider.capabilities(model)

    def resolve_model(self, role, configured: str | None = None) -> str:
        return self.provider.resolve_model(role, configured)

    def available_models(self) -> tuple[str, ...]:
        return self.provider.available_models()

    def chat(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        tools: Sequence[ToolSpec] = (),
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        model: str | None = None,
        output_format: dict[str, Any] | None = None,
    ) -> ChatResponse:
        """The batch's answer to this request, or BatchPending after keeping the request for the next batch."""
        params = self.provider.request(messages, system=system, tools=tools, tool_choice=tool_choice,
                                       max_tokens=max_tokens, model=model, output_format=output_format)
        key = request_key(params)
        outcome = self.results.get(key)
        if outcome is None:
            self.pending[key] = params
            raise BatchPending(f"Waiting for the Message Batch result of request {key}.")
        self.served += 1
        return response_of(outcome)
