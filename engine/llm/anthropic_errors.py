"""SDK errors as ProviderErrors a user can act on, and which broken streams are worth starting again."""

from __future__ import annotations

from typing import Sequence

import anthropic
import httpx2

from engine.errors import ProviderError
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
from engine.llm.models import unknown_model_message

API_KEY_ENV = "ANTHROPIC_API_KEY"
OFFLINE_HINT = "or choose the offline provider"
_OFFLINE_HINT = OFFLINE_HINT


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


def broken_reason(exc: BaseException) -> str:
    """A short account of why a stream broke."""
    if isinstance(exc, anthropic.APIStatusError):
        return f"{exc.type or 'error'}: {exc.api_message or exc.message}"
    return f"{type(exc).__name__}: {exc}"


def retryable(exc: BaseException) -> bool:
    """Whether starting a broken stream again can help (dropped connection, overload, server error)."""
    if isinstance(exc, (httpx2.TransportError, anthropic.APIConnectionError)):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.type in ("overloaded_error", "api_error", "rate_limit_error") or exc.status_code >= 500
    return False
