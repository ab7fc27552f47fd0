"""Keep credentials out of everything the engine prints or stores.

An upstream error can echo the request it failed on, headers and all. Every place where text
leaves the engine for a person or for disk (CLI output, logs, the trace store, agent run state
and audit log) passes it through :func:`redact_text` or :func:`redact_strings`, which replace

- the values of the credential environment variables (``ANTHROPIC_API_KEY``, ...), wherever
  they appear, whatever they look like;
- key-shaped strings: ``sk-ant-...`` and other ``sk-...`` keys, GitHub, AWS and Slack tokens;
- the value of credential headers and fields: ``x-api-key: ...``, ``"x-api-key": "..."``,
  ``Authorization: Bearer ...``, ``api_key=...``, and any ``Bearer <token>``.

with ``[REDACTED]``.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

REDACTED = "[REDACTED]"
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
MIN_SECRET_LENGTH = 8
"""Shorter environment values are not searched for: replacing every "abc" in a text hides nothing and garbles it."""

KEY_SHAPED = re.compile(
    r"\bsk-[A-Za-z0-9_-]{8,}"  # Anthropic (sk-ant-...) and other sk- keys
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
)
CREDENTIAL_FIELD = re.compile(
    r"(?P<name>\b(?:x-api-key|anthropic-api-key|api[_-]?key|x-auth-token|auth[_-]?token|access[_-]?token"
    r"|(?:proxy-)?authorization)[\"']?\s*[:=]\s*[\"']?)"
    r"(?!(?:(?:Bearer|Basic|Token)\s+)?<[A-Za-z][\w -]{0,30}>)"  # a placeholder in help text: "Bearer <token>"
    r"(?P<scheme>(?:Bearer|Basic|Token)\s+)?"
    r"(?P<value>\[REDACTED\]|[^\s\"',;}\[\])]+)",
    re.IGNORECASE,
)
BEARER = re.compile(r"\b(?P<scheme>Bearer\s+)(?P<value>[A-Za-z0-9._~+/=-]{8,})")
CUES = re.compile(r"sk-|gh[pousr]_|github_pat_|AKIA|xox[abprs]-|Bearer"
                  r"|(?i:api[_-]?key|auth[_-]?token|access[_-]?token|authorization)")
"""What every match of the three patterns above contains (a key's prefix, "Bearer", the core of a credential field's
name): text with none of these is left as it is without running them. A run's trace holds about 600 strings;
screening them first takes its redaction from about 1 ms to 0.5 ms. Keep in step with the patterns."""

_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Also redact ``value`` (a key given in code rather than through the environment) from now on."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        _registered.add(value.strip())


def known_secrets() -> list[str]:
    """The credential values to hide, read when needed (longest first, so no part of one is left behind)."""
    found = set(_registered)
    for name in SECRET_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if len(value) >= MIN_SECRET_LENGTH:
            found.add(value)
    return sorted(found, key=len, reverse=True)


def redact_text(text: str) -> str:
    """``text`` with every credential replaced by ``[REDACTED]``."""
    return _redact(text, known_secrets())


def _redact(text: str, secrets: list[str]) -> str:
    if not isinstance(text, str) or len(text) < MIN_SECRET_LENGTH:  # too short to hold any credential
        return text
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    if CUES.search(text) is None:
        return text
    text = KEY_SHAPED.sub(REDACTED, text)
    text = CREDENTIAL_FIELD.sub(lambda m: m["name"] + (m["scheme"] or "") + REDACTED, text)
    return BEARER.sub(lambda m: m["scheme"] + REDACTED, text)


def redact_strings(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, tuples, strings) with every string passed through redact_text.

    Keys are kept (a stored run state must still load); only the text in them and in values is cleaned.
    """
    return _redact_strings(value, known_secrets())  # the secrets read once for the whole value


def _redact_strings(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _redact(value, secrets)
    if isinstance(value, dict):
        return {_redact(k, secrets) if isinstance(k, str) else k: _redact_strings(v, secrets)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_strings(v, secrets) for v in value]
    return value


class RedactingFormatter(logging.Formatter):
    """A log formatter whose output, message and traceback alike, has credentials redacted."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


def redact_logging(logger: logging.Logger | None = None) -> None:
    """Make every handler of ``logger`` (default: the root logger) redact what it writes."""
    for handler in (logger or logging.getLogger()).handlers:
        current = handler.formatter
        if not isinstance(current, RedactingFormatter):
            fmt = current._fmt if current else None  # noqa: SLF001 - keep the handler's own layout
            datefmt = current.datefmt if current else None
            handler.setFormatter(RedactingFormatter(fmt, datefmt))
