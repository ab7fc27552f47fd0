"""The start-up indexing's progress at the top of every page, while the pages already work (engine/bootstrap.py)."""

from __future__ import annotations

import streamlit as st

from components.factories import get_workbench
from components.safe_text import label

SEEN_KEY = "bootstrap.bases_seen"
"""How many bases this session has seen indexed: when another lands, the app reruns so the pickers list it."""
DOCUMENTS_STALE = "documents.stale"  # the Documents page reloads its table when set (components/document_table)


@st.fragment(run_every=1.0)
def _progress() -> None:
    bootstrap = get_workbench().bootstrap()
    state = bootstrap.state()
    landed = len(state.bases_done)
    if landed != st.session_state.get(SEEN_KEY, 0) or not state.busy:
        st.session_state[SEEN_KEY] = landed
        st.session_state[DOCUMENTS_STALE] = True
        st.rerun()  # a base landed (or all did): the whole page lists it; a finished run draws no bar
    with st.container(border=True, key="bootstrap.box"):
        if state.stage == "indexing" and state.overall is not None:
            overall = state.overall
            done = ", ".join(state.bases_done) or "none yet"
            st.progress(overall.fraction, text=f"Indexing the sample documents: {overall.describe()}")
            current = next((f for f in state.files if f.state == "embedding"), None)
            doing = f" Now: {label(current.name, limit=60)}, {current.describe()}." if current else ""
            st.caption(f"Knowledge bases ready: {done} (of {', '.join(state.bases)}).{doing} The pages work "
                       "meanwhile; answers use what is indexed so far.")
        else:
            st.progress(0.0, text=f"{state.message} ({state.seconds:.0f} s)")
            st.caption("The sample documents are indexed next; the pages work meanwhile.")


def bootstrap_status() -> None:
    """The start-up indexing's progress bar while it runs; nothing once it is done (or when none was asked for)."""
    bootstrap = get_workbench().bootstrap()
    if bootstrap is None:
        return
    state = bootstrap.state()
    if state.stage == "failed":
        st.warning(label(f"{state.message} ({state.error})", limit=600), icon=":material/error:")
    elif state.busy:
        _progress()
