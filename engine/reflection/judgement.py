"""What a support judge answers: whether evidence sentences back one statement, and the hard checks it failed.

Both the offline judge (``engine.offline.judge``) and the LLM judge (``engine.reflection.llm_judge``) return a
:class:`Judgement`; the offline reviewer takes any :class:`SupportJudge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

FindingKind = Literal["number", "unit", "subject", "negation", "name"]


@dataclass(frozen=True)
class Finding:
    """One hard check a statement failed, with the evidence sentence involved and, where the
    evidence gives it, the evidence's own figure for the statement's (``original`` -> ``replacement``)."""

    kind: FindingKind
    detail: str
    evidence: str = ""
    original: str = ""
    replacement: str = ""


@dataclass(frozen=True)
class Judgement:
    """Whether the evidence backs a statement, how strongly (``score`` in [0, 1]), the evidence
    sentence that matches it best, and why not (``reasons``; ``findings`` for the hard checks)."""

    supported: bool
    score: float
    best: str
    reasons: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    signals: dict[str, float] = field(default_factory=dict)

    def of_kind(self, *kinds: FindingKind) -> tuple[Finding, ...]:
        """The findings of the given kinds."""
        return tuple(f for f in self.findings if f.kind in kinds)


@runtime_checkable
class SupportJudge(Protocol):
    """Judges one statement against evidence sentences."""

    def judge(self, statement: str, evidence_sentences: Sequence[str]) -> Judgement:
        """Whether ``evidence_sentences`` together back ``statement``."""
        ...
