"""The message shown instead of an answer when the evidence does not answer the question."""

from __future__ import annotations

from collections.abc import Sequence

from engine.results import Answerability


def refusal_text(result: Answerability, searched: Sequence[str], dated: tuple | None = None) -> str:
    """Why, what was searched, and the closest documents; the same reason the Answerability panel shows.

    ``dated`` (start, end) is the date filter the searches ran with, when nothing came back through it.
    """
    where = ", ".join(dict.fromkeys(searched)) or "the knowledge bases"
    if dated is not None and not result.closest:
        start, end = dated
        return (f"I can't answer this from the documents: no document in {where} is dated between "
                f"{start or 'the beginning'} and {end or 'today'}, the period the question asks about.")
    closest = "; ".join(f"'{t}'" for t in result.closest) or "none"
    lead = "I can't answer this from the documents" if result.verdict == "unanswerable" else \
        "I can't answer this reliably from the documents"
    return f"{lead}: {result.reason} Searched: {where}. Closest documents: {closest}."
