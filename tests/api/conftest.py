"""Fixtures for the API: the small sample corpus ingested once per session, and apps over copies of it.

``open_client``: no users or tokens configured, so every caller is the local admin. ``secured_client``: four
API tokens (an admin, alice who reads and writes ``manuals`` only, bob who reads and writes ``faq`` only, and a
viewer of everything). Each module gets its own data copy and app; the embedding model loads once per process.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.ui.conftest import SAMPLE_QUESTION, build_small_store

ADMIN_TOKEN = "admin-token-0123456789abcdef"
ALICE_TOKEN = "alice-token-0123456789abcdef"
BOB_TOKEN = "bob-token-0123456789abcdefgh"
VIEWER_TOKEN = "viewer-token-0123456789abcd"
USERS = {
    "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "bob": {"role": "analyst", "grants": {"faq": ["read", "write"]}},
}
TOKENS = {ADMIN_TOKEN: {"name": "ops", "role": "admin"}, ALICE_TOKEN: {"user": "alice"}, BOB_TOKEN: {"user": "bob"},
          VIEWER_TOKEN: "viewer"}
QUESTION = SAMPLE_QUESTION


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="session")
def api_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small corpus (bases ``manuals`` and ``faq``), ingested once. Copy it; do not change it."""
    return build_small_store(tmp_path_factory.mktemp("api-store"))


def make_client(template: Path, folder: Path, **settings) -> TestClient:
    from engine.api import create_app
    from engine.config import load_settings

    data = folder / "data"
    shutil.copytree(template, data)
    app = create_app(load_settings(data_dir=data, **settings))
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def open_client(api_store_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(api_store_template, tmp_path_factory.mktemp("api-open"), max_file_mb=1,
                     api_max_upload_mb=2) as client:
        yield client


@pytest.fixture(scope="module")
def secured_client(api_store_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(api_store_template, tmp_path_factory.mktemp("api-secured"), users=json.dumps(USERS),
                     api_tokens=json.dumps(TOKENS)) as client:
        yield client
