"""The agent loop: the model proposes tool calls, the runtime checks and runs them, a person approves the risky ones.

For each proposed call, in order: unknown tool -> ``not_allowed``; role too low -> ``denied``;
arguments too deep or too large, or against the schema -> ``invalid``; run budget used up -> ``rate_limited`` with error
``budget_exceeded`` (and the run ends with that status); user rate limit -> ``rate_limited``;
high risk -> ``confirmation_required`` (the run pauses and is persisted); otherwise the tool
runs with a deadline (``allowed`` or ``timed_out``). A final turn that lists requested steps it
could not do ends the run ``incomplete``, each step without a call audited as ``not_done``. Every result
goes back to the model wrapped as untrusted data; all results of one model turn go back in one
message, in order. Nothing the model or a tool says can approve a call: only :meth:`AgentRuntime.resume`.

What the run stores and shows is made safe first: text without lone surrogates, arguments cut to a
bounded depth (:mod:`engine.agent.limits`), and final text without links or images to hosts outside
``allowed_link_hosts`` (:mod:`engine.output_safety`). A tool that needs the embedding model or the
store is warmed before its deadline starts, so a cold first call does not time out loading them.

The run records the knowledge bases its tools read (``RunState.knowledge_bases``, from the context's
:class:`~engine.agent.context.ReadLog`); who may read or decide a run depends on them
(:class:`engine.agent.access.AgentGate`).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from pydantic_core import to_jsonable_python

from engine.agent.audit import AuditLog, now_iso, redact
from engine.agent.context import ToolContext
from engine.agent.errors import AgentError, InvalidArguments
from engine.agent.execution import DEFAULT_BACKOFF_S, DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, Outcome, dumps, execute
from engine.agent.execution import failure, shrink
from engine.agent.limits import PREVIEW_DEPTH, PREVIEW_ITEMS, argument_problem, clean, clean_text
from engine.agent.policy import Policy, check_role
from engine.agent.registry import Tool, ToolRegistry
from engine.agent.run import AgentRun, PendingCall, RunState, Step
from engine.errors import ProviderError
from engine.identity.roles import Role
from engine.llm.base import ChatResponse, Provider, TextBlock, UnfinishedStep
from engine.output_safety import safe_text
from engine.prompts import AGENT_SYSTEM, AGENT_UNTRUSTED

ContextFactory = Callable[[str, Role], ToolContext]
DENIED_MESSAGE = "A person denied this call, so it did not run. Do not try it again; tell the person it was not done."


@dataclass
class _Session:
    """One stretch of work on a run in this process (between start/resume and finish/pause)."""

    state: RunState
    ctx: ToolContext | None
    started: float


class AgentRuntime:
    """Runs requests through a provider and a tool registry under a policy, recording every step."""

    def __init__(
        self,
        provider: Provider,
        registry: ToolRegistry,
        policy: Policy,
        audit: AuditLog,
        context_factory: ContextFactory,
        *,
        max_steps: int = 8,
        max_tokens: int = 1024,
        model: str | None = None,
        default_timeout_s: float = DEFAULT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
        backoff_s: float = DEFAULT_BACKOFF_S,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        allowed_link_hosts: tuple[str, ...] = (),
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if default_timeout_s <= 0:
            raise ValueError("default_timeout_s must be greater than 0")
        if retries < 0 or backoff_s < 0:
            raise ValueError("retries and backoff_s must not be negative")
        self.provider, self.registry, self.policy, self.audit = provider, registry, policy, audit
        self.context_factory = context_factory
        self.max_steps, self.max_tokens, self.model = max_steps, max_tokens, model
        self.default_timeout_s, self.retries, self.backoff_s = default_timeout_s, retries, backoff_s
        self._sleep, self._clock = sleep, clock
        self.allowed_link_hosts = tuple(allowed_link_hosts)

    # -- public API -----------------------------------------------------------
    def start(self, request: str, user: str, role: Role) -> AgentRun:
        """Run a new request until it completes, pauses for approval or hits a limit."""
        check_role(role)
        if not isinstance(request, str) or not request.strip():
            raise AgentError("Give the agent a request, e.g. 'list the documents in manuals'.")
        if not isinstance(user, str) or not user.strip():
            raise AgentError("Say who is asking: a non-empty user name.")
        request, user = clean_text(request), clean_text(user)
        state = RunState(run_id=uuid.uuid4().hex[:16], user=user, role=role, request=request,
                         provider=getattr(self.provider, "name", "unknown"), created_at=now_iso(),
                         knowledge_bases=[])
        state.messages.append({"role": "user", "content": request})
        self.audit.save_run(state)
        return self._work(state)

    def resume(self, run_id: str, approve: bool, approver: str | None = None,
               approver_role: Role | None = None) -> AgentRun:
        """Approve or deny a paused run's pending call (this is the only way to approve), then continue it.

        An approved call runs exactly once; a second resume of the same pause is refused. When
        ``approver_role`` is given, only a role allowed to call the pending tool may approve it.
        """
        state = self.audit.load_run(run_id)
        if state is None:
            raise AgentError(f"No agent run {run_id!r}; run `python -m engine audit list` to see run ids.")
        if approve and approver_role is not None and state.pending is not None:
            tool = self.registry.get(state.pending["tool"])
            if tool is not None and not self.policy.permits(tool, approver_role):
                raise AgentError(f"Role {approver_role!r} may not approve {tool.name}; ask someone with the "
                                 f"{tool.role!r} role (or higher) to approve it.")
        if state.status != "paused" or state.pending is None or not self.audit.claim(run_id):
            current = (self.audit.load_run(run_id) or state).status
            raise AgentError(f"Run {run_id} is {current}, not waiting for approval: its pending call was already "
                             "decided. Start a new request if something is still to be done.")
        return self._work(state, decide=(bool(approve), approver or state.user))

    def get(self, run_id: str) -> AgentRun:
        """The stored run, as it stands."""
        state = self.audit.load_run(run_id)
        if state is None:
            raise AgentError(f"No agent run {run_id!r}; run `python -m engine audit list` to see run ids.")
        return state.view()

    # -- the loop -------------------------------------------------------------
    def _work(self, state: RunState, decide: tuple[bool, str] | None = None) -> AgentRun:
        session = _Session(state, None, self._clock())
        state.status = "running"
        try:
            session.ctx = self.context_factory(state.user, state.role)
            if decide is not None:
                self._decide(session, *decide)
                self._drain(session)
            while state.status == "running":
                self._turn(session)
        except ProviderError as exc:
            self._finish(state, "failed", f"The model provider failed: {exc}")
        except BaseException:
            self._finish(state, "failed", "The run stopped on an internal error; see the log.")
            raise
        finally:
            state.active_s = self._elapsed(session)
            self._note_reads(session)
            self.audit.save_run(state)
        return state.view()

    def _turn(self, session: _Session) -> None:
        state = session.state
        if state.model_turns >= self.max_steps:
            return self._finish(state, "max_steps", f"Stopped after {self.max_steps} steps without a final answer; "
                                "narrow the request or allow more steps.")
        if self._elapsed(session) >= self.policy.max_seconds:
            return self._finish(state, "budget_exceeded", f"Stopped: this run has used its {self.policy.max_seconds:g}"
                                " seconds. Start a new run with a narrower request.")
        response = self.provider.chat(
            state.messages, system=AGENT_SYSTEM.render(user=state.user, role=state.role),
            tools=self.registry.specs(lambda t: self.policy.permits(t, state.role), self.policy.needs_confirmation),
            max_tokens=self.max_tokens, model=self.model,
        )
        state.model_turns += 1
        uses = [_intake(use) for use in response.tool_uses]
        state.messages.append(_message(response, uses))
        if not response.tool_uses:
            note = " [cut at the token limit]" if response.stop_reason == "max_tokens" else ""
            for item in response.unfinished:
                if not item.ran:
                    self._not_done(session, item)
            status = "incomplete" if response.unfinished else "completed"
            return self._finish(state, status, (response.text.strip() or "(no answer)") + note)
        state.queue = uses
        state.results = []
        self._drain(session)
        self.audit.save_run(state)

    def _drain(self, session: _Session) -> None:
        """Handle the turn's queued calls; on a pause keep the rest queued, else send all results back."""
        state = session.state
        while state.queue and state.status == "running":
            block = self._handle(session, state.queue.pop(0))
            if block is None:
                return
            state.results.append(block)
        for use in state.queue:  # the budget ran out mid-turn: the rest never run
            state.results.append(self._refuse(session, use, "rate_limited",
                                              failure("budget_exceeded", "Not run: the run's budget is used up.")))
        state.queue = []
        state.messages.append({"role": "user", "content": state.results})
        state.results = []

    def _handle(self, session: _Session, use: dict[str, Any]) -> dict[str, Any] | None:
        """Check one proposed call and run it; None when the run paused for approval."""
        state, name = session.state, use.get("name")
        tool = self.registry.get(name)
        if tool is None:
            allowed = ", ".join(t.name for t in self.registry if self.policy.permits(t, state.role))
            return self._refuse(session, use, "not_allowed", failure(
                "tool_not_allowed", f"There is no tool {str(name)[:80]!r} you may call. Available tools: {allowed}."))
        if not self.policy.permits(tool, state.role):
            return self._refuse(session, use, "denied", failure(
                "permission_denied", f"{tool.name} needs role {tool.role} or higher; this run has role {state.role}. "
                "Do not retry; tell the person to ask someone with that role."))
        if use.get("problem"):
            return self._refuse(session, use, "invalid", failure(
                "invalid_arguments", f"Invalid arguments for {tool.name}: {use['problem']}. Nothing ran."))
        try:
            arguments = tool.check(use.get("input"))
        except InvalidArguments as exc:
            return self._refuse(session, use, "invalid", failure("invalid_arguments", str(exc)))
        problem = self.policy.budget_problem(state.tool_calls, self._elapsed(session))
        if problem:
            self._finish(state, "budget_exceeded", f"Stopped: {problem}. Start a new run with a narrower request.")
            return self._refuse(session, use, "rate_limited", failure("budget_exceeded", f"Not run: {problem}."))
        if not self.policy.within_rate(state.user):
            return self._refuse(session, use, "rate_limited", failure(
                "rate_limited", "Too many tool calls in the last minute; wait before calling tools again."))
        state.tool_calls += 1
        if self.policy.needs_confirmation(tool):
            return self._ask(session, tool, use, arguments)
        outcome = self._run(session, tool, arguments)
        return self._record(session, use, tool.name, arguments, "timed_out" if outcome.timed_out else "allowed",
                            outcome.envelope, outcome.duration_ms)

    def _ask(self, session: _Session, tool: Tool, use: dict[str, Any], arguments: dict[str, Any]) -> dict | None:
        """Resolve a high-risk call (its prepare step), then pause the run until a person decides."""
        state, summary, spent = session.state, "", 0.0
        if tool.prepare is not None:
            outcome = self._run(session, tool, arguments, tool.prepare)
            spent = outcome.duration_ms
            try:
                if not outcome.envelope["ok"]:
                    raise InvalidArguments(outcome.envelope["message"])
                prepared = outcome.envelope["result"]
                arguments, summary = tool.check(prepared["arguments"]), str(prepared.get("summary", ""))
            except (InvalidArguments, KeyError, TypeError) as exc:
                envelope = outcome.envelope if not outcome.envelope["ok"] else failure("tool_error", str(exc))
                return self._record(session, use, tool.name, arguments, "invalid", envelope, spent)
        summary = self._shown(summary) or f"{tool.name} with the arguments shown"
        pending = PendingCall(str(use.get("id")), tool.name, clean(plain(arguments)), tool.risk, summary)
        self._record(session, use, tool.name, arguments, "confirmation_required", None, spent, status="pending")
        state.pending = pending.to_dict()
        state.status = "paused"
        state.final_text = f"Waiting for a person to approve or deny: {pending.summary}."
        return None

    def _decide(self, session: _Session, approve: bool, approver: str) -> None:
        """Run (approved) or drop (denied) the pending call and add its result to the turn."""
        state = session.state
        pending = PendingCall(**state.pending)
        state.pending, state.final_text = None, ""
        if approver not in state.deciders:
            state.deciders.append(approver)
        use = {"id": pending.tool_use_id, "name": pending.tool, "input": pending.arguments}
        tool = self.registry.get(pending.tool)
        if not approve:
            block = self._record(session, use, pending.tool, pending.arguments, "rejected_by_user",
                                 failure("rejected_by_user", DENIED_MESSAGE), 0.0, note=f"denied by {approver}")
        elif tool is None:
            gone = failure("tool_not_allowed", f"{pending.tool} is no longer registered; it did not run.")
            block = self._refuse(session, use, "not_allowed", gone)
        else:
            try:
                arguments = tool.check(pending.arguments)
            except InvalidArguments as exc:
                block = self._refuse(session, use, "invalid", failure("invalid_arguments", str(exc)))
            else:
                outcome = self._run(session, tool, arguments)
                block = self._record(session, use, tool.name, arguments, "approved", outcome.envelope,
                                     outcome.duration_ms, status="timed_out" if outcome.timed_out else None,
                                     note=f"approved by {approver}")
        state.results.append(block)

    # -- helpers --------------------------------------------------------------
    def _run(self, session: _Session, tool: Tool, arguments: dict[str, Any],
             func: Callable[..., Any] | None = None) -> Outcome:
        if func is None and tool.warm is not None:
            self._warm(session, tool)
        remaining = self.policy.max_seconds - self._elapsed(session)
        timeout = max(min(tool.timeout_s or self.default_timeout_s, remaining), 0.001)
        if func is None:
            call = lambda: tool.call(session.ctx, arguments)  # noqa: E731
        else:
            call = lambda: func(session.ctx, **arguments) if tool.context else func(**arguments)  # noqa: E731
        return execute(tool.name, call, timeout_s=timeout, retries=self.retries, backoff_s=self.backoff_s,
                       sleep=self._sleep)

    def _refuse(self, session: _Session, use: dict[str, Any], decision: str, envelope: dict[str, Any]) -> dict:
        name = use.get("name")
        known = isinstance(name, str) and name in self.registry
        return self._record(session, use, name if known else str(name)[:80], use.get("input"), decision, envelope, 0.0)

    def _record(self, session: _Session, use: dict[str, Any], tool: str, arguments: Any, decision: str,
                envelope: dict[str, Any] | None, duration_ms: float, status: str | None = None,
                note: str = "") -> dict[str, Any]:
        """Audit one step, add it to the run, and build its tool_result block."""
        state = session.state
        envelope = clean(envelope) if envelope is not None else None
        safe_args = shrink(redact(clean(plain(arguments))))
        result_status = status or ("ok" if envelope and envelope["ok"] else (envelope or {}).get("error", "pending"))
        message = "; ".join(p for p in (note, (envelope or {}).get("message", "")) if p)
        step = Step(len(state.steps) + 1, tool, safe_args, decision, envelope, duration_ms, str(use.get("id")))
        self.audit.record_step(run_id=state.run_id, step=step.step, user=state.user, role=state.role, tool=tool,
                               arguments=safe_args, decision=decision, duration_ms=duration_ms,
                               result_status=result_status, message=message)
        state.steps.append(step.to_dict())
        self._note_reads(session)
        source = f"tool:{tool}" if tool in self.registry else "tool:unknown"
        content = AGENT_UNTRUSTED.render(source=source, data=dumps(envelope or {}))
        return {"type": "tool_result", "tool_use_id": str(use.get("id")), "content": content,
                "is_error": not (envelope or {}).get("ok", False)}

    def _not_done(self, session: _Session, item: UnfinishedStep) -> None:
        """Audit a requested step that no tool call was made for, with the reason it was not done."""
        state = session.state
        tool, arguments = clean_text(str(item.tool or "none"))[:80], {"requested": clean_text(str(item.request))}
        envelope = failure("not_done", f"Not done: {clean_text(str(item.reason))}.")
        step = Step(len(state.steps) + 1, tool, arguments, "not_done", envelope, 0.0, "")
        self.audit.record_step(run_id=state.run_id, step=step.step, user=state.user, role=state.role, tool=tool,
                               arguments=redact(arguments), decision="not_done", duration_ms=0.0,
                               result_status="not_done", message=envelope["message"])
        state.steps.append(step.to_dict())

    def _note_reads(self, session: _Session) -> None:
        """Add the bases the tools have read so far to the run (who may see it depends on them)."""
        if session.ctx is not None:
            session.state.note_reads(session.ctx.reads.names())

    def _finish(self, state: RunState, status: str, text: str) -> None:
        state.status = status  # type: ignore[assignment]
        state.final_text = self._shown(text)

    def _shown(self, text: str) -> str:
        """Text for people: storable, and without links or images to hosts outside the allow-list."""
        return safe_text(clean_text(str(text)), self.allowed_link_hosts)

    def _warm(self, session: _Session, tool: Tool) -> None:
        """Load what the tool needs (model, store) before its deadline starts; a failure is left to the tool."""
        remaining = max(self.policy.max_seconds - self._elapsed(session), 0.001)
        warm = tool.warm
        execute(f"{tool.name} warm-up", lambda: warm(session.ctx), timeout_s=remaining, retries=0)

    def _elapsed(self, session: _Session) -> float:
        return session.state.active_s + (self._clock() - session.started)


def plain(value: Any) -> Any:
    """``value`` as plain JSON data (dates and models turned into strings and dicts)."""
    return to_jsonable_python(value, fallback=str)


def _intake(use: Any) -> dict[str, Any]:
    """A proposed call as the run keeps it: text cleaned, arguments bounded; ``problem`` when they are too big."""
    problem = argument_problem(use.input)
    stored = clean(use.input, PREVIEW_DEPTH, PREVIEW_ITEMS) if problem else clean(use.input)
    block = {"type": "tool_use", "id": clean_text(str(use.id))[:200], "name": clean(use.name, 1, 1),
             "input": stored}
    return {**block, "problem": problem} if problem else block


def _message(response: ChatResponse, uses: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's turn as an assistant message.

    A turn that came with ``raw_content`` (it held ``thinking`` or ``redacted_thinking`` blocks, as
    on Claude Sonnet 5.5 and Opus 5.5) goes back exactly as the API sent it: thinking blocks must
    be returned unchanged with the tool results, or the next turn is refused with a 400. Other turns
    are rebuilt from their text and the cleaned calls.
    """
    if response.raw_content:
        return response.to_message()
    calls = iter(uses)
    content = [{"type": "text", "text": clean_text(block.text)} if isinstance(block, TextBlock)
               else {k: v for k, v in next(calls).items() if k != "problem"} for block in response.content]
    return {"role": "assistant", "content": content}
