"""Fixtures for experiment tests."""

from __future__ import annotations

import pytest

from tests.experiments.fakes import FakePipeline, reflection_respond


@pytest.fixture()
def fake_pipeline() -> FakePipeline:
    return FakePipeline(reflection_respond)
