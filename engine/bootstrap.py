"""Start-up indexing in the background: prepare the embedding model, then index a folder of knowledge bases when
the store has none, while the app already serves its pages.

``make run`` starts the app at once with ``WORKBENCH_BOOTSTRAP_DIR=sample_docs``: the first page is drawn while
the model is exported (once per machine, see ``Settings.embedding_cache_folder``) and the sample documents are
indexed, one knowledge base per subfolder, each file landing as it is ready. :meth:`Bootstrap.state` says what
is happening, with an :class:`~engine.ingest_progress.IngestProgress` tally whose overall fraction moves as
chunks are embedded; the pages show it. ``python -m engine bootstrap`` does the same in the foreground.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.documents.folders import walk_paths
from engine.ingest_progress import FileProgress, IngestProgress, Overall

STAGES = ("waiting", "model", "indexing", "done", "skipped", "failed")


@dataclass(frozen=True)
class BootstrapState:
    """Where the start-up indexing is: ``model`` (loading or exporting the embedding model), ``indexing``,
    ``done``, ``skipped`` (the store had knowledge bases), ``failed`` (``error`` says why) or ``waiting``."""

    stage: str
    message: str
    bases: tuple[str, ...] = ()
    bases_done: tuple[str, ...] = ()
    base: str | None = None
    overall: Overall | None = None
    files: tuple[FileProgress, ...] = ()
    seconds: float = 0.0
    error: str = ""

    @property
    def busy(self) -> bool:
        return self.stage in ("waiting", "model", "indexing")


@dataclass
class _Run:
    stage: str = "waiting"
    message: str = "Starting the start-up indexing…"
    bases: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    base: str | None = None
    error: str = ""


class Bootstrap:
    """Prepares the embedding model and indexes ``folder``'s subfolders (one knowledge base each) on a thread,
    when ``store`` has no knowledge base yet."""

    def __init__(self, store: Any, folder: Path | str, clock=time.monotonic) -> None:
        self.store, self.folder, self._clock = store, Path(folder), clock
        self.tally = IngestProgress(clock=clock)
        self._run = _Run()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="workbench-bootstrap", daemon=True)
        self.started = clock()

    def start(self) -> Bootstrap:
        """Start the work on its thread (once; later calls do nothing)."""
        with self._lock:
            if self._thread.ident is None:
                self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the work ends (for tests and scripts); True when it has (False when never started)."""
        if self._thread.ident is None:
            return False
        self._thread.join(timeout)
        return not self.state().busy

    def _set(self, **changes: Any) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(self._run, key, value)

    def _work(self) -> None:
        from engine.embeddings import export_pending

        try:
            settings = self.store.settings
            exporting = export_pending(settings)
            self._set(stage="model", message="Exporting the embedding model (once per machine, about 20-30 s)…"
                      if exporting else "Loading the embedding model…")
            self.store.embedder  # noqa: B018 - loads the model, exporting it once
            if self.store.knowledge_base_names():
                self._set(stage="skipped", message="The store already has knowledge bases.")
                return
            folders = sorted(p for p in self.folder.iterdir() if p.is_dir()) if self.folder.is_dir() else []
            if not folders:
                self._set(stage="skipped", message=f"{self.folder} holds no folders to index.")
                return
            plan = []
            for folder in folders:
                found, skipped = walk_paths([folder])
                plan.append((folder, [f.name for f in found] + [s.shown for s in skipped]))
                self.tally.add(plan[-1][1])
            self._set(stage="indexing", bases=[f.name for f, _ in plan], message="Indexing the sample documents…")
            self._index(plan)
            self._set(stage="done", base=None, message="Indexed the sample documents.")
        except Exception as exc:  # noqa: BLE001 - shown on the pages; the app works on without the samples
            self._set(stage="failed", error=f"{type(exc).__name__}: {exc}",
                      message="Start-up indexing failed; upload documents on the Documents page instead.")

    def _index(self, plan: list[tuple[Path, list[str]]]) -> None:
        from engine.ingest import Ingestor

        ingestor = Ingestor(self.store)
        for folder, _ in plan:
            self._set(base=folder.name)
            ingestor.ingest_paths([folder], folder.name, progress=self.tally.file, on_step=self.tally.step)
            with self._lock:
                self._run.done.append(folder.name)

    def state(self) -> BootstrapState:
        """A snapshot, safe to read from any thread."""
        with self._lock:
            run = _Run(self._run.stage, self._run.message, list(self._run.bases), list(self._run.done),
                       self._run.base, self._run.error)
        files = tuple(self.tally.files())
        overall = self.tally.overall() if files else None
        return BootstrapState(run.stage, run.message, tuple(run.bases), tuple(run.done), run.base, overall, files,
                              self._clock() - self.started, run.error)
