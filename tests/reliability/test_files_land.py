"""One bad or slow file holds back no other: the good files of a batch land while it is embedded, when it is
rejected for taking too long, and when the run is killed meanwhile.

Real LanceDB in tmp_path and the real embedding model; the killed run is a real process
(tests/reliability/crash_ingest.py) stopped with SIGKILL.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
from tests.reliability.crash_ingest import KB

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def note(n: int) -> bytes:
    return f"# Note {n}\n\nCheck the brake wear pin of wheel {n} before each flight.\n".encode()


def long_text(chunks: int) -> bytes:
    """Prose of about ``chunks`` chunks of 400 characters."""
    sentence = "Step {n}: torque the axle nut of wheel {n} to the value in the table, then lockwire it. "
    body = "".join(sentence.format(n=n) for n in range(chunks * 4))
    return ("# Long procedure\n\n" + body).encode()


def test_a_file_over_the_embedding_time_limit_is_rejected_and_the_others_land(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", chunk_size=400, chunk_overlap=60,
                             max_embed_seconds_per_file=0.5)
    store = KnowledgeBaseStore(settings)
    store.embedder.encode(["warm up"])
    started = time.perf_counter()
    report = Ingestor(store).ingest_bytes([("a.md", note(1)), ("long.md", long_text(300)), ("z.md", note(2))],
                                          "notes")
    seconds = time.perf_counter() - started
    outcome = {f.name: f for f in report.files}
    assert outcome["long.md"].status == "rejected"
    assert "over the limit of 0.5 s per file (WORKBENCH_MAX_EMBED_SECONDS_PER_FILE)" in outcome["long.md"].reason
    assert "nothing of it was written" in outcome["long.md"].reason
    assert outcome["a.md"].status == outcome["z.md"].status == "added"
    assert {d.file_name for d in store.list_documents("notes")} == {"a.md", "z.md"}
    assert seconds < 30, f"rejected after {seconds:.0f} s: the limit was not applied early"


@pytest.mark.slow
def test_finished_files_land_while_a_long_one_embeds_and_stay_when_the_run_is_killed(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n, name in enumerate(["a.md", "b.md", "c.md", "z.md"]):
        (folder / name).write_bytes(note(n))
    (folder / "m-long.md").write_bytes(long_text(3_000))
    data = tmp_path / "data"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOKENIZERS_PARALLELISM="false")
    child = subprocess.Popen([sys.executable, "-m", "tests.reliability.crash_ingest", str(data), str(folder)],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([child.stdout], [], [], 240)
        assert ready and child.stdout.readline().strip() == "ready", child.stderr.read()[-2000:]
        store = KnowledgeBaseStore(load_settings(data_dir=data, chunk_size=400, chunk_overlap=60))
        seen: set[str] = set()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and child.poll() is None:
            seen = {d.file_name for d in store.list_documents(KB)} if store.exists(KB) else set()
            if {"a.md", "b.md", "c.md"} <= seen:
                break
            time.sleep(0.1)
        assert {"a.md", "b.md", "c.md"} <= seen, f"the finished files had not landed: {sorted(seen)}"
        assert "m-long.md" not in seen, "the finished files landed only with the long one: it held them back"
        assert child.poll() is None, "the run ended before it could be killed"
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    store = KnowledgeBaseStore(load_settings(data_dir=data, chunk_size=400, chunk_overlap=60))
    docs = {d.file_name: d for d in store.list_documents(KB)}
    assert {"a.md", "b.md", "c.md"} <= set(docs) and "m-long.md" not in docs
    for doc in docs.values():
        _, chunks = store.get_document(doc.doc_id, KB)
        assert [c["position"] for c in chunks] == list(range(doc.chunks)), doc.file_name
