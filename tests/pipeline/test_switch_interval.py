"""The pipeline sets how long one thread may hold the interpreter (the ``switch_interval_ms`` setting)."""

from __future__ import annotations

import sys

import pytest

from engine.config import load_settings
from engine.errors import ConfigError
from engine.pipeline import Pipeline


@pytest.mark.unit
def test_a_pipeline_sets_the_process_switch_interval(tmp_path):
    before = sys.getswitchinterval()
    try:
        Pipeline(load_settings(data_dir=tmp_path / "a", switch_interval_ms=2.5))
        assert sys.getswitchinterval() == pytest.approx(0.0025)
        Pipeline(load_settings(data_dir=tmp_path / "b"))
        assert sys.getswitchinterval() == pytest.approx(0.001)  # the default
    finally:
        sys.setswitchinterval(before)


@pytest.mark.unit
def test_a_switch_interval_out_of_range_is_refused_with_its_name(tmp_path):
    with pytest.raises((ConfigError, ValueError), match="switch_interval_ms"):
        load_settings(data_dir=tmp_path, switch_interval_ms=0)
