"""PDF titles that are really file names give way to the first heading; scanned PDFs are flagged, not rejected."""

from __future__ import annotations

import io

import pytest

from engine.documents.parsers import parse_bytes
from engine.documents.pdf_checks import first_line_title, looks_like_file_name
from tests import helpers

pytestmark = pytest.mark.unit

TRANSCRIPT = ("IN THE SUPREME COURT OF THE UNITED STATES\n"
              "The argument was heard before the full bench on the morning of the first day. " * 1 +
              "Counsel for the petitioner opened with the question of standing and the record below. " * 30)


def scanned_pdf(pages: int, stamp: str = "Page {n}") -> bytes:
    """A PDF whose pages are images with only a short stamp of real text, as a scan with a footer gives."""
    from fpdf import FPDF
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (300, 400), (230, 230, 230)).save(buffer, format="PNG")
    pdf = FPDF()
    pdf.set_font("Helvetica", size=9)
    pdf.set_auto_page_break(False)
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.image(io.BytesIO(buffer.getvalue()), x=10, y=10, w=180)
        pdf.set_xy(10, 280)
        pdf.cell(0, 5, stamp.format(n=n))
    return bytes(pdf.output())


@pytest.mark.parametrize("title", ["10811.exe", "Microsoft Word - brief.doc", "scan_0042.pdf", "C:\\docs\\x",
                                   "Untitled", "12345"])
def test_file_names_and_placeholders_are_not_titles(title):
    assert looks_like_file_name(title)


@pytest.mark.parametrize("title", ["A320 AMM 32-41-11 Main Landing Gear Wheel (Rev 12)", "Annual report 2024",
                                   "Version 2.0 release notes", "U.S. Dept. of Transportation"])
def test_real_titles_are_kept(title):
    assert not looks_like_file_name(title)


def test_a_file_name_title_gives_way_to_the_first_line():
    parsed = parse_bytes("10811.pdf", helpers.make_pdf([TRANSCRIPT, "More argument."], title="10811.exe"))
    assert parsed.title_hint == "IN THE SUPREME COURT OF THE UNITED STATES"
    assert parsed.warnings == ()


def test_a_real_metadata_title_is_kept():
    parsed = parse_bytes("x.pdf", helpers.make_pdf([TRANSCRIPT], title="Oral argument transcript"))
    assert parsed.title_hint == "Oral argument transcript"


def test_a_first_line_that_is_body_text_is_not_a_title():
    assert first_line_title("x" * 40 + " " + "word " * 40) is None
    assert first_line_title("\n\n  2024-01-01  \nHeading") == "Heading"  # a line without letters is passed over
    parsed = parse_bytes("brief.pdf", helpers.make_pdf(["004\n" + "word " * 100], title="Microsoft Word - brief.doc"))
    assert parsed.title_hint is None  # the file name then gives the title


def test_a_scanned_pdf_is_indexed_with_a_warning():
    parsed = parse_bytes("scan.pdf", scanned_pdf(6))
    assert [s.page for s in parsed.sections] == [1, 2, 3, 4, 5, 6]
    assert len(parsed.warnings) == 1
    assert "characters of text per page on average over 6 pages" in parsed.warnings[0]
    assert "OCR" in parsed.warnings[0]


def test_a_short_one_page_note_is_not_flagged():
    assert parse_bytes("note.pdf", helpers.make_pdf(["Chock the wheels."])).warnings == ()


def _pdf(lines: list[tuple[str, float]], title: str | None = None) -> bytes:
    """A one-page PDF with each (text, point size) on a line of its own, and an optional metadata title."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    if title is not None:
        pdf.set_title(title)
    for text, size in lines:
        pdf.set_font("Helvetica", size=size)
        pdf.multi_cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


BODY = "The court heard argument on the question presented and on the record below. " * 6


@pytest.mark.parametrize("title", [None, "federal-register-2020-17221.pdf", "Document1", "Untitled"])
def test_a_pdf_without_a_real_metadata_title_takes_the_line_in_the_largest_type(title):
    from engine.documents.parsers import parse_pdf

    data = _pdf([("Official - Subject to Final Review", 8), ("Oral Argument in Case 23-719", 20), (BODY, 11)], title)
    assert parse_pdf(data, None).title_hint == "Oral Argument in Case 23-719"


def test_a_real_metadata_title_is_kept_and_a_plain_page_gives_its_first_line():
    from engine.documents.parsers import parse_pdf

    data = _pdf([("Big heading", 20), (BODY, 11)], "Supreme Court transcript, Smith v. Jones")
    assert parse_pdf(data, None).title_hint == "Supreme Court transcript, Smith v. Jones"
    assert parse_pdf(_pdf([("Annual safety review", 11), (BODY, 11)]), None).title_hint == "Annual safety review"


def test_an_ingested_pdf_is_titled_from_its_text_not_its_file_name():
    from engine.documents.metadata import resolve_metadata
    from engine.documents.parsers import parse_pdf

    parsed = parse_pdf(_pdf([("Page 1 of 3", 8), ("Rules for Airworthiness Directives", 18), (BODY, 11)]), None)
    meta = resolve_metadata("federal-register-2020-17221.pdf", parsed, "regs")
    assert meta.title == "Rules for Airworthiness Directives"


def test_line_numbers_before_the_first_line_are_passed_over():
    from engine.documents.parsers import parse_pdf

    lines = [(str(n), 11) for n in range(1, 6)] + [("Hearing record of the harbour board", 11), (BODY, 11)]
    assert parse_pdf(_pdf(lines), None).title_hint == "Hearing record of the harbour board"


def test_a_title_set_after_thousands_of_table_cells_is_found():
    """A page-wide table's cells may come before its title in the content stream; spacer runs carry no size."""
    from fpdf import FPDF

    from engine.documents.parsers import parse_pdf

    pdf = FPDF(orientation="L")
    pdf.add_page()
    pdf.set_font("Helvetica", size=4)
    for row in range(60):
        for col in range(45):
            pdf.set_xy(5 + col * 6, 30 + row * 2.5)
            pdf.cell(6, 2.5, f"{row * col % 997:,}")
        pdf.set_font("Helvetica", size=30)
        pdf.cell(6, 2.5, " ")  # a spacer in large type, as table generators emit
        pdf.set_font("Helvetica", size=4)
    pdf.set_font("Helvetica", size=16)
    pdf.set_xy(80, 10)
    pdf.cell(120, 8, "Harbour Crossings by Month")
    parsed = parse_pdf(bytes(pdf.output()), None)
    assert parsed.title_hint == "Harbour Crossings by Month"
