"""[n] citation markers: the one parser. An answer cites evidence as [1], [2][3], [1, 2] or [1-3]."""

from __future__ import annotations

import re
from functools import lru_cache

CITATION = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\]")
"""One citation mark, its numbers in group 1 ("1", "1, 2", "1-3")."""
MAX_RANGE = 50
"""A range wider than this ("[1-2000]") is not read as a citation range."""


def citations(text: str) -> list[int]:
    """Citation numbers in ``text`` in order of appearance, ranges expanded ("[1-3]" -> 1, 2, 3), each once."""
    found: list[int] = []
    for match in CITATION.finditer(text or ""):
        found.extend(numbers_of(match))
    return list(dict.fromkeys(found))


def numbers_of(match: re.Match[str]) -> list[int]:
    """The numbers one citation mark stands for."""
    found: list[int] = []
    for part in re.split(r"\s*,\s*", match.group(1)):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and all(b.isdigit() for b in bounds) and 0 <= int(bounds[1]) - int(bounds[0]) < MAX_RANGE:
            found.extend(range(int(bounds[0]), int(bounds[1]) + 1))
        elif part.isdigit():
            found.append(int(part))
    return found


@lru_cache(maxsize=4096)
def strip_citations(text: str) -> str:
    """``text`` without its [n] markers."""
    return re.sub(r"\s+([.!?,;:])", r"\1", CITATION.sub("", text)).strip()


def with_citation(sentence: str, numbers: list[int]) -> str:
    """``sentence`` with its citations replaced by ``numbers`` placed before the final punctuation."""
    body = strip_citations(sentence).rstrip().rstrip(":;,").rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    body = body[:-1].rstrip() if end else body
    marks = "".join(f"[{n}]" for n in numbers)
    return f"{body} {marks}{end or '.'}" if marks else f"{body}{end or '.'}"
