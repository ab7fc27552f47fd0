"""Calibrating the answer selector on the user's own labelled questions: fit, look at the risk-coverage curve, keep."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from components.safe_text import chart_text, label
from engine.errors import EngineError
from engine.evaluation.calibrate import calibrate, chosen_point, questions_from_text
from engine.offline.calibrate import Calibration, SelectorStore

RESULT_KEY = "experiments.calibration"
TARGET = 0.8


def curve_figure(calibration: Calibration, accuracy: float = TARGET) -> go.Figure:
    """Answered accuracy against coverage on folds never fitted on, with the point the selector would answer at."""
    curve = calibration.curve
    fig = go.Figure()
    fig.add_scatter(x=[c for _, c, _ in curve], y=[a for _, _, a in curve], mode="lines", name="cross-validated",
                    line={"color": "#1c83e1"}, hovertemplate="coverage %{x:.0%}<br>accuracy %{y:.0%}<extra></extra>")
    point = chosen_point(calibration, accuracy)
    if point is not None:
        fig.add_scatter(x=[point[1]], y=[point[2]], mode="markers+text", name=f"answers at P ≥ {point[0]:.2f}",
                        marker={"size": 13, "color": "#ff4b4b"}, text=[chart_text(f"target {accuracy:.0%}")],
                        textposition="top right")
    fig.add_hline(y=accuracy, line_dash="dot", line_color="#808495")
    fig.update_layout(title="Risk-coverage: answer the most confident questions first", height=360,
                      xaxis={"title": "share of questions answered", "tickformat": ".0%", "range": [0, 1]},
                      yaxis={"title": "answered accuracy", "tickformat": ".0%", "range": [0, 1.05]},
                      margin={"t": 60, "b": 10}, legend={"orientation": "h", "y": -0.25})
    return fig


def render_calibration(pipeline, readable_bases: list[str], can_change: bool) -> None:
    """The form, the fitted curve and figures, and the saved selectors."""
    st.caption("Fit the decision to answer on your own questions: upload a JSONL file of "
               '{"id", "question", "answers": [...], "answerable": true|false} rows (answerable and not, 40 or '
               "more). Each is asked over the chosen bases; a small model learns from the answers how sure to be, "
               "with k-fold cross-validation, and asks over those bases use it once you keep it.")
    if not can_change:
        st.caption("Your role (viewer) may look at calibrated selectors but not fit one.")
    upload = st.file_uploader("Labelled questions (JSONL)", type=["jsonl"], key="calibration.file",
                              disabled=not can_change)
    bases = st.multiselect("Knowledge bases the questions are about", readable_bases, default=readable_bases,
                           key="calibration.bases", disabled=not can_change)
    folds = st.number_input("Cross-validation folds", min_value=2, max_value=10, value=5, key="calibration.folds",
                            disabled=not can_change)
    if st.button("Fit the selector", key="calibration.fit", disabled=not can_change or upload is None or not bases):
        try:
            questions = questions_from_text(upload.getvalue().decode("utf-8", errors="replace"), upload.name)
            bar = st.progress(0.0, text="Asking the questions")
            st.session_state[RESULT_KEY] = calibrate(
                pipeline, questions, bases, folds=int(folds), source=upload.name,
                progress=lambda n, total: bar.progress(n / total, text=f"Asked {n} of {total} questions"))
        except EngineError as exc:
            st.error(label(str(exc), limit=600))
    result: Calibration | None = st.session_state.get(RESULT_KEY)
    if result is not None:
        trained = result.model.trained
        figures = trained.get("cross_validated", {}).get(str(TARGET), {})
        st.plotly_chart(curve_figure(result), width="stretch", config={"displayModeBar": False})
        st.caption(label(
            f"{result.rows} questions, {trained.get('folds')} folds. At the {TARGET:.0%} target the selector answers "
            f"when P ≥ {trained['thresholds'][str(TARGET)]:.2f}: coverage {figures.get('coverage', 0):.0%} of the "
            f"answerable questions, answered accuracy {figures.get('answered_accuracy', 0):.0%}, refusals of the "
            f"unanswerable {figures.get('refusal_recall', 0):.0%} (measured on folds it was not fitted on).",
            limit=500))
        keep, drop = st.columns(2)
        if keep.button("Keep it for these bases", type="primary", key="calibration.keep", disabled=not can_change):
            path = pipeline.selectors.save(result)
            st.success(label(f"Saved as {path.stem}; asks over {', '.join(result.bases)} now use it.", limit=300))
            st.session_state.pop(RESULT_KEY, None)
        if drop.button("Discard", key="calibration.discard"):
            st.session_state.pop(RESULT_KEY, None)
            st.rerun()
    render_saved(pipeline.selectors, can_change)


def render_saved(store: SelectorStore, can_change: bool) -> None:
    saved = store.list()
    if not saved:
        st.caption("No calibrated selectors yet: the default one (fitted on public reading-comprehension data) decides.")
        return
    st.dataframe([{"name": s["name"], "bases": ", ".join(s["bases"]), "questions": s["questions"], "date": s["date"]}
                  for s in saved], hide_index=True, width="stretch")
    name = st.selectbox("Calibrated selector", [s["name"] for s in saved], key="calibration.saved")
    if st.button("Delete it", key="calibration.delete", disabled=not can_change):
        store.delete(name)
        st.rerun()
