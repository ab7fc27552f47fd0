"""The sidebar on every page: who is signed in, provider and models, their knowledge bases, the strategy version."""

from __future__ import annotations

import streamlit as st

from components import access
from components.factories import get_model_catalog, get_reflection_parts, get_settings, get_strategy_store
from components.model_choice import model_choices, render_model_choice
from components.safe_text import label
from components.sign_in import render_who
from engine.errors import EngineError
from engine.llm.registry import default_provider_id

WHY = {
    "offline": "no ANTHROPIC_API_KEY is set, so answers come from the deterministic offline provider",
    "anthropic": "ANTHROPIC_API_KEY is set, so answers come from Claude",
}


def model_lines(provider_id: str) -> list[str]:
    """Generator and reviewer of the default loop, or why they cannot be built."""
    try:
        parts = get_reflection_parts(provider_id)
    except EngineError as exc:
        return [f"unavailable: {exc}"]
    return [f"generator: {parts['generator']}", f"reviewer: {parts['reviewer']}"]


def render_claude_models() -> None:
    """Generator and reviewer pickers over the models the Models API lists for the key."""
    try:
        found = get_model_catalog()
    except EngineError as exc:
        st.caption(label(f"Models unavailable: {exc}", limit=300))
        return
    if found is not None:
        catalog, resolved = found
        render_model_choice(model_choices(catalog, resolved))


def render_sidebar() -> None:
    """Provider, models, knowledge bases with document counts, and the active strategy version."""
    settings = get_settings()
    with st.container():
        st.markdown("### Workbench")
        render_who()
        provider = default_provider_id()
        models = model_lines(provider)
        st.markdown(f"**Provider:** `{provider}`")
        st.caption(WHY.get(provider, "the provider every question uses unless told otherwise") + ".")
        st.markdown("**Models**")
        if provider == "anthropic":
            render_claude_models()
            models = []
        st.caption("\n".join(f"- {label(m)}" for m in [*models, f"embeddings: {settings.embedding_model}"]))
        st.markdown("**Knowledge bases**")
        try:
            bases = access.store().list_knowledge_bases()  # only those this user may read
        except EngineError as exc:
            st.error(str(exc))
            bases = []
        if bases:
            st.caption("\n".join(f"- `{b.name}`: {b.documents} documents, {b.chunks} chunks" for b in bases))
        else:
            st.caption("None yet: upload documents on the Documents page.")
        st.markdown("**Strategy**")
        try:
            version = get_strategy_store().active_version()
            st.caption(f"Active version `{version}` (edit it on the Strategy page).")
        except EngineError as exc:
            st.error(str(exc))
        st.caption(f"Data folder: `{settings.data_dir}`")
