"""A small store with two bases, built once: ``manuals`` (an axle-nut note) and ``faq`` (a note no one else should
see). Tests that change it take ``store_copy``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore

SECRET = "Quarantined hydraulic manifold zephyrine tolerance is 42 microns."


@pytest.fixture(scope="session")
def two_bases(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("identity") / "data"
    ingestor = Ingestor(KnowledgeBaseStore(load_settings(data_dir=data)))
    ingestor.ingest_records([{"id": "torque-note", "title": "Axle nut torque",
                              "text": "The A320 axle nut final torque is 300 N.m."}], "manuals")
    ingestor.ingest_records([{"id": "secret-note", "title": "Zephyrine manifold", "text": SECRET}], "faq")
    assert ingestor.store.sentence_filler.wait(120)  # a template copied whole: its sentence vectors stored too
    return data


@pytest.fixture()
def store_copy(two_bases, tmp_path) -> KnowledgeBaseStore:
    data = tmp_path / "data"
    shutil.copytree(two_bases, data)
    return KnowledgeBaseStore(load_settings(data_dir=data))
