"""Builders for real test files in every supported format (and some broken ones)."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime, timezone
from pathlib import Path


def make_pdf(pages: list[str], title: str | None = None) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=timezone.utc))
    if title:
        pdf.set_title(title)
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def make_image_only_pdf() -> bytes:
    from fpdf import FPDF
    from PIL import Image

    image = Image.new("RGB", (120, 60), (200, 30, 30))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(buffer.getvalue()), x=10, y=10, w=100)
    return bytes(pdf.output())


def make_empty_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_encrypted_pdf(text: str = "Secret torque values.") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([text]))))
    writer.encrypt(user_password="open-sesame", owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(heading: str, paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.created = datetime(2024, 1, 1)
    document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_zip_without_document() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    return out.getvalue()


def png_bytes() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


SAMPLE_MD = """---
title: Brake wear pin check
source: Test Airline Engineering
update_date: 2024-05-02
authority: 4
doc_type: manual
series: brake-wear
revision: Rev 3
aircraft: A320
---
# Brake wear pin check

Measure the wear pin with the parking brake set. The brake is serviceable while the pin protrudes at least 1.0 mm.

Replace the brake when the pin is flush with the housing.
"""

SAMPLE_HTML = """<html><head><title>Tyre pressure bulletin</title><style>.x{color:red}</style>
<script>var secret = "do not index this script";</script></head>
<body><nav>Home | Contact</nav><h1>Tyre pressure bulletin</h1>
<p>Check main wheel tyre pressure daily with the tyres cold.</p>
<p style="display:none">hidden marketing text</p>
<p>Nitrogen inflation is required for the B737 main gear.</p></body></html>"""

SAMPLE_CSV = "code,meaning,action\nE4027,Brake temperature sensor fault,Replace sensor P/N 201-587-3\nE3112,Low hydraulic pressure,Check pump case drain\n"

SAMPLE_TXT = """---
title: Hangar shop note
update_date: 2019-07-10
authority: 2
doc_type: shop_note
---
Shop note. Old practice was to torque the axle nut to 120 lbf.ft. This note is superseded.
"""


def write_corpus(folder: Path) -> dict[str, Path]:
    """Write one valid file per format (plus sidecars) into ``folder``; returns name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "brake-wear.md": SAMPLE_MD.encode(),
        "tyre-bulletin.html": SAMPLE_HTML.encode(),
        "fault-codes.csv": SAMPLE_CSV.encode(),
        "shop-note.txt": SAMPLE_TXT.encode(),
        "wheel-manual.pdf": make_pdf(
            ["Wheel removal. Jack the aircraft and remove the axle nut.",
             "Wheel installation. Torque the axle nut to 150 lbf.ft and safety it with the lock bolt."],
            title="Wheel manual",
        ),
        "apu-oil.docx": make_docx(
            "APU oil servicing",
            ["Service the APU oil within 15 minutes of shutdown."],
            [["Aircraft", "Oil quantity"], ["A320", "5.7 qt"], ["B737", "6.1 qt"]],
        ),
    }
    paths = {}
    for name, data in files.items():
        path = folder / name
        path.write_bytes(data)
        paths[name] = path
    (folder / "wheel-manual.meta.yaml").write_text(
        "title: A320 wheel manual\nsource: OEM\nupdate_date: 2025-03-01\nauthority: 5\ndoc_type: manual\n"
        "series: amm-wheel\nrevision: Rev 12\n"
    )
    (folder / "apu-oil.meta.json").write_text('{"update_date": "2023-06-30", "authority": 4, "doc_type": "manual"}')
    (folder / "tyre-bulletin.meta.yaml").write_text("update_date: 2022-01-15\nauthority: 3\ndoc_type: service_bulletin\n")
    return paths


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    """Run the CLI in-process with --json; assert stdout is exactly one JSON object and return (code, object)."""
    import json

    from engine.cli import main

    code = main(list(argv) + ["--json"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return code, json.loads(lines[0])
