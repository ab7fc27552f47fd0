"""Retrieval: run tasks, fuse evidence by weight and credibility, fit the context budget."""

from engine.retrieval.credibility import credibility, recency
from engine.retrieval.evidence import allot_budget, fit_text
from engine.retrieval.fusion import TaskRun, task_label
from engine.retrieval.retriever import RetrievalResult, Retriever

__all__ = ["credibility", "recency", "RetrievalResult", "Retriever", "TaskRun", "allot_budget", "fit_text", "task_label"]
