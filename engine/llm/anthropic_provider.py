"""Claude through the Anthropic Messages API, with native tool use.

Retries (429, 529, 5xx, timeouts, dropped connections) and timeouts are the SDK's own;
this module only shapes requests; replies become :mod:`engine.llm.base` types in
:mod:`engine.llm.anthropic_replies`, and SDK errors :class:`~engine.errors.ProviderError` subclasses
that say what to do in :mod:`engine.llm.anthropic_errors`.
Which model to use when none is named is :mod:`engine.llm.models`' business.

Request shapes follow what the Models API says each model accepts
(:mod:`engine.llm.capabilities`): no sampling parameters and no thinking budget are ever sent,
a conversation that ends in an assistant turn (prefill) is refused before sending, ``thinking`` is
set to the least up-front thinking the model accepts (``disabled``, else ``between_tools``, else
left out), and ``output_format`` becomes ``output_config.format``. ``thinking`` blocks in a
reply are never read as text; they are kept in ``raw_content`` to be sent back unchanged.

Prompt caching: callers mark the stable prefix of a request themselves (a ``cache_control`` on the
block that ends it: the evidence, for the generator and the reviewer); a conversation of several
turns that marks nothing (the agent) gets the top-level ``cache_control``, so each turn reads the
turns before it from the cache. Cache reads and writes come back in ``ChatResponse.usage``.
Claude's citations (``search_result_location``) come back on the text blocks they belong to.
:meth:`AnthropicProvider.stream` streams a turn (``messages.stream``) and starts it again when the
stream breaks mid-way, up to ``stream_retries`` times.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from typing import Any, Iterator, Sequence

import anthropic
import httpx2

from engine.errors import ConfigError, MissingKeyError
from engine.llm.anthropic_errors import API_KEY_ENV, OFFLINE_HINT, broken_reason, map_api_error, retryable
from engine.llm.anthropic_replies import KEPT_FOR_REPLAY, to_chat_response, to_citations, to_usage
from engine.llm.base import ChatResponse, Message, ToolSpec
from engine.llm.capabilities import CURRENT_CLAUDE, ModelCapabilities
from engine.llm.errors import ProviderConnectionError, ProviderRequestError
from engine.llm.models import FALLBACK_MODELS, MODELS, ModelCatalog, ModelResolver, Role
from engine.llm.streaming import StreamDone, StreamEvent, StreamRestart, TextDelta

__all__ = ["API_KEY_ENV", "KEPT_FOR_REPLAY", "AnthropicProvider", "map_api_error", "to_api_messages",
           "to_chat_response", "to_citations", "to_output_format", "to_tool_param", "to_usage"]

log = logging.getLogger(__name__)

_OFFLINE_HINT = OFFLINE_HINT
CACHE_BREAKPOINT = {"type": "ephemeral"}
"""A five-minute prompt-cache breakpoint (the default lifetime; a one-hour write costs 2x input, not 1.25x)."""
PROMPT_CACHE_ENV = "WORKBENCH_PROMPT_CACHE"
"""``off`` turns prompt caching off (it pays only when a second call reads the cached prefix: docs/claude.md)."""
STREAM_RETRIES = 2  # a stream that breaks mid-way is started again this often before the turn fails


class AnthropicProvider:
    """A :class:`~engine.llm.base.Provider` backed by Claude.

    The key comes from ``api_key`` or, when that is not given, from ``ANTHROPIC_API_KEY``
    at construction; it is handed to the SDK client and kept nowhere else. An injected
    ``client`` is used as it is, with its own key, timeout and retry settings. Without a
    ``model`` the newest Sonnet model the API lists is used (see :mod:`engine.llm.models`);
    ``models`` replaces the process-wide resolver. ``up_front_thinking=True`` leaves ``thinking``
    out of every request, so models that think by default (Claude Sonnet 5.5, Haiku 5.5) do;
    by default each request asks for the least thinking the model accepts.
    ``prompt_caching=False`` sends no cache breakpoints (callers' markers are removed too); left
    out, ``WORKBENCH_PROMPT_CACHE=off`` in the environment does the same. ``stream_retries`` is how
    often a stream that breaks mid-way is started again.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60,
        max_retries: int = 3,
        client: anthropic.Anthropic | None = None,
        models: ModelResolver | None = None,
        up_front_thinking: bool = False,
        prompt_caching: bool | None = None,
        stream_retries: int = STREAM_RETRIES,
    ) -> None:
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ConfigError(
                f"Anthropic model id must be a non-empty string, got {model!r}; "
                f"e.g. {FALLBACK_MODELS['generator']!r}, or leave it out to use the newest Sonnet model."
            )
        if timeout <= 0:
            raise ConfigError(f"Anthropic timeout must be greater than 0 seconds, got {timeout}.")
        if max_retries < 0:
            raise ConfigError(f"Anthropic max_retries must be 0 or more, got {max_retries}.")
        if stream_retries < 0:
            raise ConfigError(f"Anthropic stream_retries must be 0 or more, got {stream_retries}.")
        if client is None:
            key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
            if not key or not key.strip():
                raise MissingKeyError(f"{API_KEY_ENV} is not set: set it, {_OFFLINE_HINT}")
            client = anthropic.Anthropic(api_key=key.strip(), timeout=timeout, max_retries=max_retries)
        self._client = client
        self._models = models if models is not None else MODELS
        self.up_front_thinking = bool(up_front_thinking)
        if prompt_caching is None:
            prompt_caching = os.environ.get(PROMPT_CACHE_ENV, "on").strip().lower() not in ("off", "0", "false", "no")
        self.prompt_caching = bool(prompt_caching)
        self.stream_retries = int(stream_retries)
        self.model = model.strip() if model is not None else self.resolve_model("generator")
        self.name = f"anthropic:{self.model}"

    @property
    def timeout(self) -> float | None:
        """Seconds the client waits for a reply (read timeout), as configured on the client."""
        return _seconds(self._client.timeout)

    @property
    def max_retries(self) -> int:
        return self._client.max_retries

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, timeout={self.timeout}, max_retries={self.max_retries})"

    def resolve_model(self, role: Role, configured: str | None = None) -> str:
        """The model for ``role``: ``configured`` once the API confirms it, else the newest of the role's line.

        Raises UnknownModelError, naming the available ids, for a configured id the API does not offer.
        """
        return self._models.resolve(self._client, role, configured)

    def available_models(self) -> tuple[str, ...]:
        """Ids the Models API lists for this key, newest first; empty when it cannot be asked."""
        return self._models.catalog(self._client).ids

    def catalog(self) -> ModelCatalog:
        """The Models API's list for this key (each model's line and date), or why it could not be asked."""
        return self._models.catalog(self._client)

    def capabilities(self, model: str | None = None) -> ModelCapabilities:
        """What ``model`` (default: this provider's) accepts, per the Models API.

        :data:`~engine.llm.capabilities.CURRENT_CLAUDE` when the API does not say (list not
        fetched, id not shown, no ``capabilities`` field). With ``prompt_caching=False`` the model is
        reported as taking no cache breakpoints, so callers send none.
        """
        found = self._models.capabilities(self._client, model or self.model) or CURRENT_CLAUDE
        return found if self.prompt_caching else dataclasses.replace(found, prompt_caching=False)

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (for the Message Batches API, :mod:`engine.llm.batches`)."""
        return self._client

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
        """Answer one turn through ``messages.create``; SDK errors become ProviderError subclasses."""
        used_model = model or self.model
        params = self.request(messages, system=system, tools=tools, tool_choice=tool_choice,
                              max_tokens=max_tokens, model=used_model, output_format=output_format)
        log.debug("anthropic request: model=%s messages=%d tools=%d thinking=%s json=%s", used_model,
                  len(params["messages"]), len(tools), params.get("thinking"), "output_config" in params)
        try:
            reply = self._client.messages.create(**params)
        except anthropic.APIError as exc:
            available = self.available_models() if isinstance(exc, anthropic.NotFoundError) else ()
            raise map_api_error(
                exc, model=used_model, retries=self.max_retries, timeout=self.timeout, available=available
            ) from exc
        except ValueError as exc:  # the SDK refuses some requests before sending, e.g. huge non-streaming max_tokens
            raise ProviderRequestError(
                f"The Anthropic SDK refused the request before sending it ({exc}). "
                f"Lower max_tokens (now {max_tokens}), or give the client an explicit timeout."
            ) from exc
        response = to_chat_response(reply)
        log.debug(
            "anthropic reply: model=%s stop=%s in=%d out=%d",
            response.model,
            response.stop_reason,
            response.usage.input_tokens,
            response.usage.output_tokens,
        )
        return response

    def stream(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        tools: Sequence[ToolSpec] = (),
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        model: str | None = None,
        output_format: dict[str, Any] | None = None,
    ) -> Iterator[StreamEvent]:
        """One turn through ``messages.stream``: text deltas as they arrive, then the whole response.

        A stream that breaks after it started (a dropped connection, an ``overloaded_error`` event)
        is started again, up to ``stream_retries`` times, each announced by a StreamRestart; one that
        breaks more often raises a ProviderError that says how far it got. A request the API refuses
        raises as :meth:`chat` does.
        """
        used_model = model or self.model
        params = self.request(messages, system=system, tools=tools, tool_choice=tool_choice,
                              max_tokens=max_tokens, model=used_model, output_format=output_format)
        attempt = 0
        while True:
            received, broken = 0, None
            try:
                with self._client.messages.stream(**params) as events:  # sent here; a refusal raises now
                    try:
                        for event in events:
                            if event.type == "text":
                                received += len(event.text)
                                yield TextDelta(event.text)
                        final = events.get_final_message()
                    except (anthropic.APIError, httpx2.TransportError) as exc:  # broke after it started
                        broken = exc
            except anthropic.APIError as exc:
                available = self.available_models() if isinstance(exc, anthropic.NotFoundError) else ()
                raise map_api_error(exc, model=used_model, retries=self.max_retries, timeout=self.timeout,
                                    available=available) from exc
            except ValueError as exc:
                raise ProviderRequestError(f"The Anthropic SDK refused the request before sending it ({exc}). "
                                           f"Lower max_tokens (now {max_tokens}).") from exc
            if broken is None:
                response = to_chat_response(final)
                log.debug("anthropic stream: model=%s stop=%s in=%d out=%d cache read=%d write=%d", response.model,
                          response.stop_reason, response.usage.input_tokens, response.usage.output_tokens,
                          response.usage.cache_read_input_tokens, response.usage.cache_creation_input_tokens)
                yield StreamDone(response)
                return
            reason = broken_reason(broken)
            if not retryable(broken) and isinstance(broken, anthropic.APIError):
                raise map_api_error(broken, model=used_model, retries=0, timeout=self.timeout) from broken
            if attempt >= self.stream_retries:
                raise ProviderConnectionError(
                    f"The stream from {used_model} broke after {received} characters ({reason}), "
                    f"{attempt + 1} time(s) in a row. Retry, {_OFFLINE_HINT}.") from broken
            attempt += 1
            log.warning("anthropic stream broke after %d characters (%s); starting it again (%d of %d)",
                        received, reason, attempt, self.stream_retries)
            yield StreamRestart(attempt=attempt, reason=reason, received=received)

    def request(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        tools: Sequence[ToolSpec] = (),
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        model: str | None = None,
        output_format: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The ``messages.create`` parameters for one turn, shaped for what the model accepts.

        Raises ProviderRequestError, before anything is sent, for a conversation that ends in an
        assistant turn (prefill: current models answer it with a 400) and for a schema that
        structured outputs cannot take.
        """
        used_model = model or self.model
        api_messages = to_api_messages(messages)
        if api_messages and api_messages[-1].get("role") == "assistant":
            raise ProviderRequestError(
                "The conversation ends with an assistant turn (prefill), which current Claude models refuse "
                "with a 400. End it with the user's turn; ask for JSON with structured outputs instead."
            )
        params: dict[str, Any] = {"model": used_model, "max_tokens": max_tokens, "messages": api_messages}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = [to_tool_param(tool) for tool in tools]
        if tool_choice is not None:
            params["tool_choice"] = dict(tool_choice)
        if output_format is not None:
            params["output_config"] = {"format": to_output_format(output_format)}
        capabilities = self.capabilities(used_model)
        thinking = None if self.up_front_thinking else capabilities.least_thinking()
        if thinking is not None:
            params["thinking"] = thinking
        if not capabilities.prompt_caching:
            _drop_breakpoints(params)
        elif len(api_messages) > 1 and not _has_breakpoint(params):
            params["cache_control"] = dict(CACHE_BREAKPOINT)  # a growing conversation: cache what came before
        return params


def to_api_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as the API takes them; content blocks given as dataclasses become dicts."""
    converted = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, (list, tuple)):
            message = {**message, "content": [b.to_dict() if hasattr(b, "to_dict") else b for b in content]}
        converted.append(dict(message))
    return converted


def to_tool_param(tool: ToolSpec) -> dict[str, Any]:
    """A ToolSpec as an API tool definition; strict tools get a schema the API accepts for strict mode."""
    if not tool.strict:
        return tool.to_dict()
    try:
        schema = anthropic.transform_schema(tool.input_schema)
    except (ValueError, TypeError) as exc:
        raise ProviderRequestError(
            f"Tool {tool.name!r} cannot be used in strict mode: {exc}. "
            "Give every property a type, or pass the tool with strict=False."
        ) from exc
    return {"name": tool.name, "description": tool.description, "input_schema": schema, "strict": True}


def to_output_format(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema as ``output_config.format``, rewritten into the subset structured outputs accept.

    Constraints the API cannot enforce (``minimum``, ``maxLength``...) move into descriptions, as
    for strict tools; the caller still checks the reply against the original schema.
    """
    try:
        return {"type": "json_schema", "schema": anthropic.transform_schema(schema)}
    except (ValueError, TypeError) as exc:
        raise ProviderRequestError(
            f"The schema cannot be used for structured outputs: {exc}. Give every property a type."
        ) from exc


def _has_breakpoint(params: dict[str, Any]) -> bool:
    """Whether any block of the request (system, tools, messages) carries a ``cache_control``."""
    blocks = [*(params.get("system") if isinstance(params.get("system"), list) else ()), *params.get("tools", ())]
    for message in params["messages"]:
        content = message.get("content")
        blocks += content if isinstance(content, list) else []
    return any(isinstance(b, dict) and b.get("cache_control") for b in blocks)


def _drop_breakpoints(params: dict[str, Any]) -> None:
    """Remove every ``cache_control`` marker from the request's message blocks (prompt caching off)."""
    for message in params["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            message["content"] = [{k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b
                                  for b in content]


def _seconds(timeout: Any) -> float | None:
    """A client timeout (number, httpx2.Timeout or None) as read-timeout seconds."""
    if timeout is None or isinstance(timeout, (int, float)):
        return timeout
    return getattr(timeout, "read", None)
