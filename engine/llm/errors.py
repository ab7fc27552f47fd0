"""Provider failures, one class per thing a user can do about it.

All are :class:`~engine.errors.ProviderError`, so pages that catch ``EngineError``
show them as they are. ``retryable`` tells a caller (agent loop, UI button) whether
trying again later can help; the SDK has already retried where that made sense.
"""

from __future__ import annotations

from engine.errors import ProviderError


class ProviderCallError(ProviderError):
    """A call to a hosted model failed; carries the HTTP status and request id when known."""

    retryable: bool = False

    def __init__(self, message: str, *, status_code: int | None = None, request_id: str | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.request_id = request_id


class InvalidKeyError(ProviderCallError):
    """The API key was rejected (wrong, revoked, or without access)."""


class RateLimitedError(ProviderCallError):
    """The API is rate limiting or overloaded, and the SDK's retries ran out."""

    retryable = True


class ProviderTimeoutError(ProviderCallError):
    """The API did not answer in time."""

    retryable = True


class ProviderConnectionError(ProviderCallError):
    """The API could not be reached (network, proxy, DNS)."""

    retryable = True


class ProviderServerError(ProviderCallError):
    """The API failed with a server error, and the SDK's retries ran out."""

    retryable = True


class ProviderRequestError(ProviderCallError):
    """The API rejected the request itself (bad parameters, unknown model, too large)."""


class UnknownModelError(ProviderRequestError):
    """A model id the API does not offer to this key; ``available`` holds the ids it does offer, when known."""

    def __init__(
        self,
        message: str,
        *,
        model: str,
        available: tuple[str, ...] = (),
        status_code: int | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code, request_id=request_id)
        self.model = model
        self.available = available


class UnusableReplyError(ProviderError):
    """The model answered, but the reply cannot be used as an answer or a review."""


class StructuredOutputError(UnusableReplyError):
    """The reply holds no JSON in the asked shape (no tool call, no parseable JSON) or it breaks the schema."""


class ModelRefusalError(UnusableReplyError):
    """The model declined the request (``stop_reason: "refusal"``); ``category`` is the API's reason, if given."""

    def __init__(self, message: str, *, category: str | None = None) -> None:
        super().__init__(message)
        self.category = category


class OutputCutOffError(UnusableReplyError):
    """The reply stopped at ``max_tokens`` or at the model's context window, before it was complete."""
