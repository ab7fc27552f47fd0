"""A provider that replays queued replies and records every call, for tests and demos.

Each queued item becomes one reply:

- a :class:`~engine.llm.base.ChatResponse`, returned as it is;
- a ``str``: a text reply with ``stop_reason="end_turn"``;
- a dict ``{"tool_use": {"name": ..., "input": {...}, "id"?: ...}}`` (the value may be a list
  for parallel calls; an optional ``"text"`` key adds a text block first): a tool_use reply;
- a list of such tool_use dicts: one reply holding all of their calls;
- a callable ``(messages, kwargs) -> reply``, called with the request, whose result is
  converted by the rules above.

``capabilities`` says which request shapes it stands in for (default
:data:`~engine.llm.capabilities.TOOL_CALLING`: forced tool calls); give it
``ModelCapabilities(json_output=True)`` to script replies to structured outputs, whose text is
the JSON, or ``ModelCapabilities(citations=True)`` to be sent evidence as ``search_result`` blocks
(script the reply as a ChatResponse whose text blocks carry their citations).

:meth:`ScriptedProvider.stream` serves the same replies as a stream: the text a few words at a
time, then the whole response.
"""

from __future__ import annotations

import copy
import threading
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Sequence, Union

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, ContentBlock, Message, TextBlock, ToolSpec, ToolUseBlock, Usage
from engine.llm.capabilities import TOOL_CALLING, ModelCapabilities
from engine.llm.streaming import StreamDone, StreamEvent, TextDelta, text_pieces

Reply = Union[ChatResponse, str, dict, list, Callable[[list, dict], Any]]
_DICT_KEYS = {"text", "tool_use"}


class ScriptedProvider:
    """Replays queued replies in order and records each call in :attr:`calls`."""

    def __init__(
        self, responses: Iterable[Reply] = (), name: str = "scripted", capabilities: ModelCapabilities | None = None
    ) -> None:
        self.name = name
        self._capabilities = capabilities if capabilities is not None else TOOL_CALLING
        self.calls: list[dict[str, Any]] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._tool_ids = 0
        self.enqueue(*responses)

    def __repr__(self) -> str:
        return f"ScriptedProvider(name={self.name!r}, pending={self.pending}, calls={len(self.calls)})"

    @property
    def pending(self) -> int:
        """How many queued replies are left."""
        return len(self._queue)

    def capabilities(self, model: str | None = None) -> ModelCapabilities:
        """The request shapes this provider stands in for, whatever the model."""
        return self._capabilities

    def enqueue(self, *responses: Reply) -> "ScriptedProvider":
        """Queue replies, checked now so a bad script fails where it is written."""
        for reply in responses:
            if not callable(reply):
                self._check(reply)
        with self._lock:
            self._queue.extend(responses)
        return self

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
        """Record the call and return the next queued reply."""
        call = copy.deepcopy(
            {
                "messages": list(messages),
                "system": system,
                "tools": [tool.to_dict() for tool in tools],
                "tool_choice": tool_choice,
                "max_tokens": max_tokens,
                "model": model,
                "output_format": output_format,
            }
        )
        with self._lock:
            self.calls.append(call)
            number = len(self.calls)
            if not self._queue:
                raise ProviderError(
                    f"ScriptedProvider has no response queued for call {number}: "
                    "enqueue one reply per expected model call."
                )
            reply = self._queue.popleft()
        if callable(reply):
            kwargs = {k: copy.deepcopy(v) for k, v in call.items() if k != "messages"}
            reply = reply(copy.deepcopy(call["messages"]), kwargs)
        return self._build(reply, model or self.name)

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
        """The next queued reply as a stream (recorded as a call, like :meth:`chat`)."""
        response = self.chat(messages, system=system, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens,
                             model=model, output_format=output_format)
        for piece in text_pieces(response.text):
            yield TextDelta(piece)
        yield StreamDone(response)

    def _build(self, reply: Any, model: str) -> ChatResponse:
        self._check(reply)
        if isinstance(reply, ChatResponse):
            return reply
        if isinstance(reply, str):
            return ChatResponse((TextBlock(reply),), "end_turn", _usage(reply), model)
        items = reply if isinstance(reply, list) else [reply]
        blocks: list[ContentBlock] = []
        for item in items:
            if item.get("text"):
                blocks.append(TextBlock(item["text"]))
            uses = item.get("tool_use", [])
            for use in uses if isinstance(uses, list) else [uses]:
                tool_id = use.get("id") or self._next_id()
                blocks.append(ToolUseBlock(id=tool_id, name=use["name"], input=copy.deepcopy(use["input"])))
        stop = "tool_use" if any(isinstance(b, ToolUseBlock) for b in blocks) else "end_turn"
        return ChatResponse(tuple(blocks), stop, Usage(), model)

    def _next_id(self) -> str:
        with self._lock:
            self._tool_ids += 1
            return f"toolu_scripted_{self._tool_ids:03d}"

    @staticmethod
    def _check(reply: Any) -> None:
        """Raise ValueError for a reply this provider cannot turn into a ChatResponse."""
        if isinstance(reply, (ChatResponse, str)):
            return
        items = reply if isinstance(reply, list) else [reply]
        if not items or not all(isinstance(item, dict) for item in items):
            raise ValueError(f"Scripted reply must be a ChatResponse, str, dict, list of dicts or callable: {reply!r}")
        for item in items:
            unknown = set(item) - _DICT_KEYS
            if unknown or not item:
                raise ValueError(f"Scripted reply dict takes only keys {sorted(_DICT_KEYS)}, got {sorted(item)}")
            uses = item.get("tool_use", [])
            for use in uses if isinstance(uses, list) else [uses]:
                if not isinstance(use, dict) or "name" not in use or not isinstance(use.get("input"), dict):
                    raise ValueError(f"Scripted tool_use needs a 'name' and an 'input' dict, got {use!r}")


def _usage(text: str) -> Usage:
    """A rough, deterministic token count for scripted text."""
    return Usage(input_tokens=0, output_tokens=len(text.split()))
