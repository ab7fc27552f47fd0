"""One answered question in full (shared by Ask and Traces), its timing chart, and live stage progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from components.answer_panels import render_issues, render_status, render_tasks, render_validation
from components.answer_text import render_answers, render_evidence, render_final
from components.answerability_view import render_answerability
from components.intent_card import render_intent
from components.safe_text import chart_text, encode, label, show
from components.usage_view import render_usage
from engine.llm.usage import usage_of
from engine.pipeline import STAGES
from engine.results import Answer


def answer_from_payload(payload: dict[str, Any]) -> Answer:
    """An Answer back from stored JSON (a trace payload); keys the model does not know are dropped."""
    known = {k: v for k, v in payload.items() if k in Answer.model_fields}
    return Answer.model_validate(known)


def render_answer(answer: Answer, key: str) -> None:
    """Status, final answer, intent and plan, draft vs revised, evidence, review, validation and timing."""
    st.subheader(label(answer.question, limit=300), anchor=False)
    render_status(answer)
    st.caption("The answer as shown to the user. Citations [n] point to the evidence list below.")
    render_final(answer)

    with st.container(border=True):
        left, right = st.columns([2, 3])
        with left:
            render_intent(answer.intent)
        with right:
            render_tasks(answer.tasks, answer.extra.get("task_runs") or ())

    with st.container(border=True):
        render_answerability(answer.answerability, answer.status)

    with st.container(border=True):
        render_answers(answer, key=f"{key}.answers")

    with st.container(border=True):
        left, right = st.columns(2)
        with left:
            render_issues(answer.reviews, reflection=answer.extra.get("reflection") is not False,
                          rounds=answer.extra.get("rounds") or ())
        with right:
            render_validation(answer.validation, answer.extra.get("attempts") or ())

    with st.container(border=True):
        left, right = st.columns([3, 2])
        with left:
            render_evidence(answer.evidence, answer.intent)
        with right:
            render_timing(answer.timings, key=f"{key}.timing")
            render_usage(usage_of(answer), answer.provider)


# -- timing -----------------------------------------------------------------------------------------

STAGE_ORDER = STAGES
STAGE_COLOR = "#1c83e1"
STEP_COLOR = "#8fc3f0"


def timing_rows(timings: Mapping[str, float]) -> list[tuple[str, float, bool]]:
    """(label, ms, is_sub_step) in pipeline order; a stage's sub-steps (retrieval's searches, reflection's draft)
    follow it in the order they ran; no total."""
    rows: list[tuple[str, float, bool]] = []
    known = [s for s in STAGE_ORDER if s in timings]
    others = sorted(k for k in timings if k != "total" and "." not in k and k not in STAGE_ORDER)
    for stage in [*known, *others]:
        rows.append((stage, float(timings[stage]), False))
        for key in [k for k in timings if k.startswith(f"{stage}.")]:
            rows.append((f"  {key.split('.', 1)[1]}", float(timings[key]), True))
    return rows


def timing_figure(timings: Mapping[str, float]) -> go.Figure:
    """Horizontal bars, first stage on top; the title carries the total."""
    rows = timing_rows(timings)
    total = float(timings.get("total", sum(ms for _, ms, sub in rows if not sub)))
    labels = [chart_text(name) for name, _, _ in rows]
    fig = go.Figure(go.Bar(
        x=[ms for _, ms, _ in rows], y=labels, orientation="h",
        marker_color=[STEP_COLOR if sub else STAGE_COLOR for _, _, sub in rows],
        text=[f"{ms:,.0f} ms" for _, ms, _ in rows], textposition="auto",
        hovertemplate="%{y}: %{x:,.1f} ms<extra></extra>",
    ))
    fig.update_layout(
        title=f"Time per stage — total {total:,.0f} ms", xaxis_title="milliseconds",
        yaxis={"autorange": "reversed", "type": "category"}, height=max(220, 34 * len(rows) + 90),
        margin={"l": 10, "r": 10, "t": 50, "b": 40}, showlegend=False,
    )
    return fig


def render_timing(timings: Mapping[str, float], key: str) -> None:
    """The timing chart, with a caption."""
    st.markdown("**Timing**")
    st.caption("Where the time went. Dark bars are pipeline stages (a stage that ran again after a failed "
               "validation is summed); light bars are steps inside a stage: retrieval (query embedding, searches, "
               "fusion, link hop, stored sentence vectors) and reflection (draft, review, revision).")
    if not timings:
        st.info("No timings were recorded.")
        return
    st.plotly_chart(timing_figure(timings), key=key, config={"displayModeBar": False})


# -- live progress ----------------------------------------------------------------------------------

STAGE_TITLES = {
    "perception": "Reading the question",
    "orchestration": "Planning retrieval",
    "retrieval": "Retrieving evidence",
    "answerability": "Checking the evidence answers the question",
    "reflection": "Drafting and reviewing",
    "validation": "Validating",
    "replan": "Validation failed: replanning",
    "done": "Done",
    "failure": "Failed",
}


def describe(stage: str, info: dict[str, Any]) -> str:
    """One line about what a stage produced (plain text)."""
    if stage == "perception" and info.get("intent") is not None:
        intent = info["intent"]
        names = ", ".join(intent.entity_texts) or "none"
        return f"action {intent.action}; entities: {names}"
    if stage == "orchestration":
        return f"{len(info.get('tasks') or ())} task(s), strategy {info.get('strategy_version') or 'active'}"
    if stage == "retrieval":
        runs = info.get("runs") or ()
        return f"{len(info.get('evidence') or ())} evidence chunk(s) from {len(runs)} task run(s)"
    if stage == "answerability" and info.get("answerability") is not None:
        judged = info["answerability"]
        return f"{judged.verdict}: {judged.reason}"
    if stage == "reflection":
        outcome = info.get("outcome") or {}
        return (f"{len(outcome.get('rounds') or ())} review round(s), {outcome.get('iterations', 0)} revision(s), "
                f"status {outcome.get('status', '?')}")
    if stage == "validation" and info.get("validation") is not None:
        issues = info["validation"].issues
        return "all checks passed" if not issues else f"{len(issues)} issue(s): " + "; ".join(
            i.message for i in issues[:2])
    if stage == "replan":
        return "; ".join(info.get("changes") or ()) or "plan widened"
    if stage == "done":
        return f"status {info.get('status', '?')}"
    if stage == "failure":
        return str(info.get("error", ""))
    return ""


DRAFT_LABELS = {"draft": "Draft — under review", "revise": "Revision — under review"}


class StageProgress:
    """A callable for ``Pipeline.run(progress=...)`` that writes each stage into an ``st.status`` box.

    With a ``draft`` placeholder, the answer being written streams into it, marked as under review,
    and each review's verdict is noted in the box; the page empties the placeholder once the
    reviewed answer is ready to take its place.
    """

    def __init__(self, box: Any, draft: Any = None) -> None:
        self.box = box
        self.draft = draft
        self.stages: list[str] = []
        self.text = ""
        self.step = "draft"

    def __call__(self, stage: str, info: dict[str, Any]) -> None:
        if stage == "stage_started":
            self.box.update(label=f"{STAGE_TITLES.get(info.get('stage', ''), info.get('stage', ''))}…")
            return
        if stage == "stage_finished":
            return
        if stage in ("draft_delta", "draft_reset", "draft_done"):
            self._draft(stage, info)
            return
        if stage == "review":
            review = info["review"]
            verdict = "passed" if review.valid else f"{len(review.issues)} issue(s)"
            self.box.markdown(f"**Review round {info['round']}** — {verdict}, confidence {review.confidence:.2f}")
            return
        self.stages.append(stage)
        title = STAGE_TITLES.get(stage, stage)
        self.box.markdown(f"**{title}** — {label(describe(stage, info), limit=300)}")
        if stage not in ("done", "failure"):
            self.box.update(label=f"{title}…")

    def _draft(self, stage: str, info: dict[str, Any]) -> None:
        """The answer being written, shown in the draft placeholder as under review."""
        step = info.get("step", "draft")
        if step != self.step or stage == "draft_reset":
            self.step, self.text = step, ""
        if stage == "draft_delta":
            self.text += str(info.get("text", ""))
        elif stage == "draft_done":
            self.text = str(info.get("text", ""))
        if self.draft is None:
            return
        with self.draft.container(border=True):
            st.caption(f":material/rate_review: {DRAFT_LABELS.get(step, step)}"
                       + (" (the stream broke and started again)" if stage == "draft_reset" else ""))
            show(f"<div style='opacity:0.75'>{encode(self.text)}{'▌' if stage != 'draft_done' else ''}</div>")
