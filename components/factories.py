"""Engine objects built once per process (st.cache_resource) and shared by every page.

Pages never construct engine objects themselves; they call these factories. Objects returned
here are shared across sessions and must not be mutated per user.
"""

from __future__ import annotations

import streamlit as st

from engine.config import Settings, default_settings
from engine.store import KnowledgeBaseStore


@st.cache_resource(show_spinner=False)
def get_settings() -> Settings:
    return default_settings()


@st.cache_resource(show_spinner="Opening the knowledge bases…")
def get_store() -> KnowledgeBaseStore:
    return KnowledgeBaseStore(get_settings())


@st.cache_resource(show_spinner="Loading the language model for questions…")
def get_perception():
    from engine.perception import get_perception as build

    return build()


@st.cache_resource(show_spinner=False)
def get_strategy_store():
    from engine.orchestration import StrategyStore

    return StrategyStore(get_settings().data_dir)


@st.cache_resource(show_spinner=False)
def get_trace_store():
    from engine.tracing import TraceStore

    return TraceStore(get_settings().data_dir)


@st.cache_resource(show_spinner="Preparing the pipeline…")
def get_pipeline():
    from engine.pipeline import Pipeline

    return Pipeline(get_settings(), get_store(), perception=get_perception(), strategies=get_strategy_store(),
                    traces=get_trace_store())


@st.cache_resource(show_spinner=False)
def get_ingestor():
    from engine.ingest import Ingestor

    return Ingestor(get_store())
