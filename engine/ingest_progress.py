"""A running tally of an ingest's progress, per file and overall, from the Ingestor's two callbacks.

The Ingestor reports each file's result as it is decided (``progress``) and, inside a file, each step of its
embedding (``on_step``). :class:`IngestProgress` turns both into what a progress bar shows: each file waiting,
read, being embedded (chunks done of its total) or finished with its status, and the whole run's fraction, in
which a file being embedded counts for the part of it that is done, so an overall bar moves with the work and
not only when a file lands. The Documents page, the terminal bars and the app's start-up indexing read it. It is
safe to read from another thread while an ingest updates it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.ingest_results import FileResult, IngestStep

READ_SHARE = 0.05
"""The part of a file's bar that reading it fills; embedding fills the rest."""


@dataclass(frozen=True)
class FileProgress:
    """One file: ``waiting`` (not read yet), ``embedding`` (``done`` of ``total`` chunks) or ``finished``
    (``status`` is its result's: added, unchanged, replaced, rejected or skipped)."""

    name: str
    state: str = "waiting"
    done: int = 0
    total: int = 0
    status: str | None = None

    @property
    def fraction(self) -> float:
        """How far the file is, 0 to 1 (a finished file is 1, whatever its status)."""
        if self.state == "finished":
            return 1.0
        if self.state == "waiting":
            return 0.0
        embedded = self.done / self.total if self.total else 1.0
        return READ_SHARE + (1 - READ_SHARE) * 0.95 * embedded  # the commit is the last 5%

    def describe(self) -> str:
        """What the file's bar says after its name."""
        if self.state == "finished":
            return str(self.status)
        if self.state == "waiting":
            return "waiting to be read"
        if self.done == 0:
            return f"read: {self.total} chunks to embed"
        if self.done >= self.total:
            return f"{self.total}/{self.total} chunks embedded, being written"
        return f"{self.done}/{self.total} chunks embedded"


@dataclass(frozen=True)
class Overall:
    """The whole run: files finished of all files, chunks embedded so far, and the fraction done."""

    files_done: int
    files: int
    chunks_embedded: int
    fraction: float
    seconds: float

    def describe(self) -> str:
        left = ""
        if 0.05 <= self.fraction < 1 and self.seconds >= 3:
            remaining = self.seconds / self.fraction * (1 - self.fraction)
            left = f" · about {_duration(remaining)} left"
        return (f"{self.files_done} of {self.files} files done · {self.chunks_embedded} chunks embedded · "
                f"{_duration(self.seconds)}{left}")


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


class IngestProgress:
    """Per-file and overall progress of an ingest of ``names`` (in the order given; a name may repeat).

    Pass :meth:`file` as the Ingestor's ``progress`` and :meth:`step` as its ``on_step``; :meth:`add` more names
    for a later ingest counted in the same tally (the start-up indexing runs one ingest per base).
    """

    def __init__(self, names: Sequence[str] = (), clock=time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._files: list[FileProgress] = [FileProgress(n) for n in names]
        self._embedded: dict[int, int] = {}
        self.started = clock()

    def add(self, names: Sequence[str]) -> None:
        with self._lock:
            self._files.extend(FileProgress(n) for n in names)

    def _open(self, name: str, last: bool = False) -> int | None:
        """The index of the first (or last) file of this name that is not finished."""
        places = [i for i, f in enumerate(self._files) if f.name == name and f.state != "finished"]
        if not places:
            return None
        return places[-1] if last else places[0]

    def step(self, update: IngestStep) -> None:
        """A step inside a file: ``done`` of ``total`` chunks embedded."""
        with self._lock:
            at = self._open(update.name)
            if at is not None:
                self._files[at] = FileProgress(update.name, "embedding", update.done, update.total)
                self._embedded[at] = update.done

    def file(self, result: FileResult) -> None:
        """A file decided. Of two files with one name, the later one is the one rejected or skipped as a repeat."""
        with self._lock:
            at = self._open(result.name, last=result.status in ("rejected", "skipped"))
            if at is None:
                self._files.append(FileProgress(result.name))
                at = len(self._files) - 1
            self._files[at] = FileProgress(result.name, "finished", result.chunks, result.chunks, result.status)
            if result.status in ("added", "replaced"):
                self._embedded[at] = result.chunks

    def files(self) -> list[FileProgress]:
        with self._lock:
            return list(self._files)

    def overall(self) -> Overall:
        with self._lock:
            files = list(self._files)
            embedded = sum(self._embedded.values())
        fraction = sum(f.fraction for f in files) / len(files) if files else 1.0
        done = sum(f.state == "finished" for f in files)
        return Overall(done, len(files), embedded, fraction, self._clock() - self.started)

    @property
    def finished(self) -> bool:
        return all(f.state == "finished" for f in self.files())
