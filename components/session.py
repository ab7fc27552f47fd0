"""Session-state keys shared by app.py (which sets their defaults) and the pages (which read them).

Streamlit forgets a widget's value when a run renders another page. Inputs that must survive a page
change are therefore kept under a plain key (``kept(key)``) as well: a page calls ``restore`` before
drawing its widgets (which refills any widget key Streamlit dropped) and ``remember`` after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import streamlit as st

SESSION_ID = "session_id"
"""A random id per browser session; the gradual rollout hashes it with the question."""
ASK_HISTORY = "ask.history"
"""This session's answers (engine ``Answer`` objects), oldest first."""
ASK_SELECTED = "ask.selected"
"""Index into ASK_HISTORY of the answer on screen, or None."""
ASK_QUESTION = "ask.question"
"""The question box's text."""
ASK_KBS = "ask.kbs"
"""Knowledge bases picked on Ask (empty: the strategy routes)."""
ASK_REFLECTION = "ask.reflection"
ASK_MODE = "ask.mode"
ASK_ROUNDS = "ask.rounds"
ASK_ACCURACY = "ask.accuracy"
"""How sure an offline answer must be: "setting" (the answer_accuracy setting), "best guess" or a target."""
ASK_DEFAULTS: dict[str, Any] = {ASK_QUESTION: "", ASK_KBS: [], ASK_REFLECTION: "auto", ASK_MODE: "dual",
                                ASK_ROUNDS: 2, ASK_ACCURACY: "setting"}
"""The Ask form's inputs and their values in a new session."""
STRATEGY_QUESTION = "strategy.question"
"""The Strategy preview's sample question."""
TRACES_OPEN = "traces.open"
"""Trace id opened on the Traces page, or None."""
IDENTITY = "identity"
"""Who signed in to this browser session (an engine ``Identity``); absent until sign-in when users are configured."""
KB_VERSION = "kb.version"
"""Bumped whenever this session changed the knowledge bases (upload, delete); lists keyed by it reload."""


def kept(key: str) -> str:
    """The plain (non-widget) key that keeps ``key``'s value across page changes."""
    return f"kept.{key}"


def restore(defaults: Mapping[str, Any]) -> None:
    """Give each widget key its kept value (or its default) when Streamlit dropped it on a page change."""
    state = st.session_state
    for key, default in defaults.items():
        state.setdefault(kept(key), default)
        if key not in state:
            state[key] = state[kept(key)]


def remember(keys: Iterable[str]) -> None:
    """Copy the widgets' current values to their kept keys."""
    state = st.session_state
    for key in keys:
        if key in state:
            state[kept(key)] = state[key]


def set_kept(key: str, value: Any) -> None:
    """Set an input's value now and for later page visits (e.g. a sample question copied into the box)."""
    st.session_state[key] = value
    st.session_state[kept(key)] = value
