"""Embedding one file's chunks within the time one file may take (``max_embed_seconds_per_file``).

Chunks are embedded in steps: a small first one, so that the rate is known within a second or two, then larger
ones. After each step the file is rejected, with nothing of it written, once it has taken longer than the limit
or as soon as the rate so far says the rest would take it past the limit. Dense text (long lists of codes or
numbers, a table row thousands of columns wide) embeds several times slower than prose, so a file's chunk count
alone does not bound its time. The in-process ingest and the Ray engine's embedding actors both embed this way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from engine.errors import DocumentError
from engine.store.sentences import embed_chunks

FIRST_STEP = 16
"""Chunks of the first step: enough to measure the rate (about a second on two cores), little to waste."""
EMBED_STEP = 128
"""Chunks of each later step (about a second on two CPU cores; progress is reported after each)."""
PROGRESS_PARTS = 8
"""Parts of a step after each of which progress is reported: a first step of 16 chunks with their sentences takes
several seconds on a loaded two-core machine, and an upload's bar otherwise stood still for all of it."""
PROGRESS_CHUNKS = 4
"""Chunks of a part at least (the int8 model embeds one text per run, so smaller calls cost nothing there)."""


class EmbedBudget:
    """The time one file's embedding may take; :meth:`check` raises DocumentError when it is spent or cannot last."""

    def __init__(self, limit_s: float, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        if limit_s <= 0:
            raise ValueError("limit_s must be greater than 0")
        self.limit_s, self.total, self.clock = limit_s, total, clock
        self.started = clock()

    def check(self, done: int) -> None:
        """After ``done`` of ``total`` chunks: DocumentError when the file took, or will take, over the limit."""
        if done >= self.total:
            return
        spent = self.clock() - self.started
        expected = spent / done * self.total if done else spent
        if spent > self.limit_s or expected > self.limit_s:
            raise DocumentError(
                f"Embedding the file's {self.total:,} chunks would take about {expected:,.0f} s ({done:,} took "
                f"{spent:,.1f} s), over the limit of {self.limit_s:g} s per file "
                "(WORKBENCH_MAX_EMBED_SECONDS_PER_FILE); nothing of it was written. Text that is mostly codes, "
                "numbers or lists embeds slowly. Split the file, or raise the limit.")


def steps(total: int) -> list[tuple[int, int]]:
    """(start, end) of each embedding step over ``total`` chunks."""
    bounds = [0, min(FIRST_STEP, total)]
    while bounds[-1] < total:
        bounds.append(min(bounds[-1] + EMBED_STEP, total))
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def _parts(start: int, end: int, reported: bool) -> list[tuple[int, int]]:
    """One step cut into ``PROGRESS_PARTS`` parts when progress is reported (a bar moves within the step), else
    whole."""
    if not reported or end - start < 2 * PROGRESS_CHUNKS:
        return [(start, end)]
    size = max(PROGRESS_CHUNKS, -(-(end - start) // PROGRESS_PARTS))
    return [(a, min(a + size, end)) for a in range(start, end, size)]


def embed_within(embedder: Any, title: str, chunk_texts: Sequence[str], limit_s: float, with_sentences: bool = False,
                 on_step: Callable[[int], None] | None = None, mode: str = "whole",
                 known: Mapping[str, np.ndarray] | None = None) -> tuple[np.ndarray, list[Any] | None]:
    """Vectors of one file's chunks (``chunk_texts`` of the document titled ``title``), and with ``with_sentences``
    each chunk's sentences and their vectors (engine/store/sentences.py ``embed_chunks``; ``mode``: how chunk and
    sentence vectors are made; ``known``: sentence vectors already stored), within ``limit_s`` seconds;
    ``on_step(done)`` after each step."""
    if not chunk_texts:
        return np.zeros((0, 0), dtype=np.float32), [] if with_sentences else None
    budget = EmbedBudget(limit_s, len(chunk_texts))
    vectors: list[Any] = []
    sentences: list[Any] | None = [] if with_sentences else None
    for start, end in steps(len(chunk_texts)):
        for a, b in _parts(start, end, on_step is not None):
            part, their_sentences = embed_chunks(embedder, title, list(chunk_texts[a:b]), with_sentences, mode,
                                                 known)
            vectors.extend(part)
            if sentences is not None:
                sentences.extend(their_sentences or [])
            if on_step is not None and b < end:
                on_step(b)
        budget.check(end)
        if on_step is not None:
            on_step(end)
    return np.asarray(vectors, dtype=np.float32).reshape(len(chunk_texts), -1), sentences
