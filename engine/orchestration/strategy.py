"""The retrieval Strategy: routing, weights, fan-out, top_k and the credibility formula.

A Strategy is plain data that users tune live; :mod:`engine.orchestration.router` turns it
plus an Intent into retrieval tasks, and :mod:`engine.retrieval.credibility` scores evidence with it.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.results import SearchType


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RouteRule(_Model):
    """Send questions whose source constraint or text matches ``pattern`` to ``knowledge_bases`` first."""

    pattern: str = Field(description="case-insensitive regular expression on the source constraint and question")
    knowledge_bases: tuple[str, ...]
    exclusive: bool = Field(default=False, description="search only these bases when the rule matches")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        import re

        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"pattern {value!r} is not a valid regular expression: {exc}") from None
        return value


DEFAULTS_PATH = Path(__file__).with_name("default_strategy.toml")
"""The default strategy's routes and regulations base: data about the corpus, kept out of code."""


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    with DEFAULTS_PATH.open("rb") as handle:
        return tomllib.load(handle)


def default_routes() -> tuple[RouteRule, ...]:
    """The routes of ``default_strategy.toml``, checked."""
    return tuple(RouteRule(**route) for route in _defaults().get("routes", []))


class ConstraintWeights(_Model):
    """Multipliers applied to the tasks each rule creates."""

    time: float = Field(default=1.3, ge=0, le=5)
    quantitative: float = Field(default=1.1, ge=0, le=5)
    entity: float = Field(default=0.9, ge=0, le=5)
    source: float = Field(default=1.2, ge=0, le=5)


NEUTRAL = 0.5
"""The middle of every credibility term: default authority 3 and an unknown date score it, and a chunk of neutral
credibility keeps exactly its relevance."""
MAX_CREDIBILITY_BAND = 0.25
"""Beyond +/-25 % credibility would overturn relevance gaps (rank 1 against rank 40 of one search) that are not ties."""
OLD_UNKNOWN_DATE_RECENCY = 0.3
"""The recency strategies saved before the bounded fusion gave undated documents by default (a penalty)."""


class CredibilityFormula(_Model):
    """credibility = task * w_task + authority * w_authority + recency * w_recency (weights sum to 1).

    Relevance dominates: the final score is ``relevance * (1 + credibility_band * (2 * credibility - 1))``, so
    credibility moves a chunk by at most ``credibility_band`` of its relevance and only reorders near-ties.
    Default authority (3) and an unknown date are neutral (0.5), neither rewarded nor penalised.
    """

    w_task: float = Field(default=0.3, ge=0, le=1)
    w_authority: float = Field(default=0.4, ge=0, le=1)
    w_recency: float = Field(default=0.3, ge=0, le=1)
    half_life_days: int = Field(default=730, ge=1, le=36500, description="age at which recency halves")
    unknown_date_recency: float = Field(
        default=NEUTRAL, ge=0, le=1, description="recency of an undated document (0.5: neutral, as old as unknown)"
    )
    credibility_band: float = Field(
        default=0.05, ge=0, le=MAX_CREDIBILITY_BAND,
        description="largest share of its relevance that credibility adds or removes (0.05: +/-5 %; at rrf_k 60 a "
                    "credibility gap of 0.3 moves a chunk about two ranks of one search, the widest gap about six); "
                    "0 ranks by relevance alone",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """Load strategies saved with ``relevance_share`` (final = share * relevance + rest * credibility).

        A share of 1 meant relevance alone and becomes a band of 0; any other share becomes the default band.
        Those files also stored the old default recency of undated documents (0.3), which becomes neutral.
        """
        if not isinstance(data, dict) or "relevance_share" not in data:
            return data
        data = dict(data)
        share = data.pop("relevance_share")
        if "credibility_band" not in data and isinstance(share, (int, float)) and share >= 1:
            data["credibility_band"] = 0.0
        if data.get("unknown_date_recency") == OLD_UNKNOWN_DATE_RECENCY:
            data["unknown_date_recency"] = NEUTRAL
        return data

    @model_validator(mode="after")
    def _sum_to_one(self) -> "CredibilityFormula":
        total = self.w_task + self.w_authority + self.w_recency
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"w_task + w_authority + w_recency must be 1 (got {total:.3f})")
        return self

    def fuse(self, relevance: float, credibility: float) -> float:
        """The final score: ``relevance`` moved by at most ``credibility_band`` of itself, up or down."""
        return relevance * (1 + self.credibility_band * (2 * credibility - 1))


class GraphSettings(_Model):
    """The entity-graph task (engine/retrieval/graph.py), planned on each base searched beside the other tasks.

    The defaults (weight 3, damping 0.7, 5 seed passages, rerank on) were chosen by 5-fold cross-validation on
    retrieval_dev (docs/benchmarks.md, "Entity graph": out-of-fold recall@10 0.950 with hybrid search, 0.940 in the
    pipeline, against 0.895 and 0.885 without the graph)."""

    weight: float = Field(default=3.0, ge=0, le=5, description="weight of the graph task in the fusion; 0 turns it off")
    top_k: int = Field(default=10, ge=1, le=100, description="passages the walk returns per base")
    damping: float = Field(default=0.7, ge=0.05, le=0.95,
                           description="share of the walk's mass that moves on at each step")
    seed_hits: int = Field(default=5, ge=0, le=20,
                           description="best passages of the base's other searches that seed the walk")
    rerank: bool = Field(default=True,
                         description="let the walk's ranking also move passages the searches found (off: the walk "
                                     "only adds passages no search found)")
    synonyms: bool = Field(
        default=False,
        description="also walk the edges between names whose vectors are close ('Obama' and 'Barack Obama'; codes "
                    "such as 'A320' never get one), where the store built them (WORKBENCH_GRAPH_SYNONYMS). Off by "
                    "default: on retrieval_dev and qa_dev they moved recall by at most one passage either way "
                    "(docs/benchmarks.md)")


class Strategy(_Model):
    """Everything the router and the fusion step need; versioned by StrategyStore."""

    name: str = "default"
    description: str = ""
    base_search_type: SearchType = "hybrid"
    search_weights: dict[SearchType, float] = Field(
        default_factory=lambda: {"vector": 1.0, "keyword": 0.8, "hybrid": 1.2}
    )
    constraint_weights: ConstraintWeights = Field(default_factory=ConstraintWeights)
    routes: tuple[RouteRule, ...] = Field(default_factory=lambda: default_routes(),
                                          description="routes; the default ones are in default_strategy.toml")
    default_knowledge_bases: tuple[str, ...] = Field(
        default=(), description="bases searched by default, in order; empty means every base"
    )
    regulations_kb: str = Field(default_factory=lambda: str(_defaults()["regulations_kb"]))
    entity_fanout_limit: int = Field(default=3, ge=0, le=10)
    top_k: int = Field(default=8, ge=1, le=100)
    max_evidence: int = Field(default=8, ge=1, le=50)
    context_chars: int = Field(default=6000, ge=500, le=100_000)
    rrf_k: int = Field(default=60, ge=1, le=1000)
    follow_links: int = Field(
        default=3, ge=0, le=10,
        description="Documents added per ask because the best evidence names them by title (one hop: "
                    "engine/retrieval/links.py); 0 turns this off.",
    )
    graph: GraphSettings = Field(default_factory=GraphSettings)
    credibility: CredibilityFormula = Field(default_factory=CredibilityFormula)

    @field_validator("search_weights")
    @classmethod
    def _all_types(cls, value: dict) -> dict:
        missing = {"vector", "keyword", "hybrid"} - set(value)
        if missing:
            raise ValueError(f"search_weights needs a weight for {sorted(missing)}")
        if any(w < 0 or w > 5 for w in value.values()):
            raise ValueError("search weights must be between 0 and 5")
        return value
