"""Ingest with the Ray engine (read and chunk as Ray tasks, embed on Ray actors) against the in-process engine:
same documents, chunks and vectors in the same kind of table; re-runs, changes and bad files behave alike.

One local Ray instance (two CPUs, no dashboard) serves the whole module."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.ingest import Ingestor
from engine.ray_ingest import RayReader, ray_runtime

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLES = [
    "manuals/amis-fault-code-table.csv", "manuals/amis-fault-code-table.meta.json",
    "manuals/a320-amm-32-41-rev12.pdf", "manuals/a320-amm-32-41-rev12.meta.yaml",
    "manuals/a320-amm-12-14-32-tyre-pressure.md", "faq/forum-a320-tyre-pressure.txt",
]
BROKEN = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> truncated"


@pytest.fixture(scope="module")
def ray_instance():
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RAY_ADDRESS", raising=False)  # always the local instance here, never a cluster
        with ray_runtime(num_cpus=2) as ray:
            yield ray


@pytest.fixture(scope="module")
def ingested(ray_instance, tmp_path_factory):
    """The same folder ingested into base 'local' by the default engine and into 'ray' by the Ray engine."""
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
    local = Ingestor(store).ingest_paths([folder], "local")
    distributed = Ingestor(store, reader=RayReader(store)).ingest_paths([folder], "ray")
    return folder, store, local, distributed


def rows_by_file(store, kb: str) -> dict[tuple[str, int], dict]:
    table = store._open(kb).to_arrow().select(["file_name", "position", "text", "search_text", "vector", "title",
                                               "update_date", "authority", "doc_type"])
    return {(r["file_name"], r["position"]): r for r in table.to_pylist()}


def test_ray_engine_writes_what_the_default_engine_writes(ingested):
    _, store, local, distributed = ingested
    outcome = lambda report: [(f.name, f.status, f.chunks, f.reason) for f in report.files]  # noqa: E731
    assert outcome(distributed) == outcome(local)
    assert [f.status for f in distributed.files].count("added") == 4
    assert next(f for f in distributed.files if f.name == "broken.pdf").status == "rejected"
    assert distributed.chunks_written == local.chunks_written == store.count_chunks("ray") > 20

    ours, theirs = rows_by_file(store, "ray"), rows_by_file(store, "local")
    assert ours.keys() == theirs.keys()
    for key, row in ours.items():
        other = theirs[key]
        for column in ("text", "search_text", "title", "update_date", "authority", "doc_type"):
            assert row[column] == other[column], (key, column)
        assert float(np.dot(row["vector"], other["vector"])) > 0.9999, key
    assert {d.file_name: d.chunks for d in store.list_documents("ray")} == \
        {d.file_name: d.chunks for d in store.list_documents("local")}


def test_ray_rerun_is_unchanged_and_a_changed_file_is_replaced(ingested):
    folder, store, _, _ = ingested
    ingestor = Ingestor(store, reader=RayReader(store))
    version = store._open("ray").version
    again = ingestor.ingest_paths([folder], "ray")
    assert {f.name: f.status for f in again.files} == {
        "broken.pdf": "rejected", "amis-fault-code-table.csv": "unchanged", "a320-amm-32-41-rev12.pdf": "unchanged",
        "a320-amm-12-14-32-tyre-pressure.md": "unchanged", "forum-a320-tyre-pressure.txt": "unchanged"}
    assert store._open("ray").version == version, "an unchanged batch must not write"

    note = folder / "forum-a320-tyre-pressure.txt"
    note.write_text(note.read_text() + "\n\nAddendum: recheck the nitrogen charge 24 hours after a tyre change.\n")
    changed = ingestor.ingest_paths([note], "ray")
    assert [(f.name, f.status) for f in changed.files] == [("forum-a320-tyre-pressure.txt", "replaced")]
    doc = next(d for d in store.list_documents("ray") if d.file_name == note.name)
    _, chunks = store.get_document(doc.doc_id, "ray")
    assert len(chunks) == changed.files[0].chunks == doc.chunks
    assert "nitrogen charge 24 hours" in " ".join(c["text"] for c in chunks)
    expected = store.embedder.encode([f"{doc.title}\n{chunks[-1]['text']}"])[0]
    stored = rows_by_file(store, "ray")[(note.name, chunks[-1]["position"])]["vector"]
    assert float(np.dot(stored, expected)) > 0.9999
