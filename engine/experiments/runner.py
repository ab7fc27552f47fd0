"""Run an A/B experiment: every question through both variants, then metrics and differences."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Protocol

from engine.config import Settings
from engine.errors import EngineError
from engine.experiments.metrics import AnswerRecord, compare_arms
from engine.experiments.questions import QuestionSet
from engine.experiments.report import ExperimentResult
from engine.experiments.store import ExperimentStore, new_experiment_id
from engine.experiments.variants import ExperimentError, Variant
from engine.pipeline.options import AskOptions
from engine.results import Answer, Intent

log = logging.getLogger(__name__)

ExperimentProgress = Callable[[int, str, Answer], None]
"""Called after each answer with (question index, arm "A" or "B", the Answer)."""


class Answerer(Protocol):
    """Anything that answers a question with options: the Pipeline, or a fake in tests."""

    def run(self, question: str, options: AskOptions) -> Answer: ...


def build_pipeline(settings: Settings) -> Answerer:
    """The pipeline experiments run on (the CLI calls this; tests replace it)."""
    from engine.pipeline import Pipeline

    return Pipeline(settings)


def failure_answer(question: str, exc: BaseException) -> Answer:
    """A ``failure`` Answer standing in for a run that raised instead of answering."""
    message = str(exc) if isinstance(exc, EngineError) else f"Internal error ({type(exc).__name__}: {exc})"
    return Answer(question=question, intent=Intent(action="unknown", raw_query=question), final=message,
                  status="failure", extra={"error": message})


class ExperimentRunner:
    """Runs two variants over a question set on one pipeline and compares them."""

    def __init__(self, pipeline: Answerer, variant_a: Variant, variant_b: Variant, *, seed: int = 0,
                 n_resamples: int = 2000, confidence: float = 0.95) -> None:
        if not callable(getattr(pipeline, "run", None)):
            raise ExperimentError("The pipeline must have a run(question, options) method.")
        if n_resamples < 1:
            raise ExperimentError(f"n_resamples must be at least 1 (got {n_resamples}); 2000 is a good default.")
        if not 0 < confidence < 1:
            raise ExperimentError(f"confidence must be between 0 and 1 (got {confidence}); use e.g. 0.95.")
        self.pipeline = pipeline
        self.variants = {"A": variant_a, "B": variant_b}
        self.seed = int(seed)
        self.n_resamples = n_resamples
        self.confidence = confidence

    def _options(self, arm: str, experiment_id: str) -> AskOptions:
        options = self.variants[arm].options
        if options.rollout_bucket:
            return options
        return options.model_copy(update={"rollout_bucket": f"experiment:{experiment_id}:{arm}"})

    def _ask(self, question: str, options: AskOptions) -> Answer:
        try:
            return self.pipeline.run(question, options)
        except Exception as exc:  # one broken question must not end the experiment
            log.warning("experiment question failed: %s: %s", type(exc).__name__, exc)
            return failure_answer(question, exc)

    def run(self, questions: QuestionSet | Sequence[str], *, limit: int | None = None,
            progress: ExperimentProgress | None = None, experiment_id: str | None = None) -> ExperimentResult:
        """Answer each question with A and B (alternating which goes first), then compute metrics.

        A question set with gold answers also gets answered accuracy, refusal recall and coverage per arm.
        Every run carries ``rollout_bucket="experiment:<id>:<arm>"`` (unless the variant sets
        its own), so its trace shows which experiment and arm it belonged to.
        """
        if not isinstance(questions, QuestionSet):
            questions = QuestionSet("list", tuple(str(q).strip() for q in questions if str(q).strip()))
        questions = questions.limited(limit)
        if not questions.questions:
            raise ExperimentError("There are no questions to run; pick a question file, 'samples' or 'traces'.")
        experiment_id = experiment_id or new_experiment_id()
        created_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        options = {arm: self._options(arm, experiment_id) for arm in ("A", "B")}
        records: dict[str, list[AnswerRecord]] = {"A": [], "B": []}
        started = time.perf_counter()
        for index, question in enumerate(questions.questions):
            gold = questions.gold[index] if questions.gold else None
            for arm in ("A", "B") if index % 2 == 0 else ("B", "A"):
                answer = self._ask(question, options[arm])
                records[arm].append(AnswerRecord.from_answer(index, arm, answer, gold))
                if progress is not None:
                    progress(index, arm, answer)
        duration = time.perf_counter() - started
        comparison = compare_arms(records["A"], records["B"], names=(self.variants["A"].name,
                                  self.variants["B"].name), seed=self.seed, n_resamples=self.n_resamples,
                                  confidence=self.confidence)
        ordered = tuple(sorted(records["A"] + records["B"], key=lambda r: (r.index, r.arm)))
        return ExperimentResult(
            id=experiment_id, created_at=created_at, source=questions.source, questions=questions.questions,
            variant_a=self.variants["A"], variant_b=self.variants["B"], records=ordered, arms=comparison.arms,
            diffs=comparison.diffs, paired=comparison.paired, seed=self.seed, n_resamples=self.n_resamples,
            confidence=self.confidence, duration_s=round(duration, 3), interval_note=comparison.interval_note,
        )


def run_experiment(pipeline: Answerer, questions: QuestionSet | Sequence[str], variant_a: Variant,
                   variant_b: Variant, *, seed: int = 0, limit: int | None = None,
                   progress: ExperimentProgress | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                   store: ExperimentStore | None = None) -> ExperimentResult:
    """Run and compare A and B over ``questions``; saved to ``store`` when one is given."""
    result = ExperimentRunner(pipeline, variant_a, variant_b, seed=seed, n_resamples=n_resamples,
                              confidence=confidence).run(questions, limit=limit, progress=progress)
    if store is not None:
        store.save(result)
    return result
