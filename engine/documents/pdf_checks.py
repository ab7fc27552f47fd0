"""What a PDF's own text says about its title and about how much of it could be read."""

from __future__ import annotations

import re
from collections.abc import Sequence

FILE_NAME_TITLE = re.compile(
    r"""(?ix)
    ^(?:microsoft\s+(?:word|powerpoint|excel)\s+-\s+.*   # "Microsoft Word - report.doc": the printer driver's name
      |.*\.[a-z][a-z0-9]{1,4}                            # ends with an extension: "10811.exe", "scan.pdf"
      |.*[\\/].*                                         # a path
      |untitled(?:\s*\d*)?|document\d*|\d+               # placeholders and bare numbers
    )$"""
)
TITLE_MAX_CHARS = 150
"""A first line longer than this is a sentence of body text, not a heading."""
LOW_TEXT_CHARS_PER_PAGE = 200
"""A typed page holds about 1,500-3,000 characters (the sample PDFs: 1,870-3,210); a scanned page whose only text
is a stamp, header or page number gives well under 200."""
LOW_TEXT_MIN_PAGES = 2
"""A one-page note may be short on purpose; from two pages on, little text per page means images of text."""


def looks_like_file_name(title: str | None) -> bool:
    """True when a metadata title is a file name, path, printer-driver label or placeholder, not a real title."""
    return bool(title) and FILE_NAME_TITLE.match(title.strip()) is not None


def first_line_title(text: str) -> str | None:
    """The first non-empty line that reads like a heading (has letters, is not too long), else None."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        if len(line) <= TITLE_MAX_CHARS and re.search(r"[^\W\d_]{2}", line):
            return line
        return None
    return None


def pdf_title(metadata_title: str | None, page_texts: Sequence[str]) -> str | None:
    """The metadata title, unless it looks like a file name: then the first heading line of the text (or None)."""
    title = (metadata_title or "").strip() or None
    if title is None or not looks_like_file_name(title):
        return title
    first = next((t for t in page_texts if t.strip()), "")
    return first_line_title(first)


def low_text_warning(page_texts: Sequence[str]) -> str | None:
    """A warning when the PDF gave so little text per page that it is probably scanned images."""
    pages = len(page_texts)
    chars = sum(len(t.strip()) for t in page_texts)
    if pages < LOW_TEXT_MIN_PAGES or chars / pages >= LOW_TEXT_CHARS_PER_PAGE:
        return None
    return (f"Only {chars / pages:.0f} characters of text per page on average over {pages} pages: the PDF is "
            "probably scanned images, and most of its content cannot be searched. Run OCR on it and upload it again.")
