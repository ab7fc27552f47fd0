"""A thread pool that survives ``os.fork`` (a forked child has none of its parent's threads, so it gets a new pool),
and work started on one before it is needed."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
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


class Ahead:
    """Work started before it is needed, by key, on a one-thread :class:`ForkSafePool`: :meth:`start` submits it
    unless that key's work is already started, and :meth:`take` hands its Future over once (None when it was never
    started). Work started and never taken (an ask that failed first) is forgotten past the last ``size`` keys; a
    forked child starts with none."""

    def __init__(self, name: str, size: int = 16) -> None:
        self._pool = ForkSafePool(1, name)
        self._size = size
        self._reset()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()  # in a child: the parent may have held it at the fork
        self._started: dict[Hashable, Future] = {}

    def start(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        with self._lock:
            if key not in self._started:
                self._started[key] = self._pool.submit(fn, *args)
            while len(self._started) > self._size:
                self._started.pop(next(iter(self._started)))

    def take(self, key: Hashable) -> Future | None:
        with self._lock:
            return self._started.pop(key, None)
