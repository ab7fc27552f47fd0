"""Variant presets and A/B pairs."""

from __future__ import annotations

import pytest

from engine.experiments import ExperimentError, Variant, parse_switch, variant_pair
from engine.pipeline.options import AskOptions

pytestmark = pytest.mark.unit


def test_presets_are_named_options():
    assert Variant.reflection(False) == Variant("reflection off", AskOptions(reflection=False))
    assert Variant.mode("single").options.mode == "single" and Variant.mode("single").name == "single mode"
    v = Variant.strategy("20240101T000000000000Z")
    assert v.options.strategy_version == "20240101T000000000000Z" and v.name.startswith("strategy 2024")
    assert Variant.strategy("active").options.strategy_version is None
    base = AskOptions(provider="offline", max_rounds=3)
    assert Variant.reflection(True, base).options == base.model_copy(update={"reflection": True})


def test_pairs_and_defaults():
    a, b = variant_pair("reflection")
    assert (a.options.reflection, b.options.reflection) == (False, True)
    a, b = variant_pair("reflection", "on", "off")
    assert (a.options.reflection, b.options.reflection) == (True, False)
    a, b = variant_pair("mode")
    assert (a.options.mode, b.options.mode) == ("single", "dual")
    a, b = variant_pair("strategy", "v1", "active")
    assert (a.options.strategy_version, b.options.strategy_version) == ("v1", None)


def test_bad_values_say_what_to_do():
    with pytest.raises(ExperimentError, match="--a VERSION --b VERSION"):
        variant_pair("strategy", "v1")
    with pytest.raises(ExperimentError, match="'dual' or 'single'"):
        variant_pair("mode", "triple")
    with pytest.raises(ExperimentError, match="reflection, strategy, mode"):
        variant_pair("colour")
    with pytest.raises(ExperimentError, match="'on' or 'off'"):
        parse_switch("maybe")
    assert parse_switch("TRUE") and not parse_switch("0")


def test_round_trip():
    v = Variant.mode("dual", AskOptions(knowledge_bases=("manuals",)))
    assert Variant.from_dict(v.to_dict()) == v
