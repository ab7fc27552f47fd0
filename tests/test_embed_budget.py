"""The per-file embedding time limit: spent time, and the time the rate so far says the rest would take."""

from __future__ import annotations

import pytest

from engine.embed_budget import EMBED_STEP, FIRST_STEP, EmbedBudget, steps
from engine.errors import DocumentError

pytestmark = pytest.mark.unit


class Clock:
    """A clock the test moves (the budget takes its clock as an argument)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_file_is_rejected_as_soon_as_its_first_step_shows_it_would_take_too_long():
    clock = Clock()
    budget = EmbedBudget(600, 2_845, clock)
    clock.now += 16.0  # the first 16 chunks took 16 s: 2,845 chunks would take about 2,845 s
    with pytest.raises(DocumentError) as error:
        budget.check(16)
    message = str(error.value)
    assert "would take about 2,845 s (16 took 16.0 s), over the limit of 600 s per file" in message
    assert "WORKBENCH_MAX_EMBED_SECONDS_PER_FILE" in message and "Split the file, or raise the limit" in message


def test_a_file_on_course_goes_on_and_one_past_the_limit_stops():
    clock = Clock()
    budget = EmbedBudget(10, 100, clock)
    clock.now += 1.0
    budget.check(16)  # 100 chunks in about 6 s
    clock.now += 9.5
    with pytest.raises(DocumentError, match="over the limit of 10 s"):
        budget.check(50)  # 10.5 s spent
    budget.check(100)  # a file already embedded is never rejected


def test_steps_start_small_then_grow():
    assert steps(0) == []
    assert steps(5) == [(0, 5)]
    assert steps(FIRST_STEP + 1) == [(0, FIRST_STEP), (FIRST_STEP, FIRST_STEP + 1)]
    bounds = steps(1_000)
    assert bounds[0] == (0, FIRST_STEP) and all(b - a == EMBED_STEP for a, b in bounds[1:-1])
    assert bounds[-1][1] == 1_000


def test_a_limit_must_be_positive():
    with pytest.raises(ValueError, match="greater than 0"):
        EmbedBudget(0, 10)


class CountingEmbedder:
    """Records the size of each encode call; vectors are zeros."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def encode(self, texts):
        import numpy as np

        self.calls.append(len(texts))
        return np.zeros((len(texts), 3), dtype=np.float32)


def test_progress_is_reported_inside_a_step_and_each_text_is_embedded_once():
    from engine.embed_budget import embed_within

    embedder, reported = CountingEmbedder(), []
    vectors, _ = embed_within(embedder, "", [f"chunk {n}" for n in range(150)], 600, on_step=reported.append)
    assert vectors.shape == (150, 3) and sum(embedder.calls) == 150
    assert reported == sorted(reported) and reported[-1] == 150
    assert [n for n in reported if n <= FIRST_STEP] == [4, 8, 12, 16]  # the first step of 16 moves four times
    assert len(reported) > len(steps(150))  # more often than once a step
    quiet = CountingEmbedder()
    embed_within(quiet, "", [f"chunk {n}" for n in range(150)], 600)
    assert quiet.calls == [b - a for a, b in steps(150)]  # without a listener, whole steps (no smaller calls)
