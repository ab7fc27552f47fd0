"""A small Span/Tracer interface: each pipeline stage runs inside a span that records its time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Span:
    """One timed stage; ``tags`` carry small facts about it (counts, ids)."""

    name: str
    started: float
    ended: float | None = None
    tags: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def ms(self) -> float:
        return ((self.ended or time.perf_counter()) - self.started) * 1000

    def set_tag(self, key: str, value: Any) -> None:
        self.tags[key] = value


class Tracer(Protocol):
    def span(self, name: str, **tags: Any) -> Any: ...


SpanListener = Callable[[str, Span], None]
"""Told ``("start", span)`` when a span opens and ``("end", span)`` when it closes (its time and error set)."""


class RecordingTracer:
    """Keeps every finished span in order; timings() sums them by name. ``listener`` hears each start and end."""

    def __init__(self, listener: SpanListener | None = None) -> None:
        self.spans: list[Span] = []
        self.listener = listener

    @contextmanager
    def span(self, name: str, **tags: Any) -> Iterator[Span]:
        current = Span(name, time.perf_counter(), tags=dict(tags))
        if self.listener is not None:
            self.listener("start", current)
        try:
            yield current
        except BaseException as exc:
            current.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            current.ended = time.perf_counter()
            self.spans.append(current)
            if self.listener is not None:
                self.listener("end", current)

    def timings(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for span in self.spans:
            out[span.name] = round(out.get(span.name, 0.0) + span.ms, 2)
        return out
