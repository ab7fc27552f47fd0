"""Writers in several processes at once, several on one base and two on a base that does not exist yet.

Every ingest call must succeed, every document must be stored exactly once with all its chunks,
and the bases must be searchable by keyword afterwards. The writers run in real processes on a
real LanceDB folder (see tests/reliability/writers.py); the cost is one embedding-model load per
process.
"""

from __future__ import annotations

import pytest

from engine.config import load_settings
from engine.store import KnowledgeBaseStore
from engine.store.maintenance import index_health
from tests.reliability.writers import figures

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DOCS = 6
LAYOUT = [  # per process, one round of writer threads: [base, writer (whose documents), documents]
    [[["shared", 0, DOCS], ["fresh", 10, DOCS]]],
    [[["shared", 1, DOCS], ["fresh", 10, DOCS]]],  # the same files as process 0, into the same new base
    [[["shared", 2, DOCS], ["own", 3, DOCS]]],
]


def test_concurrent_writers_lose_nothing_and_fail_nothing(tmp_path):
    data_dir = tmp_path / "data"
    result = figures(data_dir, LAYOUT)
    assert result.calls == 6 * DOCS
    assert result.failed == 0, result.errors
    assert (result.lost_documents, result.duplicate_chunks, result.broken_documents) == (0, 0, 0), result

    store = KnowledgeBaseStore(load_settings(data_dir=data_dir, chunk_size=400, chunk_overlap=60))
    bases = {kb.name: kb.documents for kb in store.list_knowledge_bases()}
    assert bases == {"shared": 3 * DOCS, "fresh": DOCS, "own": DOCS}
    for kb in bases:
        assert store.maintain(kb).pending is None
        assert index_health(store._open(kb), store.settings).healthy
    hits = store.search("record w1x4", "shared", mode="keyword", k=3)
    assert hits and hits[0].doc_id.startswith("w1-doc4-")


def test_writers_of_one_file_name_are_told_truthfully_who_was_first(tmp_path):
    """Four processes each ingest their own report.md into one new base at the same moment: exactly one is told
    "added", the other three "replaced", each naming the document it replaced, and one document remains."""
    from tests.reliability.writers import run_processes

    data_dir = tmp_path / "data"
    results = run_processes(data_dir, [[[["reports", writer, 1, "report.md"]]] for writer in range(4)])
    statuses = sorted(r["status"] for r in results)
    assert statuses == ["added", "replaced", "replaced", "replaced"], results
    titles = {f"Writer {w} procedure 0" for w in range(4)}
    for result in results:
        if result["status"] == "replaced":
            assert result["existing"]["title"] in titles - {result["title"]}, result
            assert result["existing"]["ingested_at"], result
    store = KnowledgeBaseStore(load_settings(data_dir=data_dir, chunk_size=400, chunk_overlap=60))
    (doc,) = store.list_documents("reports")
    replaced = {r["existing"]["title"] for r in results if r["status"] == "replaced"}
    assert replaced | {doc.title} == titles, "each document but the last was replaced exactly once"
