"""The state of one agent run: what the runtime persists, and the frozen view callers get."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.identity.roles import Role

RunStatus = Literal["running", "completed", "incomplete", "paused", "max_steps", "failed", "budget_exceeded"]
"""``incomplete``: the run finished, but a step the person asked for was not done (the steps say which and why)."""
FINISHED: frozenset[str] = frozenset({"completed", "incomplete", "max_steps", "failed", "budget_exceeded"})


@dataclass(frozen=True)
class Step:
    """One tool call the model proposed and what the runtime decided and got."""

    step: int
    tool: str
    arguments: Any
    decision: str
    result: dict[str, Any] | None
    duration_ms: float
    tool_use_id: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class PendingCall:
    """A high-risk call waiting for a person: the exact arguments that will run if approved."""

    tool_use_id: str
    tool: str
    arguments: dict[str, Any]
    risk: str
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class AgentRun:
    """A snapshot of a run for callers (CLI, pages): status, steps, final text, pending call."""

    run_id: str
    status: RunStatus
    user: str
    role: Role
    request: str
    provider: str
    steps: tuple[Step, ...]
    final_text: str
    pending: PendingCall | None
    knowledge_bases: tuple[str, ...] | None = ()
    """The bases the run's tools read; None for a run stored before they were recorded (not known)."""
    deciders: tuple[str, ...] = ()
    """Who approved or denied its pending calls, in order."""

    @property
    def decision(self) -> str | None:
        """``confirmation_required`` while paused, else the last step's decision (None without steps)."""
        if self.pending is not None:
            return "confirmation_required"
        return self.steps[-1].decision if self.steps else None

    def decided(self, step: Step) -> Step | None:
        """For a call that waited for approval, the later step that records what became of it (approved and run,
        denied by a person, or refused when the decision came); None while it still waits, or for other calls."""
        if step.decision != "confirmation_required":
            return None
        return next((s for s in self.steps if s.step > step.step and s.tool_use_id == step.tool_use_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "status": self.status, "decision": self.decision, "user": self.user,
            "role": self.role, "request": self.request, "provider": self.provider,
            "steps": [s.to_dict() for s in self.steps], "final_text": self.final_text,
            "pending": self.pending.to_dict() if self.pending else None,
            "knowledge_bases": None if self.knowledge_bases is None else list(self.knowledge_bases),
            "deciders": list(self.deciders),
        }


@dataclass
class RunState:
    """Everything needed to continue a run in another process (stored as JSON by the audit log).

    ``results`` holds the tool_result blocks of the current model turn gathered so far and
    ``queue`` the turn's tool_use blocks not yet handled; both survive a pause so that all
    results of one turn still go back to the model in one message, in order. ``knowledge_bases`` lists the
    bases the run's tools have read so far; None for a run stored before they were recorded (not known).
    """

    run_id: str
    user: str
    role: Role
    request: str
    provider: str
    created_at: str
    status: RunStatus = "running"
    messages: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    queue: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    model_turns: int = 0
    tool_calls: int = 0
    active_s: float = 0.0
    final_text: str = ""
    knowledge_bases: list[str] | None = None
    deciders: list[str] = field(default_factory=list)

    def note_reads(self, names: frozenset[str] | set[str]) -> None:
        """Add bases the tools read; a run whose reads are not known stays not known."""
        if self.knowledge_bases is not None and not names <= set(self.knowledge_bases):
            self.knowledge_bases = sorted(set(self.knowledge_bases) | set(names))

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RunState":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def view(self) -> AgentRun:
        return AgentRun(
            run_id=self.run_id, status=self.status, user=self.user, role=self.role, request=self.request,
            provider=self.provider, steps=tuple(Step(**s) for s in self.steps), final_text=self.final_text,
            pending=PendingCall(**self.pending) if self.pending else None,
            knowledge_bases=None if self.knowledge_bases is None else tuple(self.knowledge_bases),
            deciders=tuple(self.deciders),
        )
