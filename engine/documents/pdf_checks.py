"""What a PDF's own text says about its title and about how much of it could be read."""

from __future__ import annotations

import re
from collections.abc import Sequence

FILE_NAME_TITLE = re.compile(
    r"""(?ix)
    ^(?:microsoft\s+(?:word|powerpoint|excel)\s+-\s+.*   # "Microsoft Word - report.doc": the printer driver's name
      |.*\.[a-z][a-z0-9]{1,4}                            # ends with an extension: "10811.exe", "scan.pdf"
      |.*[\\/].*                                         # a path
      |(?:untitled|document|new\s+document|presentation|powerpoint\s+presentation|slide|title)(?:\s*\d*)?
      |\d+                                              # placeholders and bare numbers
    )$"""
)
TITLE_MAX_CHARS = 150
"""A first line longer than this is a sentence of body text, not a heading."""
WRAPPED_MIN_CHARS = 60
"""A first line longer than this whose next line goes on in lower case is a paragraph's first line, not a title."""
LOW_TEXT_CHARS_PER_PAGE = 200
"""A typed page holds about 1,500-3,000 characters (the sample PDFs: 1,870-3,210); a scanned page whose only text
is a stamp, header or page number gives well under 200."""
LOW_TEXT_MIN_PAGES = 2
"""A one-page note may be short on purpose; from two pages on, little text per page means images of text."""


def looks_like_file_name(title: str | None) -> bool:
    """True when a metadata title is a file name, path, printer-driver label or placeholder, not a real title."""
    return bool(title) and FILE_NAME_TITLE.match(title.strip()) is not None


def first_line_title(text: str) -> str | None:
    """The first line with letters, when it reads like a heading (not too long), else None. Lines without
    letters (a transcript's line numbers, page numbers, rules) are passed over."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if re.search(r"[^\W\d_]", line)]
    if not lines:
        return None
    line, following = lines[0], lines[1] if len(lines) > 1 else ""
    if len(line) > TITLE_MAX_CHARS or not re.search(r"[^\W\d_]{2}", line):
        return None
    if len(line) > WRAPPED_MIN_CHARS and following[:1].islower():  # the first line of a wrapped paragraph
        return None
    return line


PROMINENT_RATIO = 1.15
"""A line is set prominently when its type is at least this much larger than the page's body text (a 12 pt
heading over 10 pt text: 1.2; bold body text at the same size does not count)."""


def _sized_lines(fragments: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """(line, type size) from a page's text fragments in reading order; a line breaks at a newline or a change of
    size."""
    lines: list[tuple[str, float]] = []
    current, size = "", 0.0
    for text, fragment_size in fragments:
        for n, piece in enumerate(text.split("\n")):
            if n or (current and abs(fragment_size - size) > 0.01):
                if current.strip():
                    lines.append((" ".join(current.split()), size))
                current = ""
            current, size = current + piece, fragment_size
    if current.strip():
        lines.append((" ".join(current.split()), size))
    return lines


def prominent_line(fragments: Sequence[tuple[str, float]]) -> str | None:
    """The first line in the largest type on a page, when that type is larger than the page's body text (the size
    most of its characters are set in) and the line reads like a heading; else None."""
    lines = _sized_lines(fragments)
    if not lines:
        return None
    weight: dict[float, int] = {}
    for line, size in lines:
        weight[round(size, 1)] = weight.get(round(size, 1), 0) + len(line)
    body = max(weight, key=weight.get)
    headings = [(line, size) for line, size in lines
                if size >= body * PROMINENT_RATIO and first_line_title(line) is not None]
    if not headings:
        return None
    largest = max(size for _, size in headings)
    return next(line for line, size in headings if size == largest)


def pdf_title(metadata_title: str | None, page_texts: Sequence[str],
              first_page: Sequence[tuple[str, float]] = ()) -> str | None:
    """The metadata title, unless it is missing or looks like a file name or placeholder: then the line the first
    page sets in the largest type (``first_page``: its text fragments with their type sizes), else the first line
    of the text that reads like a heading (or None)."""
    title = (metadata_title or "").strip() or None
    if title is not None and not looks_like_file_name(title):
        return title
    first = next((t for t in page_texts if t.strip()), "")
    return prominent_line(first_page) or first_line_title(first)


def low_text_warning(page_texts: Sequence[str]) -> str | None:
    """A warning when the PDF gave so little text per page that it is probably scanned images."""
    pages = len(page_texts)
    chars = sum(len(t.strip()) for t in page_texts)
    if pages < LOW_TEXT_MIN_PAGES or chars / pages >= LOW_TEXT_CHARS_PER_PAGE:
        return None
    return (f"Only {chars / pages:.0f} characters of text per page on average over {pages} pages: the PDF is "
            "probably scanned images, and most of its content cannot be searched. Run OCR on it and upload it again.")
