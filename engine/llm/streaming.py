"""Streamed turns: text as the model writes it, then the whole response.

A provider that can stream implements :class:`StreamingProvider` (``stream(...)``, a generator of
:data:`StreamEvent`); :func:`stream_chat` runs one turn through it and hands each event to a
callback, or, for a provider without ``stream``, runs ``chat`` and reports its text as one delta.
Either way the caller gets the same :class:`~engine.llm.base.ChatResponse` back.

Events, in order: any number of :class:`TextDelta`; a :class:`StreamRestart` when the stream broke
and the provider started the turn again (the text reported so far is void); exactly one
:class:`StreamDone` at the end. A stream that breaks more often than the provider retries raises a
:class:`~engine.errors.ProviderError` instead of ending with :class:`StreamDone`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, Message, ToolSpec


@dataclass(frozen=True)
class TextDelta:
    """More text of the reply, in order."""

    text: str


@dataclass(frozen=True)
class StreamRestart:
    """The stream broke after ``received`` characters and the turn was started again (try ``attempt``)."""

    attempt: int
    reason: str
    received: int = 0


@dataclass(frozen=True)
class StreamDone:
    """The turn is complete; ``response`` is what ``chat`` would have returned."""

    response: ChatResponse


StreamEvent = TextDelta | StreamRestart | StreamDone
OnEvent = Callable[[StreamEvent], None]


@runtime_checkable
class StreamingProvider(Protocol):
    """A provider that can report a turn's text as it is written."""

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
        """The turn's events, ending with one :class:`StreamDone`."""
        ...


def stream_chat(provider: Any, messages: Sequence[Message], *, on_event: OnEvent | None = None,
                **request: Any) -> ChatResponse:
    """One turn, streamed when ``provider`` can stream; every event goes to ``on_event``.

    ``request`` holds ``chat``'s keyword arguments. Returns the final response; raises
    ProviderError when the stream ends without one.
    """
    report = on_event or (lambda event: None)
    if not isinstance(provider, StreamingProvider):
        response = provider.chat(messages, **request)
        if response.text:
            report(TextDelta(response.text))
        report(StreamDone(response))
        return response
    for event in provider.stream(messages, **request):
        report(event)
        if isinstance(event, StreamDone):
            return event.response
    raise ProviderError(f"The stream from {getattr(provider, 'name', 'the provider')} ended without a final "
                        "message. Retry.")


def text_pieces(text: str, size: int = 3) -> list[str]:
    """``text`` cut into pieces of ``size`` words (with their spacing) whose concatenation is ``text``."""
    pieces: list[str] = []
    words = text.split(" ")
    for start in range(0, len(words), size):
        piece = " ".join(words[start:start + size])
        pieces.append(piece if start + size >= len(words) else piece + " ")
    return [p for p in pieces if p]
