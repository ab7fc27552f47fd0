"""Traces: every stored run, filterable, with charts over them; opening one shows the same panels as Ask."""

from __future__ import annotations

import streamlit as st

from components.answer_view import answer_from_payload, render_answer
from components import access
from components.trace_views import filter_controls, open_picker, render_trace_charts, run_table
from engine.errors import EngineError

st.title("Traces")
st.caption("Every question answered here or from the command line is stored with its full trace: intent, plan, "
           "evidence, drafts, reviews, validation and timings. Filter the runs, compare them in the charts, and "
           "open one to see all of its panels.")

traces = access.traces()  # runs over the bases this user may read
everything = traces.list(limit=1000)
if not everything:
    st.info("No runs yet. Ask a question on the Ask page (or run `python -m engine ask \"QUESTION\"`).")
    st.stop()

filters = filter_controls(everything)
runs = traces.list(limit=500, **filters)
st.caption(f"Showing {len(runs)} of {len(everything)} stored runs (newest first).")
if not runs:
    st.info("No run matches these filters.")
    st.stop()

run_table(runs)
payloads = [traces.get(r.trace_id) for r in runs[:200]]

st.subheader("Across these runs", anchor=False)
render_trace_charts(runs, payloads)

st.subheader("One run", anchor=False)
trace_id = open_picker(runs)
if trace_id:
    try:
        payload = next((p for p in payloads if p.get("trace_id") == trace_id), None) or traces.get(trace_id)
        answer = answer_from_payload(payload)
    except EngineError as exc:
        st.error(str(exc))
    else:
        if payload.get("created_at"):
            st.caption(f"Run at {payload['created_at']}.")
        render_answer(answer, key=f"traces.answer.{trace_id}")
else:
    st.caption("Pick a run above (or select a row in the table) to open it.")
