"""A pool that survives a fork, and whose threads can run below the process's others (the embedder's bulk pool)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from engine.fork_safe import ForkSafePool

pytestmark = pytest.mark.unit


def _own_niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads are scheduled one by one on Linux only")
def test_a_pool_runs_its_threads_that_much_below_the_caller():
    base = _own_niceness()
    lowered = ForkSafePool(2, "test-low", niceness=5)
    plain = ForkSafePool(1, "test-plain")
    assert {lowered.submit(_own_niceness).result() for _ in range(4)} == {min(base + 5, 19)}
    assert plain.submit(_own_niceness).result() == base
    assert _own_niceness() == base  # the caller's own thread is left as it was

