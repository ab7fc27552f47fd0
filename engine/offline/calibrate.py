"""Calibration on a user's own questions: fit the answer selector on labelled questions over their bases, with
k-fold cross-validation, and keep it for asks over those bases.

The questions are asked through the pipeline (draft only, as the product would); each answer's selector features and
whether its best candidate holds a gold answer (for a question that asks for a value: the value; otherwise the
sentence it stands in) make one row. ``SelectorStore`` keeps fitted selectors under ``DATA_DIR/selectors``, one per
set of bases; an ask over bases that a calibrated selector covers uses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.config import Settings
from engine.errors import EngineError
from engine.offline.calibration import SelectorRow, fit_selector
from engine.offline.model import LogisticModel, load
from engine.offline.selector import Selector

_NAME = re.compile(r"[^a-z0-9_.-]+")


def questions_from_text(text: str, source: str = "the file") -> list:
    """Labelled questions from JSONL text (an uploaded file); EngineError names the first bad line and what to fix."""
    from engine.evaluation.qa import qa_row

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
    from engine.evaluation.qa import contains_answer

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


@dataclass(frozen=True)
class Calibration:
    """A fitted selector and what it measured on folds it was not fitted on."""

    model: LogisticModel
    bases: tuple[str, ...]
    rows: int
    report: dict

    @property
    def curve(self) -> list[tuple[float, float, float]]:
        """(threshold, coverage, answered accuracy) points of the out-of-fold risk-coverage curve."""
        return [tuple(p) for p in self.model.trained.get("curve", [])]


def calibrate(pipeline, questions: Sequence, bases: Sequence[str], *, folds: int = 5,
              progress: Callable[[int, int], None] | None = None, source: str = "") -> Calibration:
    """Ask ``questions`` (QARow) over ``bases`` and fit a selector on the answers; EngineError when too few."""
    from engine.offline.calibration import MIN_ROWS
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


class SelectorStore:
    """Selectors calibrated for sets of bases, as JSON files under ``DATA_DIR/selectors``."""

    def __init__(self, settings: Settings) -> None:
        self.folder = Path(settings.data_dir) / "selectors"

    @staticmethod
    def name_for(bases: Sequence[str]) -> str:
        return "+".join(sorted(_NAME.sub("-", b.lower()) for b in bases)) or "all-bases"

    def save(self, calibration: Calibration) -> Path:
        path = self.folder / f"{self.name_for(calibration.bases)}.json"
        calibration.model.save(path)
        return path

    def list(self) -> list[dict]:
        """Each saved selector: name, bases, questions, date, cross-validated figures."""
        out = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                trained = json.loads(path.read_text(encoding="utf-8")).get("trained", {})
            except (OSError, ValueError):
                continue
            out.append({"name": path.stem, "bases": trained.get("bases", []), "questions": trained.get("questions"),
                        "date": trained.get("date"), "cross_validated": trained.get("cross_validated", {})})
        return out

    def delete(self, name: str) -> bool:
        path = self.folder / f"{name}.json"
        if not path.is_file():
            return False
        path.unlink()
        return True

    def for_bases(self, bases: Sequence[str]) -> Selector | None:
        """The selector calibrated for exactly these bases, else for the fewest bases that include all of them."""
        if not self.folder.is_dir() or not bases:
            return None
        wanted = set(bases)
        best: tuple[int, Path] | None = None
        for path in self.folder.glob("*.json"):
            try:
                covered = set(json.loads(path.read_text(encoding="utf-8")).get("trained", {}).get("bases", []))
            except (OSError, ValueError):
                continue
            if covered and wanted <= covered and (best is None or len(covered) < best[0]):
                best = (len(covered), path)
        if best is None:
            return None
        try:
            return Selector.of(load(best[1]), best[1].stem)
        except EngineError:
            return None
