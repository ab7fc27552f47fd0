"""Stored runs on the Traces page: filters, the run table, the run picker, and charts across runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from components.answer_view import STAGE_ORDER
from components.safe_text import neutralise_markdown
from components.session import TRACES_OPEN
from engine.tracing import TraceStats, TraceSummary, trace_stats


# -- filters, table, picker -------------------------------------------------------------------------

ALL = "All"
TABLE_KEY = "traces.table"
IDS_KEY = "traces.ids"


def _choices(values: Sequence[str]) -> list[str]:
    return [ALL, *sorted({v for v in values if v})]


def filter_controls(runs: Sequence[TraceSummary]) -> dict[str, Any]:
    """Filter widgets over the stored runs; returns keyword arguments for ``TraceStore.list``."""
    cols = st.columns(5)
    since = cols[0].date_input("Since", value=None, key="traces.since", help="Only runs on or after this day.")
    status = cols[1].selectbox("Status", _choices(["success", "refused", "failure"]), key="traces.status")
    provider = cols[2].selectbox("Provider", _choices([r.provider for r in runs]), key="traces.provider")
    version = cols[3].selectbox("Strategy version", _choices([r.strategy_version for r in runs]),
                                key="traces.strategy")
    issue = cols[4].selectbox("Issue type", _choices([t for r in runs for t in r.issue_types]), key="traces.issue",
                              help="Review issue types (citation, fact, ...) and failed validation checks "
                                   "(validation:...).")
    chosen = {"status": status, "provider": provider, "strategy_version": version, "issue_type": issue}
    filters: dict[str, Any] = {k: v for k, v in chosen.items() if v and v != ALL}
    if since:
        filters["since"] = since.isoformat()
    return filters


def run_frame(runs: Sequence[TraceSummary]) -> pd.DataFrame:
    return pd.DataFrame([{
        "when": r.created_at, "question": neutralise_markdown(r.question), "status": r.status,
        "revisions": r.iterations, "total s": round(r.total_ms / 1000, 2), "reflection": r.reflection,
        "mode": r.mode, "provider": r.provider, "strategy": r.strategy_version,
        "issues": ", ".join(r.issue_types) or "–", "trace": r.trace_id,
    } for r in runs])


def _open_selected_row() -> None:
    rows = st.session_state[TABLE_KEY]["selection"]["rows"]
    ids = st.session_state.get(IDS_KEY) or []
    if rows and rows[0] < len(ids):
        st.session_state[TRACES_OPEN] = ids[rows[0]]


def run_table(runs: Sequence[TraceSummary]) -> None:
    """The runs as a table; selecting a row opens that run below."""
    st.session_state[IDS_KEY] = [r.trace_id for r in runs]
    st.caption("One row per run: outcome, revisions after a failed review, total time, whether reflection was on and which provider "
               "and strategy version answered. Select a row to open the run below.")
    st.dataframe(run_frame(runs), hide_index=True, width="stretch", key=TABLE_KEY, on_select=_open_selected_row,
                 selection_mode="single-row", column_config={
                     "question": st.column_config.TextColumn("Question", width="large"),
                     "total s": st.column_config.NumberColumn("Total s", format="%.2f"),
                     "reflection": st.column_config.CheckboxColumn("Reflection"),
                 })


def open_picker(runs: Sequence[TraceSummary]) -> str | None:
    """A picker of the listed runs; returns the trace id to open, or None."""
    ids = [r.trace_id for r in runs]
    if st.session_state.get(TRACES_OPEN) not in ids:
        st.session_state[TRACES_OPEN] = None
    names = {r.trace_id: neutralise_markdown(f"{r.created_at} · {r.status} · {' '.join(r.question.split())}")[:140]
             for r in runs}
    return st.selectbox("Open a run", ids, index=None, key=TRACES_OPEN, format_func=names.get,
                        placeholder="Choose a run to see all its panels")


# -- charts -----------------------------------------------------------------------------------------

STATUS_COLORS = {"success": "#21c354", "refused": "#ffa421", "failure": "#ff4b4b"}


def stage_frame(payloads: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per (run, stage) with the stage's milliseconds; reflection sub-steps and the total left out."""
    rows = [{"trace_id": p.get("trace_id"), "created_at": pd.to_datetime(p.get("created_at"), utc=True),
             "stage": stage, "ms": float(ms)}
            for p in payloads for stage, ms in (p.get("timings") or {}).items() if stage in STAGE_ORDER]
    return pd.DataFrame(rows, columns=["trace_id", "created_at", "stage", "ms"])


def _layout(fig: go.Figure, title: str) -> go.Figure:
    fig.update_layout(title=title, height=320, margin={"l": 10, "r": 10, "t": 50, "b": 40})
    return fig


def latency_over_time(frame: pd.DataFrame) -> go.Figure:
    fig = px.line(frame.sort_values("created_at"), x="created_at", y="ms", color="stage", markers=True,
                  category_orders={"stage": list(STAGE_ORDER)}, labels={"created_at": "run time", "ms": "ms"})
    return _layout(fig, "Latency per stage over time")


def percentiles(stats: TraceStats) -> go.Figure:
    stages = [s for s in STAGE_ORDER if s in stats.stage_latency]
    fig = go.Figure([go.Bar(name=q, x=stages, y=[stats.stage_latency[s][q] for s in stages]) for q in ("p50", "p95")])
    fig.update_layout(barmode="group", yaxis_title="ms")
    return _layout(fig, "p50 / p95 per stage")


def issue_counts(stats: TraceStats) -> go.Figure:
    items = list(stats.issue_counts.items())
    fig = go.Figure(go.Bar(x=[k for k, _ in items], y=[v for _, v in items], marker_color="#1c83e1"))
    fig.update_layout(yaxis_title="runs with the issue")
    if not items:
        fig.update_layout(xaxis={"visible": False}, yaxis={"visible": False}, annotations=[{
            "text": "No review or validation issues in these runs", "showarrow": False,
            "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}])
    return _layout(fig, "Runs by issue type")


def iteration_histogram(runs: Sequence[TraceSummary]) -> go.Figure:
    values = [r.iterations for r in runs]
    fig = go.Figure(go.Histogram(x=values, xbins={"size": 1}, marker_color="#8fc3f0"))
    fig.update_layout(xaxis_title="revisions after a failed review", yaxis_title="runs", bargap=0.1,
                      xaxis={"dtick": 1})
    return _layout(fig, "Revisions per run")


def status_chart(stats: TraceStats) -> go.Figure:
    counts, refused = stats.status_counts, stats.refusal_rate
    names = [s for s in STATUS_COLORS if counts.get(s)]
    fig = go.Figure(go.Bar(x=names, y=[counts[s] for s in names], marker_color=[STATUS_COLORS[s] for s in names]))
    fig.update_layout(yaxis_title="runs")
    return _layout(fig, f"Outcomes — refusal rate {refused:.0%}")


def render_trace_charts(runs: Sequence[TraceSummary], payloads: Sequence[dict[str, Any]]) -> None:
    """The five charts over the runs shown in the table."""
    st.caption("Across the runs listed above: how long each stage takes and how that changes over time, the "
               "typical (p50) and slow (p95) stage latency, which review and validation issues come up, how many "
               "revisions answers need, and how often the engine refuses.")
    frame = stage_frame(payloads)
    stats = trace_stats(runs, payloads)
    top = st.columns(2)
    if frame.empty:
        top[0].info("No stage timings recorded in these runs.")
    else:
        top[0].plotly_chart(latency_over_time(frame), key="traces.chart.latency")
        top[1].plotly_chart(percentiles(stats), key="traces.chart.percentiles")
    bottom = st.columns(3)
    bottom[0].plotly_chart(issue_counts(stats), key="traces.chart.issues")
    bottom[1].plotly_chart(iteration_histogram(runs), key="traces.chart.iterations")
    bottom[2].plotly_chart(status_chart(stats), key="traces.chart.status")
