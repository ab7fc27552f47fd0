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

    return StrategyStore(get_settings())


@st.cache_resource(show_spinner=False)
def get_trace_store():
    from engine.tracing import TraceStore

    return TraceStore(get_settings())


@st.cache_resource(show_spinner="Preparing the pipeline…")
def get_pipeline():
    from engine.pipeline import Pipeline

    return Pipeline(get_settings(), get_store(), perception=get_perception(), strategies=get_strategy_store(),
                    traces=get_trace_store())


@st.cache_resource(show_spinner=False)
def get_ingestor():
    from engine.ingest import Ingestor

    return Ingestor(get_store())


@st.cache_resource(show_spinner=False)
def get_directory():
    """Users and API tokens from the settings; open (one local admin) when none are configured."""
    from engine.identity import Directory

    return Directory.from_settings(get_settings())


@st.cache_resource(show_spinner=False)
def get_agent_runtime():
    """The tool-calling agent over this data folder; user and role are passed per run, never stored here.

    Each run's tools see only the knowledge bases its user may read.
    """
    from engine.agent import build_runtime
    from engine.agent.access import lazy_pipeline, tool_context_hook
    from engine.llm.registry import default_provider_id, get_provider

    settings, store = get_settings(), get_store()
    provider_id = default_provider_id()
    hook = tool_context_hook(get_directory(), lazy_pipeline(settings, store), provider_id)
    return build_runtime(settings, get_provider(provider_id), store=store, context_hook=hook)


@st.cache_resource(show_spinner=False)
def get_agent_gate():
    """The agent as the pages use it: runs act as the signed-in user, approvals follow the rules."""
    from engine.agent.access import AgentGate

    return AgentGate(get_agent_runtime(), get_directory())


@st.cache_resource(show_spinner=False)
def get_experiment_store():
    from engine.experiments import ExperimentStore

    return ExperimentStore(get_settings())


@st.cache_resource(show_spinner=False)
def get_rollout_store():
    from engine.experiments import RolloutStore

    return RolloutStore(get_settings())


@st.cache_resource(show_spinner="Asking the Models API which Claude models this key may use…")
def get_model_catalog():
    """(the Models API's list for the key, the default model per role); None without a key."""
    from engine.llm.registry import default_provider_id

    if default_provider_id() != "anthropic":
        return None
    from engine.llm.anthropic_provider import AnthropicProvider

    provider = AnthropicProvider()
    return provider.catalog(), {"generator": provider.model, "reviewer": provider.resolve_model("reviewer")}


@st.cache_data(show_spinner=False)
def get_reflection_parts(provider_id: str) -> dict:
    """Mode, generator and reviewer (model ids where the parts have one) of the default dual loop."""
    from engine.reflection.factory import build_reflection

    loop = build_reflection(provider_id, "dual", settings=get_settings())
    parts = loop.describe()
    for role in ("generator", "reviewer"):
        model = getattr(getattr(loop, role, None), "model", None)
        if isinstance(model, str) and model:
            parts[role] = f"{parts[role]} ({model})" if parts[role].startswith("LLM") else model
    return parts


@st.cache_resource(show_spinner=False)
def get_warmup():
    """Started once per process: opens the store, loads the embedding model and spaCy (NER and the full parse) in
    the background."""
    from engine.language import nlp
    from engine.perception.stage import get_perception as perception
    from engine.warmup import Warmup

    store = get_store()
    return Warmup([
        ("knowledge bases", store.knowledge_base_names),
        ("embedding model", lambda: store.embedder.encode_one("warm-up")),
        ("question parser (spaCy)", lambda: (perception().run("What is the warm-up question?"), nlp.warm())),
    ]).start()
