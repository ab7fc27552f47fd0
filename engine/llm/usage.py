"""Tokens and estimated cost of the model calls of one ask, per stage and in total.

The LLM generator and reviewer record each call in the ask's :class:`UsageMeter` under the stage it
served ("draft", "revise", "review"); :meth:`UsageMeter.summary` gives an :class:`AskUsage`, which
the pipeline keeps in ``Answer.extra["usage"]`` (read it back with :func:`usage_of`). Offline and
scripted parts make no billed calls: their asks show zero tokens and zero cost.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from engine.llm.base import Usage
from engine.llm.pricing import PriceList, default_prices
from engine.results import Frozen

STAGE_ORDER = ("draft", "review", "revise")


class TokenUsage(Frozen):
    """Model calls and their tokens, for one stage of an ask or for the whole ask.

    ``input_tokens`` are uncached input; ``cache_read_tokens`` were read from the prompt cache and
    ``cache_write_tokens`` written to it. ``cost_usd`` is the estimate from the price list, None when
    a model that was called has no price there.
    """

    calls: int = Field(default=0, ge=0)
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cache_read_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    cost_usd: float | None = 0.0
    unpriced_calls: int = Field(default=0, ge=0, description="calls of a model the price list does not hold")
    models: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        """Every token of the calls: input of all kinds and output."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens + self.output_tokens


class AskUsage(Frozen):
    """What the model calls of one ask used and cost: per stage ("draft", "review", "revise") and in total.

    ``prices_as_of`` is the date of the price list the costs were estimated with.
    """

    stages: dict[str, TokenUsage] = Field(default_factory=dict)
    total: TokenUsage = Field(default_factory=TokenUsage)
    prices_as_of: str = ""

    @property
    def priced(self) -> bool:
        """Every call had a price (the total cost is known)."""
        return self.total.cost_usd is not None


@dataclass(frozen=True)
class CallRecord:
    """One model call: the stage it served, the model, its usage and its estimated cost (None: not priced)."""

    stage: str
    model: str
    usage: Usage
    cost_usd: float | None


class UsageMeter:
    """Collects the model calls of one ask (thread-safe)."""

    def __init__(self, prices: PriceList | None = None) -> None:
        self.prices = prices or default_prices()
        self._calls: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, stage: str, model: str, usage: Usage) -> CallRecord:
        """Add one call of ``model`` serving ``stage``."""
        record = CallRecord(stage, model, usage, self.prices.cost(model, usage))
        with self._lock:
            self._calls.append(record)
        return record

    @property
    def calls(self) -> tuple[CallRecord, ...]:
        with self._lock:
            return tuple(self._calls)

    def summary(self) -> AskUsage:
        """Per-stage and total usage of the calls recorded so far."""
        calls = self.calls
        stages = {stage: total_of(c for c in calls if c.stage == stage)
                  for stage in sorted({c.stage for c in calls}, key=_stage_rank)}
        return AskUsage(stages=stages, total=total_of(calls), prices_as_of=self.prices.as_of)


def total_of(calls: Iterable[CallRecord]) -> TokenUsage:
    """The calls added up; the cost is None when any of them was not priced."""
    calls = list(calls)
    costs = [c.cost_usd for c in calls]
    return TokenUsage(
        calls=len(calls), input_tokens=sum(c.usage.input_tokens for c in calls),
        output_tokens=sum(c.usage.output_tokens for c in calls),
        cache_read_tokens=sum(c.usage.cache_read_input_tokens for c in calls),
        cache_write_tokens=sum(c.usage.cache_creation_input_tokens for c in calls),
        cost_usd=None if any(c is None for c in costs) else round(sum(costs), 6),  # type: ignore[arg-type]
        unpriced_calls=sum(1 for c in costs if c is None),
        models=tuple(dict.fromkeys(c.model for c in calls if c.model)),
    )


def describe(usage: AskUsage) -> str:
    """One line: calls, tokens and estimated cost per stage and in total ("no model calls" offline)."""
    if not usage.total.calls:
        return "no model calls (cost $0.00)"

    def one(name: str, used: TokenUsage) -> str:
        cost = "not priced" if used.cost_usd is None else f"${used.cost_usd:.4f}"
        cache = (f", cache read {used.cache_read_tokens:,} / write {used.cache_write_tokens:,}"
                 if used.cache_read_tokens or used.cache_write_tokens else "")
        return f"{name} {used.calls} call(s), in {used.input_tokens:,}{cache}, out {used.output_tokens:,}: {cost}"

    parts = [one(stage, used) for stage, used in usage.stages.items()] + [one("total", usage.total)]
    return "; ".join(parts) + (f" (prices of {usage.prices_as_of})" if usage.prices_as_of else "")


def usage_of(answer: Any) -> AskUsage:
    """The usage an Answer (or its stored payload) records; an empty AskUsage when it records none."""
    extra = answer.get("extra") if isinstance(answer, dict) else getattr(answer, "extra", None)
    found = (extra or {}).get("usage")
    if isinstance(found, AskUsage):
        return found
    return AskUsage.model_validate(found) if isinstance(found, dict) else AskUsage()


def _stage_rank(stage: str) -> tuple[int, str]:
    return (STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER), stage)
