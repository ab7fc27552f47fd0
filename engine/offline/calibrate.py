"""Selectors calibrated on a user's own questions, kept for asks over their bases: ``SelectorStore`` keeps each fitted
selector under ``DATA_DIR/selectors``, one per set of bases; an ask over bases that a calibrated selector covers
uses it. Fitting them (asking the questions and cross-validating) is ``engine.evaluation.calibrate``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.config import Settings
from engine.errors import EngineError
from engine.offline.model import LogisticModel, load
from engine.offline.selector import Selector

_NAME = re.compile(r"[^a-z0-9_.-]+")


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
