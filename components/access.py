"""The engine objects as this session's signed-in user sees them: the store, pipeline, ingestor and traces
limited to the knowledge bases they may read. Built per run from the shared factories; nothing shared is changed."""

from __future__ import annotations

from typing import Any

import streamlit as st

from components.factories import get_directory, get_pipeline, get_store, get_trace_store
from components.session import IDENTITY
from engine.identity import LOCAL_ADMIN, Identity
from engine.store.scoped import ScopedStore


def current_identity() -> Identity:
    """The signed-in user, or the local admin when no users are configured (app.py asks for sign-in first)."""
    if not get_directory().configured:
        return LOCAL_ADMIN
    identity = st.session_state.get(IDENTITY)
    if identity is None:  # a page reached without signing in: stop rather than show anything
        st.warning("Sign in first.")
        st.stop()
    return identity


def store() -> ScopedStore:
    return ScopedStore(get_store(), current_identity())


def pipeline():
    return get_pipeline().with_store(store())


def ingestor():
    from engine.ingest import Ingestor

    return Ingestor(store())


class Traces:
    """The trace store showing only runs over bases the user may read (and their own failed runs)."""

    def __init__(self, identity: Identity) -> None:
        self._inner = get_trace_store()
        self._user = identity.name
        self._readable = None if identity.unrestricted else store().knowledge_base_names()

    def list(self, *args: Any, **kwargs: Any):
        return self._inner.list(*args, readable=self._readable, user=self._user, **kwargs)

    def get(self, trace_id: str) -> dict[str, Any]:
        return self._inner.get(trace_id, readable=self._readable, user=self._user)

    def count(self) -> int:
        return self._inner.count(readable=self._readable, user=self._user)


def traces() -> Traces:
    return Traces(current_identity())
