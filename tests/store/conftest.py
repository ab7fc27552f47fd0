from __future__ import annotations

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore


@pytest.fixture()
def settings(tmp_path):
    return load_settings(data_dir=tmp_path / "data", chunk_size=400, chunk_overlap=60)


@pytest.fixture()
def store(settings):
    return KnowledgeBaseStore(settings)


@pytest.fixture()
def ingestor(store):
    return Ingestor(store)
