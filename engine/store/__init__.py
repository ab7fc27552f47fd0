"""Knowledge bases on LanceDB."""

from engine.store.knowledge_bases import KnowledgeBaseStore
from engine.store.schema import DocumentInfo, KnowledgeBaseInfo, SearchHit
from engine.store.search import MODES, LegMemo, Outcome, SearchRequest, make_filters

__all__ = ["KnowledgeBaseStore", "DocumentInfo", "KnowledgeBaseInfo", "SearchHit", "MODES", "LegMemo", "Outcome", "SearchRequest", "make_filters"]
