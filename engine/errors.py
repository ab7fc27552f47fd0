"""The engine's error tree.

Every message says what went wrong *and* what to do about it. Pages and the CLI
catch :class:`EngineError` and show its message; anything else is a bug.
"""

from __future__ import annotations

from engine.redaction import redact_text


class EngineError(Exception):
    """Base class for errors a user can act on.

    Text arguments are redacted when the error is made (an upstream message can echo an API key), so the message
    is safe wherever it is shown or stored.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(a) if isinstance(a, str) else a for a in args))


class ConfigError(EngineError):
    """A setting is missing or has an invalid value."""


class DocumentError(EngineError):
    """A file cannot be ingested (wrong type, empty, encrypted, too large...)."""


class UnitError(EngineError):
    """A unit is unknown, or two units measure different things (engine/units.py)."""


class KnowledgeBaseError(EngineError):
    """A knowledge base or document does not exist or cannot be changed."""


class SearchError(EngineError):
    """A search request is invalid (unknown mode, bad filter value...)."""


class ProviderError(EngineError):
    """A language-model provider failed or is not configured."""


class MissingKeyError(ProviderError):
    """The provider needs an API key that is not set."""


class AuthenticationError(EngineError):
    """No valid credentials were given where sign-in is required."""


class PermissionDenied(EngineError):
    """The signed-in user's role or grants do not allow this."""
