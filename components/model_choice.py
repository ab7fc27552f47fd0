"""Which Claude models answer: the sidebar's generator and reviewer pickers, over the models the key may use.

The choices come from the Models API (one list per process, :func:`components.factories.get_model_catalog`);
the newest Sonnet drafts and the newest Haiku reviews unless the person picks others. The Ask page
passes the picks on with each question (:func:`chosen_models`). Without ANTHROPIC_API_KEY there is
nothing to pick: answers come from the offline provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from components.safe_text import label
from engine.llm.models import ROLE_LINES, ModelCatalog

GENERATOR_KEY = "models.generator"
REVIEWER_KEY = "models.reviewer"


@dataclass(frozen=True)
class ModelChoices:
    """The ids to offer (newest first) and each role's default."""

    ids: tuple[str, ...]
    generator: str | None
    reviewer: str | None
    problem: str = ""


def model_choices(catalog: ModelCatalog, resolved: dict[str, str] | None = None) -> ModelChoices:
    """What to offer from ``catalog``; ``resolved`` (role -> id) are the defaults the provider picked."""
    ids = catalog.ids
    defaults = {role: (resolved or {}).get(role) or catalog.newest(line) for role, line in ROLE_LINES.items()}
    for role, model in defaults.items():
        if model and model not in ids:
            ids = (*ids, model)
    return ModelChoices(ids, defaults["generator"], defaults["reviewer"], catalog.problem)


def _index(ids: Sequence[str], model: str | None) -> int:
    return ids.index(model) if model in ids else 0


def render_model_choice(choices: ModelChoices) -> None:
    """Two pickers in the sidebar; their values go with every question asked on the Ask page."""
    if not choices.ids:
        st.caption(label(f"The Models API could not be asked ({choices.problem}); the default models answer."))
        return
    for key in (GENERATOR_KEY, REVIEWER_KEY):
        if key in st.session_state and st.session_state[key] not in choices.ids:
            del st.session_state[key]  # a model no longer listed for this key
    st.selectbox("Generator model", choices.ids, index=_index(choices.ids, choices.generator), key=GENERATOR_KEY,
                 help="Drafts and revises answers (default: the newest Sonnet the key may use). Listed by the "
                      "Models API for this API key.")
    st.selectbox("Reviewer model", choices.ids, index=_index(choices.ids, choices.reviewer), key=REVIEWER_KEY,
                 help="Reviews each draft against the evidence (default: the newest Haiku). A different model "
                      "from the generator gives an independent check.")
    if choices.problem:
        st.caption(label(f"Model list incomplete: {choices.problem}."))


def chosen_models() -> dict[str, str]:
    """The picked models as AskOptions fields (empty when nothing was picked, e.g. offline)."""
    picked = {"generator_model": st.session_state.get(GENERATOR_KEY),
              "reviewer_model": st.session_state.get(REVIEWER_KEY)}
    return {field: model for field, model in picked.items() if isinstance(model, str) and model}
