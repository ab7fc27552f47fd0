"""Tables of figures in PDFs are read as records, each figure named by its column's headers (group headers too);
pages without such a table keep their plain text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.documents.parsers import parse_pdf
from engine.documents.pdf_tables import Word, looks_tabular, read_page
from engine.language.layout import record_fields

REAL_DOCS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "real_docs"


def line(top: float, *cells: tuple[str, float]) -> list[Word]:
    """Words of one line: (text, right edge), each word 6 points wide per character."""
    return [Word(text, x1 - 6 * len(text), x1, top, top + 8) for text, x1 in cells]


def flattened(rows: list[list[Word]]) -> str:
    return "\n".join(" ".join(w.text for w in row) for row in rows)


GROUPED = [
    line(10, ("Depot", 60)),
    line(30, ("North", 150), ("South", 250)),
    line(40, ("Site", 40), ("Parts", 120), ("Hours", 160), ("Parts", 220), ("Hours", 260)),
    line(50, ("Leeds", 40), ("1,200", 120), ("35", 160), ("980", 220), ("41", 260)),
    line(60, ("York", 40), ("860", 120), ("28", 160), ("1,015", 220), ("39", 260)),
    line(70, ("Hull", 40), ("455", 120), ("12", 160), ("", 220), ("17", 260)),
    line(90, ("Counts", 50), ("are", 70), ("provisional.", 150)),
]


@pytest.mark.unit
def test_a_table_with_group_headers_becomes_one_record_per_row():
    words = [w for row in GROUPED for w in row if w.text]
    text = read_page(flattened(GROUPED), words)
    assert text is not None
    records = [r for r in text.split("\n") if r.startswith("Site:")]
    assert records == [
        "Site: Leeds; North Parts: 1,200; North Hours: 35; South Parts: 980; South Hours: 41",
        "Site: York; North Parts: 860; North Hours: 28; South Parts: 1,015; South Hours: 39",
        "Site: Hull; North Parts: 455; North Hours: 12; South Hours: 17",  # a blank cell is left out
    ]
    assert text.startswith("Depot\n") and text.rstrip().endswith("Counts are provisional.")
    assert "North South" not in text and "Site Parts Hours" not in text, "the header lines are read into the records"


@pytest.mark.unit
def test_only_the_tables_lines_are_replaced_in_the_plain_text():
    words = [w for row in GROUPED for w in row if w.text]
    plain = "Depot\nA note that the layout put first.\n" + flattened(GROUPED[1:])
    text = read_page(plain, words)
    assert text.split("\n")[:2] == ["Depot", "A note that the layout put first."]
    assert "Site: York; North Parts: 860" in text


@pytest.mark.unit
def test_prose_with_figures_and_tables_of_text_are_left_alone():
    prose = [line(10 + 10 * n, ("Call", 30 + 40 * n), ("206", 80 + 40 * n), ("231", 110 + 40 * n),
                  ("3500", 150 + 40 * n), ("today", 200 + 37 * n)) for n in range(4)]
    assert read_page(flattened(prose), [w for row in prose for w in row]) is None, "figures that do not line up"
    text_table = [line(10, ("Engine", 40), ("Rate", 120), ("Window", 220))] + [
        line(20 + 10 * n, (f"E{n}", 40), ("0.5", 90), ("US", 105), ("qt/h", 130), ("5", 180), ("to", 195), ("60", 210),
             ("min", 230)) for n in range(4)]
    assert read_page(flattened(text_table), [w for row in text_table for w in row]) is None
    assert looks_tabular("A 1 2 3\nB 4 5 6\nC 7 8 9") and not looks_tabular("A 1 2 3\nsome words\nB 4 5 6")


@pytest.mark.integration
def test_a_pdf_table_of_figures_is_read_with_its_column_names():
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(0, 6, "Quarterly parts report. Figures are units shipped.", new_x="LMARGIN", new_y="NEXT")
    rows = [("Region", "Q1", "Q2", "Q3"), ("Leeds", "1,204", "1,310", "998"), ("York", "876", "912", "1,045"),
            ("Hull", "455", "470", "502"), ("Total", "2,535", "2,692", "2,545")]
    for row in rows:
        pdf.cell(40, 6, row[0])
        for cell in row[1:]:
            pdf.cell(30, 6, cell, align="R")
        pdf.ln()
    parsed = parse_pdf(bytes(pdf.output()), None)
    text = parsed.sections[0].text
    assert "Region: York; Q1: 876; Q2: 912; Q3: 1,045" in text
    assert "Region: Total; Q1: 2,535; Q2: 2,692; Q3: 2,545" in text
    assert text.startswith("Quarterly parts report.")


@pytest.mark.integration
@pytest.mark.skipif(not REAL_DOCS.is_dir(), reason="the real documents are not beside the project")
def test_a_wide_state_table_keeps_every_figure_with_its_column():
    """The real statistics table (a wide table with two header levels, flattened by the plain text): each row's
    figures, in order, are those pdfplumber's own table extraction finds in that row's cells."""
    import pdfplumber

    data = (REAL_DOCS / "nics-background-checks-2015-11.pdf").read_bytes()
    text = parse_pdf(data, None).sections[0].text
    records = [r for r in text.split("\n") if r.count(":") > 10]
    with pdfplumber.open(REAL_DOCS / "nics-background-checks-2015-11.pdf") as pdf:
        cells = [row for row in pdf.pages[0].extract_table() if row and row[0] and row[1]]
    expected = {}
    for row in cells[1:]:  # rows of five states each, a cell per column holding their figures line by line
        columns = [(c or "").split("\n") for c in row]
        for n, label in enumerate(columns[0]):
            expected[label] = [c[n] for c in columns[1:] if len(c) > n and c[n]]
    assert len(records) == len(expected) >= 50
    for record in records:
        fields = [f.split(": ", 1) for f in record.split("; ")]
        label = fields[0][1]
        assert [v for _, v in fields[1:]] == expected[label], label
        names = [k for k, _ in fields[1:]]
        assert names[0] == "Permit" and names[-1] == "Totals" and len(set(names)) == len(names)
        assert any(re.match(r"Pre-Pawn \w", k) for k in names), "the group header names its columns"
        assert not any(k.startswith("*") for k in names), "footnote marks are not part of a column's name"
    assert all(record_fields(r) for r in records), "each row is read as a record downstream"


@pytest.mark.unit
def test_a_figure_in_a_rows_label_stays_in_the_label_and_a_column_only_the_total_fills_keeps_its_name():
    rows = [line(10, ("Bay", 40), ("Parts", 120), ("Hours", 160), ("Spares", 200), ("Total", 240)),
            line(20, ("Bay", 30), ("7", 40), ("12", 120), ("30", 160), ("42", 240)),
            line(30, ("Ramp", 40), ("9", 120), ("22", 160), ("31", 240)),
            line(40, ("Bay", 30), ("12", 40), ("4", 120), ("8", 160), ("12", 240)),
            line(50, ("All", 40), ("25", 120), ("60", 160), ("3", 200), ("88", 240))]
    text = read_page(flattened(rows), [w for row in rows for w in row])
    assert "Bay: Bay 7; Parts: 12; Hours: 30; Total: 42" in text
    assert "Bay: All; Parts: 25; Hours: 60; Spares: 3; Total: 88" in text


@pytest.mark.unit
def test_footnote_marks_are_dropped_from_header_names():
    rows = [line(10, ("Site", 40), ("Parts", 120), ("*Other", 160), ("Total†", 200))] + [
        line(20 + 10 * n, (name, 40), (str(10 + n), 120), (str(n), 160), (str(10 + 2 * n), 200))
        for n, name in enumerate(["Leeds", "York", "Hull"])]
    text = read_page(flattened(rows), [w for row in rows for w in row])
    assert "Site: York; Parts: 11; Other: 1; Total: 12" in text
