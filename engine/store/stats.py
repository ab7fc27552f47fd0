"""Corpus statistics for the Documents page and `kb stats`: counts per base, per update year, per authority."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.store.knowledge_bases import KnowledgeBaseStore
from engine.store.schema import DocumentInfo, KnowledgeBaseInfo


@dataclass(frozen=True)
class CorpusStats:
    per_base: list[dict[str, Any]] = field(default_factory=list)      # base, documents, chunks
    by_year: list[dict[str, Any]] = field(default_factory=list)       # year ("undated" when unknown), base, documents
    by_authority: list[dict[str, Any]] = field(default_factory=list)  # authority, base, documents

    def to_dict(self) -> dict[str, Any]:
        return {"per_base": self.per_base, "by_year": self.by_year, "by_authority": self.by_authority}


def corpus_stats(store: KnowledgeBaseStore) -> CorpusStats:
    """Document and chunk counts across every knowledge base."""
    bases = store.list_knowledge_bases()
    return summarise(bases, [d for b in bases for d in store.list_documents(b.name)])


def summarise(bases: list[KnowledgeBaseInfo], documents: list[DocumentInfo]) -> CorpusStats:
    """Statistics from already-listed bases and documents."""
    per_base = [{"base": b.name, "documents": b.documents, "chunks": b.chunks} for b in bases]
    years, authorities = Counter(), Counter()
    for doc in documents:
        years[(doc.update_date[:4] if doc.update_date else "undated", doc.knowledge_base)] += 1
        authorities[(doc.authority, doc.knowledge_base)] += 1
    return CorpusStats(
        per_base=per_base,
        by_year=[{"year": y, "base": b, "documents": n} for (y, b), n in sorted(years.items())],
        by_authority=[{"authority": a, "base": b, "documents": n} for (a, b), n in sorted(authorities.items())],
    )
