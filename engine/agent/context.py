"""What a tool gets besides its arguments: settings, the store, who is asking, and the answer pipeline."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from engine.identity.roles import Role

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.results import Answer


class ReadLog:
    """The knowledge bases a run's tools have read from, noted by the store they were given (thread-safe).

    A run is shown, and may be decided, only by someone who may read every one of them.
    """

    def __init__(self) -> None:
        self._names: set[str] = set()
        self._lock = threading.Lock()

    def add(self, names: Iterable[str]) -> None:
        """Note that these bases were read."""
        names = [n for n in names if isinstance(n, str) and n]
        with self._lock:
            self._names.update(names)

    def names(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._names)


@dataclass(frozen=True)
class ToolContext:
    """Dependencies handed to every tool call.

    ``store`` is a :class:`~engine.store.KnowledgeBaseStore` (or anything with the same
    methods); ``answer`` runs the full question pipeline and is ``None`` where it is not wired.
    ``reads`` collects the bases the tools read, when the store notes them (a store limited to a user does).
    """

    settings: "Settings"
    store: Any
    user: str
    role: Role
    answer: "Callable[[str], Answer] | None" = None
    reads: ReadLog = field(default_factory=ReadLog, compare=False)

    @property
    def data_dir(self) -> Path:
        return Path(self.settings.data_dir)
