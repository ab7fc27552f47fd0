"""Parsers: bytes of one supported format -> ParsedFile (text sections + embedded metadata)."""

from __future__ import annotations

import csv
import io
import re
from typing import Callable

import yaml
from bs4 import BeautifulSoup

from engine.documents.detect import decode_text, detect_format
from engine.documents.pdf_checks import low_text_warning, pdf_title
from engine.documents.types import Format, ParsedFile, Section
from engine.errors import DocumentError

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_MD_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.M)
_BLANK_RUNS = re.compile(r"\n{3,}")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def split_front_matter(text: str) -> tuple[dict, str]:
    """Return (YAML front matter as a dict, the rest of the text)."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise DocumentError(f"The YAML front matter is invalid ({exc.__class__.__name__}); fix it and retry.") from None
    if not isinstance(meta, dict):
        raise DocumentError("The front matter must be a YAML mapping (key: value lines).")
    return meta, text[match.end():]


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def parse_pdf(data: bytes, fallback: str | None) -> ParsedFile:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

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
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"The PDF is damaged and cannot be read ({exc}); re-export it and upload again.") from None
    if not pages:
        raise DocumentError("The PDF has no pages; upload a PDF with content.")
    texts = [_clean(page.extract_text() or "") for page in pages]
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
    return ParsedFile("pdf", tuple(sections), title_hint=pdf_title(title, texts),
                      warnings=(warning,) if warning else ())


def _docx_table_text(table) -> str:
    rows = [[cell.text.strip() for cell in row.cells] for row in table.rows]
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


def parse_docx(data: bytes, fallback: str | None) -> ParsedFile:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many types for broken packages
        raise DocumentError(f"The DOCX file is corrupt ({exc.__class__.__name__}); re-save it from Word.") from None
    blocks: list[str] = []
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
            table_text = _docx_table_text(item)
            if table_text:
                blocks.append(table_text)
    text = _clean("\n\n".join(blocks))
    if not text:
        raise DocumentError("The DOCX file has no text; upload a document with content.")
    return ParsedFile("docx", (Section(text),), title_hint=title)


def parse_markdown(data: bytes, fallback: str | None) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    meta, body = split_front_matter(raw)
    heading = _MD_HEADING.search(body)
    text = _clean(body)
    if not text:
        raise DocumentError("The Markdown file has no text after its front matter.")
    return ParsedFile("markdown", (Section(text, headed=True),), meta, heading.group(1) if heading else None, encoding)


def parse_txt(data: bytes, fallback: str | None) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    meta, body = split_front_matter(raw)
    text = _clean(body)
    if not text:
        raise DocumentError("The text file is empty.")
    first_line = text.split("\n", 1)[0].strip()
    return ParsedFile("txt", (Section(text),), meta, first_line[:120] or None, encoding)


def parse_html(data: bytes, fallback: str | None) -> ParsedFile:
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


def parse_csv(data: bytes, fallback: str | None) -> ParsedFile:
    raw, encoding = decode_text(data, fallback)
    sample = raw[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [row for row in csv.reader(io.StringIO(raw), dialect) if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        raise DocumentError("The CSV file needs a header row and at least one record.")
    header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
    records = [f"Columns: {', '.join(header)}"]
    for row in rows[1:]:
        pairs = [f"{header[i] if i < len(header) else f'column {i + 1}'}: {v.strip()}" for i, v in enumerate(row) if v.strip()]
        records.append("; ".join(pairs))
    return ParsedFile("csv", (Section("\n\n".join(records)),), encoding=encoding)


PARSERS: dict[Format, Callable[[bytes, str | None], ParsedFile]] = {
    "pdf": parse_pdf,
    "docx": parse_docx,
    "markdown": parse_markdown,
    "txt": parse_txt,
    "html": parse_html,
    "csv": parse_csv,
}


def parse_bytes(name: str, data: bytes, fallback_encoding: str | None = None) -> ParsedFile:
    """Detect the format of ``name``/``data`` and parse it; raises DocumentError on bad input."""
    return PARSERS[detect_format(name, data)](data, fallback_encoding)
