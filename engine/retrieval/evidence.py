"""Evidence as the later stages see it: chunk texts fitted to a context budget, and a hit's metadata."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache

from engine.language.sentences import split_sentences
from engine.results import EvidenceMeta
from engine.store import SearchHit

MIN_SHARE_CHARS = 240
"""The least share of the context budget an evidence chunk gets, in characters (a sentence or two)."""


def allot_budget(credibilities: Sequence[float], total_chars: int) -> list[int]:
    """Split ``total_chars`` among evidence in proportion to credibility (each gets a useful minimum)."""
    if not credibilities:
        return []
    floor = min(MIN_SHARE_CHARS, total_chars // len(credibilities))
    spare = max(total_chars - floor * len(credibilities), 0)
    weight_sum = sum(max(c, 0.01) for c in credibilities)
    return [floor + int(spare * max(c, 0.01) / weight_sum) for c in credibilities]


@lru_cache(maxsize=2048)
def fit_text(text: str, budget: int) -> str:
    """The chunk text cut to ``budget`` characters at a sentence boundary (marked with an ellipsis). What is kept
    is the text's own beginning, line breaks and headings included, so its sentences read as the stored chunk's
    do (and the check finds their stored vectors). Remembered: an ask fuses its evidence more than once."""
    if len(text) <= budget:
        return text
    kept = ""
    for sentence in split_sentences(text):
        if len(kept) + len(sentence) + 1 > budget:
            break
        kept = f"{kept} {sentence}".strip()
    if not kept:
        return text[: max(budget - 1, 1)].rstrip() + " …"
    return _prefix_with(text, len(kept.replace(" ", ""))).rstrip() + " …"


def _prefix_with(text: str, visible: int) -> str:
    """The shortest beginning of ``text`` holding ``visible`` characters that are not whitespace."""
    seen = 0
    for index, char in enumerate(text):
        if not char.isspace():
            seen += 1
            if seen == visible:
                return text[: index + 1]
    return text


def evidence_meta(hit: SearchHit) -> EvidenceMeta:
    """The document metadata of a search hit, as evidence carries it."""
    return EvidenceMeta(
        title=hit.title, source=hit.source or "",
        update_date=date.fromisoformat(hit.update_date) if hit.update_date else None, authority=hit.authority,
        doc_type=hit.doc_type or "", page=hit.page, series=hit.series, revision=hit.revision,
        file_name=hit.file_name or "",
    )
