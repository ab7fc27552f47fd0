"""What one model accepts in a request, as the Models API reports it, and the request shapes that follow.

Claude models differ in request shapes they refuse with a 400: Claude Sonnet 5.5 and Opus 5.5
refuse a forced ``tool_choice``, ``thinking: {"type": "disabled"}`` and thinking budgets; models
before structured outputs refuse ``output_config.format``. The Models API says per model whether it
supports structured outputs and which ``thinking.type`` values it accepts
(``ModelInfo.capabilities``); :class:`ModelCapabilities` keeps those answers, and the provider and
:func:`engine.llm.structured.structured_call` read them instead of guessing from a model id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

StructuredMode = Literal["json_output", "forced_tool", "tool"]
"""How schema-shaped JSON is asked for.

``json_output``: ``output_config.format`` with the JSON Schema; the reply's text is the JSON.
``forced_tool``: one tool and a ``tool_choice`` that forces it; the call's input is the JSON.
``tool``: the same tool offered without forcing (``tool_choice`` auto), for models that refuse
forcing and have no structured outputs; a reply without the call is an error.
"""

THINKING_TYPES = ("adaptive", "between_tools", "disabled", "enabled")
"""The ``thinking.type`` values the Models API reports on (``capabilities.thinking.types``)."""


@dataclass(frozen=True)
class ModelCapabilities:
    """Which request shapes one model accepts.

    ``listed`` is True when these come from the Models API; otherwise they are an assumption
    (see :data:`CURRENT_CLAUDE` and :data:`TOOL_CALLING`). ``thinking_types`` holds the accepted
    ``thinking.type`` values, empty for a model without thinking. ``citations``: the model takes
    evidence as ``search_result`` blocks and cites them itself (the Models API's
    ``capabilities.citations``). ``prompt_caching``: ``cache_control`` breakpoints are honoured (every
    Claude model; the Models API has no field for it, so it holds for any model the API lists).
    """

    listed: bool = False
    json_output: bool = False
    strict_tools: bool = True
    thinking_types: frozenset[str] = frozenset()
    citations: bool = False
    prompt_caching: bool = False

    @classmethod
    def from_api(cls, capabilities: Any) -> "ModelCapabilities | None":
        """From an SDK ``ModelCapabilities`` (``ModelInfo.capabilities``); None when the API sent none."""
        if capabilities is None:
            return None
        structured = bool(_supported(getattr(capabilities, "structured_outputs", None)))
        thinking = getattr(capabilities, "thinking", None)
        types = getattr(thinking, "types", None) if _supported(thinking) else None
        accepted = frozenset(name for name in THINKING_TYPES if _supported(getattr(types, name, None)))
        return cls(listed=True, json_output=structured, strict_tools=structured, thinking_types=accepted,
                   citations=bool(_supported(getattr(capabilities, "citations", None))), prompt_caching=True)

    @property
    def always_thinks(self) -> bool:
        """Thinking cannot be turned off (``disabled`` refused), as on Claude Sonnet 5.5 and Opus 5.5."""
        return bool(self.thinking_types) and "disabled" not in self.thinking_types

    @property
    def forced_tool_choice(self) -> bool:
        """Whether a ``tool_choice`` that forces a tool is accepted.

        Anthropic documents forced tool use as refused while thinking is on and refused outright by
        the models that cannot turn thinking off (Sonnet 5.5, Opus 5.5, Fable 5.1, Mythos 5.1); the
        Models API has no field of its own for it, so it is read from ``always_thinks``.
        """
        return not self.always_thinks

    @property
    def structured_mode(self) -> StructuredMode:
        """The way :func:`~engine.llm.structured.structured_call` asks this model for JSON."""
        if self.json_output:
            return "json_output"
        return "forced_tool" if self.forced_tool_choice else "tool"

    def least_thinking(self) -> dict[str, str] | None:
        """The ``thinking`` setting with the least up-front thinking the model accepts; None to send none.

        ``disabled`` where accepted, else ``between_tools`` (Sonnet 5.5: no up-front thinking; short
        notes between tool calls come back as ``thinking`` blocks), else nothing (adaptive only, e.g.
        Opus 5.5). Nothing is sent either when the capabilities were not listed, since every model
        accepts a request without ``thinking``.
        """
        if not self.listed or not self.thinking_types:
            return None
        for kind in ("disabled", "between_tools"):
            if kind in self.thinking_types:
                return {"type": kind}
        return None


CURRENT_CLAUDE = ModelCapabilities(listed=False, json_output=True, strict_tools=True, citations=True,
                                   prompt_caching=True)
"""Assumed for a Claude model the Models API did not describe (the list could not be fetched, or it
does not show the id): structured outputs, search-result citations and prompt caching, as every
model Anthropic lists as current supports them (the fallback ids of :mod:`engine.llm.models`
included), and no ``thinking`` setting."""

TOOL_CALLING = ModelCapabilities(listed=False, json_output=False, strict_tools=True)
"""Assumed for a provider that does not report capabilities: forced tool calls, as any tool-calling
provider in the shape of the Messages API takes them; no citations and no prompt caching, so it
gets evidence as numbered text and cites with typed [n] markers."""


@runtime_checkable
class ReportsCapabilities(Protocol):
    """A provider that can say what a model accepts (the Anthropic provider, through the Models API)."""

    def capabilities(self, model: str | None = None) -> ModelCapabilities:
        """What ``model`` (default: the provider's own) accepts."""
        ...


def capabilities_of(provider: object, model: str | None = None) -> ModelCapabilities:
    """``provider``'s report for ``model``, or :data:`TOOL_CALLING` for a provider that gives none."""
    if isinstance(provider, ReportsCapabilities):
        return provider.capabilities(model)
    return TOOL_CALLING


def _supported(support: Any) -> bool:
    return bool(getattr(support, "supported", False))
