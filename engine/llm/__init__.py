"""Language-model providers behind one Provider protocol, found by string id.

``get_provider("offline" | "anthropic[:model]" | "scripted")`` builds one; ``structured_call``
gets schema-shaped JSON in the way the model accepts (structured outputs, or a tool call). ``AnthropicProvider`` is imported on first
access so that the offline path never loads the Anthropic SDK.
"""

from __future__ import annotations

from typing import Any

from engine.llm.base import (
    ChatResponse,
    ContentBlock,
    Message,
    Provider,
    Refusal,
    TextBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from engine.llm.capabilities import ModelCapabilities
from engine.llm.errors import (
    InvalidKeyError,
    ModelRefusalError,
    OutputCutOffError,
    ProviderCallError,
    ProviderConnectionError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
    StructuredOutputError,
    UnknownModelError,
    UnusableReplyError,
)
from engine.llm.registry import default_provider_id, get_provider, known_provider_ids, register_provider
from engine.llm.scripted import ScriptedProvider
from engine.llm.structured import structured_call

__all__ = [
    "AnthropicProvider",
    "ChatResponse",
    "ContentBlock",
    "InvalidKeyError",
    "Message",
    "ModelCapabilities",
    "ModelRefusalError",
    "OutputCutOffError",
    "Provider",
    "ProviderCallError",
    "ProviderConnectionError",
    "ProviderRequestError",
    "ProviderServerError",
    "ProviderTimeoutError",
    "RateLimitedError",
    "Refusal",
    "ScriptedProvider",
    "StructuredOutputError",
    "TextBlock",
    "ToolSpec",
    "ToolUseBlock",
    "UnknownModelError",
    "UnusableReplyError",
    "Usage",
    "default_provider_id",
    "get_provider",
    "known_provider_ids",
    "register_provider",
    "structured_call",
]


def __getattr__(name: str) -> Any:
    if name == "AnthropicProvider":
        from engine.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider
    raise AttributeError(f"module 'engine.llm' has no attribute {name!r}")
