"""Engine objects built once per process (st.cache_resource) and shared by every page."""

from __future__ import annotations

import streamlit as st

from engine.config import Settings, default_settings
from engine.store import KnowledgeBaseStore


@st.cache_resource(show_spinner="Loading settings…")
def get_settings() -> Settings:
    return default_settings()


@st.cache_resource(show_spinner="Opening the knowledge bases…")
def get_store() -> KnowledgeBaseStore:
    return KnowledgeBaseStore(get_settings())
