"""What an ask reports while it runs, and the run's model usage and citations for its Answer.

:meth:`Pipeline.run` calls its ``progress(stage, info)`` callback with:

- ``stage_started`` ``{"stage"}`` and ``stage_finished`` ``{"stage", "ms", "error"}`` around every
  stage (a stage that runs again after a failed validation is reported each time);
- one event per finished stage with what it produced (``perception``, ``orchestration``,
  ``retrieval``, ``answerability``, ``reflection``, ``validation``, ``replan``), then ``done`` or
  ``failure``;
- from the review loop (:mod:`engine.reflection.loop`): ``draft_delta``, ``draft_reset``,
  ``draft_done`` and ``review`` while the answer is written and reviewed.

:func:`stream_answer` turns a run into an iterator of JSON-ready :class:`AskEvent` objects, for the
API's server-sent events and for any caller that reads an ask as it happens.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.errors import EngineError

Progress = Callable[[str, dict[str, Any]], None]
STREAMED = ("stage_started", "stage_finished", "draft_delta", "draft_reset", "draft_done", "review", "replan")
"""Progress events :func:`stream_answer` passes on (the per-stage results travel in the final Answer)."""


def span_listener(notify: Progress) -> Callable[[str, Any], None]:
    """A RecordingTracer listener that reports each span's start and finish (with its time) to ``notify``."""
    def listen(event: str, span: Any) -> None:
        if event == "start":
            notify("stage_started", {"stage": span.name})
        else:
            notify("stage_finished", {"stage": span.name, "ms": round(span.ms, 2), "error": span.error})
    return listen


def ask_extras(loop: Any, outcome: dict[str, Any] | None) -> dict[str, Any]:
    """The ``Answer.extra`` entries of the model calls: ``usage`` (tokens and cost per stage, zero offline)
    and ``citations`` (passages the model cited for the answer, when it cites them itself)."""
    usage = getattr(loop, "usage", None)
    extras: dict[str, Any] = {}
    if callable(usage):
        extras["usage"] = usage().model_dump(mode="json")
    cited = (outcome or {}).get("citations") or ()
    if cited:
        extras["citations"] = [c.model_dump(mode="json") for c in cited]
    return extras


def first_draft(loop: Any, question: str, evidence: Any, intent: Any, *context: Any) -> tuple[str, tuple]:
    """The loop's first answer and the passages it cites, streamed to the loop's listeners where it can."""
    draft = getattr(loop, "draft", None)
    if callable(draft):
        return draft(question, evidence, intent, *context)
    return loop.generator.draft(question, evidence, intent, *context), ()


@dataclass(frozen=True)
class AskEvent:
    """One thing an ask reported: its kind and JSON-ready data (``answer`` carries the whole Answer)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def event_data(stage: str, info: dict[str, Any]) -> dict[str, Any]:
    """A progress event's info as JSON-ready data."""
    if stage == "review":
        review = info["review"]
        return {"round": info["round"], "valid": review.valid, "confidence": review.confidence,
                "issues": [issue.model_dump(mode="json") for issue in review.issues]}
    if stage == "replan":
        return {"changes": list(info.get("changes") or ())}
    return {k: v for k, v in info.items() if isinstance(v, (str, int, float, bool, type(None)))}


def stream_answer(run: Callable[..., Any], question: str, options: Any = None) -> Iterator[AskEvent]:
    """Run ``run(question, options, progress=...)`` (a Pipeline's ``run``) on a thread and yield its events.

    The last event is ``answer`` (``{"answer": Answer}``) or ``error`` (``{"error": message}``) for
    a run that raised; an EngineError becomes a ``failure`` Answer inside ``run`` itself. Closing
    the iterator early leaves the run to finish on its thread (its trace is still stored).
    """
    events: queue.Queue[AskEvent | None] = queue.Queue()

    def progress(stage: str, info: dict[str, Any]) -> None:
        if stage in STREAMED:
            events.put(AskEvent(stage, event_data(stage, info)))

    def work() -> None:
        try:
            answer = run(question, options, progress=progress)
        except EngineError as exc:
            events.put(AskEvent("error", {"error": str(exc)}))
        except Exception as exc:  # noqa: BLE001 - reported to the reader; the pipeline stored the trace
            events.put(AskEvent("error", {"error": f"Internal error ({type(exc).__name__}); see the trace."}))
        else:
            events.put(AskEvent("answer", {"answer": answer}))
        finally:
            events.put(None)

    threading.Thread(target=work, name="ask-stream", daemon=True).start()
    while (event := events.get()) is not None:
        yield event
