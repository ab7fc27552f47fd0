"""What an ingest reports: one FileResult per file, progress steps inside a file, and the report of a run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.store.conflicts import ExistingDoc

Status = Literal["added", "unchanged", "replaced", "rejected", "skipped"]
STATUSES: tuple[Status, ...] = ("added", "unchanged", "replaced", "rejected", "skipped")


@dataclass(frozen=True)
class FileResult:
    """What happened to one file."""

    name: str
    status: Status
    doc_id: str | None = None
    title: str | None = None
    chunks: int = 0
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    """Problems that did not stop the file being indexed (e.g. a PDF that is mostly scanned images)."""
    existing: ExistingDoc | None = None
    """The stored document of the same file name: what this one replaced, was kept beside (keep-both) or left in
    place (skip, unchanged). Only its id for a writer without a read grant on the base."""

    @property
    def note(self) -> str | None:
        """One line on what became of the stored document of the same name, when there was one."""
        existing = self.existing
        if existing is None or self.status in ("rejected", "unchanged"):
            return None
        if self.status == "replaced":
            return f"Replaced {existing.described()}."
        if self.status == "added":  # a keep-both copy
            return f"Kept beside {existing.described()}, as {self.doc_id}."
        return None  # skipped: the reason says it

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, warnings=list(self.warnings),
                    existing=self.existing.to_dict() if self.existing else None, note=self.note)


@dataclass(frozen=True)
class IngestStep:
    """Progress inside one file: ``done`` of its ``total`` chunks embedded (``done == 0``: read, waiting)."""

    name: str
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


StepCallback = Callable[[IngestStep], None]
ProgressCallback = Callable[[FileResult], None]


@dataclass
class IngestReport:
    knowledge_base: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    index_pending: str | None = None
    """Why the base's indexes are not up to date after this ingest (None: they are). The documents are stored and
    searchable either way; the next ingest or keyword search finishes the index work."""
    commits: int = 0
    """Commits the ingest made: each file lands with the group of files finished with it (see engine.ingest)."""

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def chunks_written(self) -> int:
        return sum(f.chunks for f in self.files if f.status in ("added", "replaced"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "knowledge_base": self.knowledge_base,
            "files": [f.to_dict() for f in self.files],
            "summary": {s: self.count(s) for s in STATUSES},
            "chunks_written": self.chunks_written,
            "seconds": round(self.seconds, 3),
            "index_pending": self.index_pending,
            "commits": self.commits,
        }
