"""Ingest with the Ray engine (read and chunk as Ray tasks, embed on Ray actors) against the in-process engine:
same documents, chunks and vectors in the same kind of table; re-runs, changes and bad files behave alike.

One local Ray instance (two CPUs, no dashboard) serves the whole module."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.ingest import Ingestor
from engine.ray_ingest import RayReader, ray_runtime
from engine.store.sentences import SENTENCE_PREFIX

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLES = [
    "manuals/amis-fault-code-table.csv", "manuals/amis-fault-code-table.meta.json",
    "manuals/a320-amm-32-41-rev12.pdf", "manuals/a320-amm-32-41-rev12.meta.yaml",
    "manuals/a320-amm-12-14-32-tyre-pressure.md", "faq/forum-a320-tyre-pressure.txt",
]
BROKEN = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> truncated"
NOTE = "forum-a320-tyre-pressure.txt"
OLD_NOTE = "Tyre pressure forum thread, first draft: the pressure table here is no longer in service."


@pytest.fixture(scope="module")
def ray_instance():
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RAY_ADDRESS", raising=False)  # always the local instance here, never a cluster
        with ray_runtime(num_cpus=2) as ray:
            yield ray


@pytest.fixture(scope="module")
def ingested(ray_instance, tmp_path_factory):
    """The same folder ingested into base 'local' by the default engine and into 'ray' by the Ray engine; 'ray'
    already held an older version of NOTE (written by the default engine), so the Ray engine replaces it."""
    from engine.cli.documents_cmd import SAMPLE_DIR
    from engine.config import load_settings
    from engine.store import KnowledgeBaseStore

    root = tmp_path_factory.mktemp("ray-ingest")
    folder = root / "docs"
    folder.mkdir()
    for sample in SAMPLES:
        shutil.copy(SAMPLE_DIR / sample, folder)
    (folder / "broken.pdf").write_bytes(BROKEN)
    store = KnowledgeBaseStore(load_settings(data_dir=root / "data", chunk_size=400, chunk_overlap=60))
    old = Ingestor(store).ingest_bytes([(NOTE, OLD_NOTE.encode())], "ray")
    assert [f.status for f in old.files] == ["added"]
    local = Ingestor(store).ingest_paths([folder], "local")
    distributed = Ingestor(store, reader=RayReader(store)).ingest_paths([folder], "ray")
    assert store.sentence_filler.wait(300)  # the default engine's sentences are embedded after its ingest
    return folder, store, local, distributed


def rows_by_file(store, kb: str) -> dict[tuple[str, int], dict]:
    table = store._open(kb).to_arrow().select(["chunk_id", "file_name", "position", "text", "search_text", "vector",
                                               "title", "update_date", "authority", "doc_type"])
    sentences = {r["chunk_id"]: r for r in store._db.open_table(SENTENCE_PREFIX + kb).to_arrow().to_pylist()}
    return {(r["file_name"], r["position"]): {**r, **sentences[r["chunk_id"]]} for r in table.to_pylist()}


def test_ray_engine_writes_what_the_default_engine_writes(ingested):
    _, store, local, distributed = ingested
    expected = [(f.name, "replaced" if f.name == NOTE else f.status, f.chunks, f.reason) for f in local.files]
    assert [(f.name, f.status, f.chunks, f.reason) for f in distributed.files] == expected
    assert [f.status for f in local.files].count("added") == 4
    assert next(f for f in distributed.files if f.name == "broken.pdf").status == "rejected"
    assert distributed.chunks_written == local.chunks_written == store.count_chunks("ray") > 20

    ours, theirs = rows_by_file(store, "ray"), rows_by_file(store, "local")
    assert ours.keys() == theirs.keys()  # the older version's chunks are gone
    for key, row in ours.items():
        other = theirs[key]
        for column in ("text", "search_text", "title", "update_date", "authority", "doc_type"):
            assert row[column] == other[column], (key, column)
        # the same model gives the same vectors, however each engine batches the chunks (int8 encodes one
        # text per run so that its vectors do not depend on their batch: engine/onnx_embedder.py)
        assert float(np.dot(row["vector"], other["vector"])) > 0.9999, key
        # and the same sentences and sentence vectors (engine/store/sentences.py)
        assert row["sentences"] and row["sentences"] == other["sentences"], key
        for mine, yours in zip(row["sentence_vectors"], other["sentence_vectors"]):
            assert float(np.dot(mine, yours)) > 0.9999, key
    assert {d.file_name: d.chunks for d in store.list_documents("ray")} == \
        {d.file_name: d.chunks for d in store.list_documents("local")}
    assert "no longer in service" not in " ".join(r["text"] for r in ours.values())


def test_ray_rerun_reports_every_file_unchanged_and_writes_nothing(ingested):
    folder, store, _, distributed = ingested
    version = store._open("ray").version
    again = Ingestor(store, reader=RayReader(store)).ingest_paths([folder], "ray")
    assert [(f.name, f.status, f.chunks) for f in again.files] == [
        (f.name, "rejected" if f.name == "broken.pdf" else "unchanged", f.chunks) for f in distributed.files]
    assert store._open("ray").version == version, "an unchanged batch must not write"
