"""Experiment results as JSON files under ``DATA_DIR/experiments/<id>.json``."""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.experiments.report import ExperimentResult
from engine.experiments.variants import ExperimentError

log = logging.getLogger(__name__)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_experiment_id(now: datetime | None = None) -> str:
    """A sortable, unique id such as ``20240501T120000Z-3fa2c1``."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


class ExperimentStore:
    """Save, list and load experiment results."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = Path(data_dir) / "experiments"

    def _path(self, experiment_id: str) -> Path:
        if not _ID.match(experiment_id or ""):
            raise ExperimentError(f"{experiment_id!r} is not an experiment id; list them with "
                                  "`python -m engine experiment list`.")
        return self.folder / f"{experiment_id}.json"

    def save(self, result: ExperimentResult) -> Path:
        """Store ``result`` (replacing an earlier file with the same id); returns the file path."""
        path = self._path(result.id)
        atomic_write(path, json.dumps(result.to_dict(), indent=1, ensure_ascii=False))
        return path

    def get(self, experiment_id: str) -> ExperimentResult:
        path = self._path(experiment_id)
        if not path.is_file():
            raise ExperimentError(f"Experiment {experiment_id!r} not found; list them with "
                                  "`python -m engine experiment list`.")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ExperimentError(f"{path} cannot be read ({exc}); delete it and run the experiment again.") from None
        return ExperimentResult.from_dict(data)

    def list(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Summaries of stored experiments, newest first; unreadable files are skipped with a warning."""
        out = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else ():
            try:
                out.append(ExperimentResult.from_dict(json.loads(path.read_text(encoding="utf-8"))).summary())
            except (OSError, json.JSONDecodeError, ExperimentError) as exc:
                log.warning("skipping unreadable experiment file %s: %s", path, exc)
        out.sort(key=lambda s: (s["created_at"], s["id"]), reverse=True)
        return out[:limit] if limit is not None else out

    def delete(self, experiment_id: str) -> bool:
        """Remove one stored experiment; False when there was none."""
        path = self._path(experiment_id)
        if path.is_file():
            path.unlink()
            return True
        return False
