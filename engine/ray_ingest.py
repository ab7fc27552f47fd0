"""Distributed ingest on Ray Data: read and chunk as Ray tasks, embed on a pool of Ray actors.

``python -m engine ingest PATH --kb NAME --engine ray``. The stages are the in-process ingest's own
functions (the sandboxed parse worker, metadata and sidecars, hashing, chunking, the embedder); only where
they run changes:

    file list  ->  map_batches(read_and_chunk)        Ray tasks, one sandboxed parse worker per Ray worker
               ->  map_batches(EmbedChunks)           Ray actors; each loads the embedding model once and
                                                      embeds each file within its time limit
               ->  driver: Ingestor._write            the store's write path: hash checks, statuses decided
                                                      under the lock, a commit per group of finished files

A file the base already holds with the same content hash is read (to hash it) but neither chunked nor
embedded. Ray is optional: the default engine never imports it, and this module imports it only when run.
With ``RAY_ADDRESS`` set the stages run on that cluster (see docs/storage.md, "Distributed ingest");
otherwise on a Ray instance started on this machine for the run.
"""

from __future__ import annotations

import atexit
import os
import pickle
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.config import Settings
from engine.documents.folders import Found
from engine.documents.limits import ParseLimits
from engine.documents.sandbox import ParseWorker
from engine.embed_budget import embed_within
from engine.errors import ConfigError, DocumentError, EngineError
from engine.documents.prepare import Embedded, FileItem, SourceDoc, chunk_document, prepare_document, search_text

RAY_PIN = "ray[data]==2.60.0"
QUIET_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DATA_LOG_LEVEL": "WARNING"}
"""Set for the driver and every Ray worker: no usage reports sent anywhere, and Ray Data says only warnings."""
FILES_PER_TASK = 8
"""Files one read-and-chunk task handles (a Ray task costs a few milliseconds to schedule)."""
CREDENTIALS = {"users": {}, "api_tokens": {}, "database_url": None, "storage_options": {}}
"""Settings the stages never need, cleared before the settings are sent to Ray workers."""
ENGINE_DIR = Path(__file__).resolve().parent


def import_ray():
    """The ``ray`` module with Ray Data, or a ConfigError saying how to install it."""
    for name, value in QUIET_ENV.items():
        os.environ.setdefault(name, value)
    try:
        import ray
        import ray.data  # noqa: F401 - the [data] extra
    except ImportError as exc:
        raise ConfigError(
            f"--engine ray needs Ray Data, which is not installed ({exc}). Install it with "
            f"pip install '{RAY_PIN}' (the version requirements.txt pins), or ingest with the default engine."
        ) from None
    return ray


@contextmanager
def ray_runtime(num_cpus: int | None = None) -> Iterator[Any]:
    """Ray for the length of a ``with`` block: the instance already connected, else the cluster at
    ``RAY_ADDRESS``, else a local instance (``num_cpus`` CPUs, default all) that is shut down afterwards."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    quiet = {"env_vars": dict(QUIET_ENV)}
    address = os.environ.get("RAY_ADDRESS", "").strip()
    try:
        if address:  # a cluster: ship this engine package to its workers; they need requirements.txt installed
            ray.init(address=address, runtime_env={**quiet, "py_modules": [str(ENGINE_DIR)]},
                     log_to_driver=False, configure_logging=False)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                     runtime_env=quiet, log_to_driver=False, configure_logging=False)
    except Exception as exc:  # noqa: BLE001 - Ray's start-up failures come as many types
        where = f"the Ray cluster at RAY_ADDRESS={address}" if address else "a local Ray instance"
        raise ConfigError(f"Could not start or reach {where} ({type(exc).__name__}: {exc}). Check the address, that "
                          "the cluster runs Ray 2.60.0 and, where it requires a token, set RAY_AUTH_MODE=token and "
                          "its token (RAY_AUTH_TOKEN or ~/.ray/auth_token); or unset RAY_ADDRESS to run on this "
                          "machine.") from None
    try:
        yield ray
    finally:
        ray.shutdown()


# -- stage 1: read and chunk (Ray tasks) ------------------------------------------------------------

_WORKERS: dict[tuple, ParseWorker] = {}
"""One sandboxed parse worker per Ray worker process and set of limits, kept between tasks."""


@atexit.register
def _close_workers() -> None:
    for worker in _WORKERS.values():
        worker.close()


def _parse_worker(settings: Settings) -> ParseWorker:
    limits = ParseLimits.from_settings(settings)
    key = (limits, settings.text_fallback_encoding)
    if key not in _WORKERS:
        _WORKERS[key] = ParseWorker(limits, settings.text_fallback_encoding)
    return _WORKERS[key]


def read_and_chunk(batch: dict[str, np.ndarray], kb: str, settings: Settings,
                   known: dict[str, str]) -> dict[str, Any]:
    """Read each file of the batch; chunk the ones that are new or changed (their hash is not in ``known``).

    Rows carry a pickled (name, source, sidecar, caller) item in and a pickled outcome out: a SourceDoc, or
    the EngineError that rejects the file, plus the texts to embed (empty for an unchanged file).
    """
    worker = _parse_worker(settings)
    outcomes, texts = [], []
    for raw in batch["item"]:
        name, source, sidecar, caller = pickle.loads(raw)  # noqa: S301 - rows this module wrote
        own: list[str] = []
        try:
            doc = prepare_document(name, source, sidecar, kb, caller, worker, settings)
            if known.get(doc.doc_id) != doc.content_hash:
                chunks = tuple(chunk_document(doc, settings))
                own = [search_text(doc.metadata, c.text) for c in chunks]
                doc = _with(doc, chunks, None)
            outcome: SourceDoc | EngineError = doc
        except EngineError as exc:
            outcome = exc
        outcomes.append(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
        texts.append(pickle.dumps(own, protocol=pickle.HIGHEST_PROTOCOL))
    return {"index": batch["index"], "outcome": outcomes, "texts": texts}


def _with(doc: SourceDoc, chunks: tuple, vectors: Any, sentences: Any = None) -> SourceDoc:
    return SourceDoc(doc.name, doc.doc_id, doc.parsed, doc.metadata, doc.content_hash,
                     Embedded(chunks, vectors, sentences))


# -- stage 2: embed (Ray actors) ------------------------------------------------------------------


class EmbedChunks:
    """A Ray actor that embeds the chunks of every batch it is given, file by file within the time one file may
    take (engine/embed_budget.py: a file over it becomes the DocumentError that rejects it); it loads the embedding
    model once, on the first batch with chunks (a batch of unchanged files needs none)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.embedder = None

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, Any]:
        outcomes = []
        for raw, texts_raw in zip(batch["outcome"], batch["texts"]):
            texts = pickle.loads(texts_raw)  # noqa: S301 - rows this module wrote
            if texts:
                raw = pickle.dumps(self._embedded(pickle.loads(raw)),  # noqa: S301
                                   protocol=pickle.HIGHEST_PROTOCOL)
            outcomes.append(raw)
        return {"index": batch["index"], "outcome": outcomes}

    def _embedded(self, doc: SourceDoc) -> SourceDoc | EngineError:
        if self.embedder is None:
            from engine.embeddings import embedder_for  # the store's own choice of model and backend

            self.embedder = embedder_for(self.settings)
        chunks = doc.embedded.chunks
        wanted = self.settings.store_sentence_vectors  # the same sentences and vectors as the in-process ingest
        try:
            vectors, sentences = embed_within(self.embedder, doc.metadata.title, [c.text for c in chunks],
                                              self.settings.max_embed_seconds_per_file, wanted,
                                              mode=self.settings.chunk_vectors)
        except DocumentError as exc:
            return exc
        return _with(doc, chunks, vectors, sentences)


def _for_workers(item: FileItem) -> FileItem:
    """A file as the Ray workers get it. On a cluster (``RAY_ADDRESS``) a shared file system shows each node its
    own device numbers, so a file found by the driver's folder walk is checked there by what can be checked on
    any node: a regular file, opened without following a link. On this machine's own Ray it keeps its identity
    check (engine/documents/files.py)."""
    name, source, sidecar, caller = item
    if isinstance(source, Found) and os.environ.get("RAY_ADDRESS", "").strip():
        source = replace(source, identity=None)
    return name, source, sidecar, caller


# -- the reader the Ingestor uses -----------------------------------------------------------------


class RayReader:
    """A DocumentReader that reads, chunks and embeds on Ray; the Ingestor writes what it yields.

    ``embed_actors``: size of the embedding actor pool (default: one per two CPUs of the cluster, at least one);
    ``embed_cpus``: CPUs each embedding actor reserves (its torch threads).
    """

    def __init__(self, store, settings: Settings | None = None, embed_actors: int | None = None,
                 embed_cpus: int = 1, files_per_task: int = FILES_PER_TASK) -> None:
        if embed_actors is not None and embed_actors < 1:
            raise ValueError("embed_actors must be at least 1")
        if embed_cpus < 1 or files_per_task < 1:
            raise ValueError("embed_cpus and files_per_task must be at least 1")
        self.store = store
        self.settings = settings or store.settings
        self.worker_settings = self.settings.model_copy(update=CREDENTIALS)  # what the workers get
        self.embed_actors = embed_actors
        self.embed_cpus = embed_cpus
        self.files_per_task = files_per_task

    def read(self, items: Sequence[FileItem], kb: str) -> Iterator[tuple[int, SourceDoc | EngineError]]:
        if not items:
            return
        ray = import_ray()
        if not ray.is_initialized():
            raise ConfigError("Ray is not running; use RayReader inside engine.ray_ingest.ray_runtime().")
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        actors = self.embed_actors or max(1, int(ray.cluster_resources().get("CPU", 1)) // 2)
        rows = [{"index": i, "item": pickle.dumps(_for_workers(item), protocol=pickle.HIGHEST_PROTOCOL)}
                for i, item in enumerate(items)]
        dataset = (
            ray.data.from_items(rows, override_num_blocks=max(1, -(-len(rows) // self.files_per_task)))
            .map_batches(read_and_chunk, batch_size=self.files_per_task, batch_format="numpy",
                         fn_kwargs={"kb": kb, "settings": self.worker_settings,
                                    "known": self.store.document_hashes(kb)},
                         # what the sandbox lets one parse use; also keeps this stage from fusing into the actors
                         memory=self.settings.parse_memory_mb * 2**20)
            .map_batches(EmbedChunks, batch_size=self.files_per_task, batch_format="numpy",
                         fn_constructor_kwargs={"settings": self.worker_settings}, num_cpus=self.embed_cpus,
                         compute=ray.data.ActorPoolStrategy(size=actors))
        )
        for row in dataset.iter_rows():
            yield int(row["index"]), pickle.loads(row["outcome"])  # noqa: S301 - rows this module wrote
