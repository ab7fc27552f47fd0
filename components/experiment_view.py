"""The Experiments page's pieces: question-set and variant pickers, the run with a progress bar, results, rollout."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from components.safe_text import label, neutralise_markdown
from engine.errors import EngineError
from engine.experiments import (
    GOLD_METRICS, MIN_PAIRED_QUESTIONS, ExperimentResult, ExperimentStore, QuestionSet, RolloutStore, Variant,
    questions_from_traces, run_experiment, sample_questions, variant_pair,
)
from engine.experiments.explain import explain, meaning
from engine.experiments.rollout import format_share
from engine.orchestration import StrategyStore

SOURCES = {
    "samples": "Sample questions",
    "upload": "Upload a file",
    "traces": "Past questions (traces)",
}
KINDS = {
    "reflection": "Reflection off (A) vs on (B)",
    "strategy": "Two strategy versions",
    "mode": "Single-agent (A) vs dual-agent (B) review",
}
ACTIVE = "active"


def question_set_picker(traces: Any) -> QuestionSet | None:
    """Where the questions come from; the parsed set, or None (with the reason shown) when there is none."""
    source = st.radio("Questions", list(SOURCES), format_func=SOURCES.get, horizontal=True,
                      key="experiments.source",
                      help="Samples: sample_docs/questions.txt. Upload: one question per line (# for comments), "
                           "JSONL with a \"question\" field, or a gold file in the eval qa format "
                           "({\"id\", \"question\", \"answers\": [...], \"answerable\": true|false}) to score "
                           "answers and refusals. Traces: distinct questions asked before, newest first.")
    try:
        if source == "samples":
            return sample_questions()
        if source == "traces":
            return questions_from_traces(traces)
        upload = st.file_uploader("Question file (.txt, .jsonl, or .jsonl with gold answers)", type=["txt", "jsonl"],
                                  key="experiments.file")
        if upload is None:
            st.caption("Choose a file to continue.")
            return None
        return QuestionSet.from_upload(upload.name, upload.getvalue())
    except EngineError as exc:
        st.error(label(str(exc), limit=600))
        return None


def questions_frame(questions: QuestionSet) -> pd.DataFrame:
    """The questions (neutralised: they may come from a file or a trace), with gold answers when the set has them."""
    rows = [{"question": neutralise_markdown(q)} for q in questions.questions]
    for row, gold in zip(rows, questions.gold):
        row["answerable"] = gold.answerable
        row["gold answers"] = neutralise_markdown(" | ".join(gold.answers))
    return pd.DataFrame(rows)


def gold_caption(questions: QuestionSet) -> str:
    """What the run will measure against the gold answers, or that there are none."""
    if not questions.gold:
        return ("No gold answers in this set, so right and wrong answers look the same below; upload an eval qa "
                "JSONL file to score answered accuracy and refusal recall.")
    answerable = sum(g.answerable for g in questions.gold)
    return (f"Gold answers for every question ({answerable} answerable, {len(questions.gold) - answerable} not): "
            "each arm's answers are scored for answered accuracy, refusal recall and coverage, as `eval qa` does.")


def _version_label(versions: dict[str, str]) -> Any:
    return lambda v: "the active version (at run time)" if v == ACTIVE else versions.get(v, v)


def variant_picker(strategies: StrategyStore) -> tuple[Variant, Variant] | None:
    """Which two variants to compare; for strategies, two versions."""
    kind = st.radio("Compare", list(KINDS), format_func=KINDS.get, horizontal=True, key="experiments.kind")
    a = b = None
    if kind == "strategy":
        try:
            stored = strategies.versions()
        except EngineError as exc:
            st.error(label(str(exc), limit=600))
            return None
        names = {v.version: f"{v.version}{' · ' + v.note if v.note else ''}{' (active)' if v.active else ''}"
                 for v in stored}
        options = [ACTIVE, *names]
        c1, c2 = st.columns(2)
        a = c1.selectbox("Strategy A", options, index=min(2, len(options) - 1), format_func=_version_label(names),
                         key="experiments.strategy_a")
        b = c2.selectbox("Strategy B", options, index=0, format_func=_version_label(names),
                         key="experiments.strategy_b")
        if a == b:
            st.warning("A and B are the same version, so any difference is noise. Save another version on the "
                       "Strategy page to compare two.")
    try:
        return variant_pair(kind, a, b)
    except EngineError as exc:
        st.error(label(str(exc), limit=600))
        return None


def run_with_progress(pipeline: Any, questions: QuestionSet, variants: tuple[Variant, Variant], limit: int,
                      store: ExperimentStore) -> ExperimentResult | None:
    """Run the experiment with a progress bar (one tick per answer); EngineError is shown, not raised."""
    total = 2 * min(limit, len(questions))
    bar = st.progress(0.0, text=f"Starting: {total} answers to produce…")
    done = {"n": 0}
    names = {"A": variants[0].name, "B": variants[1].name}

    def progress(index: int, arm: str, answer: Any) -> None:
        done["n"] += 1
        bar.progress(done["n"] / total, text=f"Question {index + 1} of {total // 2} · {arm} ({names[arm]}): "
                                             f"{answer.status} · {done['n']} of {total} answers")

    try:
        result = run_experiment(pipeline, questions, variants[0], variants[1], limit=limit, progress=progress,
                                store=store)
    except EngineError as exc:
        bar.empty()
        st.error("The experiment did not run: " + label(str(exc), limit=600))
        return None
    bar.progress(1.0, text=f"Done: {total} answers in {result.duration_s:.1f} s.")
    return result


def fmt(value: float | None) -> str:
    """A metric value for display: whole numbers past 1000 (milliseconds), else three significant digits."""
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def metrics_frame(result: ExperimentResult) -> pd.DataFrame:
    """One row per metric: A, B, B − A, its confidence interval and the verdict."""
    level = f"{result.confidence:.0%} CI"
    rows = []
    for row, diff in zip(result.rows(), result.diffs):
        low, high = row["ci_low"], row["ci_high"]
        digits = {"cost_per_answer_usd": 6, "tokens_per_answer": 0}.get(
            row["metric"], 0 if row["metric"].startswith("latency") else 3)
        interval = "n/a" if low is None or high is None else f"[{fmt(low)}, {fmt(high)}]"
        rows.append({
            "metric": row["label"], **{k: None if row[v] is None else round(row[v], digits)
                                       for k, v in (("A", "A"), ("B", "B"), ("B − A", "diff"))},
            level: "withheld" if diff.withheld else interval,
            "better when": row["better"], "verdict": row["verdict"], "what it measures": meaning(row["metric"]),
        })
    return pd.DataFrame(rows, columns=["metric", "A", "B", "B − A", level, "better when", "verdict",
                                       "what it measures"])


def answers_frame(result: ExperimentResult) -> pd.DataFrame:
    """One row per answer (question text neutralised: it may come from an uploaded file or a trace)."""
    rows = [{
        "#": r["index"] + 1, "arm": r["arm"], "variant": r["variant"], "question": neutralise_markdown(r["question"]),
        "status": r["status"], "validation passed": bool(r["validation_passed"]), "review issues": r["review_issues"],
        "iterations": r["iterations"], "latency ms": r["latency_ms"], "trace": r["trace_id"],
        "error": neutralise_markdown(r.get("error") or ""),
        **({"answerable (gold)": r["answerable"], "correct (gold)": r["correct"]} if result.has_gold else {}),
    } for r in result.answer_rows()]
    return pd.DataFrame(rows)


def gold_frame(result: ExperimentResult) -> pd.DataFrame:
    """Per arm, the gold metrics: answered accuracy, refusal recall, coverage."""
    rows = [{"arm": arm.arm, "variant": arm.variant,
             **{label.removesuffix(" (gold)"): arm.values.get(name) for name, label in GOLD_METRICS}}
            for arm in result.arms]
    return pd.DataFrame(rows)


def render_why(result: ExperimentResult) -> None:
    """Why the arms differ or not, in sentences from the engine."""
    st.subheader("Why the arms differ, or do not", anchor=False)
    st.markdown("\n".join(f"- {label(line, limit=600)}" for line in explain(result)))


def render_gold(result: ExperimentResult) -> None:
    """Each arm against the gold answers; nothing (the summary says why) when the questions had none."""
    if not result.has_gold:
        return
    st.subheader("Against the gold answers", anchor=False)
    st.caption("Answered accuracy: answered answerable questions whose answer holds a gold answer. Refusal recall: "
               "unanswerable questions refused. Coverage: answerable questions answered. Scored as `eval qa` does.")
    st.dataframe(gold_frame(result), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in ("answered accuracy", "refusal recall", "coverage")})


def cost_note(result: ExperimentResult) -> str:
    """What the model calls cost per answer in each arm (with reflection on vs off: what review costs)."""
    def dollars(value) -> str:
        return "unknown" if value is None else f"${value:,.4f}"

    a, b = (result.arm(arm).values for arm in ("A", "B"))
    if "cost_per_answer_usd" not in a:
        return "Model cost was not recorded for this experiment (it ran before costs were kept)."
    cost_a, cost_b = a.get("cost_per_answer_usd"), b.get("cost_per_answer_usd")
    if not cost_a and not cost_b:
        return "Model cost per answer: $0 in both arms (no billed model calls, e.g. the offline provider)."
    extra = "" if cost_a is None or cost_b is None else f", B − A {dollars(cost_b - cost_a)}"
    return (f"Model cost per answer at list prices: A {dollars(cost_a)}, B {dollars(cost_b)}{extra}; tokens per "
            f"answer: A {a.get('tokens_per_answer') or 0:,.0f}, B {b.get('tokens_per_answer') or 0:,.0f}.")


def render_summary(result: ExperimentResult) -> None:
    a, b = result.arm("A"), result.arm("B")
    st.markdown(f"**A:** {label(a.variant)} · **B:** {label(b.variant)}")
    st.caption(f"Experiment {result.id} · {len(result.questions)} questions from {label(result.source)} · "
               f"{'paired' if result.paired else 'unpaired'} bootstrap, {result.n_resamples} resamples · "
               f"{result.duration_s:.1f} s. A difference is clear only when its interval excludes 0; below "
               f"{MIN_PAIRED_QUESTIONS} paired questions no interval or verdict is given.")
    counts = pd.DataFrame([{"arm": m.arm, "variant": m.variant, "answers": m.answers, "success": m.successes,
                            "refused": m.refusals, "failed": m.failures} for m in (a, b)])
    st.dataframe(counts, hide_index=True, width="stretch")
    st.caption(cost_note(result))
    if result.failures:
        st.warning(f"{result.failures} run(s) failed; see the error column below and their traces.")
    if result.interval_note:
        st.info(result.interval_note, icon=":material/info:")


def render_answers(result: ExperimentResult) -> None:
    with st.expander("Every answer", expanded=False):
        st.caption("Open a trace id on the Traces page to see the whole run.")
        st.dataframe(answers_frame(result), hide_index=True, width="stretch")


def render_history(store: ExperimentStore) -> str | None:
    """Saved experiments to reopen; returns the id picked (None: keep what is shown)."""
    try:
        saved = store.list(limit=50)
    except EngineError as exc:
        st.error(label(str(exc), limit=600))
        return None
    if not saved:
        st.caption("No saved experiments yet.")
        return None
    labels = {s["id"]: f"{s['id']} · {s['variant_a']} vs {s['variant_b']} · {s['questions']} questions"
              for s in saved}
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    choice = left.selectbox("Saved experiments", list(labels), format_func=labels.get, key="experiments.saved")
    return choice if right.button("Open", key="experiments.open") else None


def render_rollout(rollout: RolloutStore) -> None:
    """The share of Ask questions that get reflection, saved through the experiments API."""
    try:
        setting = rollout.get()
    except EngineError as exc:
        st.error(label(str(exc), limit=600))
        return
    since = f" since {setting.updated_at}" if setting.updated_at else " (the default; never changed)"
    st.caption(f"Ask questions with reflection on “auto” get reflection with this probability. Each session and "
               f"question always lands in the same arm, and the trace records which. "
               f"Currently {format_share(setting.share)}{since}.")
    share = st.slider("Share of Ask traffic with reflection (%)", 0, 100, int(round(setting.share)), step=5,
                      key="experiments.rollout_share")
    if st.button("Save rollout share", key="experiments.rollout_save", disabled=share == setting.share):
        try:
            saved = rollout.set(share)
        except EngineError as exc:
            st.error(label(str(exc), limit=600))
        else:
            st.success(f"Saved: {format_share(saved.share)} of Ask questions now get reflection.")

