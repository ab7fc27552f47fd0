"""Build the binary documents (PDF, DOCX) of the demo corpus in ``sample_docs/``.

The text lives in ``tools/sample_sources/<kb>/<stem>.<pdf|docx>.src``. Each source
file starts with YAML front matter (the document metadata, written out as the
``<stem>.meta.yaml`` sidecar) followed by a tiny markup:

    # Heading 1            ## Heading 2            ### Heading 3
    WARNING: ...           CAUTION: ...            NOTE: ...   (boxed/bold label)
    - bullet item
    | a | b | c |          consecutive lines form a table, first row = header
    <<<PAGE>>>             page break
    anything else          paragraph text; blank line ends a paragraph

Markdown, TXT, HTML and CSV documents (and their sidecars) are plain files kept
directly in ``sample_docs/``; this script does not touch them.

The output is deterministic: PDF creation dates and DOCX core properties are
fixed, and DOCX zip entries get a fixed timestamp, so re-running the script does
not change any bytes.

Usage:  python tools/build_sample_docs.py [--check]
        --check  only verify that the generated files are up to date.
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "tools" / "sample_sources"
OUTPUT = ROOT / "sample_docs"
FIXED_DATE = datetime(2024, 1, 1, tzinfo=timezone.utc)
FIXED_ZIP_TIME = (2024, 1, 1, 0, 0, 0)
DISCLAIMER = "FICTIONAL DEMO DOCUMENT - NOT FOR OPERATIONAL USE"
LABELS = ("WARNING:", "CAUTION:", "NOTE:")


# --------------------------------------------------------------------------- parsing
@dataclass
class Block:
    kind: str  # h1 h2 h3 p bullet label table page
    text: str = ""
    label: str = ""
    rows: list[list[str]] = field(default_factory=list)


def split_front_matter(raw: str) -> tuple[dict, str]:
    if not raw.startswith("---\n"):
        raise ValueError("source must start with YAML front matter")
    end = raw.index("\n---\n", 4)
    meta = yaml.safe_load(raw[4:end]) or {}
    return meta, raw[end + 5 :]


def parse_body(body: str) -> list[Block]:
    blocks: list[Block] = []
    para: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if para:
            text = " ".join(s.strip() for s in para)
            label = next((lab for lab in LABELS if text.startswith(lab)), "")
            if label:
                blocks.append(Block("label", text[len(label) :].strip(), label=label[:-1]))
            else:
                blocks.append(Block("p", text))
            para.clear()
        if table:
            blocks.append(Block("table", rows=[r[:] for r in table]))
            table.clear()

    for line in body.splitlines():
        s = line.rstrip()
        if not s.strip():
            flush()
        elif s.strip() == "<<<PAGE>>>":
            flush()
            blocks.append(Block("page"))
        elif s.startswith("|"):
            if para:
                flush()
            table.append([c.strip() for c in s.strip().strip("|").split("|")])
        elif s.startswith(("# ", "## ", "### ")):
            flush()
            level = len(s.split(" ", 1)[0])
            blocks.append(Block(f"h{level}", s.split(" ", 1)[1].strip()))
        elif s.startswith("- "):
            flush()
            blocks.append(Block("bullet", s[2:].strip()))
        elif s.startswith("  ") and blocks and blocks[-1].kind == "bullet" and not para:
            blocks[-1].text += " " + s.strip()
        else:
            if table:
                flush()
            para.append(s)
    flush()
    return blocks


# --------------------------------------------------------------------------- PDF
def build_pdf(meta: dict, blocks: list[Block]) -> bytes:
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    header_text = meta.get("header") or meta["title"]

    class DocPDF(FPDF):
        def header(self) -> None:
            self.set_font("helvetica", "B", 8)
            self.set_text_color(90, 90, 90)
            self.cell(0, 5, header_text, new_x="LMARGIN", new_y="NEXT", align="L")
            self.set_draw_color(150, 150, 150)
            self.line(self.l_margin, self.get_y(), self.w - self.r_margin, self.get_y())
            self.ln(4)
            self.set_text_color(0, 0, 0)

        def footer(self) -> None:
            self.set_y(-14)
            self.set_font("helvetica", "", 8)
            self.set_text_color(90, 90, 90)
            self.cell(0, 4, f"{meta.get('footer', '')}  |  {DISCLAIMER}", align="L")
            self.set_y(-10)
            self.cell(0, 4, f"Page {self.page_no()} of {{nb}}", align="R")
            self.set_text_color(0, 0, 0)

    pdf = DocPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_title(meta["title"])
    pdf.set_author(meta.get("source", ""))
    pdf.set_creator("tools/build_sample_docs.py")
    pdf.set_producer("fpdf2")
    pdf.alias_nb_pages()
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_margins(18, 15, 18)
    pdf.add_page()

    def text(size: int, style: str, body: str, h: float) -> None:
        pdf.set_font("helvetica", style, size)
        pdf.multi_cell(0, h, body, new_x="LMARGIN", new_y="NEXT")

    for b in blocks:
        if b.kind == "page":
            pdf.add_page()
        elif b.kind == "h1":
            pdf.ln(2)
            text(14, "B", b.text, 7)
            pdf.ln(1)
        elif b.kind == "h2":
            pdf.ln(2)
            text(12, "B", b.text, 6)
            pdf.ln(1)
        elif b.kind == "h3":
            pdf.ln(1)
            text(10.5, "B", b.text, 5.5)
        elif b.kind == "p":
            text(9.5, "", b.text, 4.6)
            pdf.ln(2)
        elif b.kind == "bullet":
            pdf.set_font("helvetica", "", 9.5)
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(0, 4.6, "- " + b.text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif b.kind == "label":
            pdf.set_font("helvetica", "B", 9)
            fill = {"WARNING": (250, 225, 225), "CAUTION": (252, 242, 210), "NOTE": (230, 236, 245)}
            pdf.set_fill_color(*fill[b.label])
            pdf.multi_cell(0, 4.5, f"{b.label}: {b.text}", border=1, fill=True,
                           new_x="LMARGIN", new_y="NEXT", padding=2)
            pdf.ln(2)
        elif b.kind == "table":
            pdf.set_font("helvetica", "", 8)
            with pdf.table(line_height=4.2, text_align="LEFT",
                           headings_style=FontFace(emphasis="BOLD", fill_color=(225, 225, 225))) as t:
                for row in b.rows:
                    r = t.row()
                    for cell in row:
                        r.cell(cell)
            pdf.ln(3)
    return bytes(pdf.output())


# --------------------------------------------------------------------------- DOCX
def build_docx(meta: dict, blocks: list[Block]) -> bytes:
    from docx import Document
    from docx.enum.text import WD_BREAK
    from docx.shared import Pt

    doc = Document()
    cp = doc.core_properties
    cp.title = meta["title"]
    cp.author = meta.get("source", "")
    cp.last_modified_by = "tools/build_sample_docs.py"
    cp.comments = DISCLAIMER
    cp.created = FIXED_DATE.replace(tzinfo=None)
    cp.modified = FIXED_DATE.replace(tzinfo=None)
    cp.last_printed = FIXED_DATE.replace(tzinfo=None)
    cp.revision = 1
    cp.keywords = meta.get("doc_type", "")
    cp.subject = meta.get("aircraft", "")

    style = doc.styles["Normal"]
    style.font.name = "Calibri"
    style.font.size = Pt(10.5)

    section = doc.sections[0]
    section.header.paragraphs[0].text = meta.get("header") or meta["title"]
    section.footer.paragraphs[0].text = f"{meta.get('footer', '')} | {DISCLAIMER}"

    for b in blocks:
        if b.kind in ("h1", "h2", "h3"):
            doc.add_heading(b.text, level=int(b.kind[1]))
        elif b.kind == "p":
            doc.add_paragraph(b.text)
        elif b.kind == "bullet":
            doc.add_paragraph(b.text, style="List Bullet")
        elif b.kind == "label":
            p = doc.add_paragraph()
            p.add_run(f"{b.label}: ").bold = True
            p.add_run(b.text)
        elif b.kind == "page":
            doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        elif b.kind == "table":
            ncols = max(len(r) for r in b.rows)
            table = doc.add_table(rows=0, cols=ncols)
            table.style = "Table Grid"
            for i, row in enumerate(b.rows):
                cells = table.add_row().cells
                for j, value in enumerate(row):
                    cells[j].text = value
                    if i == 0:
                        for run in cells[j].paragraphs[0].runs:
                            run.bold = True
            doc.add_paragraph()

    raw = io.BytesIO()
    doc.save(raw)
    return normalise_zip(raw.getvalue())


def normalise_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed entry timestamps so the bytes are reproducible."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


# --------------------------------------------------------------------------- main
SIDECAR_KEYS = ("title", "source", "update_date", "authority", "doc_type",
                "series", "revision", "aircraft")


def sidecar_text(meta: dict) -> str:
    lines = []
    for key in SIDECAR_KEYS:
        if key not in meta:
            continue
        value = meta[key]
        if key == "update_date":
            lines.append(f"{key}: {value}")
        else:
            lines.append(yaml.safe_dump({key: value}, allow_unicode=True,
                                        default_flow_style=False, width=1000).strip())
    return "\n".join(lines) + "\n"


def check_latin1(path: Path, text: str) -> None:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise SystemExit(f"{path}: character {bad!r} is not latin-1 (PDF core fonts)")


def build_all(check: bool = False) -> int:
    stale = 0
    sources = sorted(SOURCES.glob("*/*.src"))
    if not sources:
        raise SystemExit(f"no sources found under {SOURCES}")
    for src in sources:
        kb = src.parent.name
        stem, fmt = src.name[: -len(".src")].rsplit(".", 1)
        raw = src.read_text(encoding="utf-8")
        meta, body = split_front_matter(raw)
        blocks = parse_body(body)
        if fmt == "pdf":
            check_latin1(src, raw)
            data = build_pdf(meta, blocks)
        elif fmt == "docx":
            data = build_docx(meta, blocks)
        else:
            raise SystemExit(f"{src}: unknown target format {fmt!r}")
        outputs = {
            OUTPUT / kb / f"{stem}.{fmt}": data,
            OUTPUT / kb / f"{stem}.meta.yaml": sidecar_text(meta).encode("utf-8"),
        }
        for path, content in outputs.items():
            current = path.read_bytes() if path.exists() else None
            if current == content:
                continue
            stale += 1
            if check:
                print(f"out of date: {path.relative_to(ROOT)}")
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
                print(f"wrote {path.relative_to(ROOT)}")
    print(f"{len(sources)} sources, {stale} file(s) {'stale' if check else 'written'}")
    return 1 if (check and stale) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify outputs are up to date")
    args = parser.parse_args(argv)
    return build_all(check=args.check)


if __name__ == "__main__":
    sys.exit(main())
