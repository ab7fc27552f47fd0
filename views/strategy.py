"""Strategy: edit the active retrieval strategy live, preview its plan for a question, save and manage versions."""

from __future__ import annotations

import streamlit as st

from components import strategy_editor as editor
from components import strategy_preview as preview
from components import strategy_versions as versions
from components.safe_text import label
from components import access
from components.factories import get_perception, get_strategy_store
from components.session import STRATEGY_QUESTION, remember, restore
from engine.errors import EngineError

st.title("Strategy")
st.caption("The strategy decides which knowledge bases a question searches, with which search types and weights, "
           "and how evidence credibility is scored. Edit it here, check the plan it produces for a question, "
           "then save it as a new version. Ask always uses the active version.")

strategies = get_strategy_store()
kb_names = access.store().knowledge_base_names()  # the bases this user may read
can_change = access.current_identity().can_change
ss = st.session_state
try:
    active_version, active = strategies.active()
except EngineError as exc:
    st.error(f"The active strategy cannot be read: {label(str(exc), limit=600)} Activate another version below.")
    active_version, active = None, None
if editor.BASE_KEY not in ss and active is not None:
    editor.load_into_editor(active_version, active)
elif editor.BASE_KEY in ss and editor.K + "name" not in ss:
    editor.restore_draft()

versions.show_notice()
if editor.BASE_KEY in ss:
    base = ss[editor.BASE_KEY]
    status, reload_col = st.columns([4, 1], vertical_alignment="bottom")
    if base["version"] == active_version:
        status.caption(f"Editing a draft of the active version {base['version']}.")
    else:
        status.warning(f"Editing a draft of version {base['version']}; the active version is {active_version}.")
    reload_col.button("Discard edits", key="strategy.discard", help="Reload the active version into the editor.",
                      on_click=editor.load_into_editor, args=(active_version, active), disabled=active is None)

    edit_col, preview_col = st.columns([5, 4], gap="medium")  # the preview's table keeps its columns from 1024 px
    with edit_col:
        st.header("Edit", divider="gray")
        values = editor.render_editor(kb_names)
        strategy, problems = editor.build_strategy(values)
        for problem in problems:
            st.error(label(problem, limit=600))
        if strategy is not None:
            preview.render_unsaved(base["strategy"], strategy)
        if can_change:
            versions.render_save(strategies, strategy, problems)
        else:
            st.info("Your role (viewer) may preview a strategy but not save or activate one.")
    with preview_col:
        st.header("Preview", divider="gray")
        st.caption("What the edited strategy would plan for a question, before anything is saved. "
                   "'Active' is the weight the active version gives the same task.")
        restore({STRATEGY_QUESTION: preview.sample_question()})
        question = st.text_input("Sample question", key=STRATEGY_QUESTION)
        remember([STRATEGY_QUESTION])
        if strategy is None:
            st.info("Fix the problems in the editor to see the preview.")
        else:
            preview.render_preview(get_perception(), question, strategy, active or strategy, kb_names)

st.header("Versions", divider="gray")
st.caption("Every save is a new version. Activate any version to make Ask use it; compare two to see what changed.")
if can_change:
    versions.render_versions(strategies)
else:
    st.dataframe([{"version": v.version, "saved": v.saved_at, "note": v.note, "active": v.active}
                  for v in strategies.versions()], hide_index=True, width="stretch")
