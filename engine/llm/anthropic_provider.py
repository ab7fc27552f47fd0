"""Claude through the Anthropic Messages API, with native tool use.

Retries (429, 529, 5xx, timeouts, dropped connections) and timeouts are the SDK's own;
this module only shapes requests, converts replies to :mod:`engine.llm.base` types and
turns SDK errors into :class:`~engine.errors.ProviderError` subclasses that say what to do.
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

from engine.errors import ConfigError, MissingKeyError, ProviderError
from engine.llm.base import (
    ChatResponse,
    Citation,
    ContentBlock,
    Message,
    Refusal,
    TextBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from engine.llm.capabilities import CURRENT_CLAUDE, ModelCapabilities
from engine.llm.errors import (
    InvalidKeyError,
    ProviderCallError,
    ProviderConnectionError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
    UnknownModelError,
)
from engine.llm.models import FALLBACK_MODELS, MODELS, ModelCatalog, ModelResolver, Role, unknown_model_message
from engine.llm.streaming import StreamDone, StreamEvent, StreamRestart, TextDelta

log = logging.getLogger(__name__)

API_KEY_ENV = "ANTHROPIC_API_KEY"
_OFFLINE_HINT = "or choose the offline provider"
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
            reason = _broken(broken)
            if not _retryable(broken) and isinstance(broken, anthropic.APIError):
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


KEPT_FOR_REPLAY = frozenset({"thinking", "redacted_thinking"})
"""Reply blocks that are not read but must go back unchanged with the rest of the turn."""


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


def _broken(exc: BaseException) -> str:
    """A short account of why a stream broke."""
    if isinstance(exc, anthropic.APIStatusError):
        return f"{exc.type or 'error'}: {exc.api_message or exc.message}"
    return f"{type(exc).__name__}: {exc}"


def _retryable(exc: BaseException) -> bool:
    """Whether starting a broken stream again can help (dropped connection, overload, server error)."""
    if isinstance(exc, (httpx2.TransportError, anthropic.APIConnectionError)):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.type in ("overloaded_error", "api_error", "rate_limit_error") or exc.status_code >= 500
    return False


def to_chat_response(reply: Any) -> ChatResponse:
    """Convert an SDK ``Message`` into a ChatResponse.

    Text and tool_use blocks become ``content`` (text with the search-result citations it carries);
    ``thinking`` and ``redacted_thinking`` blocks are never read as text, and when present the
    whole turn is kept in ``raw_content`` for replay. Other block types are dropped. Usage keeps
    the cache reads and writes and the service tier.
    """
    blocks: list[ContentBlock] = []
    kept = False
    for block in reply.content:
        if block.type == "text":
            blocks.append(TextBlock(text=block.text, citations=to_citations(getattr(block, "citations", None))))
        elif block.type == "tool_use":
            blocks.append(ToolUseBlock(id=block.id, name=block.name, input=dict(block.input)))
        elif block.type in KEPT_FOR_REPLAY:
            kept = True
        else:
            log.debug("anthropic reply: dropped a %s block", block.type)
    raw = tuple(b.model_dump(mode="json", exclude_none=True) for b in reply.content) if kept else ()
    return ChatResponse(
        content=tuple(blocks), stop_reason=reply.stop_reason or "end_turn", usage=to_usage(reply.usage),
        model=reply.model, refusal=_refusal(reply), raw_content=raw,
    )


def to_usage(usage: Any) -> Usage:
    """An SDK ``Usage`` as engine Usage: uncached input, output, cache reads and writes, service tier."""
    if usage is None:
        return Usage()
    split = getattr(usage, "cache_creation", None)
    return Usage(
        input_tokens=getattr(usage, "input_tokens", 0) or 0,
        output_tokens=getattr(usage, "output_tokens", 0) or 0,
        cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
        cache_creation_1h_input_tokens=getattr(split, "ephemeral_1h_input_tokens", 0) or 0,
        service_tier=getattr(usage, "service_tier", None) or "standard",
    )


def to_citations(citations: Any) -> tuple[Citation, ...]:
    """The ``search_result_location`` citations of a text block; citations of other kinds are not kept."""
    found = []
    for citation in citations or ():
        if getattr(citation, "type", None) != "search_result_location":
            log.debug("anthropic reply: dropped a %s citation", getattr(citation, "type", "?"))
            continue
        found.append(Citation(
            search_result_index=citation.search_result_index, cited_text=citation.cited_text or "",
            source=citation.source or "", title=citation.title or "",
            start_block_index=citation.start_block_index, end_block_index=citation.end_block_index))
    return tuple(found)


def _refusal(reply: Any) -> Refusal | None:
    """The API's reason for a refusal (``stop_details``), when the reply is one."""
    if reply.stop_reason != "refusal":
        return None
    details = getattr(reply, "stop_details", None)
    return Refusal(category=getattr(details, "category", None) or "",
                   explanation=getattr(details, "explanation", None) or "")


def map_api_error(
    exc: anthropic.APIError,
    *,
    model: str,
    retries: int,
    timeout: float | None,
    available: Sequence[str] = (),
) -> ProviderError:
    """The ProviderError a user can act on, for an SDK error raised after the SDK's own retries.

    ``available`` (the ids the Models API lists) is named when the model is not found.
    """
    if isinstance(exc, anthropic.APITimeoutError):
        wait = f"within {timeout:g}s" if timeout else "in time"
        return ProviderTimeoutError(
            f"The Anthropic API did not answer {wait} (after {retries} retries). "
            f"Retry, raise the timeout, lower max_tokens, {_OFFLINE_HINT}."
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {cause}" if cause else ""
        return ProviderConnectionError(
            f"Could not reach the Anthropic API{detail} (after {retries} retries). "
            f"Check the network connection and proxy settings, {_OFFLINE_HINT}."
        )
    if not isinstance(exc, anthropic.APIStatusError):
        return ProviderCallError(f"Unexpected reply from the Anthropic API ({exc.message}). Retry, {_OFFLINE_HINT}.")

    status, request_id = exc.status_code, exc.request_id
    api_message = exc.api_message or (exc.body if isinstance(exc.body, str) else "") or exc.message
    what = f"{exc.type}: {api_message}" if exc.type else api_message
    ref = f" [request id {request_id}]" if request_id else ""

    def make(cls: type[ProviderCallError], text: str) -> ProviderCallError:
        return cls(text + ref, status_code=status, request_id=request_id)

    if isinstance(exc, anthropic.AuthenticationError):
        return make(
            InvalidKeyError, f"The Anthropic API rejected the API key ({what}). Check {API_KEY_ENV}, {_OFFLINE_HINT}."
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return make(
            InvalidKeyError,
            f"The API key may not use this model or feature ({what}). Use a key with access, or another model.",
        )
    if isinstance(exc, anthropic.RateLimitError):
        return make(
            RateLimitedError,
            f"The Anthropic API is rate limiting requests, still after {retries} retries ({what}). "
            f"Retry later, send fewer requests at once, {_OFFLINE_HINT}.",
        )
    if isinstance(exc, anthropic.OverloadedError) or exc.type == "overloaded_error":
        return make(
            RateLimitedError,
            f"The Anthropic API is overloaded, still after {retries} retries ({what}). Retry later, {_OFFLINE_HINT}.",
        )
    if isinstance(exc, anthropic.NotFoundError):
        ids = tuple(available)
        return UnknownModelError(
            f"{unknown_model_message(model, ids)} ({what}){ref}",
            model=model,
            available=ids,
            status_code=status,
            request_id=request_id,
        )
    if isinstance(exc, anthropic.ContentTooLargeError):
        return make(
            ProviderRequestError,
            f"The request is too large for the Anthropic API ({what}). Send fewer or shorter evidence chunks.",
        )
    if isinstance(exc, anthropic.PaymentRequiredError):
        return make(InvalidKeyError, f"The Anthropic account cannot pay for this request ({what}). Check billing.")
    if status >= 500:
        return make(
            ProviderServerError,
            f"The Anthropic API failed with a server error {status}, still after {retries} retries ({what}). "
            f"Retry later, {_OFFLINE_HINT}.",
        )
    return make(
        ProviderRequestError,
        f"The Anthropic API rejected the request with {status} ({what}). " + _request_hint(api_message, model),
    )


REQUEST_SHAPE_HINTS = (
    ("tool_choice", "Model {model} does not take a forced tool_choice: leave tool_choice out (auto), or ask for "
                    "JSON with structured outputs (structured_call picks the shape from the Models API)."),
    ("thinking", "Model {model} does not take this thinking setting: leave thinking out, or send a type the "
                 "Models API lists for it."),
    ("prefill", "Model {model} does not take a prefilled assistant turn: end the conversation with the user's "
                "turn."),
    ("temperature", "Model {model} does not take sampling parameters: leave temperature, top_p and top_k out."),
)


def _request_hint(api_message: str, model: str) -> str:
    """What to change for a 400, naming the request shape the API's message is about when it is one of the known."""
    lowered = api_message.lower()
    for key, hint in REQUEST_SHAPE_HINTS:
        if key in lowered:
            return hint.format(model=model)
    return "Fix the request (model, messages, tools, max_tokens) and retry."


def _seconds(timeout: Any) -> float | None:
    """A client timeout (number, httpx2.Timeout or None) as read-timeout seconds."""
    if timeout is None or isinstance(timeout, (int, float)):
        return timeout
    return getattr(timeout, "read", None)
