"""Result objects passed between pipeline stages.

All are frozen pydantic models, so they validate on construction and serialise
with ``model_dump(mode="json")``. Field names follow ``DESIGN.md``.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Action = Literal["compare", "explain", "how_to", "list", "summarize", "lookup", "unknown"]
SearchType = Literal["vector", "keyword", "hybrid"]
TaskType = Literal["vector", "keyword", "hybrid", "graph"]
"""What a retrieval task runs: a store search, or a walk of the entity graph (engine/retrieval/graph.py)."""
IssueType = Literal["citation", "fact", "logic", "overconfidence", "format", "injection"]
Status = Literal["success", "refused", "failure"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TimeConstraint(Frozen):
    """A time window the question asks about; ``start``/``end`` are inclusive."""

    text: str
    start: date | None = None
    end: date | None = None


class QuantConstraint(Frozen):
    """A quantitative ask: ``kind`` is count, amount, percentage, rate, average, min or max."""

    text: str
    kind: str


class Constraints(Frozen):
    time: TimeConstraint | None = None
    source: str | None = None
    quantitative: QuantConstraint | None = None


class Entity(Frozen):
    """An entity mentioned in the question; ``label`` is a spaCy label or a pattern name."""

    text: str
    label: str


class SpellingCorrection(Frozen):
    """A question word the knowledge bases do not contain, and the close indexed word searched instead."""

    original: str
    corrected: str
    distance: int = Field(ge=1, description="edits between the two (a swap of adjacent letters is one)")


class Intent(Frozen):
    """What Perception understood of a question."""

    action: Action
    entities: tuple[Entity, ...] = ()
    constraints: Constraints = Field(default_factory=Constraints)
    raw_query: str
    spelling: tuple[SpellingCorrection, ...] = ()
    corrected_query: str | None = Field(default=None, description="raw_query with the spelling corrections applied")

    @property
    def entity_texts(self) -> list[str]:
        return [e.text for e in self.entities]

    @property
    def search_query(self) -> str:
        """The question as it is searched: corrected when a word was misspelt, else as asked."""
        return self.corrected_query or self.raw_query

    @property
    def spelling_note(self) -> str:
        """The corrections as "torqe → torque, axel → axle" ("" when there are none)."""
        return ", ".join(f"{c.original} → {c.corrected}" for c in self.spelling)


class SearchFilters(Frozen):
    """Metadata filters shared by search and retrieval tasks (all optional)."""

    doc_type: str | None = None
    since: date | None = None
    until: date | None = None
    min_authority: int | None = Field(default=None, ge=1, le=5)
    max_authority: int | None = Field(default=None, ge=1, le=5)


class RetrievalTask(Frozen):
    query: str
    search_type: TaskType
    knowledge_base: str
    weight: float = Field(ge=0)
    priority: int = 0
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(default=10, ge=1, le=200)
    reason: str = ""


class EvidenceMeta(Frozen):
    title: str
    source: str = ""
    update_date: date | None = None
    authority: int = 3
    doc_type: str = ""
    page: int | None = None
    series: str | None = None
    revision: str | None = None
    file_name: str = ""


class Hop(Frozen):
    """How the entity graph reached a passage that no search found: through ``mention`` (as written), named in the
    passage ``from_chunk`` (titled ``from_title``), or in the question when ``from_chunk`` is None."""

    mention: str
    from_chunk: str | None = None
    from_title: str = ""

    def label(self, numbers: dict[str, int]) -> str:
        """How the passage came, in words, with the evidence numbered by ``numbers`` (chunk id -> [n]):
        "graph: via 'Ana Ruiz' from [3]", "... from 'A title'" (a passage not among the evidence) or "... named
        in the question"."""
        if self.from_chunk is None:
            return f"graph: via '{self.mention}' named in the question"
        if self.from_chunk in numbers:
            return f"graph: via '{self.mention}' from [{numbers[self.from_chunk]}]"
        return f"graph: via '{self.mention}' from '{self.from_title}'" if self.from_title else \
            f"graph: via '{self.mention}'"


class Evidence(Frozen):
    """One retrieved chunk, with its fused score and the tasks that found it (``hop``: how the entity graph reached
    it, when only the graph did)."""

    chunk_id: str
    doc_id: str
    knowledge_base: str
    text: str
    score: float
    weight: float = 1.0
    credibility: float = 0.0
    scores: dict[str, float] = Field(default_factory=dict)
    found_by: tuple[str, ...] = ()
    metadata: EvidenceMeta
    hop: Hop | None = None


class ReviewIssue(Frozen):
    type: IssueType
    description: str
    location: str = ""


class Correction(Frozen):
    type: IssueType
    original: str
    corrected: str


class Review(Frozen):
    valid: bool
    issues: tuple[ReviewIssue, ...] = ()
    corrections: tuple[Correction, ...] = ()
    confidence: float = Field(ge=0, le=1)
    reasoning: str = ""


class ValidationIssue(Frozen):
    check: Literal["citation", "timeliness", "comparison"]
    message: str
    chunk_id: str | None = None


class Validation(Frozen):
    is_valid: bool
    issues: tuple[ValidationIssue, ...] = ()
    evidence_map: dict[str, list[str]] = Field(default_factory=dict)


AnswerabilityVerdict = Literal["answerable", "ambiguous", "unanswerable"]


class AnswerFocus(Frozen):
    """What the question asks: the expected answer type, the subject(s) and the asked attribute."""

    answer_type: str
    subjects: tuple[str, ...] = ()
    attribute: tuple[str, ...] = ()


class AnswerSpan(Frozen):
    """The value in the evidence that answers the question, the sentence it stands in and its [n]."""

    value: str = Field(description="the asked value; empty when the question asks for no value of a recognisable type")
    sentence: str
    evidence: int = Field(ge=1, description="1-based position in Answer.evidence")
    chunk_id: str = ""
    quotable: bool = Field(default=True, description="the sentence reads as a statement (not a heading or table)")
    subject: str = Field(default="", description="the side of the question this value is said of, when it has several")


class AnswerCandidate(Frozen):
    """A value the reader found in the evidence, with the ranker's probability that it answers the question."""

    value: str
    probability: float = Field(ge=0, le=1)
    evidence: int = Field(ge=1, description="1-based position in Answer.evidence")
    sentence: str = ""
    note: str = Field(default="", description="for a conflicting value: why the answer's value stands instead "
                                              "('newer', 'more authoritative'), or '' when neither source does")


class Answerability(Frozen):
    """Whether the retrieved evidence answers the question (decided before drafting), and why."""

    verdict: AnswerabilityVerdict
    focus: AnswerFocus
    reason: str
    signals: dict[str, float] = Field(default_factory=dict)
    best_evidence: tuple[str, ...] = ()
    closest: tuple[str, ...] = ()
    span: AnswerSpan | None = None
    sides: tuple[AnswerSpan, ...] = Field(default=(), description="one value per side for 'X of A and B' questions")
    missing: tuple[str, ...] = ()
    confidence: float | None = Field(default=None, ge=0, le=1,
                                     description="P(the best candidate answers the question), from the selector")
    threshold: float | None = Field(default=None, ge=0, le=1.01,
                                    description="the confidence needed to answer, for the target answered accuracy")
    target_accuracy: float | None = None
    selector: str = ""
    candidates: tuple[AnswerCandidate, ...] = ()
    conflicts: tuple[AnswerCandidate, ...] = Field(default=(), description="other values the evidence gives for it")
    features: dict[str, float] = Field(default_factory=dict,
                                       description="what the selector read (kept in the trace; calibration fits on it)")


class Answer(Frozen):
    question: str
    intent: Intent
    tasks: tuple[RetrievalTask, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    draft: str = ""
    reviews: tuple[Review, ...] = ()
    revised: str = ""
    final: str = ""
    validation: Validation | None = None
    answerability: Answerability | None = None
    status: Status
    iterations: int = 0
    timings: dict[str, float] = Field(default_factory=dict)
    trace_id: str = ""
    provider: str = ""
    strategy_version: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def review_rounds(self) -> int:
        """Reviews the answer went through: one per round ("Round 1: passed" is one round, no revision)."""
        return len(self.reviews)

    @property
    def revisions(self) -> int:
        """Times a failed review led to a corrected or rewritten answer (the loop's ``iterations``)."""
        return self.iterations
