"""Parsers: bytes of one supported format -> ParsedFile (text sections + embedded metadata)."""

from __future__ import annotations

import csv
import io
import logging
import re
import zipfile
from typing import Callable

from bs4 import BeautifulSoup

from engine.documents.detect import decode_text, detect_format
from engine.documents.limits import (
    DEFAULT_LIMITS, ParseLimits, check_cells, check_row_width, check_text_size, check_zip, visible_chars,
)
from engine.documents.pdf_checks import low_text_warning, pdf_title
from engine.documents.pdf_tables import Word, looks_tabular, read_page
from engine.documents.safe_metadata import load_metadata
from engine.documents.types import Format, ParsedFile, Section
from engine.errors import DocumentError

log = logging.getLogger(__name__)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_MD_HEADING = re.compile(r"^[ \t]{0,3}#[ \t]+(.+)$", re.M)  # no nested quantifiers: linear on any line
_BLANK_RUNS = re.compile(r"\n{3,}")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
FIRST_PAGE_FRAGMENTS = 20000
"""Text fragments of a PDF's first page kept with their type sizes to find its title. A page of prose holds a few
hundred; a page-wide table thousands, and its title may come last in the content stream (a state-by-state table of
2,186 fragments sets its 15 pt title as fragment 2,158)."""


def split_front_matter(text: str, limits: ParseLimits = DEFAULT_LIMITS) -> tuple[dict, str]:
    """Return (YAML front matter as a dict, the rest of the text)."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    return load_metadata(match.group(1), "yaml", "The front matter", limits), text[match.end():]


def _md_title(body: str) -> str | None:
    """The text of the first Markdown heading line ("# Title #" -> "Title")."""
    heading = _MD_HEADING.search(body)
    if heading is None:
        return None
    return heading.group(1).rstrip().rstrip("#").rstrip() or None


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def _pdf_limit_error(exc: Exception) -> DocumentError:
    return DocumentError(
        f"The PDF goes over a safety limit of the PDF reader ({exc}); it is damaged or built to exhaust memory. "
        "Re-export it (print to PDF) and upload again.")


def parse_pdf(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception:  # noqa: BLE001 - any failure means we cannot open it
                opened = 0
            if not opened:
                raise DocumentError("The PDF is encrypted with a password; remove the password and upload it again.")
        pages = list(reader.pages)
    except DocumentError:
        raise
    except LimitReachedError as exc:
        raise _pdf_limit_error(exc) from None
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"The PDF is damaged and cannot be read ({exc}); re-export it and upload again.") from None
    if not pages:
        raise DocumentError("The PDF has no pages; upload a PDF with content.")
    texts: list[str] = []
    visible = 0
    first_page: list[tuple[str, float]] = []  # the first page's text with its type sizes, for the title

    def sized(text, cm, tm, font, size) -> None:
        # a run of spaces carries no type size (a table's spacer set at 12 pt scaled would pass for a heading)
        if text and (text.strip() or "\n" in text) and len(first_page) < FIRST_PAGE_FRAGMENTS:
            first_page.append((text, float(size or 0) * abs(float(tm[3]) * float(cm[3]) or 1.0)))

    try:
        for page in pages:  # stop at the page that takes the text past the chunk cap
            texts.append(_clean(page.extract_text(visitor_text=None if texts else sized) or ""))
            visible += visible_chars(texts[-1])
            check_text_size(visible, limits)
    except LimitReachedError as exc:
        raise _pdf_limit_error(exc) from None
    except PyPdfError as exc:
        raise DocumentError(f"The PDF is damaged and its text cannot be read ({exc}); re-export it and upload "
                            "again.") from None
    texts = _with_tables(data, texts)
    check_text_size(sum(visible_chars(text) for text in texts), limits)  # records name every figure's column
    sections = [Section(text, page=number) for number, text in enumerate(texts, start=1) if text]
    if not sections:
        raise DocumentError(
            "The PDF has no extractable text (it is empty or scanned images only); "
            "run OCR on it or upload a text-based PDF."
        )
    title = None
    try:
        title = (reader.metadata.title or None) if reader.metadata else None
    except Exception:  # noqa: BLE001 - broken info dictionaries are common and harmless
        title = None
    warning = low_text_warning(texts)
    return ParsedFile("pdf", tuple(sections), title_hint=pdf_title(title, texts, first_page),
                      warnings=(warning,) if warning else ())


def _with_tables(data: bytes, texts: list[str]) -> list[str]:
    """``texts`` with each page whose text looks like a flattened table of figures read again from its words'
    positions (engine/documents/pdf_tables.py), so that each figure keeps its column's name. A page that pdfplumber
    cannot read, or whose words do not line up into a table, keeps its text."""
    pages = [i for i, text in enumerate(texts) if looks_tabular(text)]
    if not pages:
        return texts
    texts = list(texts)
    try:
        import pdfplumber

        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for i in pages:
                words = [Word(w["text"], float(w["x0"]), float(w["x1"]), float(w["top"]), float(w["bottom"]))
                         for w in pdf.pages[i].extract_words()]
                read = read_page(texts[i], words)
                if read:
                    texts[i] = _clean(read)
    except Exception as exc:  # noqa: BLE001 - the plain text is still there; only the columns' names are lost
        log.warning("PDF tables not read from their layout (the plain text is kept): %s", exc)
    return texts


def _docx_rows(table, cells: int, limits: ParseLimits) -> tuple[list[list[str]], int]:
    """The cell texts of a DOCX table, row by row, and ``cells`` plus its cell count; DocumentError for a row wider
    than ``limits.max_columns`` or once the file's cells pass ``limits.max_cells``."""
    rows = []
    for number, row in enumerate(table.rows, start=1):
        found = row.cells
        check_row_width(len(found), number, "a table in the DOCX", limits)
        cells += len(found)
        check_cells(cells, number, "the DOCX", limits)
        rows.append([cell.text.strip() for cell in found])
    return rows, cells


def _docx_table_text(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    header, body = rows[0], rows[1:]
    if not body:
        return " | ".join(header)
    lines = []
    for row in body:
        pairs = [f"{h or f'column {i + 1}'}: {v}" for i, (h, v) in enumerate(zip(header, row)) if v]
        lines.append("; ".join(pairs))
    return "\n".join(lines)


def parse_docx(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            check_zip(archive, "DOCX", limits)
    except zipfile.BadZipFile:
        raise DocumentError("The DOCX file is corrupt (not a readable ZIP archive); re-save it from Word.") from None
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many types for broken packages
        raise DocumentError(f"The DOCX file is corrupt ({exc.__class__.__name__}); re-save it from Word.") from None
    blocks: list[str] = []
    cells = 0
    title = (document.core_properties.title or "").strip() or None
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = (item.style.name if item.style is not None else "") or ""
            if style.startswith("Heading") or style == "Title":
                title = title or text
                blocks.append(text)
            else:
                blocks.append(text)
        elif isinstance(item, Table):
            rows, cells = _docx_rows(item, cells, limits)
            table_text = _docx_table_text(rows)
            if table_text:
                blocks.append(table_text)
    text = _clean("\n\n".join(blocks))
    if not text:
        raise DocumentError("The DOCX file has no text; upload a document with content.")
    return ParsedFile("docx", (Section(text),), title_hint=title)


def parse_markdown(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    meta, body = split_front_matter(raw, limits)
    text = _clean(body)
    if not text:
        raise DocumentError("The Markdown file has no text after its front matter.")
    return ParsedFile("markdown", (Section(text, headed=True),), meta, _md_title(body), encoding)


def parse_txt(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    meta, body = split_front_matter(raw, limits)
    text = _clean(body)
    if not text:
        raise DocumentError("The text file is empty.")
    first_line = text.split("\n", 1)[0].strip()
    return ParsedFile("txt", (Section(text),), meta, first_line[:120] or None, encoding)


def parse_html(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    soup = BeautifulSoup(raw, "lxml")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup(["script", "style", "noscript", "template", "head", "nav", "footer", "aside", "iframe", "svg"]):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}):
        tag.decompose()
    for tag in soup.find_all(style=_HIDDEN_STYLE):
        tag.decompose()
    if title is None:
        h1 = soup.find("h1")
        title = h1.get_text(" ", strip=True) if h1 else None
    text = _clean(soup.get_text("\n"))
    text = re.sub(r"[ \t]+", " ", text)
    if not text:
        raise DocumentError("The HTML page has no visible text.")
    return ParsedFile("html", (Section(text),), title_hint=title, encoding=encoding)


def _csv_records(reader, limits: ParseLimits) -> list[str]:
    """"Columns: ..." then one "column: value; ..." record per non-empty row; DocumentError for a row wider than
    ``limits.max_columns``, once the cells pass ``limits.max_cells``, or once the text must pass the chunk cap."""
    header: list[str] | None = None
    records: list[str] = []
    visible = cells = 0
    for row in reader:
        check_row_width(len(row), reader.line_num, "the CSV", limits)
        cells += len(row)
        check_cells(cells, reader.line_num, "the CSV", limits)
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [h.strip() or f"column {i + 1}" for i, h in enumerate(row)]
            records.append(f"Columns: {', '.join(header)}")
            continue
        pairs = [f"{header[i] if i < len(header) else f'column {i + 1}'}: {v.strip()}"
                 for i, v in enumerate(row) if v.strip()]
        records.append("; ".join(pairs))
        visible += visible_chars(records[-1])
        if len(records) % 1000 == 0:
            check_text_size(visible, limits)
    return records


def parse_csv(data: bytes, fallback: str | None, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    sample = raw[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(raw), dialect)
    previous = csv.field_size_limit(limits.max_field_chars)
    try:
        records = _csv_records(reader, limits)
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise DocumentError(
                f"Row {reader.line_num:,} of the CSV has a field longer than {limits.max_field_chars:,} characters "
                "(WORKBENCH_MAX_FIELD_CHARS). An unclosed quote makes the rest of the file one field; fix the quoting, "
                "split the field, or raise the limit.") from None
        raise DocumentError(f"The CSV file is malformed at row {reader.line_num:,} ({exc}); fix it and retry."
                            ) from None
    finally:
        csv.field_size_limit(previous)
    if len(records) < 2:
        raise DocumentError("The CSV file needs a header row and at least one record.")
    return ParsedFile("csv", (Section("\n\n".join(records)),), encoding=encoding)


PARSERS: dict[Format, Callable[[bytes, str | None, ParseLimits], ParsedFile]] = {
    "pdf": parse_pdf,
    "docx": parse_docx,
    "markdown": parse_markdown,
    "txt": parse_txt,
    "html": parse_html,
    "csv": parse_csv,
}


def parse_bytes(name: str, data: bytes, fallback_encoding: str | None = None,
                limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    """Detect the format of ``name``/``data`` and parse it within ``limits``; raises DocumentError on bad input.

    This runs in the calling process, so only the limits checked in code apply; ``sandbox.ParseWorker`` adds the
    wall-time and memory limits.
    """
    return PARSERS[detect_format(name, data)](data, fallback_encoding, limits)
