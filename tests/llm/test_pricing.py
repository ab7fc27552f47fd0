"""The price list and the cost of a call: every token kind, batch discount, long prompts, unknown models."""

from __future__ import annotations

from datetime import date

import pytest

from engine.errors import ConfigError
from engine.llm.base import Usage
from engine.llm.pricing import default_prices, read_prices
from engine.llm.usage import AskUsage, UsageMeter, usage_of

pytestmark = pytest.mark.unit


def test_the_shipped_list_is_dated_and_prices_the_default_models():
    prices = default_prices()
    assert date.fromisoformat(prices.as_of) and prices.source.startswith("https://")
    for model in ("claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-5-5"):
        assert prices.find(model) is not None, model


def test_ids_find_their_model_and_never_a_neighbour():
    prices = default_prices()
    assert prices.find("claude-sonnet-4-5-20250929").model == "claude-sonnet-4-5"
    assert prices.find("claude-3-5-haiku-latest").model == "claude-3-5-haiku"
    assert prices.find("claude-opus-5-5").model == "claude-opus-5-5"
    assert prices.find("claude-opus-5").model == "claude-opus-5"
    assert prices.find("claude-sonnet-5-5-20261007").model == "claude-sonnet-5-5"
    assert prices.find("claude-unknown-9") is None and prices.find("") is None


def test_each_token_kind_is_billed_at_its_rate():
    prices = default_prices()
    usage = Usage(input_tokens=1000, output_tokens=200, cache_read_input_tokens=2000,
                  cache_creation_input_tokens=500, cache_creation_1h_input_tokens=100)
    # Sonnet 5.5: $2 input, $10 output, $0.10 cache read, $2.50 five-minute and $4 one-hour writes per MTok
    expected = (1000 * 2 + 200 * 10 + 2000 * 0.10 + 400 * 2.50 + 100 * 4) / 1e6
    assert prices.cost("claude-sonnet-5-5", usage) == pytest.approx(expected)
    assert prices.cost("claude-sonnet-5-5", Usage(1000, 200, service_tier="batch")) == pytest.approx(0.002)
    assert prices.cost("claude-unknown-9", usage) is None


def test_a_long_haiku_5_5_prompt_is_billed_at_the_long_prompt_rates():
    prices = default_prices()
    short = prices.cost("claude-haiku-5-5", Usage(100_000, 1000))
    long = prices.cost("claude-haiku-5-5", Usage(90_000, 1000, cache_read_input_tokens=20_000))
    assert short == pytest.approx((100_000 * 0.10 + 1000 * 0.50) / 1e6)
    assert long == pytest.approx((90_000 * 0.50 + 1000 * 2.50 + 20_000 * 0.05) / 1e6)


def test_a_list_without_its_date_or_a_price_is_refused(tmp_path):
    undated = tmp_path / "prices.toml"
    undated.write_text('[models.m]\ninput = 1\noutput = 1\ncache_write_5m = 1\ncache_write_1h = 1\ncache_read = 1\n')
    with pytest.raises(ConfigError, match="as_of"):
        read_prices(undated)
    partial = tmp_path / "partial.toml"
    partial.write_text("as_of = 2026-12-01\n[models.m]\ninput = 1\noutput = 1\n")
    with pytest.raises(ConfigError, match="cache_write_5m, cache_write_1h, cache_read"):
        read_prices(partial)


def test_the_meter_adds_up_stages_and_an_unpriced_model_makes_the_total_unknown():
    meter = UsageMeter()
    meter.record("draft", "claude-sonnet-5-5", Usage(1000, 100))
    meter.record("review", "claude-haiku-5-5", Usage(800, 50, cache_read_input_tokens=400))
    meter.record("review", "claude-haiku-5-5", Usage(200, 40, cache_creation_input_tokens=300))
    summary = meter.summary()
    assert list(summary.stages) == ["draft", "review"] and summary.stages["review"].calls == 2
    assert summary.stages["review"].cache_read_tokens == 400 and summary.stages["review"].cache_write_tokens == 300
    assert summary.total.tokens == 1000 + 100 + 800 + 50 + 400 + 200 + 40 + 300 and summary.priced
    meter.record("revise", "some-model", Usage(10, 10))
    assert meter.summary().total.cost_usd is None and meter.summary().stages["draft"].cost_usd is not None


def test_offline_answers_record_zero_cost():
    empty = UsageMeter().summary()
    assert empty.total.calls == 0 and empty.total.cost_usd == 0.0 and empty.total.tokens == 0
    assert usage_of({"extra": {}}) == AskUsage() and usage_of({"extra": {"usage": empty.model_dump()}}) == empty


def test_the_usage_line_names_each_stage_and_the_total():
    from engine.llm.usage import describe

    meter = UsageMeter()
    meter.record("draft", "claude-sonnet-5-5", Usage(1000, 100, cache_creation_input_tokens=2000))
    line = describe(meter.summary())
    assert line.startswith("draft 1 call(s), in 1,000, cache read 0 / write 2,000, out 100: $0.0080")
    assert "; total 1 call(s)" in line and line.endswith(f"(prices of {default_prices().as_of})")
    assert describe(UsageMeter().summary()) == "no model calls (cost $0.00)"
