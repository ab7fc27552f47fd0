"""Experiments: A/B runs over a question set with bootstrap intervals, and the gradual reflection rollout."""

from __future__ import annotations

import streamlit as st

from components import experiment_charts as charts
from components import experiment_view as view
from components import access
from components import calibration_view as calibration
from components.factories import get_experiment_store, get_rollout_store, get_strategy_store
from components.safe_text import label
from engine.errors import EngineError
from engine.experiments import MIN_PAIRED_QUESTIONS

RESULT_KEY = "experiments.result"

st.title("Experiments")
st.caption("Compare two ways of answering on the same questions: every question runs through variant A and "
           "variant B, and the metrics below show each arm and the difference B − A with a bootstrap interval.")

ss = st.session_state
experiments = get_experiment_store()

st.header("Run an A/B", divider="gray")
can_change = access.current_identity().can_change
questions = view.question_set_picker(access.traces())  # questions from runs over the bases this user may read
if questions is not None:
    with st.expander(f"{len(questions)} question(s) available", expanded=False):
        st.dataframe(view.questions_frame(questions), hide_index=True, width="stretch")
    st.caption(view.gold_caption(questions))
variants = view.variant_picker(get_strategy_store())
limit = st.number_input("Question limit", min_value=1, max_value=200, value=5, step=1, key="experiments.limit",
                        help="Each question runs the full pipeline twice (A and B), so keep this small at first.")
if questions is not None:
    n = min(int(limit), len(questions))
    st.caption(f"This run produces {2 * n} answers ({n} questions × 2 variants).")
    if n < MIN_PAIRED_QUESTIONS:
        st.caption(f"With {n} paired questions (fewer than {MIN_PAIRED_QUESTIONS}) the results show no confidence "
                   "interval and no verdict: a bootstrap over so few questions is too narrow to trust.")
if not can_change:
    st.caption("Your role (viewer) may read saved experiments but not run one.")
if st.button("Run experiment", type="primary", key="experiments.run",
             disabled=questions is None or variants is None or not can_change):
    result = view.run_with_progress(access.pipeline(), questions, variants, int(limit), experiments)
    if result is not None:
        ss[RESULT_KEY] = result

with st.expander("Saved experiments", expanded=False):
    opened = view.render_history(experiments)
    if opened:
        try:
            ss[RESULT_KEY] = experiments.get(opened)
        except EngineError as exc:
            st.error(label(str(exc), limit=600))

result = ss.get(RESULT_KEY)
if result is not None:
    st.header("Results", divider="gray")
    view.render_summary(result)
    st.dataframe(view.metrics_frame(result), hide_index=True, width="stretch",
                 column_config={**{c: st.column_config.NumberColumn(format="localized") for c in ("A", "B", "B − A")},
                                "what it measures": st.column_config.TextColumn(width="large")})
    view.render_why(result)
    view.render_gold(result)
    charts.render_charts(result)
    view.render_answers(result)

st.header("Calibrate the decision to answer", divider="gray")
calibration.render_calibration(access.pipeline(), access.store().knowledge_base_names(), can_change)

st.header("Gradual rollout", divider="gray")
if can_change:
    view.render_rollout(get_rollout_store())
else:
    st.caption("Your role (viewer) may not change the rollout.")
