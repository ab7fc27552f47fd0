"""The interfaces of the review loop: a Generator drafts and revises, a Reviewer judges.

Evidence is always numbered [1]..[n] in the order given, and answers cite it that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from engine.results import Answerability, Evidence, Intent, Review


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


@runtime_checkable
class AnswerabilityJudge(Protocol):
    """Decides before drafting whether the numbered evidence answers the question, with which value, how surely."""

    def prepare(self, question: str) -> None:
        """Start reading ``question`` while retrieval runs (may do nothing)."""
        ...

    def run(self, question: str, intent: Intent, evidence: Sequence[Evidence],
            known_vectors: Mapping[str, np.ndarray] | None = None, *, accuracy: float | None = None,
            selector=None) -> Answerability:
        """The verdict; ``accuracy`` is the target answered accuracy its threshold is chosen for, ``selector`` a
        decision calibrated for the asked bases (None: the judge's own)."""
        ...
