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
    "confidence": "P(the best candidate answers the question), from the calibrated selector.",
    "threshold": "The confidence needed to answer, chosen for the target answered accuracy.",
    "subject_coverage": "Share of the question's named subjects that some evidence mentions.",
    "subjects": "Subjects the question names.",
    "attribute_coverage": "Share of the asked attribute's words found in the evidence.",
    "best_similarity": "Embedding similarity of the best-fitting evidence sentence to the question.",
    "best_overlap": "Share of the question's words in that sentence.",
    "top3_similarity": "Mean similarity of the three best-fitting sentences.",
    "evidence": "Evidence chunks retrieved.",
}
RANK_SCORE_HELP = ("How the reader's ranker scores this candidate against the others in the evidence. The confidence "
                   "above is a separate estimate, that the best candidate is the right answer, which also weighs how "
                   "well the evidence covers the question; it decides whether to answer.")


def signal_frame(result: Answerability) -> pd.DataFrame:
    """The signals as rows (signal, value, meaning)."""
    return pd.DataFrame([{"signal": k, "value": v, "meaning": SIGNAL_HELP.get(k, "")}
                         for k, v in result.signals.items()])


def render_answerability(result: Answerability | None, status: str | None = None) -> None:
    """Verdict badge, reason, focus (answer type, subjects, attribute), the value found and the signals.

    ``status``: the answer's final status; when the evidence looked sufficient but the review or validation then
    refused the drafted answer, the panel says so, so that it never contradicts the answer shown above it."""
    st.markdown("**Answerability**")
    st.caption("Checked before any answer is drafted: does the retrieved evidence answer this question? "
               "If not, the engine refuses and lists the closest documents instead of guessing.")
    if result is None:
        st.info("No answerability check was recorded for this run.")
        return
    color, icon, text = VERDICT_LOOK.get(result.verdict, ("gray", ":material/help:", result.verdict))
    st.badge(text, icon=icon, color=color)
    st.write(label(result.reason, limit=500))
    if status == "refused" and result.verdict != "unanswerable":
        st.caption("Then the review or the validation could not verify the drafted answer against the evidence, "
                   "so it was refused: see the review issues and validation checks below.")
    focus = result.focus
    parts = [f"expects: {focus.answer_type.replace('_', '/')}"]
    if focus.subjects:
        parts.append("about: " + ", ".join(focus.subjects))
    if focus.attribute:
        parts.append("asked: " + " ".join(focus.attribute))
    st.caption(label(" · ".join(parts), limit=400))
    if result.confidence is not None and result.threshold is not None:
        need = ("no confidence is enough at this target" if result.threshold > 1
                else f"answers need {result.threshold:.0%}")
        st.progress(result.confidence, text=label(
            f"Confidence {result.confidence:.0%} · {need}"
            + (f" (target accuracy {result.target_accuracy:.0%})" if result.target_accuracy else "")
            + (f" · selector: {result.selector}" if result.selector else ""), limit=200))
    if result.span is not None and result.span.value:
        st.caption(label(f"Best candidate: {result.span.value} [{result.span.evidence}]", limit=300))
    if result.candidates:
        st.dataframe(pd.DataFrame([{"candidate": c.value, "rank score": c.probability, "evidence": f"[{c.evidence}]"}
                                   for c in result.candidates]), hide_index=True, width="stretch",
                     column_config={"rank score": st.column_config.ProgressColumn(
                         min_value=0.0, max_value=1.0, format="%.2f", help=RANK_SCORE_HELP)})
    for other in result.conflicts:
        why = f"superseded ({other.note} source chosen)" if other.note else "sources disagree"
        st.caption(label(f"Other value: {other.value} [{other.evidence}] — {why}", limit=300))
    if result.missing:
        st.caption(label("Not found in the evidence: " + ", ".join(result.missing), limit=300))
    if result.verdict == "unanswerable" and result.closest:
        st.caption(label("Closest documents: " + "; ".join(result.closest), limit=400))
    if result.signals:
        st.dataframe(signal_frame(result), hide_index=True, width="stretch",
                     column_config={"value": st.column_config.NumberColumn(format="%.2f")})
