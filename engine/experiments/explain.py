"""What each A/B metric means, and why the two arms of a run differ or not, in plain sentences.

The Experiments page and ``python -m engine experiment`` show these beside the numbers: a person reading
"review issues per answer: 0 vs 1.4" needs to know that reflection off never reviews (so 0 is by design,
not a better answer), and that "no clear difference" on a few questions usually means the two variants gave
the same outcome on most of them.
"""

from __future__ import annotations

from collections import defaultdict

from engine.experiments.gold import GOLD_METRICS
from engine.experiments.report import ExperimentResult

MEANINGS: dict[str, str] = {
    "validation_pass_rate": "share of answers whose citations, dates and comparisons passed validation",
    "review_issues_per_answer": "issues the reviewer raised per answer, over all review rounds (0 when nothing "
                                "reviewed the answer)",
    "refusal_rate": "share of questions the engine refused to answer (no evidence, review never passed, or "
                    "validation failed)",
    "mean_iterations": "revisions per answer after a failed review (0: the first draft was kept)",
    "latency_p50_ms": "median time to an answer, in milliseconds",
    "latency_p95_ms": "time within which 95% of answers came, in milliseconds",
    "failure_rate": "share of runs that stopped on an error",
    "cost_per_answer_usd": "what the model calls of one answer cost at list prices ($0 offline)",
    "tokens_per_answer": "model tokens (input and output) one answer used (0 offline)",
    "answered_accuracy": "of the answerable questions answered, the share whose answer holds a gold answer",
    "refusal_recall": "of the questions the gold file marks unanswerable, the share the engine refused",
    "coverage": "of the answerable questions, the share the engine answered",
}
"""What each metric measures, by metric name (engine/experiments/metrics.py METRICS and gold.GOLD_METRICS)."""
GOLD_NAMES = frozenset(name for name, _ in GOLD_METRICS)


def meaning(metric: str) -> str:
    return MEANINGS.get(metric, "")


def _same_outcomes(result: ExperimentResult) -> tuple[int, int]:
    """(questions both arms answered with the same status and validation outcome, questions run in both)."""
    by_question: dict[int, dict[str, tuple]] = defaultdict(dict)
    for record in result.records:
        by_question[record.index][record.arm] = (record.status, record.validation_passed)
    both = [arms for arms in by_question.values() if "A" in arms and "B" in arms]
    return sum(arms["A"] == arms["B"] for arms in both), len(both)


def _design_notes(result: ExperimentResult) -> list[str]:
    """Differences the variants make by construction, whatever the questions."""
    names = (result.variant_a.name, result.variant_b.name)
    notes = []
    if names == ("reflection off", "reflection on"):
        notes.append("A (reflection off) shows its first draft unreviewed, so its review issues and iterations are "
                     "0 by design, not because its answers are better; B reviews every draft and revises or refuses "
                     "what the review fails, which is where B's extra time goes.")
    elif names[0].endswith(" mode") and names[1].endswith(" mode"):
        notes.append("Both arms review every draft: A with one agent that writes and reviews, B with a separate "
                     "reviewer, so differences come from how strictly each review judges the same drafts.")
    elif names[0].startswith("strategy") and names[0] == names[1]:
        notes.append("A and B run the same strategy version, so any difference is noise.")
    elif names[0].startswith("strategy"):
        notes.append("The two strategy versions plan different searches; the answers differ only where those "
                     "searches found different evidence.")
    return notes


def explain(result: ExperimentResult) -> tuple[str, ...]:
    """Sentences on why the arms differ or not: the variants' design, how often they agreed, each clear
    difference, and what 'no clear difference' rests on."""
    lines = _design_notes(result)
    same, both = _same_outcomes(result)
    if both:
        lines.append(f"On {same} of {both} question(s) both arms ended the same way (same status, same "
                     "validation outcome)" + (": the variants changed no outcome here." if same == both else "."))
    clear = [d for d in result.diffs if d.significant and d.diff is not None]
    for diff in clear:
        lines.append(f"{diff.verdict}: {diff.label} {_fmt(diff.a)} → {_fmt(diff.b)}; its interval "
                     f"[{_fmt(diff.ci_low)}, {_fmt(diff.ci_high)}] excludes 0 ({meaning(diff.metric)}).")
    equal = [d.label for d in result.diffs if d.diff == 0]
    if equal:
        lines.append(f"Equal in both arms: {', '.join(equal)}.")
    noisy = [d.label for d in result.diffs if not d.significant and not d.withheld and d.diff not in (None, 0)]
    if noisy:
        lines.append(f"No clear difference in {', '.join(noisy)}: the arms differ, but by less than the "
                     "question-to-question spread; their intervals include 0, so more questions are needed to tell.")
    unjudged = [d for d in result.diffs if d.withheld and d.diff not in (None, 0)]
    if unjudged:
        lines.append("Different, but not judged on so few questions: " + "; ".join(
            f"{d.label} {_fmt(d.a)} → {_fmt(d.b)}" for d in unjudged) + ".")
    if result.interval_note:
        lines.append(result.interval_note)
    if not result.has_gold:
        lines.append("Without gold answers, none of these says whether an answer is right: a wrong answer that "
                     "passes review and validation counts like a right one.")
    return tuple(lines)


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
