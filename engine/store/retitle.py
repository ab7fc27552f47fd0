"""A document's title as its user sets it: checked, and written into every chunk row of the document.

The title is stored on each chunk (search results show it) and in the keyword-indexed text, which begins with
it (engine/documents/prepare.py ``search_text``), so a search for the new title finds the document. The vectors
keep the title they were embedded with until the document is ingested again.
"""

from __future__ import annotations

import pyarrow as pa

from engine.documents.identifiers import with_identifier_tokens
from engine.documents.names import one_line
from engine.errors import KnowledgeBaseError

MAX_TITLE_CHARS = 300
"""As for a title read from a file (engine/documents/metadata.py)."""


def check_title(title: object) -> str:
    """The title on one line, or KnowledgeBaseError saying what to write."""
    text = one_line(str(title or "")).strip()
    if not text:
        raise KnowledgeBaseError("A title cannot be empty; write the document's title, e.g. 'AMM 32-41-11 Rev 12'.")
    if len(text) > MAX_TITLE_CHARS:
        raise KnowledgeBaseError(f"A title may have at most {MAX_TITLE_CHARS} characters ({len(text)} given); "
                                 "shorten it.")
    return text


def retitled_rows(rows: pa.Table, title: str) -> pa.Table:
    """``rows`` (a document's chunk rows) with ``title`` as their title and at the head of their keyword text."""
    texts = [with_identifier_tokens(f"{title}\n{text}") for text in rows["text"].to_pylist()]
    for name, values in (("title", [title] * rows.num_rows), ("search_text", texts)):
        at = rows.schema.get_field_index(name)
        rows = rows.set_column(at, rows.schema.field(name), pa.array(values, rows.schema.field(name).type))
    return rows
