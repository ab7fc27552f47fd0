"""Each format parses into text with its metadata; broken files are refused with a useful reason."""

from __future__ import annotations

from datetime import date

import pytest

from engine.documents.metadata import read_sidecar, resolve_metadata
from engine.documents.parsers import parse_bytes
from engine.errors import DocumentError
from tests import helpers

pytestmark = pytest.mark.unit


def test_pdf_keeps_page_numbers_and_title():
    parsed = parse_bytes("m.pdf", helpers.make_pdf(["Page one text.", "Page two torque 150 lbf.ft."], title="Wheel"))
    assert parsed.format == "pdf"
    assert [s.page for s in parsed.sections] == [1, 2]
    assert "150 lbf.ft" in parsed.sections[1].text
    assert parsed.title_hint == "Wheel"


def test_docx_headings_and_tables_become_text():
    data = helpers.make_docx("APU oil", ["Service within 15 minutes."], [["Aircraft", "Qty"], ["A320", "5.7 qt"]])
    parsed = parse_bytes("a.docx", data)
    assert parsed.title_hint == "APU oil"
    assert "APU oil" in parsed.text and "Service within 15 minutes." in parsed.text
    assert "Aircraft: A320; Qty: 5.7 qt" in parsed.text


def test_markdown_front_matter_is_metadata_not_text():
    parsed = parse_bytes("b.md", helpers.SAMPLE_MD.encode())
    assert parsed.embedded_meta["authority"] == 4
    assert "authority" not in parsed.text
    meta = resolve_metadata("b.md", parsed, "manuals")
    assert meta.title == "Brake wear pin check"
    assert meta.update_date == date(2024, 5, 2)
    assert (meta.authority, meta.doc_type, meta.series, meta.revision) == (4, "manual", "brake-wear", "Rev 3")
    assert meta.extra == {"aircraft": "A320"}


def test_html_keeps_only_visible_text():
    parsed = parse_bytes("t.html", helpers.SAMPLE_HTML.encode())
    assert parsed.title_hint == "Tyre pressure bulletin"
    assert "Nitrogen inflation" in parsed.text
    for hidden in ("do not index", "color:red", "hidden marketing", "Home | Contact"):
        assert hidden not in parsed.text


def test_csv_rows_become_column_value_records():
    parsed = parse_bytes("f.csv", helpers.SAMPLE_CSV.encode())
    assert parsed.text.startswith("Columns: code, meaning, action")
    assert "code: E4027; meaning: Brake temperature sensor fault; action: Replace sensor P/N 201-587-3" in parsed.text


def test_txt_front_matter_and_unknown_date(tmp_path):
    parsed = parse_bytes("n.txt", b"Plain note without metadata.\nSecond line.")
    meta = resolve_metadata("n.txt", parsed, "faq")
    assert meta.update_date is None and meta.date_label == "unknown"
    assert meta.authority == 3 and meta.source == "n.txt"


def test_sidecar_and_caller_priority(tmp_path):
    paths = helpers.write_corpus(tmp_path)
    sidecar = read_sidecar(paths["wheel-manual.pdf"])
    parsed = parse_bytes("wheel-manual.pdf", paths["wheel-manual.pdf"].read_bytes())
    meta = resolve_metadata("wheel-manual.pdf", parsed, "manuals", sidecar=sidecar)
    assert (meta.title, meta.update_date, meta.revision) == ("A320 wheel manual", date(2025, 3, 1), "Rev 12")
    meta = resolve_metadata("wheel-manual.pdf", parsed, "manuals", sidecar=sidecar, caller={"authority": 2})
    assert meta.authority == 2 and meta.title == "A320 wheel manual"
    assert read_sidecar(paths["apu-oil.docx"])["update_date"] == "2023-06-30"


@pytest.mark.parametrize("value", ["2024-13-01", "yesterday"])
def test_bad_dates_are_refused(value):
    parsed = parse_bytes("n.txt", b"text")
    with pytest.raises(DocumentError, match="YYYY-MM-DD"):
        resolve_metadata("n.txt", parsed, "faq", caller={"update_date": value})


@pytest.mark.parametrize("authority", [0, 6, "high"])
def test_bad_authority_is_refused(authority):
    parsed = parse_bytes("n.txt", b"text")
    with pytest.raises(DocumentError, match="authority"):
        resolve_metadata("n.txt", parsed, "faq", caller={"authority": authority})


BAD_INPUTS = [
    ("image.png", helpers.png_bytes(), "Unsupported file type"),
    ("notes.doc", b"old word file", "Unsupported file type"),
    ("fake.pdf", helpers.png_bytes(), "not a PDF|contains a PNG"),
    ("fake.pdf", b"just some text pretending", "named .pdf but contains text"),
    ("empty.pdf", helpers.make_empty_pdf(), "no extractable text"),
    ("scan.pdf", helpers.make_image_only_pdf(), "no extractable text"),
    ("locked.pdf", helpers.make_encrypted_pdf(), "encrypted"),
    ("broken.docx", helpers.make_docx("H", ["x"])[:300], "corrupt"),
    ("sheet.docx", helpers.make_zip_without_document(), "not a Word document"),
    ("pic.txt", helpers.png_bytes(), "contains a PNG"),
    ("latin.txt", "caf\xe9 cr\xe8me".encode("latin-1"), "not valid UTF-8"),
    ("nothing.md", b"", "empty"),
    ("header-only.csv", b"a,b,c\n", "at least one record"),
]


@pytest.mark.parametrize("name,data,reason", BAD_INPUTS, ids=[b[0] + "-" + b[2][:12] for b in BAD_INPUTS])
def test_bad_input_is_rejected_with_a_reason(name, data, reason):
    with pytest.raises(DocumentError, match=reason):
        parse_bytes(name, data)


def test_utf8_fallback_is_opt_in():
    data = "caf\xe9".encode("cp1252")
    parsed = parse_bytes("x.txt", data, fallback_encoding="cp1252")
    assert parsed.text == "café" and parsed.encoding == "cp1252"
