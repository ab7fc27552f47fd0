from __future__ import annotations

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
from tests import helpers


@pytest.fixture()
def settings(tmp_path):
    return load_settings(data_dir=tmp_path / "data", chunk_size=400, chunk_overlap=60)


@pytest.fixture()
def store(settings):
    return KnowledgeBaseStore(settings)


@pytest.fixture()
def ingestor(store):
    return Ingestor(store)


@pytest.fixture()
def filled(tmp_path, ingestor, store):
    """Base 'manuals' holding one document per format, base 'faq' one dated forum post."""
    helpers.write_corpus(tmp_path / "docs")
    ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    ingestor.ingest_bytes([("faq.md", b"---\nupdate_date: 2021-02-03\nauthority: 1\ndoc_type: forum_post\n---\n"
                                      b"# Forum\n\nSomeone says axle nut torque is 90 lbf.ft.")], "faq")
    return store
