"""A thread pool that survives ``os.fork``: a forked child has none of its parent's threads, so it gets a new pool."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class ForkSafePool:
    """``ThreadPoolExecutor.submit`` on a pool that is made anew in a forked child (a server's worker processes)."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers, self._name = workers, name
        self._pool = self._new()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._renew)

    def _new(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix=self._name)

    def _renew(self) -> None:
        self._pool = self._new()  # the parent's threads do not exist in a forked child

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        return self._pool.submit(fn, *args, **kwargs)
