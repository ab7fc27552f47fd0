"""Versioned strategies in the workbench database: every save is a new timestamped version."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from engine.database import Database, open_database
from engine.database.legacy import ACTIVE_STRATEGY
from engine.database.sql import upsert
from engine.database.tables import app_settings, strategy_versions
from engine.errors import ConfigError
from engine.orchestration.strategy import Strategy

if TYPE_CHECKING:
    from engine.config import Settings

_VERSION_FORMAT = "%Y%m%dT%H%M%S%fZ"
_SAVE_ATTEMPTS = 1000
_LOADED_SIZE = 64
"""Parsed strategy versions kept per store (a version, once saved, never changes)."""


@dataclass(frozen=True)
class StrategyVersion:
    version: str
    name: str
    note: str
    saved_at: str
    active: bool = False


def diff_strategies(a: Strategy, b: Strategy) -> list[dict[str, Any]]:
    """Fields that differ between two strategies, as dotted paths with both values."""
    changes: list[dict[str, Any]] = []

    def walk(x: Any, y: Any, path: str) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y), key=str):
                walk(x.get(key), y.get(key), f"{path}.{key}" if path else str(key))
        elif x != y:
            changes.append({"field": path, "a": x, "b": y})

    walk(a.model_dump(mode="json"), b.model_dump(mode="json"), "")
    return changes


def _check_version(version: str) -> str:
    try:
        datetime.strptime(version, _VERSION_FORMAT)
    except (TypeError, ValueError):
        raise ConfigError(f"{version!r} is not a strategy version; list them with StrategyStore.versions().") from None
    return version


class StrategyStore:
    """Save, list, load and activate strategy versions (rows plus an ``active_strategy`` setting)."""

    def __init__(self, target: "Database | Settings | Path | str") -> None:
        self.db = open_database(target)
        self._loaded: OrderedDict[str, Strategy] = OrderedDict()  # versions are never rewritten: parsed once
        self._loaded_lock = threading.Lock()

    def save(self, strategy: Strategy, note: str = "", activate: bool = True) -> str:
        """Store ``strategy`` as a new version (and make it active unless told not to)."""
        now = datetime.now(timezone.utc)
        body = json.dumps(strategy.model_dump(mode="json"))
        for _ in range(_SAVE_ATTEMPTS):
            version = now.strftime(_VERSION_FORMAT)
            try:
                with self.db.begin() as conn:
                    conn.execute(insert(strategy_versions).values(
                        version=version, saved_at=now.isoformat(timespec="seconds"), name=strategy.name, note=note,
                        strategy=body))
                    if activate:
                        self._set_active(conn, version)
                return version
            except IntegrityError:  # two saves in the same microsecond
                now = now.replace(microsecond=(now.microsecond + 1) % 1_000_000)
        raise ConfigError("Could not find a free strategy version; try saving again.")

    @staticmethod
    def _set_active(conn, version: str) -> None:  # noqa: ANN001 - a SQLAlchemy connection
        upsert(conn, app_settings, {"key": ACTIVE_STRATEGY, "value": version,
                                    "updated_at": datetime.now(timezone.utc).isoformat(timespec="seconds")},
               keys=["key"])

    def load(self, version: str) -> Strategy:
        _check_version(version)
        with self._loaded_lock:
            if version in self._loaded:
                return self._loaded[version]
        strategy = self._read(version)
        with self._loaded_lock:
            self._loaded[version] = strategy
            while len(self._loaded) > _LOADED_SIZE:
                self._loaded.popitem(last=False)
        return strategy

    def _read(self, version: str) -> Strategy:
        with self.db.connect() as conn:
            body = conn.execute(select(strategy_versions.c.strategy)
                                .where(strategy_versions.c.version == version)).scalar()
        if body is None:
            raise ConfigError(f"Strategy version {version} does not exist; list versions to pick another.")
        try:
            return Strategy.model_validate(json.loads(body))
        except (ValueError, ValidationError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise ConfigError(f"Strategy version {version} is invalid ({reason}); activate another.") from None

    def _active_pointer(self) -> str | None:
        query = (select(app_settings.c.value).join(strategy_versions, strategy_versions.c.version == app_settings.c.value)
                 .where(app_settings.c.key == ACTIVE_STRATEGY))
        with self.db.connect() as conn:
            return conn.execute(query).scalar()

    def active_version(self) -> str:
        """The active version; saves the built-in default first when there is none."""
        return self._active_pointer() or self.save(Strategy(), note="built-in default")

    def active(self) -> tuple[str, Strategy]:
        version = self.active_version()
        return version, self.load(version)

    def activate(self, version: str) -> None:
        self.load(version)  # must exist and be valid
        with self.db.begin() as conn:
            self._set_active(conn, version)

    def versions(self) -> list[StrategyVersion]:
        """All versions, newest first."""
        active = self._active_pointer() or ""
        c = strategy_versions.c
        with self.db.connect() as conn:
            rows = conn.execute(select(c.version, c.name, c.note, c.saved_at).order_by(c.version.desc())).all()
        return [StrategyVersion(r.version, r.name, r.note, r.saved_at, r.version == active) for r in rows]

    def diff(self, a: str, b: str) -> list[dict[str, Any]]:
        return diff_strategies(self.load(a), self.load(b))
