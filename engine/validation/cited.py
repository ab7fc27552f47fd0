"""Claude's own citations checked against the evidence: each cited passage must be in the chunk it points at.

A model that cites search results (:mod:`engine.reflection.citing`) quotes the passage it relied on;
the quote must occur in the evidence it names, or the citation is not traceable. Whitespace is
ignored in the comparison (the API joins a cited range of sentences as it likes); nothing else is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from engine.results import Evidence, ValidationIssue

_SPACE = re.compile(r"\s+")
QUOTE_WIDTH = 80


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return f'"{flat if len(flat) <= QUOTE_WIDTH else flat[: QUOTE_WIDTH - 3] + "..."}"'


def check_cited_texts(citations: Sequence[Any], evidence: Sequence[Evidence]) -> list[ValidationIssue]:
    """One issue per cited passage that points at no evidence or does not occur in the chunk it points at.

    ``citations`` are :class:`~engine.reflection.citing.CitedSpan` objects (``n``, ``cited_text``).
    """
    issues: list[ValidationIssue] = []
    for span in citations:
        n, cited = int(span.n), str(span.cited_text)
        if not 1 <= n <= len(evidence):
            issues.append(ValidationIssue(check="citation", message=(
                f"The model cited search result [{n}], but only [1]..[{len(evidence)}] were sent; the citation "
                f"of {_quote(cited)} cannot be traced.")))
            continue
        chunk = evidence[n - 1]
        if not cited.strip() or _squeezed(cited) not in _squeezed(chunk.text):
            issues.append(ValidationIssue(check="citation", chunk_id=chunk.chunk_id, message=(
                f"The passage cited as [{n}], {_quote(cited)}, does not occur in that evidence "
                f"({chunk.metadata.title or chunk.doc_id}); the citation cannot be traced.")))
    return issues
