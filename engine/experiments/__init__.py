"""Experiments: A/B runs over a question set with bootstrap intervals, and the gradual reflection rollout."""

from engine.experiments.gold import GOLD_METRICS, MIN_PAIRED_QUESTIONS
from engine.experiments.metrics import (
    METRIC_NAMES, METRICS, AnswerRecord, ArmMetrics, Comparison, MetricDiff, arm_metrics, compare_arms,
)
from engine.experiments.questions import (
    QuestionSet, load_question_set, load_questions_file, parse_questions, questions_from_traces, sample_questions,
)
from engine.experiments.report import ExperimentResult
from engine.experiments.rollout import (
    RolloutSetting, RolloutStore, assign_reflection, rollout_options, validate_share,
)
from engine.experiments.runner import (
    Answerer, ExperimentProgress, ExperimentRunner, build_pipeline, failure_answer, run_experiment,
)
from engine.experiments.store import ExperimentStore
from engine.experiments.variants import VARIANT_KINDS, ExperimentError, Variant, parse_switch, variant_pair

__all__ = [
    "GOLD_METRICS", "METRICS", "METRIC_NAMES", "MIN_PAIRED_QUESTIONS", "VARIANT_KINDS", "Answerer", "AnswerRecord",
    "ArmMetrics", "Comparison",
    "ExperimentError", "ExperimentProgress", "ExperimentResult", "ExperimentRunner", "ExperimentStore", "MetricDiff",
    "QuestionSet", "RolloutSetting", "RolloutStore", "Variant", "arm_metrics", "assign_reflection", "build_pipeline",
    "compare_arms", "failure_answer", "load_question_set", "load_questions_file", "parse_questions",
    "parse_switch", "questions_from_traces", "rollout_options", "run_experiment", "sample_questions",
    "validate_share", "variant_pair",
]
