"""Gradual rollout: the share of Ask traffic that gets reflection, and the arm each question lands in.

The share is the ``rollout`` setting in the workbench database. Assignment hashes the session id and the
question, so the same user asking the same question always lands in the same arm.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import select

from engine.config import Settings
from engine.database import Database, open_database
from engine.database.legacy import ROLLOUT
from engine.database.sql import upsert
from engine.database.tables import app_settings
from engine.errors import ConfigError
from engine.pipeline.options import AskOptions

DEFAULT_SHARE = 100.0
"""Without a stored setting everyone gets reflection, as the Ask page always has."""


def validate_share(share: Any) -> float:
    """A share in percent, 0 to 100 inclusive (``"25%"`` is accepted too)."""
    try:
        value = float(str(share).strip().rstrip("%")) if isinstance(share, str) else float(share)
    except (TypeError, ValueError):
        raise ConfigError(f"Rollout share {share!r} is not a number; give a percentage from 0 to 100.") from None
    if math.isnan(value) or not 0 <= value <= 100:
        raise ConfigError(f"Rollout share {share!r} is out of range; give a percentage from 0 to 100.")
    return value


def format_share(share: float) -> str:
    """``25.0`` -> ``"25%"``, ``12.5`` -> ``"12.5%"``."""
    return f"{share:g}%"


@dataclass(frozen=True)
class RolloutSetting:
    """The reflection share in percent and when it was last set (None: never, the default applies)."""

    share: float = DEFAULT_SHARE
    updated_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"share": self.share, "updated_at": self.updated_at, "label": format_share(self.share)}


class RolloutStore:
    """Read and set the rollout share (one row of ``app_settings``)."""

    def __init__(self, target: Database | Settings | Path | str) -> None:
        self.db = open_database(target)

    def get(self) -> RolloutSetting:
        with self.db.connect() as conn:
            text = conn.execute(select(app_settings.c.value).where(app_settings.c.key == ROLLOUT)).scalar()
        if text is None:
            return RolloutSetting()
        try:
            data = json.loads(text)
            return RolloutSetting(validate_share(data["share"]), data.get("updated_at"))
        except (ValueError, KeyError, TypeError, ConfigError) as exc:
            raise ConfigError(f"The stored rollout share is damaged ({exc}); set the share again with "
                              "`python -m engine rollout set PERCENT`.") from None

    def set(self, share: float | str) -> RolloutSetting:
        """Store a new share (0-100 %); returns the stored setting."""
        setting = RolloutSetting(validate_share(share), datetime.now(timezone.utc).isoformat(timespec="seconds"))
        value = json.dumps({"share": setting.share, "updated_at": setting.updated_at})
        with self.db.begin() as conn:
            upsert(conn, app_settings, {"key": ROLLOUT, "value": value, "updated_at": setting.updated_at}, keys=["key"])
        return setting


def rollout_unit(question: str, session_id: str) -> float:
    """A stable number in [0, 1) for this session and question (whitespace in the question is normalised)."""
    key = f"{session_id}\x1f{' '.join(str(question).split())}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64


def assign_reflection(question: str, session_id: str, share: float) -> tuple[bool, str]:
    """Whether this session+question gets reflection, and its bucket label.

    Labels look like ``rollout:reflection@25%`` or ``rollout:control@25%``; share 0 and
    100 give every question the same arm.
    """
    share = validate_share(share)
    on = rollout_unit(question, session_id) * 100 < share
    return on, f"rollout:{'reflection' if on else 'control'}@{format_share(share)}"


def rollout_options(base: AskOptions, question: str, session_id: str, settings: Settings) -> AskOptions:
    """``base`` with reflection set by the stored rollout share and the arm recorded in ``rollout_bucket``."""
    share = RolloutStore(settings).get().share
    on, bucket = assign_reflection(question, session_id, share)
    return base.model_copy(update={"reflection": on, "rollout_bucket": bucket})
