"""The Strategy preview: the parsed intent of a sample question and the tasks the edited strategy plans for it."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.intent_card import render_intent
from components.safe_text import encode, label, neutralise_markdown, show
from engine.errors import EngineError
from engine.experiments import sample_questions
from engine.orchestration import Strategy, StrategyRouter, diff_strategies
from engine.results import Intent, RetrievalTask

INTENTS_KEY = "strategy.intents"  # question -> Intent, so a rerun does not parse the same question again
FALLBACK_QUESTION = "What is the torque for the main landing gear wheel axle nut?"


def sample_question() -> str:
    """The first question in sample_docs/questions.txt (a fixed question when the file is missing)."""
    try:
        return sample_questions().questions[0]
    except EngineError:
        return FALLBACK_QUESTION


def intent_for(perception, question: str) -> Intent:
    """Parse ``question`` once per session; later reruns reuse the Intent."""
    cache: dict[str, Intent] = st.session_state.setdefault(INTENTS_KEY, {})
    if question not in cache:
        cache[question] = perception.run(question)
    return cache[question]


def _task_key(task: RetrievalTask) -> tuple:
    return task.priority, task.search_type, task.knowledge_base, task.query


def _filters_text(task: RetrievalTask) -> str:
    f = task.filters.model_dump(mode="json", exclude_none=True)
    return ", ".join(f"{k}={v}" for k, v in f.items())


def tasks_frame(tasks: Sequence[RetrievalTask], active: Sequence[RetrievalTask] = ()) -> pd.DataFrame:
    """The planned tasks, with the weight the active strategy gives the same task (blank when it has none)."""
    before = {_task_key(t): t.weight for t in active}
    rows = [{
        "priority": t.priority, "search": t.search_type, "knowledge base": t.knowledge_base, "weight": t.weight,
        "active weight": before.get(_task_key(t)), "top_k": t.top_k, "filters": _filters_text(t),
        "query": neutralise_markdown(t.query), "reason": neutralise_markdown(t.reason),
    } for t in tasks]
    return pd.DataFrame(rows, columns=["priority", "search", "knowledge base", "weight", "active weight", "top_k",
                                       "filters", "query", "reason"])


def render_preview(perception, question: str, edited: Strategy, active: Strategy, kb_names: Sequence[str]) -> None:
    """Intent and planned tasks for ``question`` under the edited strategy, beside the active one's weights."""
    if not question.strip():
        st.info("Type a question to preview its plan.")
        return
    if not kb_names:
        st.info("There are no knowledge bases yet; upload documents on the Documents page to preview routing.")
        return
    try:
        intent = intent_for(perception, question)
        tasks = StrategyRouter(edited, kb_names).run(intent)
        before = StrategyRouter(active, kb_names).run(intent)
    except EngineError as exc:
        st.error("The preview failed: " + label(str(exc), limit=600))
        return
    render_intent(intent)
    weight_before = {_task_key(b): b.weight for b in before}
    changed = sum(1 for t in tasks if weight_before.get(_task_key(t)) != t.weight)
    st.caption(f"{len(tasks)} tasks with the edited strategy ({len(before)} with the active one; "
               f"{changed} new or re-weighted). Higher weight = more say in the fused evidence.")
    frame = tasks_frame(tasks, before)
    frame.insert(0, "task", [f"{kb} · {kind}" for kb, kind in zip(frame["knowledge base"], frame["search"])])
    # three narrow columns fit the preview column from 1024 px up; each task's query, reason, k and filters below
    st.dataframe(frame, hide_index=True, width="stretch", column_order=["task", "weight", "active weight"],
                 column_config={"task": st.column_config.TextColumn("Base · search", width=112),
                                "weight": st.column_config.NumberColumn("Weight", format="%.2f", width=56),
                                "active weight": st.column_config.NumberColumn(
                                    "Active", format="%.2f", width=56,
                                    help="The weight the active version gives the same task (blank: no such task)")})
    with st.expander("Each task's query and reason"):
        show("<ol style='margin:0;padding-left:1.2em;overflow-wrap:anywhere'>" + "".join(
            f"<li><b>{encode(r['task'])}</b> · priority {r['priority']} · k {r['top_k']}"
            + (f" · filters: {encode(r['filters'])}" if r["filters"] else "")
            + f"<br>query: {encode(r['query'])}<br><small>reason: {encode(r['reason'])}</small></li>"
            for r in frame.to_dict("records")) + "</ol>")


def render_unsaved(base: Strategy, edited: Strategy) -> None:
    """Which fields the draft changes compared with the version it was loaded from."""
    changes = diff_strategies(base, edited)
    if not changes:
        st.caption("No unsaved changes.")
        return
    with st.expander(f"{len(changes)} unsaved change(s)", expanded=False):
        st.dataframe(diff_frame(changes, "loaded", "draft"), hide_index=True, width="stretch")


def diff_frame(changes: list[dict], a_label: str = "A", b_label: str = "B") -> pd.DataFrame:
    """A diff from ``diff_strategies`` as a table; values as JSON text so mixed types display cleanly."""
    rows = [{"field": c["field"], a_label: json.dumps(c["a"]), b_label: json.dumps(c["b"])} for c in changes]
    return pd.DataFrame(rows, columns=["field", a_label, b_label])
