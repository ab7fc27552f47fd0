"""The workbench's Streamlit entry point: sign-in, session state, the sidebar and navigation over six pages."""

from __future__ import annotations

import uuid

import streamlit as st

from components.session import ASK_HISTORY, ASK_SELECTED, SESSION_ID, TRACES_OPEN
from components.sidebar import render_sidebar
from components.sign_in import require_sign_in
from components.bootstrap_view import bootstrap_status
from components.warmup_view import loading_status

st.set_page_config(page_title="Reflective RAG workbench", page_icon=":material/fact_check:", layout="wide")
require_sign_in()  # with users configured, nothing below renders until someone signs in

st.session_state.setdefault(SESSION_ID, uuid.uuid4().hex)
st.session_state.setdefault(ASK_HISTORY, [])
st.session_state.setdefault(ASK_SELECTED, None)
st.session_state.setdefault(TRACES_OPEN, None)

PAGES = [
    st.Page("pages/ask.py", title="Ask", icon=":material/question_answer:", default=True),
    st.Page("pages/documents.py", title="Documents", icon=":material/description:"),
    st.Page("pages/strategy.py", title="Strategy", icon=":material/tune:"),
    st.Page("pages/agent.py", title="Agent", icon=":material/smart_toy:"),
    st.Page("pages/traces.py", title="Traces", icon=":material/timeline:"),
    st.Page("pages/experiments.py", title="Experiments", icon=":material/science:"),
]

page = st.navigation(PAGES)
loading_status()  # the model and store load in the background from the first request on
bootstrap_status()  # with WORKBENCH_BOOTSTRAP_DIR (make run): the sample documents are indexed in the background
sidebar = st.sidebar.container()  # filled after the page ran, so it lists what the page just changed (an upload)
try:
    page.run()
finally:
    with sidebar:
        render_sidebar()
