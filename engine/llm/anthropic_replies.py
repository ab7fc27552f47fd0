"""Claude's replies as engine types: content blocks (text with its citations, tool calls), usage, refusals.

``thinking`` and ``redacted_thinking`` blocks are never read as text; when a reply has them the whole
turn is kept in ``raw_content``, to be sent back unchanged with the next turn.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.llm.base import ChatResponse, Citation, ContentBlock, Refusal, TextBlock, ToolUseBlock, Usage

log = logging.getLogger("engine.llm.anthropic_provider")

KEPT_FOR_REPLAY = frozenset({"thinking", "redacted_thinking"})
"""Reply blocks that are not read but must go back unchanged with the rest of the turn."""


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
