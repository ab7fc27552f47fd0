"""One folder of good files and every kind of hostile file: the good files are written, each bad one is
reported with the limit it hit, hidden files are reported as skipped, and nothing crashes.

Runs the real Ingestor on a LanceDB store in tmp_path with the real embedding model; the limits are lowered
so that small hostile files stand for the full-size ones (test_parse_worker.py reads those at the defaults).
"""

from __future__ import annotations

import json
import os
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


# -- issue 27: links out of the folder, special files, wide and dense files ---------------------------------------

SECRET = b"root:x:0:0:root:/root:/bin/bash\nkeeper:x:1000:1000::/home/keeper:/bin/sh\n"
NEW_KINDS: dict[str, tuple[str, str]] = {  # file -> (status, what its outcome must say), at the default limits
    "wide.csv": ("rejected", "has 100,000 columns, over the limit of 1,000 per row (WORKBENCH_MAX_COLUMNS_PER_ROW)"),
    "tiny.pdf": ("rejected", "makes 5,000 chunks from 0.19 MB of text"),
    "sheet.xlsx": ("rejected", "Unsupported file type '.xlsx'"),
    "deep.json": ("rejected", "Unsupported file type '.json'"),
    "pipe.txt": ("skipped", "A FIFO (named pipe), not a regular file"),
    "passwd-link.txt": ("skipped", "Symbolic link: not followed"),
    "etc-link/": ("skipped", "Symbolic link: not followed"),
}


def write_new_kinds(folder, outside):
    good = helpers.write_corpus(folder)
    (outside / "private").mkdir(parents=True)
    (outside / "passwd").write_bytes(SECRET)
    (outside / "private" / "shadow.txt").write_bytes(SECRET)
    (folder / "wide.csv").write_bytes(h.csv_wide(100_000))
    (folder / "tiny.pdf").write_bytes(h.pdf_pages(5_000))
    (folder / "sheet.xlsx").write_bytes(h.xlsx_expanding(20_000_000))  # ~1 GB of sheet XML if it were opened
    (folder / "deep.json").write_text(h.json_nested(100_000))
    os.mkfifo(folder / "pipe.txt")
    (folder / "passwd-link.txt").symlink_to(outside / "passwd")
    (folder / "etc-link").symlink_to(outside / "private")
    return set(good)


@pytest.mark.slow
def test_new_kinds_at_the_default_limits_are_turned_away_and_the_good_files_land(tmp_path):
    good = write_new_kinds(tmp_path / "docs", tmp_path / "outside")
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    for follow_links in (False, True):
        started = time.perf_counter()
        report = Ingestor(store).ingest_paths([tmp_path / "docs"], f"kinds-{int(follow_links)}",
                                              follow_links=follow_links)
        seconds = time.perf_counter() - started
        outcome = {f.name: f for f in report.files}
        assert {n for n, f in outcome.items() if f.status == "added"} == good
        for name, (status, says) in NEW_KINDS.items():
            if follow_links and "link" in name:
                says = "Symbolic link to a place outside the folder being ingested"
            assert outcome[name].status == status and says in outcome[name].reason, (name, outcome[name].reason)
        assert not [n for n in outcome if n in ("shadow.txt", "passwd")], "a file outside the folder was read"
        assert seconds < 120, f"the folder took {seconds:.0f} s"
    hits = store.search("root:x:0:0 keeper", mode="keyword", k=50)
    assert hits and not any("root:x" in hit.text for hit in hits), "text from outside the folder is searchable"


def test_cli_never_stores_a_file_a_link_leads_to_outside_the_folder(tmp_path, capsys):
    docs, outside = tmp_path / "F", tmp_path / "outside"
    docs.mkdir()
    outside.mkdir()
    (outside / "passwd").write_bytes(SECRET)
    (docs / "note.md").write_bytes(NOTE)
    (docs / "passwd-link.txt").symlink_to(outside / "passwd")
    (docs / "inside.md").symlink_to("note.md")
    data = str(tmp_path / "data")
    for flags in ([], ["--follow-links"]):
        assert main(["ingest", str(docs), "--kb", "x", "--data-dir", data, *flags]) == 0
        out, _ = capsys.readouterr()
        assert "passwd-link.txt" in out and ("not followed" in out or "outside the folder" in out)
        assert "skipped" in out
    assert main(["search", "root:x:0:0", "--kb", "x", "--mode", "keyword", "--data-dir", data, "--json"]) == 0
    out, _ = capsys.readouterr()
    assert not [r for r in json.loads(out)["results"] if "root:x" in r["text"]], "the linked file was stored"
    assert main(["kb", "list", "--kb", "x", "--data-dir", data, "--json"]) == 0
    out, _ = capsys.readouterr()
    assert "passwd" not in out and "note.md" in out
