"""Orchestration: the versioned Strategy and the router that turns an Intent into retrieval tasks."""

from engine.orchestration.router import StrategyRouter
from engine.orchestration.strategy import ConstraintWeights, CredibilityFormula, RouteRule, Strategy
from engine.orchestration.strategy_store import StrategyStore, StrategyVersion, diff_strategies

__all__ = ["StrategyRouter", "Strategy", "ConstraintWeights", "CredibilityFormula", "RouteRule", "StrategyStore",
           "StrategyVersion", "diff_strategies"]
