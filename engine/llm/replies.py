"""Checks made on a reply before anything reads it: the model may have refused, or stopped early.

A refused or cut-off reply can look like an answer (a few words, half a JSON object, a tool call
with the fields it reached), so callers that turn replies into answers or reviews check first and
get an :class:`~engine.errors.EngineError` that says what happened and what to do.
"""

from __future__ import annotations

from engine.llm.base import ChatResponse
from engine.llm.errors import ModelRefusalError, OutputCutOffError

CUT_OFF = {
    "max_tokens": "was cut off at max_tokens={max_tokens} while {task}. Raise max_tokens or shorten the input",
    "model_context_window_exceeded": "filled the model's context window while {task}. Send fewer or shorter "
    "evidence chunks",
}


def check_complete(response: ChatResponse, *, source: str, task: str, max_tokens: int) -> None:
    """Raise when ``response`` is a refusal or stopped before it was complete.

    ``source`` names who answered (``anthropic:claude-haiku-5-5``), ``task`` what it was doing
    ("writing the review"), ``max_tokens`` the limit the request set.
    """
    if response.stop_reason == "refusal":
        reason = f": {response.refusal}" if response.refusal and str(response.refusal) else ""
        category = response.refusal.category or None if response.refusal else None
        raise ModelRefusalError(
            f"{source} declined while {task} (stop_reason refusal{reason}). Nothing it wrote is used; "
            "rephrase the question or choose another model.",
            category=category,
        )
    template = CUT_OFF.get(response.stop_reason)
    if template is not None:
        raise OutputCutOffError(f"{source} {template.format(max_tokens=max_tokens, task=task)}; "
                                "the partial reply is not used.")
