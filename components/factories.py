"""Engine objects built once per process (st.cache_resource) and shared by every page.

Pages never construct engine objects themselves; they call these factories. All of them come from one
:class:`engine.facade.Workbench`, the facade the API serves from too, so the pages and the API build the store,
pipeline, ingestor, agent and warm-up alike. Objects returned here are shared across sessions and must not be
mutated per user; what one signed-in user may see is built per run in ``components/access.py``.
"""

from __future__ import annotations

import streamlit as st

from engine.config import Settings, default_settings
from engine.facade import Workbench
from engine.store import KnowledgeBaseStore


@st.cache_resource(show_spinner=False)
def get_workbench() -> Workbench:
    """The engine facade for this process, over the environment's settings."""
    return Workbench(default_settings())


def get_settings() -> Settings:
    return get_workbench().settings


@st.cache_resource(show_spinner="Opening the knowledge bases…")
def get_store() -> KnowledgeBaseStore:
    return get_workbench().store


@st.cache_resource(show_spinner="Loading the language model for questions…")
def get_perception():
    return get_workbench().perception


def get_strategy_store():
    return get_workbench().strategies


def get_trace_store():
    return get_workbench().traces


@st.cache_resource(show_spinner="Preparing the pipeline…")
def get_pipeline():
    return get_workbench().pipeline


def get_directory():
    """Users and API tokens from the settings; open (one local admin) when none are configured."""
    return get_workbench().directory


def get_agent_gate():
    """The agent as the pages use it: runs act as the signed-in user, approvals follow the rules."""
    return get_workbench().gate


def get_experiment_store():
    return get_workbench().experiments


def get_rollout_store():
    return get_workbench().rollout


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
    from engine.assemble import build_reflection

    loop = build_reflection(provider_id, "dual", settings=get_settings())
    parts = loop.describe()
    for role in ("generator", "reviewer"):
        model = getattr(getattr(loop, role, None), "model", None)
        if isinstance(model, str) and model:
            parts[role] = f"{parts[role]} ({model})" if parts[role].startswith("LLM") else model
    return parts


@st.cache_resource(show_spinner=False)
def get_warmup():
    """Once per process: opens the store, loads the embedding model and spaCy in the background, from when
    ``start_background`` starts it (after the first page is drawn)."""
    from engine.warmup import Warmup

    return Warmup(get_workbench().warm_steps())


def start_background() -> None:
    """Start the warm-up and the start-up indexing (each once per process). app.py calls it after the page ran, so
    the first page is drawn before they take the cores."""
    get_warmup().start()
    bootstrap = get_workbench().bootstrap()
    if bootstrap is not None:
        bootstrap.start()
