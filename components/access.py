"""The engine objects as this session's signed-in user sees them: the store, pipeline, ingestor and traces
limited to the knowledge bases they may read. Views made per run by the shared facade
(:class:`engine.facade.Workbench`, the one the API uses); nothing shared is changed."""

from __future__ import annotations

import streamlit as st

from components.factories import get_directory, get_workbench
from components.session import IDENTITY
from engine.facade import TraceView
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
    return get_workbench().store_for(current_identity())


def pipeline():
    return get_workbench().pipeline_for(current_identity())


def ingestor():
    return get_workbench().ingestor_for(current_identity())


def traces() -> TraceView:
    return get_workbench().traces_for(current_identity())
