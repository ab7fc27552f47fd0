"""Calibration on a user's own questions: fit the answer selector on labelled questions over their bases, with
k-fold cross-validation (``python -m engine calibrate``, the Experiments page).

The questions are asked through the pipeline (draft only, as the product would); each answer's selector features and
whether its best candidate holds a gold answer (for a question that asks for a value: the value; otherwise the
sentence it stands in) make one row. The fitted selector is kept by ``engine.offline.calibrate.SelectorStore``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from engine.errors import EngineError
from engine.evaluation.qa import contains_answer, qa_row
from engine.offline.calibrate import Calibration
from engine.offline.calibration import MIN_ROWS, SelectorRow, fit_selector
from engine.offline.model import LogisticModel


def questions_from_text(text: str, source: str = "the file") -> list:
    """Labelled questions from JSONL text (an uploaded file); EngineError names the first bad line and what to fix."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise EngineError(f"{source} line {number} is not JSON ({exc}); each line must be one "
                              '{"id", "question", "answers": [...], "answerable": true|false} object.') from None
        rows.append(qa_row(data, f"{source} line {number}"))
    if not rows:
        raise EngineError(f"{source} holds no questions; add one JSON object per line.")
    return rows


def chosen_point(calibration: Calibration, accuracy: float) -> tuple[float, float, float] | None:
    """(threshold, coverage, accuracy) of the curve point the selector answers at for ``accuracy``."""
    threshold = calibration.model.trained.get("thresholds", {}).get(str(accuracy))
    if threshold is None or not calibration.curve:
        return None
    at = [p for p in calibration.curve if p[0] >= threshold]
    return min(at, key=lambda p: p[0]) if at else None


def contains_gold(text: str, answers: Sequence[str]) -> bool:
    return bool(text) and contains_answer(text, answers)


def answer_row(answer, gold: Sequence[str], answerable: bool, group: str) -> SelectorRow | None:
    """One question's selector row from its pipeline answer (None when no check was recorded)."""
    judged = answer.answerability
    if judged is None or not judged.features:
        return None
    span = judged.span
    said = (span.value or span.sentence) if span is not None else ""
    right = answerable and span is not None and contains_gold(said, gold)
    return SelectorRow(dict(judged.features), bool(right), answerable, group)


def calibrate(pipeline, questions: Sequence, bases: Sequence[str], *, folds: int = 5,
              progress: Callable[[int, int], None] | None = None, source: str = "") -> Calibration:
    """Ask ``questions`` (QARow) over ``bases`` and fit a selector on the answers; EngineError when too few."""
    from engine.pipeline.options import AskOptions

    if len(questions) < MIN_ROWS:  # before asking anything: the fit would be refused anyway
        raise EngineError(f"Calibration needs at least {MIN_ROWS} labelled questions, answerable and not (got "
                          f"{len(questions)}); add {MIN_ROWS - len(questions)} or more questions to the file.")
    options = AskOptions(provider="offline", reflection=False, knowledge_bases=tuple(bases) or None)
    rows: list[SelectorRow] = []
    for number, q in enumerate(questions, start=1):
        row = answer_row(pipeline.run(q.question, options), q.answers, q.answerable, q.id)
        if row is not None:
            rows.append(row)
        if progress is not None:
            progress(number, len(questions))
    command = f"python -m engine calibrate --questions {source}" if source else "python -m engine calibrate"
    model, fitted = fit_selector(rows, k=folds, command=command, data=source or "questions")
    trained = {**model.trained, "bases": list(bases)}
    return Calibration(LogisticModel(model.intercept, model.weights, trained), tuple(bases), len(rows), fitted)
