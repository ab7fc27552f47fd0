"""Versioned strategies under ``DATA_DIR/strategies``: every save is a new timestamped version."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import ConfigError
from engine.orchestration.strategy import Strategy

_VERSION_FORMAT = "%Y%m%dT%H%M%S%fZ"


@dataclass(frozen=True)
class StrategyVersion:
    version: str
    name: str
    note: str
    saved_at: str
    active: bool = False


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


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


class StrategyStore:
    """Save, list, load and activate strategy versions (JSON files plus an ``active`` pointer)."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = Path(data_dir) / "strategies"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def _path(self, version: str) -> Path:
        try:
            datetime.strptime(version, _VERSION_FORMAT)
        except ValueError:
            raise ConfigError(f"{version!r} is not a strategy version; list them with StrategyStore.versions().") from None
        return self.folder / f"{version}.json"

    def save(self, strategy: Strategy, note: str = "", activate: bool = True) -> str:
        """Store ``strategy`` as a new version (and make it active unless told not to)."""
        with self._lock:
            now = datetime.now(timezone.utc)
            version = now.strftime(_VERSION_FORMAT)
            while (self.folder / f"{version}.json").exists():  # two saves in the same microsecond
                now = now.replace(microsecond=(now.microsecond + 1) % 1_000_000)
                version = now.strftime(_VERSION_FORMAT)
            record = {"version": version, "saved_at": now.isoformat(timespec="seconds"), "note": note,
                      "strategy": strategy.model_dump(mode="json")}
            _atomic_write(self.folder / f"{version}.json", json.dumps(record, indent=2))
            if activate:
                _atomic_write(self.folder / "active", version)
        return version

    def load(self, version: str) -> Strategy:
        path = self._path(version)
        if not path.is_file():
            raise ConfigError(f"Strategy version {version} does not exist; list versions to pick another.")
        record = json.loads(path.read_text(encoding="utf-8"))
        try:
            return Strategy.model_validate(record["strategy"])
        except ValidationError as exc:
            raise ConfigError(f"Strategy version {version} is invalid ({exc.errors()[0]['msg']}); activate another.") from None

    def active_version(self) -> str:
        """The active version; saves the built-in default first when there is none."""
        pointer = self.folder / "active"
        if pointer.is_file():
            version = pointer.read_text(encoding="utf-8").strip()
            if (self.folder / f"{version}.json").is_file():
                return version
        return self.save(Strategy(), note="built-in default")

    def active(self) -> tuple[str, Strategy]:
        version = self.active_version()
        return version, self.load(version)

    def activate(self, version: str) -> None:
        self.load(version)  # must exist and be valid
        with self._lock:
            _atomic_write(self.folder / "active", version)

    def versions(self) -> list[StrategyVersion]:
        """All versions, newest first."""
        pointer = self.folder / "active"
        active = pointer.read_text(encoding="utf-8").strip() if pointer.is_file() else ""
        out = []
        for path in sorted(self.folder.glob("*.json"), reverse=True):
            record = json.loads(path.read_text(encoding="utf-8"))
            out.append(StrategyVersion(record["version"], record["strategy"].get("name", ""), record.get("note", ""),
                                       record.get("saved_at", ""), record["version"] == active))
        return out

    def diff(self, a: str, b: str) -> list[dict[str, Any]]:
        return diff_strategies(self.load(a), self.load(b))
