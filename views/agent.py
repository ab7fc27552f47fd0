"""Agent: chat with the tool-calling agent; approve or deny its high-risk calls; read the audit log."""

from __future__ import annotations

import streamlit as st

from components import agent_view as view
from components.access import current_identity
from components.factories import get_agent_gate, get_directory
from components.safe_text import label
from engine.errors import EngineError

RUNS_KEY = "agent.runs"  # this session's runs (AgentRun snapshots), oldest first
AUDIT_KEY = "agent.audit"  # this session's audit-log rows, refreshed after each action
ERROR_KEY = "agent.error"

st.title("Agent")
st.caption("Give the agent a task in plain words (list, search, compare, calculate, export, delete…). It picks "
           "registered tools, each checked against your role and its input schema. Every step shows the tool, "
           "its arguments, the decision, the result and the time it took. High-risk calls wait for your approval.")

gate = get_agent_gate()
runtime = gate.runtime
identity = current_identity()
directory = get_directory()
ss = st.session_state
ss.setdefault(RUNS_KEY, [])

st.caption(f"Runs act as {label(identity.name, limit=60)} with the {identity.role} role (the audit log records "
           "this user); the tools see only the knowledge bases you may read. A run, its approval and its audit "
           "entries are shown only to people who may read every knowledge base it read.")
view.render_tools(runtime, identity.role)
own_approval = not directory.configured or directory.allow_self_approval


def refresh_audit() -> None:
    """Steps of the runs this session started or decided, as far as this user may read them now."""
    ss[AUDIT_KEY] = gate.steps(identity, run_ids=[r.run_id for r in ss[RUNS_KEY]], limit=200)


def replace_run(run) -> None:
    runs = ss[RUNS_KEY]
    ss[RUNS_KEY] = [run if r.run_id == run.run_id else r for r in runs] + (
        [] if any(r.run_id == run.run_id for r in runs) else [run])


def decide(run_id: str, approve: bool) -> None:
    """Approve or deny a paused call (a button callback): the runtime runs it at most once."""
    try:
        replace_run(gate.decide(identity, run_id, approve))
    except EngineError as exc:
        ss[ERROR_KEY] = str(exc)
        try:
            replace_run(gate.get(identity, run_id))
        except EngineError:
            pass
    refresh_audit()


def can_approve(tool_name: str, run=None) -> bool:
    tool = runtime.registry.get(tool_name)
    if tool is None or not runtime.policy.permits(tool, identity.role):
        return False
    return own_approval or run is None or run.user != identity.name


st.header("Conversation", divider="gray")
if not ss[RUNS_KEY]:
    st.caption("Try: “list the documents in manuals”, “search axle nut torque in manuals and export the results” "
               "(steps run in order), “find the axle nut torque and convert it to lbf.ft”, “what is 12.5 * 4”, or as admin "
               "“delete the document <title>”.")
for run in ss[RUNS_KEY]:
    view.render_run(run, lambda tool, run=run: can_approve(tool, run), decide)
if not own_approval:
    st.caption("Another user whose role may call a high-risk tool approves it; you may deny your own.")
    waiting = gate.waiting_for(identity)
    if waiting:
        st.subheader("Waiting for your approval", anchor=False)
        for run in waiting:
            view.render_run(run, lambda tool, run=run: can_approve(tool, run), decide)

request = st.chat_input("Ask the agent to do something…", key="agent.input")
if request:
    with st.spinner("The agent is working…"):
        try:
            ss[RUNS_KEY].append(gate.start(identity, request))
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
