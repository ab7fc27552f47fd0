"""Experiment results in the workbench database (see :mod:`engine.database`), one row per experiment."""

from __future__ import annotations

import json
import logging
import re
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select

from engine.database import Database, open_database
from engine.database.sql import upsert
from engine.database.tables import experiments
from engine.experiments.report import ExperimentResult
from engine.experiments.variants import ExperimentError

if TYPE_CHECKING:
    from engine.config import Settings

log = logging.getLogger(__name__)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def new_experiment_id(now: datetime | None = None) -> str:
    """A sortable, unique id such as ``20240501T120000Z-3fa2c1``."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def _check_id(experiment_id: str) -> str:
    if not isinstance(experiment_id, str) or not _ID.match(experiment_id):
        raise ExperimentError(f"{experiment_id!r} is not an experiment id; list them with "
                              "`python -m engine experiment list`.")
    return experiment_id


class ExperimentStore:
    """Save, list and load experiment results."""

    def __init__(self, target: "Database | Settings | Path | str") -> None:
        self.db = open_database(target)

    def save(self, result: ExperimentResult) -> str:
        """Store ``result`` (replacing an earlier one with the same id); returns its id."""
        row = {"id": _check_id(result.id), "created_at": result.created_at,
               "result": json.dumps(result.to_dict(), ensure_ascii=False)}
        with self.db.begin() as conn:
            upsert(conn, experiments, row, keys=["id"])
        return result.id

    def get(self, experiment_id: str) -> ExperimentResult:
        _check_id(experiment_id)
        with self.db.connect() as conn:
            text = conn.execute(select(experiments.c.result).where(experiments.c.id == experiment_id)).scalar()
        if text is None:
            raise ExperimentError(f"Experiment {experiment_id!r} not found; list them with "
                                  "`python -m engine experiment list`.")
        try:
            return ExperimentResult.from_dict(json.loads(text))
        except ValueError as exc:
            raise ExperimentError(f"Experiment {experiment_id!r} cannot be read ({exc}); delete it with "
                                  "ExperimentStore.delete and run the experiment again.") from None

    def list(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Summaries of stored experiments, newest first; unreadable ones are skipped with a warning."""
        query = select(experiments.c.id, experiments.c.result).order_by(experiments.c.created_at.desc(),
                                                                       experiments.c.id.desc())
        out = []
        with self.db.connect() as conn:
            for row in conn.execute(query):
                try:
                    out.append(ExperimentResult.from_dict(json.loads(row.result)).summary())
                except (ValueError, ExperimentError) as exc:
                    log.warning("skipping unreadable experiment %s: %s", row.id, exc)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def delete(self, experiment_id: str) -> bool:
        """Remove one stored experiment; False when there was none."""
        _check_id(experiment_id)
        with self.db.begin() as conn:
            return conn.execute(delete(experiments).where(experiments.c.id == experiment_id)).rowcount == 1
