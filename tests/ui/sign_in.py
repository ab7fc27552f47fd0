"""Helpers for page tests with users configured: put users in WORKBENCH_USERS and sign in through the form."""

from __future__ import annotations

import json

import pytest

from engine.identity import hash_secret
from tests.ui.conftest import reset_engine_caches

PASSWORD = "pw-{name}"
"""Each test user's password."""


def configure_users(monkeypatch: pytest.MonkeyPatch, users: dict[str, dict]) -> None:
    """Set WORKBENCH_USERS (each user's password is ``pw-<name>``) and forget cached engine objects."""
    entries = {name: {**entry, "password_hash": hash_secret(PASSWORD.format(name=name), n=16)}
               for name, entry in users.items()}
    monkeypatch.setenv("WORKBENCH_USERS", json.dumps(entries))
    reset_engine_caches()


def sign_in(at, name: str, password: str | None = None):
    """Run the app (the sign-in form), sign in as ``name`` and return the app on the Ask page."""
    at.run()
    at.text_input(key="sign_in.name").input(name)
    at.text_input(key="sign_in.password").input(password if password is not None else PASSWORD.format(name=name))
    next(b for b in at.button if b.label == "Sign in").click()
    return at.run()
