"""What a tool gets besides its arguments: settings, the store, who is asking, and the answer pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.results import Answer

Role = Literal["viewer", "analyst", "admin"]
ROLES: tuple[Role, ...] = ("viewer", "analyst", "admin")


@dataclass(frozen=True)
class ToolContext:
    """Dependencies handed to every tool call.

    ``store`` is a :class:`~engine.store.KnowledgeBaseStore` (or anything with the same
    methods); ``answer`` runs the full question pipeline and is ``None`` where it is not wired.
    """

    settings: "Settings"
    store: Any
    user: str
    role: Role
    answer: "Callable[[str], Answer] | None" = None

    @property
    def data_dir(self) -> Path:
        return Path(self.settings.data_dir)
