"""Agent: chat with the tool-calling agent; approve or deny its high-risk calls; read the audit log."""

from __future__ import annotations

import streamlit as st

from components import agent_view as view
from components.factories import get_agent_runtime
from components.safe_text import label
from engine.agent import ROLES
from engine.errors import EngineError

RUNS_KEY = "agent.runs"  # this session's runs (AgentRun snapshots), oldest first
AUDIT_KEY = "agent.audit"  # audit-log rows, refreshed after each action
ERROR_KEY = "agent.error"

st.title("Agent")
st.caption("Give the agent a task in plain words (list, search, compare, calculate, export, delete…). It picks "
           "registered tools, each checked against your role and its input schema. Every step shows the tool, "
           "its arguments, the decision, the result and the time it took. High-risk calls wait for your approval.")

runtime = get_agent_runtime()
ss = st.session_state
ss.setdefault(RUNS_KEY, [])

left, right = st.columns([2, 3])
role = left.segmented_control("Role", ROLES, default="analyst", key="agent.role", required=True,
                              help="viewer: read-only tools · analyst: also exports and sending reports · "
                                   "admin: also deleting documents")
user = right.text_input("Your name (recorded in the audit log)", value="analyst", key="agent.user").strip()
user = user or "anonymous"
view.render_tools(runtime, role)


def refresh_audit() -> None:
    ss[AUDIT_KEY] = runtime.audit.steps(limit=200)


def replace_run(run) -> None:
    ss[RUNS_KEY] = [run if r.run_id == run.run_id else r for r in ss[RUNS_KEY]]


def decide(run_id: str, approve: bool) -> None:
    """Approve or deny a paused call (a button callback): the runtime runs it at most once."""
    try:
        replace_run(runtime.resume(run_id, approve=approve, approver=ss.get("agent.user") or "anonymous",
                                   approver_role=ss.get("agent.role")))
    except EngineError as exc:
        ss[ERROR_KEY] = str(exc)
        try:
            replace_run(runtime.get(run_id))
        except EngineError:
            pass
    refresh_audit()


def can_approve(tool_name: str) -> bool:
    tool = runtime.registry.get(tool_name)
    return tool is not None and runtime.policy.permits(tool, role)


st.header("Conversation", divider="gray")
if not ss[RUNS_KEY]:
    st.caption("Try: “list the documents in manuals”, “search axle nut torque in manuals and export the results” "
               "(steps run in order), “what is 12.5 * 4”, or as admin “delete the document <title>”.")
for run in ss[RUNS_KEY]:
    view.render_run(run, can_approve, decide)

request = st.chat_input("Ask the agent to do something…", key="agent.input")
if request:
    with st.spinner("The agent is working…"):
        try:
            ss[RUNS_KEY].append(runtime.start(request, user, role))
        except EngineError as exc:
            ss[ERROR_KEY] = str(exc)
    refresh_audit()
    st.rerun()

error = ss.pop(ERROR_KEY, None)
if error:
    st.error(label(error, limit=800))

st.header("Audit log", divider="gray")
if AUDIT_KEY not in ss:
    refresh_audit()
top, button = st.columns([5, 1], vertical_alignment="bottom")
if button.button("Refresh", key="agent.audit_refresh"):
    refresh_audit()
with top:
    st.caption(f"Latest {len(ss[AUDIT_KEY])} steps, newest first.")
view.render_audit(ss[AUDIT_KEY])
