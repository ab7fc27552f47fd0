"""Keeping a long-running engine's memory flat: the cycle collector run on a clock, over what is new.

Every LanceDB read ends in a caught ``StopAsyncIteration`` whose traceback, frames and future form a reference
cycle, and each retried commit leaves a ``tenacity.Retrying`` in one; the cycles hold native buffers (a read's
stream, a write's rows). Python frees cycles only in a full collection, and with the ~415,000 objects a warmed
engine holds (models, spaCy, modules) its own rule runs one about every few minutes of work: a ten-minute mixed
ingest and ask loop grew 9 % in its first 150 s, against 3.8 % with a full collection every 30 s
(docs/reliability.md, soak).

So: ``settle`` (once, after warm-up or at the first upkeep) collects and then freezes what exists, the long-lived
objects a collection would only walk again (``gc.freeze``); ``upkeep`` (when an ask or a write ends) runs a full
collection when ``COLLECT_EVERY_S`` have passed, which then walks only what was made since, a few milliseconds,
and hands the freed pages back to the system (glibc's ``malloc_trim``, where there is one).
A frozen object is still freed when its last reference goes; only a cycle among frozen objects stays.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time

COLLECT_EVERY_S = 30.0
"""A full collection at most this often, when an ask or a write ends."""


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()
_lock = threading.Lock()
_state = {"settled": False, "last": time.monotonic()}


def settle() -> None:
    """Collect, then freeze the objects that survive (the loaded models, modules and caches): later collections
    walk only objects made after this. Runs once per process; later calls do nothing."""
    with _lock:
        if _state["settled"]:
            return
        _state["settled"] = True
        gc.collect()
        gc.freeze()
        # collected again after the freeze, the old generation is counted anew (next to nothing), so the
        # interpreter's own rule for a full collection (a quarter of it new since the last) is met sooner too
        gc.collect()
        _state["last"] = time.monotonic()


def upkeep() -> bool:
    """When an ask or a write ends: a full collection if ``COLLECT_EVERY_S`` have passed since the last one
    (the first one settles first). True when it collected."""
    if time.monotonic() - _state["last"] < COLLECT_EVERY_S:
        return False
    if not _state["settled"]:
        settle()
        return True
    if not _lock.acquire(blocking=False):  # another thread is collecting
        return False
    try:
        if time.monotonic() - _state["last"] < COLLECT_EVERY_S:
            return False
        gc.collect()
        if _TRIM is not None:
            _TRIM(0)  # hand the pages the collection freed back to the system, not only to malloc's free lists
        _state["last"] = time.monotonic()
        return True
    finally:
        _lock.release()
