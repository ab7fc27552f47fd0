"""Replay recorded Messages API responses through a real Anthropic client on httpx2.MockTransport.

The SDK (2.x) builds on ``httpx2``, not ``httpx``: its ``http_client`` must be an ``httpx2.Client``.
``replay`` serves one list of responses for the Messages API and answers the Models API apart
(a 404 unless a list is given, so capabilities are unknown); ``routed`` serves one list per path
(``/v1/models``, ``/v1/messages``, ...), for tests that list models and then call one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator

import anthropic
import httpx2
import pytest

from engine.llm import models
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.models import ModelResolver

RECORDINGS = Path(__file__).parent / "recordings"


NO_MODEL_LIST = [{"status": 404, "body": {"type": "error", "error": {"type": "not_found_error",
                                                                      "message": "no model list recorded"}}}]


class RecordedAPI:
    """A MockTransport handler: serves a recording's responses in order (the last one repeats).

    Requests to the Models API (``/v1/models...``) are answered from ``models`` instead and kept in
    ``model_requests``, so ``requests``, ``calls`` and ``bodies`` are about the other calls only.
    """

    def __init__(self, responses: list[dict[str, Any]], models: list[dict[str, Any]] = NO_MODEL_LIST) -> None:
        self.responses = responses
        self.models = models
        self.requests: list[httpx2.Request] = []
        self.model_requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/v1/models"):
            self.model_requests.append(request)
            return serve(self.models[min(len(self.model_requests), len(self.models)) - 1], request)
        self.requests.append(request)
        return serve(self.responses[min(len(self.requests), len(self.responses)) - 1], request)

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of each request the SDK sent."""
        return [json.loads(request.content) for request in self.requests]


class RoutedAPI:
    """A MockTransport handler with one response list per URL path (the last one of each repeats)."""

    def __init__(self, routes: dict[str, list[dict[str, Any]]]) -> None:
        self.routes = routes
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        responses = self.routes.get(request.url.path)
        if responses is None:
            error = {"type": "not_found_error", "message": f"no route for {request.url.path}"}
            return httpx2.Response(404, json={"type": "error", "error": error})
        served = sum(1 for r in self.requests if r.url.path == request.url.path)
        return serve(responses[min(served, len(responses)) - 1], request)

    def calls(self, path: str) -> int:
        return sum(1 for r in self.requests if r.url.path == path)


def serve(recorded: dict[str, Any], request: httpx2.Request) -> httpx2.Response:
    """One recorded response, or the transport error it names (``{"raise": "ConnectError"}``).

    A recording of server-sent events (``"sse": [...]``) is served as a stream; one that ``"breaks"``
    after its events ends with a dropped connection. A recorded JSON message answers a streaming
    request (``"stream": true``) as the API streams that message (:func:`sse_events`).
    """
    if "raise" in recorded:
        raise getattr(httpx2, recorded["raise"])(recorded.get("message", "recorded failure"), request=request)
    if "sse" in recorded:
        return sse_response(recorded["sse"], recorded.get("headers", {}), breaks=recorded.get("breaks"))
    if recorded["status"] == 200 and _streaming(request) and recorded["body"].get("type") == "message":
        return sse_response(sse_events(recorded["body"]), recorded.get("headers", {}))
    return httpx2.Response(recorded["status"], headers=recorded.get("headers", {}), json=recorded["body"])


def _streaming(request: httpx2.Request) -> bool:
    try:
        return bool(json.loads(request.content or b"{}").get("stream"))
    except (ValueError, AttributeError):
        return False


def sse_response(events: list[dict[str, Any]], headers: dict[str, str], breaks: str | None = None) -> httpx2.Response:
    """``events`` as a ``text/event-stream`` body; with ``breaks`` (an httpx2 error name) the body then fails."""
    chunks = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]

    def body():
        yield from chunks
        if breaks:
            raise getattr(httpx2, breaks)("peer closed connection without sending complete message body")

    return httpx2.Response(200, headers={**headers, "content-type": "text/event-stream"}, content=body())


def sse_events(message: dict[str, Any], piece: int = 24) -> list[dict[str, Any]]:
    """A recorded message as the stream of events the Messages API sends for it.

    Text arrives in pieces of ``piece`` characters, each citation as a ``citations_delta``, thinking
    as ``thinking_delta`` then ``signature_delta``, tool input as ``input_json_delta``; usage as in
    the API (input and cache counts on ``message_start``, output on ``message_delta``).
    """
    usage = dict(message["usage"])
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": "", "citations": None}})
            for citation in block.get("citations") or ():
                events.append({"type": "content_block_delta", "index": index,
                               "delta": {"type": "citations_delta", "citation": citation}})
            text = block["text"]
            for at in range(0, len(text), piece):
                events.append({"type": "content_block_delta", "index": index,
                               "delta": {"type": "text_delta", "text": text[at:at + piece]}})
        elif kind == "thinking":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "thinking_delta", "thinking": block["thinking"]}})
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "signature_delta", "signature": block["signature"]}})
        elif kind == "tool_use":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {**block, "input": {}}})
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    if message.get("stop_details") is not None:
        delta["stop_details"] = message["stop_details"]
    events.append({"type": "message_delta", "delta": delta, "usage": {"output_tokens": usage["output_tokens"]}})
    events.append({"type": "message_stop"})
    return events


def load_recording(name: str) -> list[dict[str, Any]]:
    return json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))["responses"]


def mock_client(handler: Callable[[httpx2.Request], httpx2.Response], **options: Any) -> anthropic.Anthropic:
    """A real SDK client whose requests go to ``handler``."""
    options.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key="test-key", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
                               **options)


@pytest.fixture(autouse=True)
def _fresh_model_cache() -> Iterator[None]:
    """Each test starts and ends with an empty process-wide model list."""
    models.MODELS.clear()
    yield
    models.MODELS.clear()


@pytest.fixture
def routed() -> Iterator[Callable[..., tuple[anthropic.Anthropic, RoutedAPI]]]:
    """``routed({"/v1/models": "models_list", "/v1/messages": [...]})`` -> (client, api); names load recordings."""
    clients: list[anthropic.Anthropic] = []

    def make(routes: dict[str, str | list[dict[str, Any]]], **options: Any) -> tuple[anthropic.Anthropic, RoutedAPI]:
        api = RoutedAPI({path: load_recording(r) if isinstance(r, str) else r for path, r in routes.items()})
        clients.append(mock_client(api, **options))
        return clients[-1], api

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def replay() -> Iterator[Callable[..., tuple[AnthropicProvider, RecordedAPI]]]:
    """``replay(name_or_responses, max_retries=2, model=..., timeout=60, models=None)`` -> (provider, api).

    ``models`` names a Models API recording (or gives its responses); without it the list 404s.
    """
    clients: list[anthropic.Anthropic] = []

    def make(
        recording: str | list[dict[str, Any]],
        *,
        max_retries: int = 2,
        model: str = "claude-sonnet-4-5",
        timeout: Any = 60.0,
        models: str | list[dict[str, Any]] | None = None,
        **options: Any,
    ) -> tuple[AnthropicProvider, RecordedAPI]:
        listed = NO_MODEL_LIST if models is None else load_recording(models) if isinstance(models, str) else models
        api = RecordedAPI(load_recording(recording) if isinstance(recording, str) else recording, listed)
        client = anthropic.Anthropic(
            api_key="test-key",
            http_client=httpx2.Client(transport=httpx2.MockTransport(api)),
            max_retries=max_retries,
            timeout=timeout,
        )
        clients.append(client)
        return AnthropicProvider(model, client=client, models=ModelResolver(), **options), api

    yield make
    for client in clients:
        client.close()
