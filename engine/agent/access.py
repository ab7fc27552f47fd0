"""The agent under identities: tools see only the run's user's bases; who may approve, deny or read a run.

:func:`tool_context_hook` is given to ``build_runtime(context_hook=...)``: every tool call of a run gets
the store (and the answer pipeline) limited to what the run's user may read, also when the run is
resumed later or in another process, and the store notes each base it read in the run. :class:`AgentGate`
is what the API, the pages and the CLI call instead of the runtime: it records the signed-in user as the
run's user, and applies the rules:

- reading a run (its steps, its pending call, its audit entries) and deciding on it need a read grant on
  every base the run read, judged by the reader's grants now, not when the run started; a user without
  per-base grants (every base) passes, whatever their role. A run stored before its reads were recorded
  is shown only to its user and to users who read every base.
- besides that, a run is seen by its user, admins, whoever decided one of its calls and whoever may decide
  its pending call. Approving needs a role that may call the tool and, for a call on a base, a write grant
  for it; a user may not approve their own run unless WORKBENCH_ALLOW_SELF_APPROVAL is set.
- an approved run goes on with its user's grants; when it then reads a base the approver may not read, the
  approver gets back only the run's status, not what it found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any

from engine.agent.context import ToolContext
from engine.agent.errors import AgentError
from engine.agent.run import AgentRun
from engine.agent.runtime import AgentRuntime
from engine.errors import PermissionDenied
from engine.identity.directory import Directory
from engine.identity.model import Identity
from engine.store.scoped import ScopedStore

NO_ACCESS = "No agent run {run_id!r} that you may see; start one, or check the id."
WENT_ON = ("Your decision was recorded. The run then went on to read knowledge bases you may not read, so only "
           "people who may read them see its steps and result.")


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
        store = ScopedStore(ctx.store, identity, on_read=ctx.reads.add)
        answer = None
        if pipeline is not None:
            def answer(question: str):
                from engine.pipeline import AskOptions

                options = AskOptions(provider=provider_id, user=identity.name)
                return pipeline().with_store(store).run(question, options)
        return dataclasses.replace(ctx, store=store, answer=answer)

    return hook


class AgentGate:
    """Start, read, approve and deny agent runs as a given identity."""

    def __init__(self, runtime: AgentRuntime, directory: Directory) -> None:
        self.runtime = runtime
        self.directory = directory

    def start(self, identity: Identity, request: str) -> AgentRun:
        """A new run whose user and role are the identity's own (never chosen by the caller)."""
        return self.runtime.start(request, identity.name, identity.role)

    def get(self, identity: Identity, run_id: str) -> AgentRun:
        """A run this identity may see (see the module's rules); RunNotFound otherwise."""
        run = self._load(run_id)
        if not self.may_see(identity, run):
            raise RunNotFound(NO_ACCESS.format(run_id=run_id))
        return run

    def decide(self, identity: Identity, run_id: str, approve: bool) -> AgentRun:
        """Approve or deny a paused run's pending call, within the rules; then continue the run."""
        run = self._load(run_id)
        if not self.reads_all(identity, run):
            raise RunNotFound(NO_ACCESS.format(run_id=run_id))
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
        after = self.runtime.resume(run_id, approve=approve, approver=identity.name, approver_role=identity.role)
        return after if self.reads_all(identity, after) else self._status_only(identity, after)

    def waiting_for(self, identity: Identity, limit: int = 50) -> list[AgentRun]:
        """Paused runs other users started whose pending call this identity may approve (a four-eyes queue)."""
        found = []
        for row in self.runtime.audit.runs(limit=limit, status="paused"):
            if row["user"] == identity.name:
                continue
            run = self.runtime.get(row["run_id"])
            if self._may_decide(identity, run) and self.reads_all(identity, run):
                found.append(run)
        return found

    def steps(self, identity: Identity, run_ids: Collection[str] | None = None, limit: int = 200,
              recent_runs: int = 500) -> list[dict[str, Any]]:
        """Audit-log steps (oldest first, the last ``limit``) of the runs this identity may see (the rules of
        :meth:`get`): of ``run_ids``, or of the ``recent_runs`` newest runs."""
        audit = self.runtime.audit
        if run_ids is None:
            run_ids = [row["run_id"] for row in audit.runs(limit=recent_runs)]
        visible = [run_id for run_id in dict.fromkeys(run_ids) if self._visible(identity, run_id)]
        return audit.steps(run_ids=visible, limit=limit) if visible else []

    # -- rules --------------------------------------------------------------------
    def may_see(self, identity: Identity, run: AgentRun) -> bool:
        """Whether ``identity`` may read ``run``: every base it read, and it is theirs, they are an admin, or
        they decided one of its calls or may decide its pending call."""
        if not self.reads_all(identity, run):
            return False
        return (run.user == identity.name or identity.role == "admin" or identity.name in run.deciders
                or self._may_decide(identity, run))

    @staticmethod
    def reads_all(identity: Identity, run: AgentRun) -> bool:
        """Whether ``identity`` may read every base the run read (and the base its pending call names)."""
        if run.knowledge_bases is None:  # stored before reads were recorded: its user, or who reads everything
            return identity.unrestricted or run.user == identity.name
        kb = (run.pending.arguments or {}).get("kb") if run.pending else None
        bases = [*run.knowledge_bases, *([kb] if isinstance(kb, str) else [])]
        return all(identity.can_read(name) for name in bases)

    @staticmethod
    def _status_only(identity: Identity, run: AgentRun) -> AgentRun:
        """The run as someone sees it who may not read all it read: who asked, what, and where it stands."""
        readable = tuple(n for n in run.knowledge_bases or () if identity.can_read(n))
        return dataclasses.replace(run, steps=(), pending=None, final_text=WENT_ON, knowledge_bases=readable)

    def _visible(self, identity: Identity, run_id: str) -> bool:
        try:
            return self.may_see(identity, self._load(run_id))
        except AgentError:  # not there, or its stored state cannot be read
            return False

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
