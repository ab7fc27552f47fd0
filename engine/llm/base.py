"""The Provider protocol: chat with tools, in the shape of Anthropic's Messages API.

Messages are plain dicts, ``{"role": "user" | "assistant", "content": str | list[block]}``,
where a block is ``{"type": "text", "text": ...}``, ``{"type": "tool_use", "id", "name", "input"}``
or ``{"type": "tool_result", "tool_use_id", "content", "is_error"?}``.
A provider returns a :class:`ChatResponse` of content blocks, a stop reason and usage.
``output_format`` asks for a reply whose text is JSON following a schema (Anthropic's
``output_config.format``); only providers that report the ``json_output`` capability
(:mod:`engine.llm.capabilities`) are sent one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Sequence, runtime_checkable

StopReason = Literal[
    "end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", "model_context_window_exceeded"
]
Message = dict[str, Any]


@dataclass(frozen=True)
class Citation:
    """A passage of the request's evidence that a text block cites (Claude's own citations).

    ``search_result_index`` is the 0-based position of the cited ``search_result`` block among all
    such blocks of the request; ``cited_text`` is the cited blocks' text as the API quotes it, and
    ``start_block_index``/``end_block_index`` (exclusive) the text blocks of that search result it spans.
    """

    search_result_index: int
    cited_text: str
    source: str = ""
    title: str = ""
    start_block_index: int = 0
    end_block_index: int = 0


@dataclass(frozen=True)
class TextBlock:
    """Text the model wrote; ``citations`` are the evidence passages it cites for this text, if any."""

    text: str
    type: Literal["text"] = "text"
    citations: tuple[Citation, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


ContentBlock = TextBlock | ToolUseBlock


@dataclass(frozen=True)
class ToolSpec:
    """A tool as shown to the model: name, description and JSON Schema of its input.

    ``strict=True`` asks providers that support it to guarantee the input matches the schema.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    strict: bool = False

    def to_dict(self) -> dict[str, Any]:
        spec = {"name": self.name, "description": self.description, "input_schema": self.input_schema}
        if self.strict:
            spec["strict"] = True
        return spec


@dataclass(frozen=True)
class Usage:
    """Tokens one call used, as the API counts them.

    ``input_tokens`` are the uncached input tokens (after the last cache breakpoint);
    ``cache_read_input_tokens`` were read from the prompt cache and ``cache_creation_input_tokens``
    written to it (``cache_creation_1h_input_tokens`` of them with the one-hour lifetime).
    ``service_tier`` is ``"batch"`` for a Message Batches result (billed at half price).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0
    service_tier: str = "standard"

    @property
    def prompt_tokens(self) -> int:
        """Every input token of the call: uncached, read from the cache and written to it."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


@dataclass(frozen=True)
class UnfinishedStep:
    """A step the person asked for that was not done: its words, why, and whether a tool call was tried.

    ``ran`` is True when a call was made and failed or was denied (the call is in the audit already).
    """

    request: str
    reason: str
    tool: str | None = None
    ran: bool = False


@dataclass(frozen=True)
class Refusal:
    """Why the model declined, as the API says (``stop_details``); both parts may be empty."""

    category: str = ""
    explanation: str = ""

    def __str__(self) -> str:
        return ": ".join(part for part in (self.category, self.explanation) if part)


@dataclass(frozen=True)
class ChatResponse:
    """One model turn: its text and tool_use blocks, why it stopped, usage.

    ``unfinished`` lists, on a final turn, the requested steps the model could not do. ``refusal``
    is the API's reason when ``stop_reason`` is ``"refusal"`` and it gave one. ``raw_content`` is the turn exactly
    as the API sent it, kept only when it holds blocks ``content`` leaves out (``thinking`` and
    ``redacted_thinking``, which must go back unchanged with a tool result); :meth:`to_message`
    sends it back.
    """

    content: tuple[ContentBlock, ...]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    unfinished: tuple[UnfinishedStep, ...] = ()
    refusal: Refusal | None = None
    raw_content: tuple[dict[str, Any], ...] = ()

    @property
    def text(self) -> str:
        """All text blocks joined, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def citations(self) -> tuple[Citation, ...]:
        """Every citation of every text block, in order."""
        return tuple(c for b in self.content if isinstance(b, TextBlock) for c in b.citations)

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def to_message(self) -> Message:
        """This response as an assistant message, to append to the conversation (thinking blocks kept)."""
        if self.raw_content:
            return {"role": "assistant", "content": [dict(block) for block in self.raw_content]}
        return {"role": "assistant", "content": [b.to_dict() for b in self.content]}


@runtime_checkable
class Provider(Protocol):
    """Anything that can answer a chat turn, optionally calling tools."""

    name: str

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
        """Answer one turn. ``tool_choice`` follows Anthropic: auto, any, or {"type":"tool","name":...}.

        ``output_format`` is a JSON Schema the reply's text must follow; a provider that does not
        report the ``json_output`` capability is never given one.
        """
        ...
