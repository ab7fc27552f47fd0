"""The calibrated decision to answer: P(the reader's best candidate is right), and a threshold chosen for a target
answered accuracy (selective question answering, Kamath, Jia and Liang 2020).

``selector_features`` describes one question: the ranker's scores for its best candidates, the evidence signals
(subjects and attribute words found, best sentence fit) and the expected answer type. A :class:`Selector` holds a
logistic model over them and the threshold; the packaged one is fitted by tools/train_reader.py on squad2 and
qa_dev, and ``python -m engine calibrate`` fits one on a user's own labelled questions for their bases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.errors import ConfigError
from engine.language.question import VALUE_TYPES, QuestionReading
from engine.offline.model import LogisticModel, load, packaged
from engine.offline.reader import Candidate

DEFAULT_ACCURACY = 0.8
"""The answered accuracy the default threshold is chosen for (a setting and an Ask option)."""


def selector_features(reading: QuestionReading, signals: Mapping[str, float],
                      ranked: Sequence[Candidate]) -> dict[str, float]:
    """What says the best candidate is right: its score and margin, where it stands, and the evidence signals."""
    top = ranked[0] if ranked else None
    second = ranked[1].score if len(ranked) > 1 else -10.0
    f: dict[str, float] = {
        "bias": 1.0,
        "subject_coverage": signals.get("subject_coverage", 0.0),
        "all_subjects": float(signals.get("subject_coverage", 0.0) >= 1.0),
        "no_subjects": float(signals.get("subjects", 0.0) == 0),
        "attribute_coverage": signals.get("attribute_coverage", 0.0),
        "best_similarity": signals.get("best_similarity", 0.0),
        "best_overlap": signals.get("best_overlap", 0.0),
        "top3_similarity": signals.get("top3_similarity", 0.0),
        "candidates_log": math.log1p(len(ranked)),
        f"type={reading.answer_type}": 1.0,
        "value_type": float(reading.answer_type in VALUE_TYPES),
    }
    if top is None:
        f["no_candidate"] = 1.0
        return f
    p = _sigmoid(top.score)
    f.update({
        "top_probability": p,
        "top_logit": max(min(top.score, 10.0), -10.0),
        "margin": max(min(top.score - second, 10.0), 0.0),
        "top_similarity": top.features.get("sent_similarity", 0.0),
        "top_subject": top.features.get("sent_subject", 0.0),
        "top_sources_log": top.features.get("sources_log", 0.0),
        "top_in_question": top.features.get("in_question", 0.0),
        "top_distance_log": top.features.get("distance_log", 0.0),
        f"type={reading.answer_type}|top_probability": p,
    })
    if "qa_span" in top.features:  # the span model's view: its score of the best candidate against "no answer"
        f["top_qa_over_null"] = top.features["qa_over_null"]
        f["top_qa_gap"] = top.features.get("qa_gap", 0.0)
        f["best_qa_over_null"] = max(c.features.get("qa_over_null", -2.0) for c in ranked)
    return f


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


@dataclass(frozen=True)
class Selector:
    """A fitted decision: ``probability(features)`` and the threshold that gives the target answered accuracy."""

    model: LogisticModel
    threshold: float
    name: str = "default"
    thresholds: Mapping[str, float] = field(default_factory=dict)
    """Threshold per target accuracy ("0.8", "0.9", ...), as measured when it was fitted."""

    def probability(self, features: Mapping[str, float]) -> float:
        return self.model.probability(features)

    def threshold_for(self, accuracy: float | None) -> float:
        """The threshold for a target answered accuracy: the fitted one nearest at or above it."""
        if accuracy is None:
            return self.threshold
        if accuracy <= 0:  # best guesses: the best candidate is answered whatever its confidence
            return 0.0
        known = sorted((float(k), v) for k, v in self.thresholds.items())
        above = [v for k, v in known if k >= accuracy - 1e-9]
        if above:
            return above[0]
        return known[-1][1] if known else self.threshold

    @classmethod
    def of(cls, model: LogisticModel, name: str) -> Selector:
        trained = model.trained
        thresholds = trained.get("thresholds") or {}
        if not isinstance(thresholds, Mapping) or not thresholds:
            raise ConfigError(f"selector {name!r} has no thresholds; fit it again (python -m engine calibrate).")
        default = thresholds.get(str(DEFAULT_ACCURACY), next(iter(thresholds.values())))
        return cls(model, float(default), name, {str(k): float(v) for k, v in thresholds.items()})


def default_selector() -> Selector:
    """The selector shipped with the engine (engine/offline/models/selector.json)."""
    return Selector.of(packaged("selector"), "default")


def default_passage() -> Selector | None:
    """The shipped sentence-level selector (engine/offline/models/passage.json): P(the best candidate's sentence
    holds the answer). Used when the value itself is not sure enough; None when it is not packaged."""
    from engine.offline.model import MODELS

    return Selector.of(packaged("passage"), "passage") if (MODELS / "passage.json").is_file() else None


def selector_from(path) -> Selector:
    """A selector saved by ``python -m engine calibrate``."""
    return Selector.of(load(path), str(path))
