"""Adjust a retrieval plan after a failed validation: date filters, keyword tasks, larger k."""

from __future__ import annotations

from collections.abc import Sequence

from engine.orchestration.strategy import MAX_CREDIBILITY_BAND, Strategy
from engine.results import Intent, RetrievalTask, SearchFilters, Validation

DEEPER = 2
"""How many times more candidates a task asks for when a plan searches deeper (``widen``, a citation retry)."""
MOST_K = 200
"""The most candidates one task asks for (``RetrievalTask.top_k``'s bound)."""


def adjust_plan(
    tasks: Sequence[RetrievalTask], validation: Validation, intent: Intent, strategy: Strategy,
) -> tuple[list[RetrievalTask], Strategy, list[str]]:
    """A new plan aimed at the failed checks, the strategy to fuse with, and what changed (in words)."""
    failed = {issue.check for issue in validation.issues}
    new_tasks = list(tasks)
    changes: list[str] = []
    updates: dict = {}
    time = intent.constraints.time
    if "timeliness" in failed:
        if time is not None and (time.start or time.end):
            # A closed window ("in 2023", "2023 reports") filters from its start only: a document about a
            # period is often published after it (the 2023 report, issued in March 2024), and the timeliness
            # check counts it as of the period by its title. Out-of-window chunks the check named are left
            # out by the caller; fusion ranks chunks known to be about another period lower.
            until = None if time.start else time.end
            window = SearchFilters(since=time.start, until=until)
            new_tasks = [t.model_copy(update={"filters": window}) if t.priority == 0 else t for t in new_tasks]
            changes.append(f"date filter {time.start or '...'} to {until or '...'} added to the base tasks")
        formula = strategy.credibility
        shifted = min(formula.w_recency + 0.2, 1.0)
        rest = 1.0 - shifted
        scale = rest / max(formula.w_task + formula.w_authority, 1e-9)
        updates["credibility"] = formula.model_copy(update={
            "w_recency": round(shifted, 4), "w_task": round(formula.w_task * scale, 4),
            "w_authority": round(1.0 - shifted - round(formula.w_task * scale, 4), 4),
            "credibility_band": min(formula.credibility_band * 2, MAX_CREDIBILITY_BAND)})
        changes.append("recency weight raised and credibility band doubled so that current revisions outrank "
                       "superseded ones of near-equal relevance")
    if "comparison" in failed:
        kbs = sorted({t.knowledge_base for t in tasks})
        missing = [e for e in intent.entity_texts if any(e.lower() in i.message.lower() for i in validation.issues)]
        for entity in missing or intent.entity_texts:
            for kb in kbs:
                new_tasks.append(RetrievalTask(
                    query=f"{entity} {' '.join(w for w in intent.search_query.split() if w.lower() != entity.lower())}",
                    search_type="keyword", knowledge_base=kb, weight=strategy.search_weights["keyword"],
                    priority=9, top_k=strategy.top_k * 2,
                    reason=f"retry: keyword task for '{entity}', which lacked evidence", 
                ))
        changes.append(f"keyword tasks added for {', '.join(missing or intent.entity_texts)}")
    if "citation" in failed or not changes:
        new_tasks = [t.model_copy(update={"top_k": min(t.top_k * DEEPER, MOST_K)}) for t in new_tasks]
        updates["max_evidence"] = min(strategy.max_evidence + 4, 50)
        changes.append("k doubled per task and evidence limit raised by 4")
    return sorted(new_tasks, key=lambda t: t.priority), strategy.model_copy(update=updates), changes


def widen(tasks: Sequence[RetrievalTask], strategy: Strategy) -> tuple[list[RetrievalTask], Strategy]:
    """The same plan searching deeper: k doubled per task and room for more evidence."""
    wider = [t.model_copy(update={"top_k": min(t.top_k * DEEPER, MOST_K)}) for t in tasks]
    return wider, strategy.model_copy(update={"max_evidence": min(strategy.max_evidence + 4, 50)})
