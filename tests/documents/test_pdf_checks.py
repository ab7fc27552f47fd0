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
    assert first_line_title("\n\n  2024-01-01  \nHeading") is None  # no letters in the first line
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
