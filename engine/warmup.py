"""Load the slow parts (embedding model, store, spaCy) in a background thread, and say what is loading."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import heap


@dataclass(frozen=True)
class WarmupState:
    """One step's state: ``pending``, ``loading``, ``ready`` or ``failed`` (with the error's message)."""

    name: str
    status: str
    seconds: float = 0.0
    error: str = ""


class Warmup:
    """Runs named loading steps one after another in a daemon thread; ``states()`` reports each."""

    def __init__(self, steps: Sequence[tuple[str, Callable[[], object]]]) -> None:
        if not steps:
            raise ValueError("a warm-up needs at least one step")
        self._steps = list(steps)
        self._states = {name: WarmupState(name, "pending") for name, _ in self._steps}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="workbench-warmup", daemon=True)

    def start(self) -> Warmup:
        """Start the loading thread (once; later calls do nothing)."""
        with self._lock:
            if not self._thread.is_alive() and self._thread.ident is None:
                self._thread.start()
        return self

    def _set(self, state: WarmupState) -> None:
        with self._lock:
            self._states[state.name] = state

    def _run(self) -> None:
        for name, load in self._steps:
            self._set(WarmupState(name, "loading"))
            started = time.perf_counter()
            try:
                load()
            except Exception as exc:  # noqa: BLE001 - reported on the page; the page's own call raises it again
                self._set(WarmupState(name, "failed", time.perf_counter() - started, str(exc)))
            else:
                self._set(WarmupState(name, "ready", time.perf_counter() - started))
        heap.settle()  # what the steps loaded is kept for good: later collections skip it (engine/heap.py)

    def states(self) -> list[WarmupState]:
        with self._lock:
            return [self._states[name] for name, _ in self._steps]

    @property
    def done(self) -> bool:
        return all(s.status in ("ready", "failed") for s in self.states())

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every step finished (for tests and scripts); True when done (False when never started)."""
        if self._thread.ident is None:
            return self.done
        self._thread.join(timeout)
        return self.done
