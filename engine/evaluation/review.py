"""Measure a reviewer as a hallucination detector on a JSONL of (question, passages, answer, label) rows.

The passages become the evidence, numbered in order; answers carry no [n] citations, so the
reviewer judges each statement against all passages. ``hallucinated`` = the review is not valid.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from engine.errors import EngineError
from engine.evaluation.rows import require_fields, string_list
from engine.reflection.protocols import Reviewer
from engine.results import Evidence, EvidenceMeta

METRIC_KEYS = ("accuracy", "balanced_accuracy", "precision", "recall", "f1")
BATCH_ROWS = 256


@dataclass(frozen=True)
class ReviewRow:
    """One dataset row."""

    id: str
    question: str
    passages: tuple[str, ...]
    answer: str
    label: int | None = None

    def evidence(self) -> tuple[Evidence, ...]:
        """The passages as Evidence, numbered [1]..[n] in order."""
        return tuple(
            Evidence(chunk_id=f"{self.id}#{i}", doc_id=f"{self.id}#{i}", knowledge_base="eval", text=text, score=1.0,
                     metadata=EvidenceMeta(title=f"Passage {i}"))
            for i, text in enumerate(self.passages, start=1)
        )


@dataclass(frozen=True)
class ReviewEvalReport:
    """Verdicts and, when the rows are labelled, detection metrics for label 1 (hallucinated)."""

    file: str
    reviewer: str
    rows: int
    labelled: int
    seconds: float
    metrics: dict[str, float] | None
    confusion: dict[str, int] | None
    verdicts: tuple[dict[str, Any], ...] = field(repr=False, default=())
    out: str | None = None

    @property
    def rows_per_s(self) -> float:
        return round(self.rows / self.seconds, 2) if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "reviewer": self.reviewer, "rows": self.rows, "labelled": self.labelled,
                "metrics": self.metrics, "confusion": self.confusion, "rows_per_s": self.rows_per_s,
                "seconds": round(self.seconds, 3), "out": self.out}


def read_review_rows(path: str | Path, limit: int | None = None) -> list[ReviewRow]:
    """Rows of ``{"id","question","passages":[...],"answer","label"?}``; a bad line raises EngineError."""
    if limit is not None and limit < 1:
        raise EngineError("--limit must be at least 1.")
    file = Path(path)
    if not file.is_file():
        raise EngineError(f"{file} does not exist; pass a JSONL file of review rows.")
    rows: list[ReviewRow] = []
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if limit is not None and len(rows) >= limit:
                break
            rows.append(_row(line, f"{file}:{number}"))
    if not rows:
        raise EngineError(f"{file} holds no rows; each line must be a JSON object with question, passages and answer.")
    return rows


def _row(line: str, where: str) -> ReviewRow:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EngineError(f"{where} is not valid JSON ({exc.msg}); fix that line.") from None
    data = require_fields(data, ("id", "question", "passages", "answer"), where)
    passages = string_list(data["passages"], "passages", where)
    label = data.get("label")
    if label is not None and label not in (0, 1, True, False):
        raise EngineError(f"{where}: label must be 0 (supported) or 1 (hallucinated), got {label!r}.")
    return ReviewRow(str(data["id"]), str(data["question"]), tuple(passages), str(data["answer"]),
                     None if label is None else int(label))


def detection_metrics(labels: Sequence[int], predictions: Sequence[int]) -> tuple[dict[str, float], dict[str, int]]:
    """Accuracy, balanced accuracy and precision/recall/F1 for the positive class (1 = hallucinated)."""
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        confusion_matrix,
        precision_recall_fscore_support,
    )

    precision, recall, f1, _ = precision_recall_fscore_support(
        labels, predictions, average="binary", pos_label=1, zero_division=0)
    values = {
        "accuracy": accuracy_score(labels, predictions),
        "balanced_accuracy": balanced_accuracy_score(labels, predictions) if len(set(labels)) > 1
        else accuracy_score(labels, predictions),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }
    tn, fp, fn, tp = confusion_matrix(labels, predictions, labels=[0, 1]).ravel()
    counts = {"tp": int(tp), "fp": int(fp), "tn": int(tn), "fn": int(fn)}
    return {k: round(float(values[k]), 4) for k in METRIC_KEYS}, counts


def review_rows(rows: Sequence[ReviewRow], reviewer: Reviewer) -> Iterator[dict[str, Any]]:
    """One verdict per row: ``{"id","hallucinated","confidence","issues"}``."""
    prepare = getattr(reviewer, "prepare", None)
    for start in range(0, len(rows), BATCH_ROWS):
        block = rows[start: start + BATCH_ROWS]
        items = [(row, row.evidence()) for row in block]
        if callable(prepare):
            prepare([(evidence, row.answer) for row, evidence in items])
        for row, evidence in items:
            review = reviewer.review(row.question, evidence, row.answer)
            yield {
                "id": row.id,
                "hallucinated": not review.valid,
                "confidence": review.confidence,
                "issues": [issue.model_dump(mode="json") for issue in review.issues],
            }


def evaluate_review(path: str | Path, reviewer: Reviewer, *, limit: int | None = None,
                    out: str | Path | None = None) -> ReviewEvalReport:
    """Review every row of ``path`` with ``reviewer``; write verdicts to ``out`` (JSONL) when given."""
    rows = read_review_rows(path, limit)
    warm_up = getattr(reviewer, "warm_up", None)
    if callable(warm_up):
        warm_up()  # model loading is not part of the review rate
    started = time.perf_counter()
    verdicts = tuple(review_rows(rows, reviewer))
    seconds = time.perf_counter() - started
    if out is not None:
        target = Path(out)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as handle:
            for verdict in verdicts:
                handle.write(json.dumps(verdict, ensure_ascii=False) + "\n")
    labelled = [(row.label, int(v["hallucinated"])) for row, v in zip(rows, verdicts) if row.label is not None]
    metrics = confusion = None
    if labelled:
        metrics, confusion = detection_metrics([a for a, _ in labelled], [b for _, b in labelled])
    return ReviewEvalReport(file=str(path), reviewer=str(getattr(reviewer, "name", type(reviewer).__name__)),
                            rows=len(rows), labelled=len(labelled), seconds=seconds, metrics=metrics,
                            confusion=confusion, verdicts=verdicts, out=str(out) if out is not None else None)
