"""Kill an ingest with SIGKILL, at the worst moment and at random moments; the next run must heal everything.

After each kill: the store opens, every document in it has all of its chunks or none (a document
is always written in one commit, with the group of files finished with it), and a re-run of the same ingest ends with every document there exactly
once, the full-text index built and a keyword search that needs its stemming working.
Reproduce a trial by hand with ``python -m tests.reliability.crash_ingest DATA_DIR FOLDER``.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.embeddings import get_embedder
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
from engine.store.maintenance import FTS_INDEX, index_names
from tests.reliability.crash_ingest import KB

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SEED = 20240611
RANDOM_TRIALS = 4
CALLS = 3
KILL_WINDOW_S = 0.8
"""A random kill lands this many seconds at most into a random one of the worker's ingest calls (each takes about
0.5 to 1.5 s on two cores: parsing, embedding, the commit, then index work)."""


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for n in range(6):
        steps = " ".join(f"Step {s} of task {n}: inspect panel {n}{s}, record the reading and sign the card."
                         for s in range(10))
        extra = " Lockwire the caliper bolt after torquing it." if n == 3 else ""
        (folder / f"task-{n}.md").write_text(f"# Task card {n}\n\nTask code tc{n}x.{extra} {steps}\n")
    return folder


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The folder every trial ingests, and each file's chunk count from one clean ingest."""
    folder = write_corpus(tmp_path_factory.mktemp("crash") / "docs")
    store = open_store(tmp_path_factory.mktemp("reference"))
    Ingestor(store).ingest_paths([folder], KB)
    return folder, {d.file_name: d.chunks for d in store.list_documents(KB)}


def open_store(data_dir: Path) -> KnowledgeBaseStore:
    settings = load_settings(data_dir=data_dir, chunk_size=400, chunk_overlap=60)
    return KnowledgeBaseStore(settings, embedder=get_embedder(settings.embedding_model, settings.embed_batch_size))


def run_and_kill(data_dir: Path, folder: Path, calls: int, kill_at: tuple[int, float] | None) -> int:
    """Start the worker; SIGKILL it ``kill_at = (call, seconds)`` seconds into its ingest call number ``call``
    (None: it kills itself right after its first commit)."""
    command = [sys.executable, "-m", "tests.reliability.crash_ingest", str(data_dir), str(folder), "--calls",
               str(calls)] + (["--die-after-commit"] if kill_at is None else [])
    worker = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([worker.stdout], [], [], 240)
        assert ready and worker.stdout.readline().strip() == "ready", worker.stderr.read()[-2000:]
        if kill_at is not None:
            call, seconds = kill_at
            for _ in range(call):  # "done N" after each finished call
                assert worker.stdout.readline().startswith("done"), worker.stderr.read()[-2000:]
            time.sleep(seconds)
            worker.send_signal(signal.SIGKILL)
        return worker.wait(timeout=240)
    finally:
        if worker.poll() is None:
            worker.kill()


def check_all_or_nothing(store: KnowledgeBaseStore, chunks: dict[str, int]) -> int:
    """Every stored document has exactly its chunks, positions 0..n-1; returns how many documents are stored."""
    stored = store.list_documents(KB) if store.document_hashes(KB) else []
    for doc in stored:
        _, rows = store.get_document(doc.doc_id, KB)
        assert [r["position"] for r in rows] == list(range(chunks[doc.file_name])), doc.file_name
    return len(stored)


def check_healed(store: KnowledgeBaseStore, folder: Path, chunks: dict[str, int]) -> None:
    report = Ingestor(store).ingest_paths([folder], KB)
    assert {f.status for f in report.files} <= {"added", "unchanged", "replaced"}, report.to_dict()
    assert report.index_pending is None
    assert check_all_or_nothing(store, chunks) == len(chunks)
    ids = store._scan(KB, ["chunk_id"])["chunk_id"].to_pylist()
    assert len(ids) == len(set(ids)) == sum(chunks.values())
    assert FTS_INDEX in index_names(store._open(KB))
    assert [h.file_name for h in store.search("lockwiring bolts", KB, mode="keyword", k=3)][:1] == ["task-3.md"]


def test_killed_right_after_the_data_commit(tmp_path, corpus):
    folder, chunks = corpus
    code = run_and_kill(tmp_path / "data", folder, calls=1, kill_at=None)
    assert code == -signal.SIGKILL
    store = open_store(tmp_path / "data")
    # the first commit landed whole: the files finished with it (a group: engine/ingest_writer.py), each complete
    assert 0 < check_all_or_nothing(store, chunks) <= len(chunks)
    check_healed(store, folder, chunks)


def test_killed_at_random_moments(tmp_path, corpus):
    folder, chunks = corpus
    rng = random.Random(SEED)
    for trial in range(RANDOM_TRIALS):
        data_dir = tmp_path / f"trial-{trial}"
        run_and_kill(data_dir, folder, calls=CALLS, kill_at=(rng.randrange(CALLS), rng.uniform(0.0, KILL_WINDOW_S)))
        store = open_store(data_dir)
        store.list_knowledge_bases()
        check_all_or_nothing(store, chunks)
        check_healed(store, folder, chunks)
