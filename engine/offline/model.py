"""Learned scorers stored as plain JSON: logistic regression over named features (no pickle).

A model file holds ``{"kind": "logistic", "intercept", "weights": {feature: weight}, "trained": {...}}``: the
features are the sparse dicts the reader and the selector build, so a feature the model never saw weighs
nothing. ``trained`` records the command, data and cross-validated figures that produced it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from engine.errors import ConfigError

MODELS = Path(__file__).with_name("models")


@dataclass(frozen=True)
class LogisticModel:
    """P(label) = sigmoid(intercept + sum of weight * value) over a sparse feature dict."""

    intercept: float
    weights: Mapping[str, float]
    trained: Mapping[str, object] = field(default_factory=dict)

    def logit(self, features: Mapping[str, float]) -> float:
        get = self.weights.get
        return self.intercept + sum(get(name, 0.0) * value for name, value in features.items())

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.logit(features)
        return 1.0 / (1.0 + math.exp(-z)) if z > -40 else 0.0

    def to_json(self) -> dict:
        return {"kind": "logistic", "intercept": self.intercept,
                "weights": dict(sorted(self.weights.items())), "trained": dict(self.trained)}

    @classmethod
    def from_json(cls, data: Mapping, where: str = "model") -> LogisticModel:
        if not isinstance(data, Mapping) or data.get("kind") != "logistic" or not isinstance(data.get("weights"), dict):
            raise ConfigError(f"{where} is not a logistic model file ({{'kind': 'logistic', 'weights': ...}}); "
                              "refit it with tools/train_reader.py or `python -m engine calibrate`.")
        return cls(float(data.get("intercept", 0.0)), {str(k): float(v) for k, v in data["weights"].items()},
                   dict(data.get("trained", {})))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def load(path: str | Path) -> LogisticModel:
    """A model file, checked; ConfigError says what to do when it is missing or malformed."""
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{file} is missing; fit it with tools/train_reader.py.") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{file} is not valid JSON ({exc}); fit it again with tools/train_reader.py.") from None
    return LogisticModel.from_json(data, str(file))


@lru_cache(maxsize=8)
def packaged(name: str) -> LogisticModel:
    """A model shipped in engine/offline/models (``name`` without ``.json``)."""
    return load(MODELS / f"{name}.json")
