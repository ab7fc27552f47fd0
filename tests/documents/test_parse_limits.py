"""Hostile files are refused in this process, quickly, by the limits checked in code (no worker involved)."""

from __future__ import annotations

import time
import zipfile
from io import BytesIO

import pytest

from engine.documents.chunking import chunk_sections
from engine.documents.limits import ParseLimits, check_chunk_count
from engine.documents.metadata import parse_sidecar, resolve_metadata
from engine.documents.parsers import parse_bytes, split_front_matter
from engine.documents.sandbox import read_document
from engine.documents.types import Section
from engine.errors import DocumentError
from tests.reliability import hostile_files as h

pytestmark = pytest.mark.unit


def timed(call):
    started = time.perf_counter()
    try:
        return call(), time.perf_counter() - started
    except DocumentError as exc:
        return exc, time.perf_counter() - started


def test_docx_whose_document_inflates_300_mb_is_refused_from_its_directory():
    data = h.docx_inflating(300 * h.MB)
    assert len(data) < 1 * h.MB
    error, seconds = timed(lambda: parse_bytes("bomb.docx", data))
    assert isinstance(error, DocumentError), "the bomb was parsed"
    assert "word/document.xml unpacks to 300 MB" in str(error) and "decompression bomb" in str(error)
    assert seconds < 1.0, "refused from the ZIP directory, before inflating anything"


def test_docx_with_a_large_incompressible_part_is_refused_over_the_unpacked_limit():
    source = zipfile.ZipFile(BytesIO(h.docx_big_part(1 * h.MB)))
    out = BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:  # ratio 1:1, only the total can catch it
        for item in source.infolist():
            data = source.read(item.filename)
            big = "media" in item.filename
            archive.writestr(item.filename, bytes(range(256)) * (12 * h.MB // 256) if big else data)
    error, _ = timed(lambda: parse_bytes("part.docx", out.getvalue(), limits=ParseLimits(max_unpacked_mb=8)))
    assert isinstance(error, DocumentError) and "over the 8 MB limit" in str(error)
    assert "WORKBENCH_MAX_UNPACKED_MB" in str(error)


def test_pdf_whose_stream_inflates_to_100_mb_of_zeros_is_a_clear_rejection():
    error, seconds = timed(lambda: parse_bytes("zeros.pdf", h.pdf_flate_zeros(100 * h.MB)))
    assert isinstance(error, DocumentError), "pypdf's LimitReachedError escaped or the bomb was read"
    assert "safety limit of the PDF reader" in str(error) and "Re-export it" in str(error)
    assert seconds < 10


def test_csv_with_one_field_of_10_mb_is_refused_naming_the_row_and_the_setting():
    error, _ = timed(lambda: parse_bytes("field.csv", h.csv_big_field(10 * h.MB)))
    assert isinstance(error, DocumentError), "csv.Error escaped"
    assert "Row 2" in str(error) and "100,000 characters" in str(error) and "WORKBENCH_MAX_FIELD_CHARS" in str(error)


def test_csv_rows_over_the_chunk_cap_are_refused_before_chunking():
    limits = ParseLimits(max_chunks=50)
    error, _ = timed(lambda: parse_bytes("rows.csv", h.csv_rows(20_000), limits=limits))
    assert isinstance(error, DocumentError) and "over the limit of 50 per document" in str(error)
    assert "WORKBENCH_MAX_CHUNKS_PER_DOC" in str(error)


def test_chunk_count_is_exact_up_to_the_cap_and_stops_one_past_it():
    text = "\n\n".join(f"Paragraph {i} says one thing about torque values and nothing more." for i in range(400))
    count = len(chunk_sections([Section(text)], 200, 0))
    limits = ParseLimits(max_chunks=count, chunk_size=200, chunk_overlap=0)
    assert check_chunk_count([Section(text)], limits) == count
    with pytest.raises(DocumentError, match=f"more than {count - 1} chunks"):
        check_chunk_count([Section(text)], ParseLimits(max_chunks=count - 1, chunk_size=200, chunk_overlap=0))


def test_markdown_with_one_huge_line_is_refused_in_bounded_time():
    error, seconds = timed(lambda: read_document("line.md", h.markdown_long_line(50_000_000)))
    assert isinstance(error, DocumentError)
    assert "makes at least 48,913 chunks" in str(error) and "over the limit of 10,000" in str(error)
    assert seconds < 10


def test_markdown_title_of_a_long_line_of_hashes_is_found_in_linear_time():
    data = ("# " + "#" * 30_000 + "x\n\nBody text.").encode()  # backtracked quadratically in the heading patterns
    chunks, seconds = timed(lambda: chunk_sections(parse_bytes("hashes.md", data).sections))
    assert not isinstance(chunks, DocumentError) and chunks
    assert seconds < 1.0, f"{seconds:.1f} s (the backtracking patterns took 17 s to parse and 17 s to chunk)"


def test_chunking_text_with_no_spaces_is_linear():
    _, seconds = timed(lambda: chunk_sections([Section("a" * (8 * h.MB))]))
    assert seconds < 2.0, f"8 MB without spaces took {seconds:.1f} s (quadratic splitting took 4 s)"
    _, seconds = timed(lambda: chunk_sections([Section("A. " * 350_000)]))
    assert seconds < 4.0, f"1 MB of initials took {seconds:.1f} s (quadratic sentence splitting took 17 s)"


def test_yaml_bomb_in_front_matter_or_sidecar_is_refused_without_expanding():
    bomb = h.yaml_bomb()
    for call in (lambda: split_front_matter(f"---\n{bomb}---\nBody"),
                 lambda: parse_sidecar("note.txt.meta.yaml", bomb)):
        error, seconds = timed(call)
        assert isinstance(error, DocumentError), "the aliases were expanded"
        assert "YAML alias *a0 at line 2" in str(error) and "Write the values out" in str(error)
        assert seconds < 0.5


def test_deeply_nested_sidecar_json_is_refused():
    for depth, reason in [(100_000, "over the 64 KB limit"), (20_000, "nested too deeply"), (8, "nests lists")]:
        with pytest.raises(DocumentError, match=reason):
            parse_sidecar("deep.txt.meta.json", h.json_nested(depth))


def test_metadata_value_over_the_character_limit_is_refused():
    with pytest.raises(DocumentError, match="'notes' holds 5,005 characters.*WORKBENCH_MAX_METADATA_CHARS"):
        parse_sidecar("n.meta.yaml", "notes: " + "x" * 5_000)


def test_impossible_date_is_a_clear_error_for_that_file_only():
    sidecar = parse_sidecar("d.txt.meta.yaml", "update_date: 2024-02-30\ntitle: Note\n")
    assert sidecar["update_date"] == "2024-02-30", "dates stay text until checked"
    meta, _ = split_front_matter("---\nupdate_date: 2024-02-30\n---\nBody")
    parsed = parse_bytes("d.txt", b"Body text.")
    for layers in ({"sidecar": sidecar}, {"sidecar": meta}):
        with pytest.raises(DocumentError, match=r"'2024-02-30' is not a real date \(day is out of range"):
            resolve_metadata("d.txt", parsed, "kb", **layers)
    good = resolve_metadata("d.txt", parsed, "kb", sidecar=parse_sidecar("g.meta.yaml", "update_date: 2024-02-29"))
    assert good.update_date.isoformat() == "2024-02-29"


# -- wide and dense files (issue 27, item 3) ------------------------------------------------------------------

def test_a_csv_of_100000_columns_is_refused_at_its_first_row_naming_the_setting():
    data = h.csv_wide(100_000)
    assert len(data) > 1 * h.MB
    error, seconds = timed(lambda: read_document("wide.csv", data))
    assert isinstance(error, DocumentError), "the wide CSV was accepted"
    assert "Row 1 of the CSV has 100,000 columns, over the limit of 1,000 per row" in str(error)
    assert "WORKBENCH_MAX_COLUMNS_PER_ROW" in str(error)
    assert seconds < 5


def test_csv_cells_over_the_cap_are_refused_while_reading():
    error, _ = timed(lambda: parse_bytes("long.csv", h.csv_wide(20, rows=600), limits=ParseLimits(max_cells=5_000)))
    assert isinstance(error, DocumentError) and "more than 5,000 table cells" in str(error)
    assert "WORKBENCH_MAX_CELLS_PER_FILE" in str(error)
    assert parse_bytes("long.csv", h.csv_wide(20, rows=200), limits=ParseLimits(max_cells=5_000)).sections


def test_a_docx_table_wider_than_the_cap_is_refused():
    import tests.helpers as helpers

    wide = helpers.make_docx("Readings", ["Below."], table=[[f"h{i}" for i in range(12)], [str(i) for i in range(12)]])
    error, _ = timed(lambda: parse_bytes("wide.docx", wide, limits=ParseLimits(max_columns=10)))
    assert isinstance(error, DocumentError) and "a table in the DOCX has 12 columns, over the limit of 10" in str(error)
    assert parse_bytes("wide.docx", wide, limits=ParseLimits(max_columns=12)).sections


def test_a_pdf_of_many_pages_of_scraps_is_refused_by_the_density_cap():
    data = h.pdf_pages(1_200)
    error, _ = timed(lambda: read_document("tiny.pdf", data))
    assert isinstance(error, DocumentError), "1,200 one-line pages were accepted as 1,200 chunks"
    assert "makes 1,200 chunks from 0.05 MB of text" in str(error)
    assert "WORKBENCH_MAX_CHUNKS_PER_MB" in str(error)


def test_the_density_cap_spares_short_documents_and_full_chunks():
    pages = h.pdf_pages(900)  # under the 1,000 chunks the cap starts at, however short its pages
    assert len(read_document("deck.pdf", pages).sections) == 900
    prose = " ".join(f"Sentence {i} of the manual explains one step of the wheel change in plain words."
                     for i in range(60_000))  # about 5 MB of text in full chunks: 6,000+ of them
    count = check_chunk_count([Section(prose)], ParseLimits())
    assert count > 1_000


def test_the_chunks_per_mb_setting_must_leave_room_for_full_chunks():
    from engine.config import load_settings
    from engine.errors import ConfigError

    with pytest.raises(ConfigError, match="WORKBENCH_MAX_CHUNKS_PER_MB"):
        load_settings(chunk_size=100, chunk_overlap=0)
    assert load_settings(chunk_size=100, chunk_overlap=0, max_chunks_per_mb=16_000).max_chunks_per_mb == 16_000
