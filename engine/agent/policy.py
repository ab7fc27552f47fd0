"""Who may call which tool, how often, and how much one run may spend.

Roles are ordered viewer < analyst < admin; a tool names the least role allowed to call
it. High-risk tools always pause for a person; ``confirm_risks`` makes other risk levels pause
too (``{"write"}`` for a deployment that wants every file write approved). A run has a budget (tool calls, active
seconds); a user has a rate limit (calls per sliding window, within this process).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Callable, Literal

from engine.agent.errors import AgentError
from engine.agent.registry import RISKS, Tool
from engine.identity.roles import ROLES, Role

Decision = Literal[
    "allowed", "denied", "invalid", "confirmation_required", "approved", "rejected_by_user", "timed_out",
    "not_allowed", "rate_limited", "not_done",
]
"""``not_done``: a step the person asked for that the model did not call a tool for, with the reason."""


def check_role(role: str) -> Role:
    """The role itself, or an AgentError naming the valid ones."""
    if role not in ROLES:
        raise AgentError(f"Unknown role {role!r}; use one of {', '.join(ROLES)}.")
    return role  # type: ignore[return-value]


def role_allows(role: Role, required: Role) -> bool:
    """True when ``role`` is ``required`` or higher."""
    return ROLES.index(check_role(role)) >= ROLES.index(check_role(required))


class RateLimiter:
    """At most ``limit`` tool calls per user in any ``window_s`` seconds (sliding window, thread-safe)."""

    def __init__(self, limit: int = 30, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 1:
            raise ValueError("rate limit must allow at least 1 call per window")
        if window_s <= 0:
            raise ValueError("rate window must be greater than 0 seconds")
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._calls: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def allow(self, user: str) -> bool:
        """Count one call for ``user`` and return True, or return False when the window is full."""
        now = self._clock()
        with self._lock:
            calls = self._calls[user]
            while calls and now - calls[0] >= self.window_s:
                calls.popleft()
            if len(calls) >= self.limit:
                return False
            calls.append(now)
            return True


@dataclass(frozen=True)
class Policy:
    """Permissions, confirmation, budget and rate limit, checked by the runtime before any tool runs."""

    max_tool_calls: int = 20
    max_seconds: float = 120.0
    rate_limiter: RateLimiter = field(default_factory=RateLimiter)
    confirm_risks: frozenset[str] = frozenset()
    """Risk levels that pause for a person besides the tools that always do (e.g. ``{"write"}``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "confirm_risks", frozenset(self.confirm_risks))
        unknown = set(self.confirm_risks) - set(RISKS)
        if unknown:
            raise ValueError(f"confirm_risks must be among {RISKS}, got {sorted(unknown)}")
        if self.max_tool_calls < 1:
            raise ValueError("max_tool_calls must be at least 1")
        if self.max_seconds <= 0:
            raise ValueError("max_seconds must be greater than 0")

    def permits(self, tool: Tool, role: Role) -> bool:
        """Whether ``role`` may call ``tool`` at all."""
        return role_allows(role, tool.role)

    def needs_confirmation(self, tool: Tool) -> bool:
        """High-risk tools always; any tool the registry marks ``confirm``; tools of a risk in ``confirm_risks``."""
        return tool.needs_confirmation or tool.risk in self.confirm_risks

    def within_rate(self, user: str) -> bool:
        return self.rate_limiter.allow(user)

    def budget_problem(self, tool_calls: int, seconds: float) -> str | None:
        """Why the run may not make another tool call, or None while it is within budget."""
        if tool_calls >= self.max_tool_calls:
            return f"this run has used its {self.max_tool_calls} tool calls"
        if seconds >= self.max_seconds:
            return f"this run has used its {self.max_seconds:g} seconds"
        return None
