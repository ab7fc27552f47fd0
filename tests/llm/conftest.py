"""Replay recorded Messages API responses through a real Anthropic client on httpx2.MockTransport.

The SDK (2.x) builds on ``httpx2``, not ``httpx``: its ``http_client`` must be an ``httpx2.Client``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator

import anthropic
import httpx2
import pytest

from engine.llm.anthropic_provider import AnthropicProvider

RECORDINGS = Path(__file__).parent / "recordings"


class RecordedAPI:
    """A MockTransport handler: serves a recording's responses in order (the last one repeats)."""

    def __init__(self, responses: list[dict[str, Any]]) -> None:
        self.responses = responses
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        recorded = self.responses[min(len(self.requests), len(self.responses)) - 1]
        if "raise" in recorded:
            raise getattr(httpx2, recorded["raise"])(recorded.get("message", "recorded failure"), request=request)
        return httpx2.Response(recorded["status"], headers=recorded.get("headers", {}), json=recorded["body"])

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of each request the SDK sent."""
        return [json.loads(request.content) for request in self.requests]


def load_recording(name: str) -> list[dict[str, Any]]:
    return json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))["responses"]


@pytest.fixture
def replay() -> Iterator[Callable[..., tuple[AnthropicProvider, RecordedAPI]]]:
    """``replay(name_or_responses, max_retries=2, model=..., timeout=60)`` -> (provider, api) on a mock transport."""
    clients: list[anthropic.Anthropic] = []

    def make(
        recording: str | list[dict[str, Any]],
        *,
        max_retries: int = 2,
        model: str = "claude-sonnet-5-5",
        timeout: Any = 60.0,
    ) -> tuple[AnthropicProvider, RecordedAPI]:
        api = RecordedAPI(load_recording(recording) if isinstance(recording, str) else recording)
        client = anthropic.Anthropic(
            api_key="test-key",
            http_client=httpx2.Client(transport=httpx2.MockTransport(api)),
            max_retries=max_retries,
            timeout=timeout,
        )
        clients.append(client)
        return AnthropicProvider(model, client=client), api

    yield make
    for client in clients:
        client.close()
