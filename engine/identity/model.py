"""Who is acting: a name, a role (viewer < analyst < admin) and per-knowledge-base grants (read, write)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import ConfigError, PermissionDenied
from engine.identity.roles import ROLES, Role

Permission = Literal["read", "write"]
PERMISSIONS: tuple[Permission, ...] = ("read", "write")
ALL_BASES = "*"
"""A grant under this name applies to every knowledge base."""
WRITE_ROLES: tuple[Role, ...] = ("analyst", "admin")
"""Roles that may change anything (upload, delete, save a strategy); a viewer only reads."""
LOCAL_USER = "local"
Source = Literal["local", "token", "password", "oidc"]


def role_rank(role: str) -> int:
    if role not in ROLES:
        raise ConfigError(f"Unknown role {role!r}; use one of {', '.join(ROLES)}.")
    return ROLES.index(role)  # type: ignore[arg-type]


def parse_grants(raw: Any, where: str) -> dict[str, frozenset[Permission]] | None:
    """``{"manuals": ["read", "write"], "*": ["read"]}`` as a checked mapping; None (absent) means every base.

    ``write`` implies ``read``. A ConfigError names the entry and what to fix.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: grants must be a JSON object such as {{\"manuals\": [\"read\", \"write\"]}}.")
    grants: dict[str, frozenset[Permission]] = {}
    for kb, perms in raw.items():
        if isinstance(perms, str):
            perms = [perms]
        if not isinstance(kb, str) or not kb or not isinstance(perms, (list, tuple)) or not perms:
            raise ConfigError(f"{where}: grant {kb!r} must list permissions, e.g. [\"read\"] or [\"read\", \"write\"].")
        unknown = [p for p in perms if p not in PERMISSIONS]
        if unknown:
            raise ConfigError(f"{where}: grant {kb!r} has unknown permission(s) {unknown}; use read and/or write.")
        granted = set(perms) | ({"read"} if "write" in perms else set())
        grants[kb] = frozenset(granted)  # type: ignore[arg-type]
    return grants


@dataclass(frozen=True)
class Identity:
    """A signed-in user, an API token's holder or the single local user.

    ``grants`` None means every knowledge base (read; write too for analysts and admins).
    """

    name: str
    role: Role
    grants: Mapping[str, frozenset[Permission]] | None = None
    source: Source = "local"

    def at_least(self, role: str) -> bool:
        return role_rank(self.role) >= role_rank(role)

    @property
    def can_change(self) -> bool:
        """Whether the role may change anything at all (analyst or admin)."""
        return self.role in WRITE_ROLES

    @property
    def unrestricted(self) -> bool:
        """Reads every knowledge base (no per-base grants)."""
        return self.grants is None or "read" in self.grants.get(ALL_BASES, frozenset())

    def _granted(self, kb: str, permission: Permission) -> bool:
        if self.grants is None:
            return True
        return permission in self.grants.get(kb, frozenset()) or permission in self.grants.get(ALL_BASES, frozenset())

    def can_read(self, kb: str) -> bool:
        return self._granted(kb, "read")

    def can_write(self, kb: str) -> bool:
        return self.can_change and self._granted(kb, "write")

    def readable(self, names: Iterable[str]) -> list[str]:
        """The names among ``names`` this identity may read, in order."""
        return [n for n in names if self.can_read(n)]

    def require_change(self, what: str) -> None:
        """PermissionDenied unless the role may change things."""
        if not self.can_change:
            raise PermissionDenied(f"{what} needs the analyst or admin role; {self.name} is a {self.role}. "
                                   "Ask an admin to grant you the analyst role.")

    def require_write(self, kb: str) -> None:
        """PermissionDenied unless this identity may change ``kb``."""
        self.require_change(f"Changing knowledge base {kb!r}")
        if not self.can_write(kb):
            raise PermissionDenied(f"{self.name} has no write grant for knowledge base {kb!r}; ask an admin to "
                                   "add it to your grants.")

    def to_dict(self) -> dict[str, Any]:
        grants = None if self.grants is None else {k: sorted(v) for k, v in sorted(self.grants.items())}
        return {"name": self.name, "role": self.role, "grants": grants, "source": self.source}


LOCAL_ADMIN = Identity(LOCAL_USER, "admin", None, "local")
"""The single local user when no users or tokens are configured: admin over every base, as without sign-in."""
