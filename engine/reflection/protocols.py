"""The interfaces of the review loop: a Generator drafts and revises, a Reviewer judges.

Evidence is always numbered [1]..[n] in the order given, and answers cite it that way.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from engine.results import Evidence, Intent, Review


@runtime_checkable
class Generator(Protocol):
    """Writes an answer with [n] citations to the numbered evidence, and revises it after a review."""

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """A first answer to ``question`` from ``evidence``."""
        ...

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """``answer`` rewritten to address ``review``."""
        ...


@runtime_checkable
class Reviewer(Protocol):
    """Checks an answer against the numbered evidence and returns a structured review."""

    def review(self, question: str, evidence: Sequence[Evidence], answer: str) -> Review:
        """A review of ``answer``; malformed reviewer output becomes a ``format`` issue, never an exception."""
        ...
