"""The structured panels of one answer: status badge, task table, review issues, validation checks.

Each ``render_*`` function draws one panel with a caption that tells a first-time user what
it shows; the small helpers beside them compute nothing the Answer does not already hold.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.safe_text import encode, label, neutralise_markdown, show
from engine.results import Answer, Correction, RetrievalTask, Review, ReviewIssue, Validation


# -- status ----------------------------------------------------------------------------------------

STATUS_LOOK = {
    "success": ("green", ":material/check_circle:", "Answered"),
    "refused": ("orange", ":material/block:", "Refused"),
    "failure": ("red", ":material/error:", "Failed"),
}
STATUS_HELP = {
    "success": "The answer passed review and validation against the documents.",
    "refused": "The engine would not stand behind an answer (no evidence, review never passed, or validation "
               "failed); the reason is shown below.",
    "failure": "The run stopped with an error; the message says what to do.",
}


def status_badge(status: str) -> None:
    """A coloured badge for success / refused / failure."""
    color, icon, text = STATUS_LOOK.get(status, ("gray", ":material/help:", status))
    st.badge(text, icon=icon, color=color, help=STATUS_HELP.get(status))


def render_status(answer: Answer) -> None:
    """Status badge plus the run's key numbers in one row."""
    status_badge(answer.status)
    cols = st.columns(4)  # the badge on its own line: four metrics keep their labels whole from 1024 px up
    extra = answer.extra
    reflection = "off" if extra.get("reflection") is False else f"on ({extra.get('mode', 'dual')})"
    cols[0].metric("Review rounds", answer.review_rounds,
                   help=f"Reviews of the answer, one per round below; {answer.revisions} revision(s) followed a "
                        "failed review.")
    cols[1].metric("Validation tries", max(len(extra.get("attempts") or []), 1),
                   help="A failed validation replans retrieval and tries again, a bounded number of times.")
    total = answer.timings.get("total")
    cols[2].metric("Total time", f"{total / 1000:.2f} s" if total is not None else "–")
    cols[3].metric("Provider", answer.provider or "–", help="Which language-model provider produced this answer.")
    details = [f"reflection {reflection}", f"strategy {answer.strategy_version or '–'}",
               f"trace {answer.trace_id or '–'}"]
    if extra.get("rollout_bucket"):
        details.append(f"rollout bucket {extra['rollout_bucket']}")
    st.caption(label(" · ".join(details), limit=400))
    reason = extra.get("refusal_reason")
    refused = answer.status == "refused" and isinstance(reason, str) and reason.strip()
    if refused and not said_in(reason, answer.final):  # shown once: the answer box below says it when it can
        st.caption(label(f"Refusal reason: {reason}", limit=2000))


def said_in(reason: str, text: str | None) -> bool:
    """Whether ``text`` (the answer shown) already says ``reason``, spaces aside."""
    return " ".join(reason.split()) in " ".join((text or "").split())


# -- retrieval tasks -------------------------------------------------------------------------------

def _filters(task: RetrievalTask) -> str:
    f = task.filters
    parts = []
    if f.since or f.until:
        parts.append(f"date {f.since or '…'} to {f.until or '…'}")
    if f.doc_type:
        parts.append(f"type {f.doc_type}")
    if f.min_authority or f.max_authority:
        parts.append(f"authority {f.min_authority or 1}-{f.max_authority or 5}")
    return ", ".join(parts) or "–"


def task_frame(tasks: Sequence[RetrievalTask], runs: Sequence[dict[str, Any]] = ()) -> pd.DataFrame:
    """The tasks as rows; ``runs`` (Answer.extra['task_runs']) adds hits and time when it lines up."""
    rows = []
    for i, task in enumerate(tasks):
        run = runs[i] if i < len(runs) else {}
        rows.append({
            "task": f"T{i + 1}", "query": neutralise_markdown(task.query), "type": task.search_type,
            "knowledge base": task.knowledge_base, "weight": float(task.weight), "priority": task.priority,
            "k": task.top_k, "filters": _filters(task), "hits": run.get("hits"), "ms": run.get("ms"),
            "reason": neutralise_markdown(task.reason) or "–",
        })
    return pd.DataFrame(rows)


def render_tasks(tasks: Sequence[RetrievalTask], runs: Sequence[dict[str, Any]] = ()) -> None:
    """The retrieval-task table with a weight bar per task."""
    st.markdown("**Retrieval tasks**")
    st.caption("The searches the strategy planned for this question. Weight is how much each task's hits count "
               "when results are fused; the reason says why the task exists. Evidence below names the task(s) "
               "that found it.")
    if not tasks:
        st.info("No retrieval tasks were planned (the run stopped before orchestration).")
        return
    frame = task_frame(tasks, runs)
    top = max(1.0, float(frame["weight"].max()))
    # four narrow columns fit the panel from 1024 px up; type, k, priority, time and filters are in the list below
    st.dataframe(
        frame, hide_index=True, width="stretch",
        column_order=["task", "weight", "knowledge base", "hits"],
        column_config={
            "task": st.column_config.TextColumn("Task", width="small"),
            "weight": st.column_config.ProgressColumn("Weight", min_value=0.0, max_value=top, format="%.2f",
                                                      help="Task weight in the fusion", width="small"),
            "knowledge base": st.column_config.TextColumn("Base", help="The knowledge base searched", width="small"),
            "hits": st.column_config.NumberColumn("Hits", help="Hits the search returned", width="small"),
        },
    )
    render_task_details(frame)


def _run_facts(row: dict[str, Any]) -> str:
    """A task's k, priority, hits, time and filters, as one line."""
    facts = [f"k {row['k']}", f"priority {row['priority']}"]
    if row.get("hits") is not None and row["hits"] == row["hits"]:  # NaN when the run is not recorded
        facts.append(f"{int(row['hits'])} hits")
    if row.get("ms") is not None and row["ms"] == row["ms"]:
        facts.append(f"{row['ms']:.0f} ms")
    if row.get("filters"):
        facts.append(f"filters: {row['filters']}")
    return " · ".join(facts)


def render_task_details(frame: pd.DataFrame) -> None:
    """Each task's query and reason in full, wrapped: long text never hides behind a cut-off table cell."""
    items = "".join(
        f"<li><b>{encode(row['task'])}</b> <code>{encode(row['type'])}</code> · {encode(row['knowledge base'])}"
        f"<br>query: {encode(row['query'])}<br><small>reason: {encode(row['reason'])}</small>"
        f"<br><small>{encode(_run_facts(row))}</small></li>"
        for row in frame.to_dict("records"))
    show(f"<ul class='task-details' style='margin:0;padding-left:1.2em;overflow-wrap:anywhere'>{items}</ul>")


# -- review issues ---------------------------------------------------------------------------------

TYPE_HELP = {
    "citation": "a statement cites nothing, or cites evidence that does not say it",
    "fact": "a figure, date or name is not in the cited evidence, or sources disagree",
    "logic": "the reasoning does not follow, or part of the question is not answered",
    "overconfidence": "absolute wording the evidence does not support",
    "format": "the answer's form does not fit the question",
    "injection": "a document holds instruction-like text (\"ignore previous instructions\", a fake system line); "
                 "it is shown as a note and never followed or repeated in the answer",
}


def group_issues(reviews: Sequence[Review]) -> dict[str, list[tuple[int, ReviewIssue, list[Correction]]]]:
    """Issue type -> [(round, issue, that round's corrections of the same type)], in type order."""
    grouped: dict[str, list[tuple[int, ReviewIssue, list[Correction]]]] = defaultdict(list)
    for round_no, review in enumerate(reviews, start=1):
        for issue in review.issues:
            fixes = [c for c in review.corrections if c.type == issue.type]
            grouped[issue.type].append((round_no, issue, fixes))
    order = list(TYPE_HELP)
    return dict(sorted(grouped.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))


def _correction(c: Correction) -> str:
    return (f"<del style='opacity:0.8'>{encode(c.original)}</del> → <ins style='text-decoration:none;"
            f"background:rgba(33,195,84,0.2)'>{encode(c.corrected)}</ins>")


ACTION_TEXT = {
    "accepted": "accepted", "corrected": "corrections applied", "revised": "answer rewritten",
    "refused": "refused (out of rounds)",
}


def render_rounds(reviews: Sequence[Review], rounds: Sequence[dict[str, Any]] = ()) -> None:
    """One line per review round: verdict, confidence, what the loop did, and the reviewer's reasoning."""
    actions = {r.get("round"): r for r in rounds if isinstance(r, dict)}
    for round_no, review in enumerate(reviews, start=1):
        verdict = "passed" if review.valid else f"{len(review.issues)} issue(s)"
        record = actions.get(round_no) or {}
        action = ACTION_TEXT.get(record.get("action", ""), record.get("action", ""))
        applied = len(record.get("applied_corrections") or ())
        then = f" → {action}" + (f" ({applied})" if applied else "") if action else ""
        show(f"<b>Round {round_no}</b>: {encode(verdict)}, confidence {review.confidence:.2f}{encode(then)}"
             + (f" <small style='opacity:0.75'>— {encode(review.reasoning)}</small>" if review.reasoning else ""))


def render_issues(reviews: Sequence[Review], reflection: bool = True, rounds: Sequence[dict[str, Any]] = ()) -> None:
    """The review panel: rounds, then issues grouped by type with location and correction."""
    st.markdown("**Review issues**")
    st.caption("What the reviewer found wrong in the draft, grouped by type. Location points at the sentence; "
               "the correction shows the wording it proposed (old → new). The answer is revised until a review "
               "passes or the round limit is reached.")
    if not reflection:
        st.info("Reflection was off for this run, so the draft was not reviewed.")
        return
    if not reviews:
        st.info("No review was made (no draft to review).")
        return
    render_rounds(reviews, rounds)
    grouped = group_issues(reviews)
    if not grouped:
        st.success("The reviewer found no issues.", icon=":material/task_alt:")
        return
    for issue_type, items in grouped.items():
        with st.expander(f"{issue_type} · {len(items)}", expanded=True):
            st.caption(TYPE_HELP.get(issue_type, ""))
            for round_no, issue, fixes in items:
                where = f" <small>at “{encode(issue.location)}”</small>" if issue.location else ""
                show(f"<b>Round {round_no}</b>: {encode(issue.description)}{where}")
                for fix in fixes:
                    show("&nbsp;&nbsp;Correction: " + _correction(fix))
    st.caption(label(f"{sum(len(v) for v in grouped.values())} issue(s) across {len(reviews)} round(s)."))


# -- validation ------------------------------------------------------------------------------------

CHECKS = {
    "citation": "every sentence cites evidence that supports it",
    "timeliness": "the evidence fits the question's time window and is not superseded",
    "comparison": "every item the question compares has evidence",
}

_PILL = "display:inline-block;min-width:3.2em;text-align:center;padding:0 6px;border-radius:8px;font-weight:600;"
PASS = f"<span style='{_PILL}background:rgba(33,195,84,0.18);color:#158237'>pass</span>"
FAIL = f"<span style='{_PILL}background:rgba(255,75,75,0.18);color:#c21f1f'>fail</span>"


def check_results(validation: Validation | None) -> list[tuple[str, bool, list[str]]]:
    """(check, passed, messages) for each of the three checks."""
    issues = validation.issues if validation else ()
    return [(name, not [i for i in issues if i.check == name], [i.message for i in issues if i.check == name])
            for name in CHECKS]


def render_validation(validation: Validation | None, attempts: Sequence[dict[str, Any]] = ()) -> None:
    """The validation panel."""
    st.markdown("**Validation checks**")
    st.caption("Checks run on the final candidate before it is shown. A failed check sends the question back to "
               "retrieval with a changed plan (listed below), a bounded number of times; if it still fails the "
               "answer is refused.")
    if validation is None:
        st.info("Validation did not run (the run stopped earlier).")
        return
    for name, passed, messages in check_results(validation):
        show(f"{PASS if passed else FAIL} <b>{encode(name)}</b> <small style='opacity:0.7'>"
             f"({encode(CHECKS[name])})</small>")
        for message in messages:
            show(f"&nbsp;&nbsp;&nbsp;&nbsp;• {encode(message)}")
    retries = [a for a in attempts if a.get("changes")]
    if retries:
        st.markdown("*Replanning after failed validation*")
        for n, attempt in enumerate(retries, start=1):
            show(f"Try {n}: " + encode("; ".join(attempt["changes"])))
    if validation.evidence_map:
        with st.expander("Evidence map (sentence → evidence chunks)"):
            frame = pd.DataFrame([{"sentence": neutralise_markdown(s), "chunks": ", ".join(ids) or "none"}
                                  for s, ids in validation.evidence_map.items()])
            st.dataframe(frame, hide_index=True, width="stretch")
