"""The agent under identities: tools see only the run's user's bases; who may approve, deny or read a run.

:func:`tool_context_hook` is given to ``build_runtime(context_hook=...)``: every tool call of a run gets
the store (and the answer pipeline) limited to what the run's user may read, also when the run is
resumed later or in another process. :class:`AgentGate` is what the API and the pages call instead of
the runtime: it records the signed-in user as the run's user, and applies the approval rules.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from engine.agent import AgentError, AgentRun, AgentRuntime, ToolContext
from engine.errors import PermissionDenied
from engine.identity.directory import Directory
from engine.identity.model import Identity
from engine.identity.scope import ScopedStore

NO_ACCESS = "No agent run {run_id!r} that you may see; start one, or check the id."


class RunNotFound(AgentError):
    """No such run, or none this identity may see (the two are not told apart)."""


def tool_context_hook(directory: Directory, pipeline: Callable[[], Any] | None = None,
                      provider_id: str | None = None) -> Callable[[ToolContext], ToolContext]:
    """A context hook that limits a run's tools to its user's knowledge bases.

    A user no longer in the directory reads nothing. ``pipeline`` returns the shared Pipeline (called on the
    first ``answer_with_review``), which then answers over the same limited store; without it that tool says
    it is unavailable.
    """
    def hook(ctx: ToolContext) -> ToolContext:
        identity = directory.identity_for(ctx.user) or Identity(ctx.user, "viewer", {}, "token")
        store = ScopedStore(ctx.store, identity)
        answer = None
        if pipeline is not None:
            def answer(question: str):
                from engine.pipeline import AskOptions

                options = AskOptions(provider=provider_id, user=identity.name)
                return pipeline().with_store(store).run(question, options)
        return dataclasses.replace(ctx, store=store, answer=answer)

    return hook


def lazy_pipeline(settings: Any, store: Any) -> Callable[[], Any]:
    """A Pipeline over ``store``, built on the first call (thread-safe), for runs that never ask stay light."""
    built: list[Any] = []
    lock = threading.Lock()

    def get() -> Any:
        with lock:
            if not built:
                from engine.pipeline import Pipeline

                built.append(Pipeline(settings, store))
            return built[0]

    return get


class AgentGate:
    """Start, read, approve and deny agent runs as a given identity."""

    def __init__(self, runtime: AgentRuntime, directory: Directory) -> None:
        self.runtime = runtime
        self.directory = directory

    def start(self, identity: Identity, request: str) -> AgentRun:
        """A new run whose user and role are the identity's own (never chosen by the caller)."""
        return self.runtime.start(request, identity.name, identity.role)

    def get(self, identity: Identity, run_id: str) -> AgentRun:
        """A run its user, an admin, or someone who may decide its pending call can see."""
        run = self._load(run_id)
        if not (run.user == identity.name or identity.role == "admin" or self._may_decide(identity, run)):
            raise RunNotFound(NO_ACCESS.format(run_id=run_id))
        return run

    def decide(self, identity: Identity, run_id: str, approve: bool) -> AgentRun:
        """Approve or deny a paused run's pending call, within the approval rules; then continue the run."""
        run = self._load(run_id)
        own = run.user == identity.name
        if not own and not self._may_decide(identity, run):
            if identity.role == "admin" or self._may_see_pending(identity, run):
                raise PermissionDenied(self._why_not(identity, run))
            raise RunNotFound(NO_ACCESS.format(run_id=run_id))
        if approve:
            if own and self.directory.configured and not self.directory.allow_self_approval:
                raise PermissionDenied("You started this run, so someone else must approve its call (a user whose "
                                       "role may call it); you may deny it. WORKBENCH_ALLOW_SELF_APPROVAL=true "
                                       "allows approving your own runs.")
            if run.pending is not None and not self._may_approve(identity, run):
                raise PermissionDenied(self._why_not(identity, run))
        return self.runtime.resume(run_id, approve=approve, approver=identity.name, approver_role=identity.role)

    def waiting_for(self, identity: Identity, limit: int = 50) -> list[AgentRun]:
        """Paused runs other users started whose pending call this identity may approve (a four-eyes queue)."""
        found = []
        for row in self.runtime.audit.runs(limit=limit, status="paused"):
            if row["user"] == identity.name:
                continue
            run = self.runtime.get(row["run_id"])
            if self._may_decide(identity, run):
                found.append(run)
        return found

    # -- rules --------------------------------------------------------------------
    def _load(self, run_id: str) -> AgentRun:
        if not isinstance(run_id, str) or not run_id.strip() or self.runtime.audit.load_run(run_id) is None:
            raise RunNotFound(NO_ACCESS.format(run_id=run_id))
        return self.runtime.get(run_id)

    def _may_see_pending(self, identity: Identity, run: AgentRun) -> bool:
        kb = (run.pending.arguments or {}).get("kb") if run.pending else None
        return run.pending is not None and (kb is None or identity.can_read(kb))

    def _may_approve(self, identity: Identity, run: AgentRun) -> bool:
        """The approver's role may call the pending tool and, for a call on a base, may change that base."""
        if run.pending is None:
            return False
        tool = self.runtime.registry.get(run.pending.tool)
        if tool is None or not self.runtime.policy.permits(tool, identity.role):
            return False
        kb = (run.pending.arguments or {}).get("kb")
        return kb is None or identity.can_write(kb)

    def _may_decide(self, identity: Identity, run: AgentRun) -> bool:
        return self._may_approve(identity, run) and self._may_see_pending(identity, run)

    def _why_not(self, identity: Identity, run: AgentRun) -> str:
        if run.pending is None:
            return f"Run {run.run_id} is {run.status}, not waiting for approval."
        tool = self.runtime.registry.get(run.pending.tool)
        kb = (run.pending.arguments or {}).get("kb")
        if tool is not None and not self.runtime.policy.permits(tool, identity.role):
            return (f"Role {identity.role!r} may not approve {tool.name}; ask someone with the {tool.role!r} role "
                    "(or higher) to approve it.")
        return f"{identity.name} has no write grant for knowledge base {kb!r}, so may not approve this call."
