"""The Agent page's pieces: the tool list, one run as chat messages with its steps, the approval card, the audit log.

Everything a tool or the model returns is untrusted: it is shown as JSON (``st.json``), in table
cells with links and images neutralised, or through ``safe_text`` — never as Markdown.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from components.safe_text import encode, label, neutralise_markdown, show
from engine.agent import AgentRun, AgentRuntime, PendingCall, Step

DECISION_LABEL = {
    "allowed": "allowed", "approved": "approved by a person", "denied": "denied (role too low)",
    "invalid": "invalid arguments", "confirmation_required": "waiting for approval",
    "rejected_by_user": "denied by a person", "timed_out": "timed out", "not_allowed": "unknown tool",
    "rate_limited": "rate or budget limit", "not_done": "not done",
}
DECISION_ICON = {
    "allowed": ":material/check_circle:", "approved": ":material/check_circle:", "rejected_by_user": ":material/cancel:",
    "confirmation_required": ":material/pause_circle:", "timed_out": ":material/timer_off:",
    "invalid": ":material/warning:", "not_done": ":material/do_not_disturb_on:",
}
STATUS_LABEL = {
    "completed": "completed", "incomplete": "finished, some steps not done", "paused": "waiting for approval",
    "max_steps": "stopped: step limit", "failed": "failed", "budget_exceeded": "stopped: budget used up", "running": "running",
}
RISK_LABEL = {"read": "read", "write": "write", "high": "high — needs approval"}


def tools_frame(runtime: AgentRuntime, role: str) -> pd.DataFrame:
    """Every registered tool: risk, the least role allowed, whether ``role`` may call it, what it does."""
    rows = [{
        "tool": tool.name, "risk": RISK_LABEL.get(tool.risk, tool.risk), "least role": tool.role,
        "you may call": runtime.policy.permits(tool, role), "what it does": tool.description.split("\n")[0],
    } for tool in runtime.registry]
    return pd.DataFrame(rows, columns=["tool", "risk", "least role", "you may call", "what it does"])


def render_tools(runtime: AgentRuntime, role: str) -> None:
    with st.expander("Tools the agent can use", expanded=False):
        st.caption("High-risk tools always pause for a person's approval. A role may call the tools whose least "
                   "role is its own or lower (viewer < analyst < admin).")
        st.dataframe(tools_frame(runtime, role), hide_index=True, width="stretch",
                     column_config={"you may call": st.column_config.CheckboxColumn()})


def _result_preview(step: Step) -> Any:
    """The step's result envelope, or a note when there is none yet."""
    if step.result is None:
        return {"status": "not run yet"}
    return step.result


def step_header(step: Step, decided: Step | None = None, waiting: bool = True) -> tuple[str, str]:
    """The step's header and icon. A call that waited for approval says what became of it (``decided``: the step
    that records the decision); ``waiting`` is False once the run no longer waits for it."""
    decision = DECISION_LABEL.get(step.decision, step.decision)
    ok = (step.result or {}).get("ok")
    outcome = "ok" if ok else (step.result or {}).get("error", "pending")
    icon = DECISION_ICON.get(step.decision, ":material/block:")
    if step.decision == "confirmation_required" and decided is not None:
        decision = f"asked for approval, {DECISION_LABEL.get(decided.decision, decided.decision)}"
        outcome = f"see step {decided.step}"
        icon = DECISION_ICON.get(decided.decision, ":material/block:")
    elif step.decision == "confirmation_required" and not waiting:
        decision, outcome = "asked for approval", "not decided"
    return f"Step {step.step} · {step.tool} · {decision} · {outcome} · {step.duration_ms:.0f} ms", icon


def render_step(step: Step, decided: Step | None = None, waiting: bool = True) -> None:
    """One tool call: tool, decision and duration in the header; arguments and result as inert JSON."""
    header, icon = step_header(step, decided, waiting)
    with st.expander(label(header, limit=200), expanded=False, icon=icon):
        left, right = st.columns(2)
        with left:
            st.caption("Arguments")
            st.json(step.arguments if step.arguments is not None else {}, expanded=True)
        with right:
            st.caption("Result")
            st.json(_result_preview(step), expanded=1)


def render_pending(run: AgentRun, pending: PendingCall, can_approve: bool,
                   on_decide: Callable[[str, bool], None]) -> None:
    """The confirmation card for a paused high-risk call, with Approve / Deny."""
    with st.container(border=True):
        st.warning(label(f"High-risk call waiting for your decision: {pending.tool} (risk: {pending.risk}).", 300))
        show(f"<b>What will happen:</b> {encode(pending.summary)}")
        st.caption("Exact arguments that run if you approve:")
        st.json(pending.arguments, expanded=True)
        left, right, _ = st.columns([1, 1, 3])
        left.button("Approve", key=f"agent.approve.{run.run_id}", type="primary", disabled=not can_approve,
                    on_click=on_decide, args=(run.run_id, True), width="stretch")
        right.button("Deny", key=f"agent.deny.{run.run_id}", on_click=on_decide, args=(run.run_id, False),
                     width="stretch")
        if not can_approve:
            st.caption("You may not approve this call: your role may not call this tool, or you started this run "
                       "and another user must approve it. You may deny it.")


def bases_read(run: AgentRun) -> str:
    """Which knowledge bases the run's tools read (who may see the run depends on them)."""
    if run.knowledge_bases is None:
        return "bases read: not recorded"
    names = ", ".join(label(name, limit=63) for name in run.knowledge_bases)
    return f"read {names}" if names else "read no knowledge base"


def render_run(run: AgentRun, can_approve: Callable[[str], bool], on_decide: Callable[[str, bool], None]) -> None:
    """A run as a chat exchange: the request, then the steps, the approval card or the final answer."""
    with st.chat_message("user"):
        show(encode(run.request))
        st.caption(f"as {label(run.user, limit=60)} · role {run.role}")
    with st.chat_message("assistant"):
        st.caption(f"Run {run.run_id} · {STATUS_LABEL.get(run.status, run.status)} · provider {run.provider} · "
                   f"{bases_read(run)}")
        for step in run.steps:
            render_step(step, run.decided(step), waiting=run.pending is not None)
        if run.pending is not None:
            render_pending(run, run.pending, can_approve(run.pending.tool), on_decide)
        elif run.final_text:
            if run.status == "incomplete":
                st.warning("Not everything you asked for was done: the steps marked “not done” say why.")
            if run.status in ("completed", "incomplete"):
                show(encode(run.final_text))
            else:
                st.error(label(run.final_text, limit=800))


def audit_frame(steps: list[dict[str, Any]]) -> pd.DataFrame:
    """Audit-log rows, newest first; arguments as compact JSON text (already redacted by the engine)."""
    rows = [{
        "time": s["ts"], "run": s["run_id"], "step": s["step"], "user": neutralise_markdown(s["user"]),
        "role": s["role"], "tool": neutralise_markdown(s["tool"]), "decision": s["decision"],
        "result": s["result_status"], "ms": round(float(s["duration_ms"]), 1),
        "arguments": neutralise_markdown(json.dumps(s["arguments"], ensure_ascii=False)),
        "message": neutralise_markdown(s.get("message", "")),
    } for s in reversed(steps)]
    return pd.DataFrame(rows, columns=["time", "run", "step", "user", "role", "tool", "decision", "result", "ms",
                                       "arguments", "message"])


def render_audit(steps: list[dict[str, Any]]) -> None:
    st.caption("Every tool call of the runs in this session, with the runtime's decision and outcome; secrets in "
               "arguments are redacted before they are stored (`python -m engine audit list` shows every run).")
    if not steps:
        st.info("No agent steps recorded yet. Send the agent a request above.")
        return
    st.dataframe(audit_frame(steps), hide_index=True, width="stretch",
                 column_config={"arguments": st.column_config.TextColumn(width="large"),
                                "message": st.column_config.TextColumn(width="large")})
