"""Strategy versions: save the draft as a new version, list versions, diff two, activate an old one."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.safe_text import label
from components.strategy_editor import load_into_editor
from components.strategy_preview import diff_frame
from engine.errors import EngineError
from engine.orchestration import Strategy, StrategyStore, StrategyVersion

VERSIONS_KEY = "strategy.versions"  # cached list of StrategyVersion, refreshed after a save or activation
DIFFS_KEY = "strategy.diffs"  # (a, b) -> diff rows; versions never change once saved
NOTICE_KEY = "strategy.notice"


def versions(store: StrategyStore) -> list[StrategyVersion]:
    if VERSIONS_KEY not in st.session_state:
        st.session_state[VERSIONS_KEY] = store.versions()
    return st.session_state[VERSIONS_KEY]


def _refresh() -> None:
    st.session_state.pop(VERSIONS_KEY, None)


def _label(v: StrategyVersion) -> str:
    note = f" · {v.note}" if v.note else ""
    return f"{v.version}{note}{' (active)' if v.active else ''}"


def _save(store: StrategyStore, strategy: Strategy, activate: bool) -> None:
    note = st.session_state.get("strategy.note", "").strip()
    try:
        version = store.save(strategy, note=note, activate=activate)
    except EngineError as exc:
        st.session_state[NOTICE_KEY] = ("error", f"Saving failed: {exc}")
        return
    load_into_editor(version, strategy)
    st.session_state["strategy.note"] = ""
    _refresh()
    tail = " It is now active: Ask uses it from the next question." if activate else " The active version is unchanged."
    st.session_state[NOTICE_KEY] = ("success", f"Saved version {version}.{tail}")


def _activate(store: StrategyStore) -> None:
    version = st.session_state.get("strategy.activate_choice")
    if not version:
        return
    try:
        store.activate(version)
        strategy = store.load(version)
    except EngineError as exc:
        st.session_state[NOTICE_KEY] = ("error", f"Activation failed: {exc}")
        return
    load_into_editor(version, strategy)
    _refresh()
    st.session_state[NOTICE_KEY] = ("success", f"Activated version {version}; the editor now shows it. "
                                               "Ask uses it from the next question.")


def show_notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        kind, text = notice
        (st.error if kind == "error" else st.success)(label(text, limit=600))


def render_save(store: StrategyStore, strategy: Strategy | None, problems: list[str]) -> None:
    """Note, 'make active' and the save button; disabled while the draft is invalid."""
    st.text_input("Note for this version", key="strategy.note", placeholder="what changed and why")
    activate = st.checkbox("Make it the active version", value=True, key="strategy.save_activates",
                           help="The active version is the one Ask uses.")
    st.button("Save as new version", type="primary", key="strategy.save", disabled=strategy is None,
              on_click=_save, args=(store, strategy, activate))
    if problems:
        st.caption("Fix the problems above to save.")


def render_versions(store: StrategyStore) -> None:
    """The version list, activation of any version, and a diff of two versions."""
    items = versions(store)
    frame = pd.DataFrame([{"version": v.version, "saved": v.saved_at, "name": v.name, "note": v.note,
                           "active": v.active} for v in items], columns=["version", "saved", "name", "note", "active"])
    st.dataframe(frame, hide_index=True, width="stretch",
                 column_config={"active": st.column_config.CheckboxColumn("active")})
    ids = [v.version for v in items]
    labels = {v.version: _label(v) for v in items}
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.selectbox("Version to activate", ids, format_func=labels.get, key="strategy.activate_choice",
                   index=next((i for i, v in enumerate(items) if v.active), 0))
    right.button("Activate", key="strategy.activate", on_click=_activate, args=(store,))

    if len(ids) < 2:
        st.caption("Save a second version to compare two.")
        return
    st.markdown("**Compare two versions**")
    c1, c2 = st.columns(2)
    a = c1.selectbox("A (older)", ids, index=1, format_func=labels.get, key="strategy.diff_a")
    b = c2.selectbox("B (newer)", ids, index=0, format_func=labels.get, key="strategy.diff_b")
    diffs: dict = st.session_state.setdefault(DIFFS_KEY, {})
    if (a, b) not in diffs:
        try:
            diffs[(a, b)] = store.diff(a, b)
        except EngineError as exc:
            st.error(label(str(exc), limit=600))
            return
    changes = diffs[(a, b)]
    if not changes:
        st.caption("The two versions are identical.")
    else:
        st.dataframe(diff_frame(changes, "A", "B"), hide_index=True, width="stretch")
