"""ExperimentResult: everything one A/B run produced, as a frozen, JSON-round-trippable object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.experiments.metrics import AnswerRecord, ArmMetrics, MetricDiff
from engine.experiments.variants import ExperimentError, Variant

FORMAT_VERSION = 1


@dataclass(frozen=True)
class ExperimentResult:
    """One experiment: variants, questions, every answer's record (with trace id), metrics and differences."""

    id: str
    created_at: str
    source: str
    questions: tuple[str, ...]
    variant_a: Variant
    variant_b: Variant
    records: tuple[AnswerRecord, ...]
    arms: tuple[ArmMetrics, ArmMetrics]
    diffs: tuple[MetricDiff, ...]
    paired: bool
    seed: int
    n_resamples: int
    confidence: float
    duration_s: float = 0.0
    interval_note: str = ""
    """Why intervals and verdicts are withheld (too few paired questions); empty when they are shown."""

    @property
    def has_gold(self) -> bool:
        """The questions came with gold answers, so answers and refusals were scored against them."""
        return bool(self.records) and all(r.answerable is not None for r in self.records)

    def arm(self, label: str) -> ArmMetrics:
        """Metrics of arm ``"A"`` or ``"B"``."""
        for arm in self.arms:
            if arm.arm == label:
                return arm
        raise ExperimentError(f"No arm {label!r}; use 'A' or 'B'.")

    def diff(self, metric: str) -> MetricDiff:
        """The B - A difference for one metric name."""
        for diff in self.diffs:
            if diff.metric == metric:
                return diff
        raise ExperimentError(f"No metric {metric!r}; use one of {', '.join(d.metric for d in self.diffs)}.")

    def trace_ids(self, arm: str | None = None) -> list[str]:
        """Trace ids of the answers (of one arm, or both), in run order."""
        return [r.trace_id for r in self.records if r.trace_id and (arm is None or r.arm == arm)]

    @property
    def failures(self) -> int:
        return sum(arm.failures for arm in self.arms)

    def rows(self) -> list[dict[str, Any]]:
        """One row per metric: A, B, B - A and its interval (``pandas.DataFrame(result.rows())``)."""
        return [{"metric": d.metric, "label": d.label, "A": d.a, "B": d.b, "diff": d.diff, "ci_low": d.ci_low,
                 "ci_high": d.ci_high, "better": d.better, "significant": d.significant, "verdict": d.verdict}
                for d in self.diffs]

    def answer_rows(self) -> list[dict[str, Any]]:
        """One row per answer, with the variant's name beside the arm label."""
        names = {"A": self.variant_a.name, "B": self.variant_b.name}
        return [{**r.to_dict(), "variant": names.get(r.arm, r.arm)} for r in self.records]

    def summary(self) -> dict[str, Any]:
        """The short form used by experiment lists."""
        return {"id": self.id, "created_at": self.created_at, "source": self.source,
                "variant_a": self.variant_a.name, "variant_b": self.variant_b.name,
                "questions": len(self.questions), "answers": len(self.records), "failures": self.failures,
                "paired": self.paired}

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION, "id": self.id, "created_at": self.created_at, "source": self.source,
            "questions": list(self.questions), "variant_a": self.variant_a.to_dict(),
            "variant_b": self.variant_b.to_dict(), "paired": self.paired, "seed": self.seed,
            "n_resamples": self.n_resamples, "confidence": self.confidence, "duration_s": self.duration_s,
            "interval_note": self.interval_note, "arms": [a.to_dict() for a in self.arms],
            "diffs": [d.to_dict() for d in self.diffs],
            "records": [r.to_dict() for r in self.records],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentResult:
        try:
            arms = tuple(ArmMetrics.from_dict(a) for a in data["arms"])
            return cls(
                id=data["id"], created_at=data["created_at"], source=data.get("source", ""),
                questions=tuple(data.get("questions", ())), variant_a=Variant.from_dict(data["variant_a"]),
                variant_b=Variant.from_dict(data["variant_b"]),
                records=tuple(AnswerRecord.from_dict(r) for r in data.get("records", ())),
                arms=(arms[0], arms[1]), diffs=tuple(MetricDiff.from_dict(d) for d in data.get("diffs", ())),
                paired=bool(data.get("paired", False)), seed=int(data.get("seed", 0)),
                n_resamples=int(data.get("n_resamples", 0)), confidence=float(data.get("confidence", 0.95)),
                duration_s=float(data.get("duration_s", 0.0)), interval_note=str(data.get("interval_note", "")),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ExperimentError(f"Stored experiment is incomplete or damaged ({type(exc).__name__}: {exc}); "
                                  "delete its file and run the experiment again.") from None
