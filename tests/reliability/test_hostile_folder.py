"""One folder of good files and every kind of hostile file: the good files are written, each bad one is
reported with the limit it hit, hidden files are reported as skipped, and nothing crashes.

Runs the real Ingestor on a LanceDB store in tmp_path with the real embedding model; the limits are lowered
so that small hostile files stand for the full-size ones (test_parse_worker.py reads those at the defaults).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from engine.cli import main
from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
from tests import helpers
from tests.reliability import hostile_files as h

pytestmark = pytest.mark.integration

RED = "\x1b[31mred\x1b[0m.txt"
NOTE = b"Check the brake wear pin before each flight."

HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {  # file -> (its content, what its rejection must say)
    "bomb.docx": (lambda: h.docx_inflating(64 * h.MB), "word/document.xml unpacks to 64 MB"),
    "part.docx": (lambda: h.docx_big_part(64 * h.MB), "word/media/image1.png unpacks to 64 MB"),
    "zeros.pdf": (lambda: h.pdf_flate_zeros(100 * h.MB), "safety limit of the PDF reader"),
    "ops.pdf": (lambda: h.pdf_text_operators(4 * h.MB),
                "took longer than 3 s and was stopped (WORKBENCH_PARSE_TIMEOUT_S)"),
    "rows.csv": (lambda: h.csv_rows(20_000), "over the limit of 200 per document (WORKBENCH_MAX_CHUNKS_PER_DOC)"),
    "field.csv": (lambda: h.csv_big_field(200_000), "longer than 100,000 characters (WORKBENCH_MAX_FIELD_CHARS)"),
    "line.md": (lambda: h.markdown_long_line(2_000_000), "over the limit of 200 per document"),
    "nospace.txt": (lambda: h.text_no_spaces(1 * h.MB), "over the limit of 200 per document"),
    "bomb.md": (lambda: h.markdown_with_front_matter(h.yaml_bomb()), "The front matter uses the YAML alias *a0"),
    "laughs.txt": (lambda: NOTE, "Sidecar laughs.txt.meta.yaml uses the YAML alias *a0"),
    "deep.txt": (lambda: NOTE, "Sidecar deep.txt.meta.json is 195 KB, over the 64 KB limit"),
    "nested.txt": (lambda: NOTE, "Sidecar nested.txt.meta.json is nested too deeply"),
    "date.md": (lambda: h.markdown_with_front_matter("update_date: 2024-02-30\n"), "'2024-02-30' is not a real date"),
    "date.txt": (lambda: NOTE, "'2024-02-30' is not a real date"),
}
SIDECARS = {
    "laughs.txt.meta.yaml": h.yaml_bomb().encode(),
    "deep.txt.meta.json": h.json_nested(100_000).encode(),
    "nested.txt.meta.json": h.json_nested(20_000).encode(),
    "date.txt.meta.yaml": b"update_date: 2024-02-30\n",
}


@pytest.fixture()
def settings(tmp_path):
    return load_settings(data_dir=tmp_path / "data", max_chunks_per_doc=200, parse_timeout_s=3, max_unpacked_mb=16)


def write_folder(folder):
    good = helpers.write_corpus(folder)
    for name, (build, _) in HOSTILE.items():
        (folder / name).write_bytes(build())
    for name, data in SIDECARS.items():
        (folder / name).write_bytes(data)
    (folder / RED).write_bytes(NOTE)
    (folder / ".draft.md").write_bytes(NOTE)
    (folder / ".cache").mkdir()
    (folder / ".cache" / "copy.md").write_bytes(NOTE)
    return set(good)


@pytest.mark.slow
def test_good_files_are_written_and_each_hostile_file_is_reported(tmp_path, settings):
    good = write_folder(tmp_path / "docs")
    store = KnowledgeBaseStore(settings)
    started = time.perf_counter()
    report = Ingestor(store).ingest_paths([tmp_path / "docs"], "mixed")
    seconds = time.perf_counter() - started

    outcome = {f.name: f for f in report.files}
    shown_red = "\\x1b[31mred\\x1b[0m.txt"
    assert {n for n, f in outcome.items() if f.status == "added"} == good | {shown_red}
    for name, (_, reason) in HOSTILE.items():
        assert outcome[name].status == "rejected", name
        assert reason in outcome[name].reason, (name, outcome[name].reason)
    assert outcome[".draft.md"].status == "skipped" and "Hidden file" in outcome[".draft.md"].reason
    assert outcome[".cache/"].status == "skipped" and "Hidden folder" in outcome[".cache/"].reason
    assert "copy.md" not in outcome
    assert report.to_dict()["summary"] == {"added": 7, "unchanged": 0, "replaced": 0, "rejected": len(HOSTILE),
                                           "skipped": 2}

    stored = {d.file_name: d for d in store.list_documents("mixed")}
    assert set(stored) == good | {shown_red}, "only the good files are written"
    assert not any(h.has_control_chars(d.title) or h.has_control_chars(d.file_name) for d in stored.values())
    assert seconds < 90, f"the folder took {seconds:.0f} s"


def test_upload_names_with_escapes_and_nul_are_stored_escaped(settings):
    report = Ingestor(KnowledgeBaseStore(settings)).ingest_bytes(
        [(RED, NOTE), ("nul\x00name.md", NOTE), ("date.md", h.markdown_with_front_matter("date: 2024-02-30\n"))],
        "uploads")
    outcome = {f.name: f for f in report.files}
    assert outcome["\\x1b[31mred\\x1b[0m.txt"].status == "added"
    assert outcome["nul\\x00name.md"].status == "added"
    assert outcome["date.md"].status == "rejected" and "not a real date" in outcome["date.md"].reason
    assert not any("\x1b" in f.name or "\x00" in f.name or "\x1b" in (f.title or "") for f in report.files)


def test_cli_prints_escaped_names_and_each_outcome(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / RED).write_bytes(NOTE)
    (docs / "date.md").write_bytes(h.markdown_with_front_matter("update_date: 2024-02-30\n"))
    (docs / ".draft.md").write_bytes(NOTE)
    assert main(["ingest", str(docs), "--kb", "cli", "--data-dir", str(tmp_path / "data")]) == 0
    out, err = capsys.readouterr()
    assert "\x1b[31m" not in out + err, "a file name restyled the terminal"
    assert "\\x1b[31mred\\x1b[0m.txt" in out
    assert "not a real date" in out and "Hidden file" in out
    assert "cli: 1 added, 0 unchanged, 0 replaced, 1 rejected, 1 skipped" in out
