"""The workbench's Streamlit entry point: navigation over six pages, sign-in, session state and the sidebar.

The page scripts live in ``views/``, not ``pages/``: Streamlit runs an app with a ``pages/`` folder beside it as
an old-style multipage app until this script's ``st.navigation`` takes over, so a fresh server's first visitor saw
the files' raw names ("ask", "documents") in the sidebar, and a page opened by URL ran without this script.
Navigation is set up first, before the engine is imported; every page answers at its own URL (``/ask``,
``/documents``...), and the root URL opens Ask.
"""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Reflective RAG workbench", page_icon=":material/fact_check:", layout="wide")

ASK = st.Page("views/ask.py", title="Ask", icon=":material/question_answer:", url_path="ask")


def _home() -> None:
    """The root URL: open Ask at its own address."""
    st.switch_page(ASK)


PAGES = [
    st.Page(_home, title="Home", url_path="home", default=True, visibility="hidden"),
    ASK,
    st.Page("views/documents.py", title="Documents", icon=":material/description:", url_path="documents"),
    st.Page("views/strategy.py", title="Strategy", icon=":material/tune:", url_path="strategy"),
    st.Page("views/agent.py", title="Agent", icon=":material/smart_toy:", url_path="agent"),
    st.Page("views/traces.py", title="Traces", icon=":material/timeline:", url_path="traces"),
    st.Page("views/experiments.py", title="Experiments", icon=":material/science:", url_path="experiments"),
]
page = st.navigation(PAGES)

import uuid  # noqa: E402 - after the navigation, on purpose (see the module's docstring)

from components.bootstrap_view import bootstrap_status  # noqa: E402
from components.factories import start_background  # noqa: E402
from components.session import ASK_HISTORY, ASK_SELECTED, SESSION_ID, TRACES_OPEN  # noqa: E402
from components.sidebar import render_sidebar  # noqa: E402
from components.sign_in import require_sign_in  # noqa: E402
from components.warmup_view import loading_status  # noqa: E402

require_sign_in()  # with users configured, nothing below renders until someone signs in

st.session_state.setdefault(SESSION_ID, uuid.uuid4().hex)
st.session_state.setdefault(ASK_HISTORY, [])
st.session_state.setdefault(ASK_SELECTED, None)
st.session_state.setdefault(TRACES_OPEN, None)

loading_status()  # the model and store load in the background from the first request on
bootstrap_status()  # with WORKBENCH_BOOTSTRAP_DIR (make run): the sample documents are indexed in the background
sidebar = st.sidebar.container()  # filled after the page ran, so it lists what the page just changed (an upload)
try:
    page.run()
finally:
    with sidebar:
        render_sidebar()
    start_background()  # after the page is drawn, so the first page does not wait for the loading threads
