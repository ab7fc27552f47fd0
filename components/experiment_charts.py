"""Plotly charts of an A/B result: A vs B per metric, latency percentiles, and B − A with confidence intervals."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from components.experiment_view import fmt
from components.safe_text import chart_text
from engine.experiments import ExperimentResult
from engine.experiments.metrics import USAGE_METRICS

COLORS = {"A": "#8c9db5", "B": "#1c83e1"}
CHART_CONFIG = {"displayModeBar": False}


def _is_latency(metric: str) -> bool:
    return metric.startswith("latency")


def _charted(result: ExperimentResult):
    """The differences drawn in the charts (model cost and tokens have scales of their own: table only)."""
    return [d for d in result.diffs if d.metric not in USAGE_METRICS]


def ab_bars(result: ExperimentResult, latency: bool) -> go.Figure:
    """Grouped bars of A and B for the rate/count metrics, or for the latency percentiles."""
    diffs = [d for d in _charted(result) if _is_latency(d.metric) == latency]
    fig = go.Figure()
    for arm in ("A", "B"):
        variant = chart_text(result.arm(arm).variant)
        values = [d.a if arm == "A" else d.b for d in diffs]
        fig.add_bar(name=f"{arm}: {variant}", x=[d.label for d in diffs], y=values, marker_color=COLORS[arm],
                    text=[None if v is None else fmt(v) for v in values], textposition="outside")
    fig.update_layout(barmode="group", title="Latency percentiles (ms)" if latency else "Quality metrics per arm",
                      legend={"orientation": "h", "y": -0.2}, margin={"t": 50, "b": 10})
    return fig


def diff_forest(result: ExperimentResult) -> go.Figure:
    """B − A per metric as a point with its confidence interval; the dotted line is 'no difference'."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Quality: B − A", "Latency (ms): B − A"),
                        horizontal_spacing=0.25)
    for col, latency in ((1, False), (2, True)):
        diffs = [d for d in _charted(result) if _is_latency(d.metric) == latency and d.diff is not None]
        plus = [(d.ci_high - d.diff) if d.ci_high is not None else 0 for d in diffs]
        minus = [(d.diff - d.ci_low) if d.ci_low is not None else 0 for d in diffs]
        colors = ["#21c354" if d.verdict == "B better" else "#ff4b4b" if d.verdict == "B worse" else "#808495"
                  for d in diffs]
        fig.add_scatter(x=[d.diff for d in diffs], y=[d.label for d in diffs], mode="markers", row=1, col=col,
                        marker={"size": 11, "color": colors}, showlegend=False,
                        error_x={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
                        hovertemplate="%{y}: %{x:,.3~g}<extra></extra>")
        fig.add_vline(x=0, line_dash="dot", line_color="#808495", row=1, col=col)
        fig.update_yaxes(autorange="reversed", row=1, col=col)
    fig.update_layout(title=f"Differences with {result.confidence:.0%} bootstrap intervals "
                            "(green: B better, red: B worse, grey: no clear difference)",
                      margin={"t": 80, "b": 10}, height=360)
    return fig


def render_charts(result: ExperimentResult) -> None:
    st.subheader("Charts", anchor=False)
    st.caption("Left: each arm's value per quality metric (what each measures is in the table above). Right: "
               "latency percentiles. Below: B − A per metric with its bootstrap interval; a point whose interval "
               "crosses the dotted zero line is no clear difference.")
    left, right = st.columns([3, 2])
    left.plotly_chart(ab_bars(result, latency=False), key="experiments.chart_quality", config=CHART_CONFIG)
    right.plotly_chart(ab_bars(result, latency=True), key="experiments.chart_latency", config=CHART_CONFIG)
    st.plotly_chart(diff_forest(result), key="experiments.chart_diffs", config=CHART_CONFIG)
