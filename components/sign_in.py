"""Sign-in before any page renders (when users are configured), and who is signed in, for the sidebar."""

from __future__ import annotations

import streamlit as st

from components.factories import get_directory
from components.safe_text import label
from components.session import IDENTITY
from engine.errors import AuthenticationError
from engine.identity import LOCAL_ADMIN, Identity


def require_sign_in() -> Identity:
    """This session's identity; renders the sign-in form and stops the run until someone signs in."""
    directory = get_directory()
    if not directory.configured:
        return LOCAL_ADMIN
    identity = st.session_state.get(IDENTITY)
    if identity is not None:
        return identity
    st.title("Sign in")
    if not directory.has_users:
        st.error("Sign-in is required (API tokens are configured), but no user has a password. Add users to "
                 "WORKBENCH_USERS with a password_hash from `python -m engine user hash-password`; API tokens "
                 "are for the HTTP API only.")
        st.stop()
    st.caption("The workbench shows each user the knowledge bases they may read, and records who did what.")
    with st.form("sign_in.form", border=True):
        name = st.text_input("User name", key="sign_in.name")
        password = st.text_input("Password", type="password", key="sign_in.password")
        submitted = st.form_submit_button("Sign in", type="primary", key="sign_in.submit")
    if submitted:
        try:
            st.session_state[IDENTITY] = directory.sign_in(name.strip(), password)
        except AuthenticationError as exc:
            st.error(str(exc))
        else:
            st.session_state.pop("sign_in.password", None)
            st.rerun()
    st.stop()


def sign_out() -> None:
    """Forget everything this session held (history, runs, pending confirmations), not just the identity."""
    for key in list(st.session_state.keys()):
        del st.session_state[key]


def render_who() -> None:
    """Who is signed in and with which role, or that the single local user is admin."""
    directory = get_directory()
    st.markdown("**Signed in**")
    if not directory.configured:
        st.caption("Local user, role admin: no users are configured, so there is no sign-in. Set WORKBENCH_USERS "
                   "to require it.")
        return
    identity = st.session_state.get(IDENTITY)
    if identity is None:
        return
    bases = "every knowledge base" if identity.unrestricted else "the bases granted to you"
    st.caption(f"{label(identity.name, limit=60)} · role {identity.role} · sees {bases}.")
    st.button("Sign out", key="sign_in.out", on_click=sign_out)
