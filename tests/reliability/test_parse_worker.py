"""The document reader's worker process: wall-time and memory limits, crashes, and full-size hostile files.

Fast tests run with lowered limits; the ``slow`` ones build each hostile file at full size and read it at the
default limits, as an ingest does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from engine.documents.limits import ParseLimits
from engine.documents.sandbox import ROOT, ParseWorker
from engine.errors import DocumentError
from tests import helpers
from tests.reliability import hostile_files as h

pytestmark = pytest.mark.unit

GOOD = helpers.SAMPLE_MD.encode()


def read(worker: ParseWorker, name: str, data: bytes) -> tuple[str, float]:
    """(the rejection message, seconds taken); fails the test when the file is accepted."""
    started = time.perf_counter()
    with pytest.raises(DocumentError) as caught:
        worker.parse(name, data)
    return str(caught.value), time.perf_counter() - started


def test_the_worker_imports_the_parsers_and_not_the_model():
    code = ("import sys, engine.documents.worker, engine.documents.sandbox; "
            "print(sorted(m for m in ('torch', 'lancedb', 'sentence_transformers', 'streamlit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_file_that_reads_too_slowly_is_stopped_and_the_next_file_is_read():
    with ParseWorker(ParseLimits(timeout_s=1.0)) as worker:
        message, seconds = read(worker, "ops.pdf", h.pdf_text_operators(4 * h.MB))  # about 15 s to extract
        assert "took longer than 1 s and was stopped (WORKBENCH_PARSE_TIMEOUT_S)" in message
        assert seconds < 4
        assert worker.parse("good.md", GOOD).title_hint == "Brake wear pin check"


def test_a_file_that_needs_more_memory_than_the_limit_is_refused_and_the_next_file_is_read():
    with ParseWorker(ParseLimits(memory_mb=256, max_chunks=10**7)) as worker:
        message, _ = read(worker, "lines.txt", b"word\n" * (6 * h.MB))  # 30 MB: six million line strings
        assert "needed more than 256 MB of memory" in message and "WORKBENCH_PARSE_MEMORY_MB" in message
        assert worker.parse("good.md", GOOD).title_hint == "Brake wear pin check"
        assert worker.peak_mb < 300


def test_a_worker_that_dies_mid_file_rejects_that_file_only():
    with ParseWorker(ParseLimits(timeout_s=60)) as worker:
        worker.parse("warm.md", GOOD)
        pid = worker._proc.pid
        threading.Timer(0.5, os.kill, (pid, signal.SIGKILL)).start()
        message, seconds = read(worker, "ops.pdf", h.pdf_text_operators(4 * h.MB))
        assert "The parser stopped while reading the file (signal SIGKILL)" in message and seconds < 10
        assert worker.parse("good.md", GOOD).title_hint == "Brake wear pin check"
        assert worker._proc.pid != pid


FULL_SIZE = [
    ("bomb.docx", lambda: h.docx_inflating(1024 * h.MB), "word/document.xml unpacks to 1,024 MB", 10),
    ("part.docx", lambda: h.docx_big_part(1024 * h.MB), "word/media/image1.png unpacks to 1,024 MB", 10),
    ("zeros.pdf", lambda: h.pdf_flate_zeros(400 * h.MB), "safety limit of the PDF reader", 10),
    ("ops.pdf", lambda: h.pdf_text_operators(70 * h.MB), "safety limit of the PDF reader", 60),
    ("rows.csv", lambda: h.csv_rows(1_000_000), "over the limit of 10,000 per document", 20),
    ("field.csv", lambda: h.csv_big_field(10 * h.MB), "longer than 100,000 characters", 10),
    ("line.md", lambda: h.markdown_long_line(50_000_000), "over the limit of 10,000 per document", 20),
    ("nospace.txt", lambda: h.text_no_spaces(16 * h.MB), "over the limit of 10,000 per document", 10),
    ("bomb.md", lambda: h.markdown_with_front_matter(h.yaml_bomb()), "YAML alias *a0", 5),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,build,reason,within", FULL_SIZE, ids=[c[0] for c in FULL_SIZE])
def test_full_size_hostile_file_is_refused_at_the_default_limits(name, build, reason, within):
    data = build()
    with ParseWorker() as worker:
        message, seconds = read(worker, name, data)
        assert reason in message
        assert seconds < within, f"{seconds:.1f} s"
        assert worker.peak_mb < 1024, f"the worker grew to {worker.peak_mb:.0f} MB"


def test_the_worker_is_read_when_the_process_holds_descriptors_past_1024():
    """A long-running app accumulates open files (index readers); select() fails on descriptors past 1024."""
    held = []
    try:
        while not held or held[-1] <= 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        with ParseWorker(ParseLimits()) as worker:
            assert worker.parse("good.md", GOOD).title_hint == "Brake wear pin check"
    finally:
        for fd in held:
            os.close(fd)
