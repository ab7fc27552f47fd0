"""What a model call cost, estimated from its token counts and the price list in ``prices.toml``.

The list gives US dollars per million tokens for each Claude model (input, output, five-minute and
one-hour cache writes, cache reads, and a second set above a prompt length where a model has one),
the date it was checked and the Message Batches discount. A model id finds its prices as it is,
without a dated snapshot suffix (``claude-sonnet-4-5-20250929``) or ``-latest``, or by the longest
listed id it starts with at a ``-``. A model that finds none is "not priced" (cost None), never
priced as another model.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from engine.errors import ConfigError
from engine.llm.base import Usage

PRICES_FILE = Path(__file__).with_name("prices.toml")
PER_TOKENS = 1_000_000
_SNAPSHOT = re.compile(r"-(?:\d{8}|latest)$")
RATES = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")


@dataclass(frozen=True)
class Rates:
    """US dollars per million tokens of each kind."""

    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str) -> "Rates":
        missing = [name for name in RATES if not isinstance(table.get(name), (int, float))]
        if missing:
            raise ConfigError(f"{PRICES_FILE.name}: {where} lacks a price for {', '.join(missing)}; add it in "
                              "US dollars per million tokens.")
        return cls(**{name: float(table[name]) for name in RATES})

    def cost(self, usage: Usage) -> float:
        """Dollars for ``usage`` at these rates (no batch discount)."""
        one_hour = min(usage.cache_creation_1h_input_tokens, usage.cache_creation_input_tokens)
        dollars = (usage.input_tokens * self.input + usage.output_tokens * self.output
                   + usage.cache_read_input_tokens * self.cache_read
                   + (usage.cache_creation_input_tokens - one_hour) * self.cache_write_5m
                   + one_hour * self.cache_write_1h)
        return dollars / PER_TOKENS


@dataclass(frozen=True)
class ModelPrices:
    """One model's rates, and the rates for prompts above ``long_above`` tokens where it has them."""

    model: str
    rates: Rates
    long_rates: Rates | None = None
    long_above: int | None = None

    def rates_for(self, usage: Usage) -> Rates:
        """The rates a call with ``usage`` is billed at (by its prompt length)."""
        if self.long_rates is not None and self.long_above is not None and usage.prompt_tokens > self.long_above:
            return self.long_rates
        return self.rates


@dataclass(frozen=True)
class PriceList:
    """Prices per model, the date they were checked, their source and the batch discount."""

    models: Mapping[str, ModelPrices]
    as_of: str
    source: str = ""
    batch_discount: float = 0.5

    def find(self, model: str) -> ModelPrices | None:
        """The prices of ``model``: as listed, without its snapshot suffix, or by the longest listed prefix."""
        if not model:
            return None
        for candidate in (model, _SNAPSHOT.sub("", model)):
            if candidate in self.models:
                return self.models[candidate]
        base = _SNAPSHOT.sub("", model)
        prefixes = [name for name in self.models if base.startswith(name + "-")]
        return self.models[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, usage: Usage) -> float | None:
        """Estimated dollars for one call of ``model`` with ``usage``; None when the model is not priced."""
        prices = self.find(model)
        if prices is None:
            return None
        dollars = prices.rates_for(usage).cost(usage)
        return dollars * self.batch_discount if usage.service_tier == "batch" else dollars


def read_prices(path: Path = PRICES_FILE) -> PriceList:
    """The price list in ``path``; ConfigError says what is wrong with it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read the price list {path}: {exc}.") from exc
    as_of = data.get("as_of")
    if not isinstance(as_of, date):
        raise ConfigError(f"{path.name} needs an as_of date (the day the prices were checked), "
                          "e.g. as_of = 2026-12-01.")
    discount = float(data.get("batch_discount", 0.5))
    if not 0 < discount <= 1:
        raise ConfigError(f"{path.name}: batch_discount must be in (0, 1], got {discount}.")
    models: dict[str, ModelPrices] = {}
    for name, table in (data.get("models") or {}).items():
        long = table.get("long_prompt")
        models[name] = ModelPrices(
            model=name, rates=Rates.from_table(table, name),
            long_rates=Rates.from_table(long, f"{name}.long_prompt") if long else None,
            long_above=int(long["above_tokens"]) if long and "above_tokens" in long else None)
    return PriceList(MappingProxyType(models), as_of.isoformat(), str(data.get("source", "")), discount)


@lru_cache(maxsize=1)
def default_prices() -> PriceList:
    """The price list shipped with the engine, read once."""
    return read_prices()
