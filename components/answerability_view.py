"""The answerability panel: did the evidence answer the question, what was asked, and the signals behind the call."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.safe_text import label
from engine.results import Answerability

VERDICT_LOOK = {
    "answerable": ("green", ":material/task_alt:", "Evidence answers it"),
    "ambiguous": ("orange", ":material/help:", "Evidence partly answers it"),
    "unanswerable": ("red", ":material/block:", "Evidence does not answer it"),
}
SIGNAL_HELP = {
    "subject_coverage": "Share of the question's named subjects that some evidence mentions.",
    "attribute_coverage": "Share of the asked attribute's words found in the evidence.",
    "best_sentence": "How well the best evidence sentence fits the question (0-1).",
    "similarity": "Embedding similarity of that sentence to the question.",
    "typed_answer": "1 when a value of the expected type (number, date, name, code) was found.",
    "typed_sentence": "Fit of the best sentence that holds such a value.",
    "evidence": "Evidence chunks retrieved.",
}


def signal_frame(result: Answerability) -> pd.DataFrame:
    """The signals as rows (signal, value, meaning)."""
    return pd.DataFrame([{"signal": k, "value": v, "meaning": SIGNAL_HELP.get(k, "")}
                         for k, v in result.signals.items()])


def render_answerability(result: Answerability | None) -> None:
    """Verdict badge, reason, focus (answer type, subjects, attribute), the value found and the signals."""
    st.markdown("**Answerability**")
    st.caption("Checked before any answer is drafted: does the retrieved evidence answer this question? "
               "If not, the engine refuses and lists the closest documents instead of guessing.")
    if result is None:
        st.info("No answerability check was recorded for this run.")
        return
    color, icon, text = VERDICT_LOOK.get(result.verdict, ("gray", ":material/help:", result.verdict))
    st.badge(text, icon=icon, color=color)
    st.write(label(result.reason, limit=500))
    focus = result.focus
    parts = [f"expects: {focus.answer_type.replace('_', '/')}"]
    if focus.subjects:
        parts.append("about: " + ", ".join(focus.subjects))
    if focus.attribute:
        parts.append("asked: " + " ".join(focus.attribute))
    st.caption(label(" · ".join(parts), limit=400))
    if result.span is not None:
        st.caption(label(f"Value found: {result.span.value} [{result.span.evidence}]", limit=300))
    if result.missing:
        st.caption(label("Not found in the evidence: " + ", ".join(result.missing), limit=300))
    if result.verdict == "unanswerable" and result.closest:
        st.caption(label("Closest documents: " + "; ".join(result.closest), limit=400))
    if result.signals:
        st.dataframe(signal_frame(result), hide_index=True, width="stretch",
                     column_config={"value": st.column_config.NumberColumn(format="%.2f")})
