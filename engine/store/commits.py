"""Writing to tables that other threads and processes write too.

Two tools, used together by the store:

- :class:`BaseLocks`: one lock file per knowledge base under ``DATA_DIR/locks``. A writer holds
  its base's lock from "does the table exist / which of these documents are in it" to the commit,
  so creating a base is done once (never raced into "Table already exists" or an overwrite of
  another writer's first rows) and a document written by two ingests at once ends up there once.
  The operating system releases the lock when its process dies, even on ``kill -9``.
- :func:`retry_conflicts`: a commit that loses a race with another commit on the same table
  (LanceDB/Lance "commit conflict", typically against index or compaction work that holds no
  lock) has changed nothing, so it is run again, with exponential backoff and jitter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from filelock import FileLock, Timeout
from tenacity import (
    RetryError, Retrying, retry_if_exception, stop_after_attempt, stop_after_delay, wait_random_exponential,
)

from engine.errors import KnowledgeBaseError

log = logging.getLogger(__name__)
T = TypeVar("T")

CONFLICT_MARKERS = ("commit conflict", "commitconflict", "retryable commit")
"""Lance's texts for a commit that lost a race: "Retryable commit conflict for version N: ..." and
"Commit conflict for version N: ... transaction is incompatible with concurrent transaction"."""
RETRY_ATTEMPTS = 10
RETRY_SECONDS = 60.0
"""A commit is retried up to 10 times within a minute; waits grow from about 50 ms to at most 2 s, each drawn
at random (jitter), so writers that collided do not collide again in step."""
RETRY_FIRST_WAIT_S = 0.05
RETRY_MAX_WAIT_S = 2.0
LOCK_TIMEOUT_S = 600.0
MAINTENANCE_WAIT_S = 30.0
"""How long index work waits for another process's index work on the same base; past that it is left pending."""
"""How long a writer waits for another process's commit on the same base before giving up: long enough for
a large batch (its embedding happens before the lock is taken, so a commit alone rarely takes seconds)."""


def is_commit_conflict(exc: BaseException) -> bool:
    """True for the error of a commit that lost a race with another commit (nothing was written)."""
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(marker in text for marker in CONFLICT_MARKERS)


def retry_conflicts(action: Callable[[], T], what: str) -> T:
    """Run ``action`` (one commit); run it again while it fails with a commit conflict.

    ``what`` names the write in the error raised when the conflicts do not stop.
    """
    retrying = Retrying(
        retry=retry_if_exception(is_commit_conflict),
        stop=stop_after_attempt(RETRY_ATTEMPTS) | stop_after_delay(RETRY_SECONDS),
        wait=wait_random_exponential(multiplier=RETRY_FIRST_WAIT_S, max=RETRY_MAX_WAIT_S),
        before_sleep=lambda state: log.info("%s: commit conflict (attempt %d), retrying", what,
                                            state.attempt_number),
    )
    try:
        return retrying(action)
    except RetryError as exc:  # only raised when every attempt was a conflict
        raise KnowledgeBaseError(
            f"{what} kept colliding with other writers ({exc.last_attempt.attempt_number} attempts); "
            "nothing was written. Try again when the other ingests have finished."
        ) from exc.last_attempt.exception()


class BaseLocks:
    """Cross-process locks, one per knowledge base, as files under ``folder``."""

    def __init__(self, folder: Path, timeout_s: float = LOCK_TIMEOUT_S,
                 released: Callable[[], None] | None = None) -> None:
        self.folder = Path(folder)
        self.timeout_s = timeout_s
        self.released = released
        """Called after each hold ends (a write may have been made under it)."""

    @contextmanager
    def hold(self, kb: str, purpose: str = "write", timeout_s: float | None = None) -> Iterator[None]:
        """Hold the ``purpose`` lock of ``kb`` for a ``with`` block.

        Raises KnowledgeBaseError when another holder keeps it past ``timeout_s`` (default: the locks' own).
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        wait = self.timeout_s if timeout_s is None else timeout_s
        lock = FileLock(self.folder / f"{kb}.{purpose}.lock", timeout=wait)
        try:
            lock.acquire()
        except Timeout:
            raise KnowledgeBaseError(
                f"Knowledge base {kb!r} has been busy ({purpose} by another process) for over {wait:g} s; "
                f"wait for it to finish and try again (the lock is {lock.lock_file})."
            ) from None
        try:
            yield
        finally:
            lock.release()
            if self.released is not None:
                self.released()
