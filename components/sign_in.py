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
    provider = oidc_provider()
    if provider is not None:
        identity = _oidc_sign_in(directory, provider)
        if identity is not None:
            st.session_state[IDENTITY] = identity
            st.rerun()
        if not directory.has_users:
            st.stop()
        st.caption("Or sign in with a workbench password:")
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
            st.session_state[IDENTITY] = directory.sign_in(name.strip(), password, client_address())
        except AuthenticationError as exc:
            st.error(str(exc))
        else:
            st.session_state.pop("sign_in.password", None)
            st.rerun()
    st.stop()


def client_address() -> str | None:
    """The browser's address as Streamlit sees it (None when unknown), for the per-address sign-in limit."""
    try:
        return st.context.ip_address
    except AttributeError:  # an older Streamlit
        return None


def oidc_provider() -> str | None:
    """The OpenID Connect provider configured in .streamlit/secrets.toml ([auth] or [auth.<name>]), if any:
    "" for the single default provider, the name otherwise, None when single sign-on is not configured."""
    try:
        auth = st.secrets.get("auth")
    except (FileNotFoundError, KeyError, AttributeError):  # no secrets file at all
        return None
    if not auth:
        return None
    named = [key for key, value in auth.items() if hasattr(value, "items")]
    return named[0] if named else ""


def _oidc_sign_in(directory, provider: str) -> Identity | None:
    """The identity of the single-sign-on user when they are signed in and known; else the sign-in button."""
    info = dict(st.user.to_dict()) if getattr(st.user, "is_logged_in", False) else None
    if info is None:
        label_ = f"Sign in with {provider}" if provider else "Sign in with single sign-on"
        if st.button(label_, type="primary", key="sign_in.oidc"):
            st.login(provider) if provider else st.login()
        return None
    try:
        return oidc_identity(directory, info)
    except AuthenticationError as exc:
        st.error(str(exc))
        st.button("Sign out of single sign-on", key="sign_in.oidc_out", on_click=st.logout)
        return None


def oidc_identity(directory, info: dict) -> Identity:
    """The workbench user a single-sign-on account stands for: the WORKBENCH_USERS entry named by its e-mail
    (or, without one, its subject id); roles and grants come from that entry, never from the provider."""
    for key in ("email", "preferred_username", "sub"):
        name = info.get(key)
        if isinstance(name, str) and name and (info.get("email_verified", True) or key != "email"):
            identity = directory.identity_for(name)
            if identity is not None:
                return identity
    shown = info.get("email") or info.get("sub") or "this account"
    raise AuthenticationError(f"{shown} signed in, but is not a workbench user; ask an admin to add it to "
                              "WORKBENCH_USERS (a password_hash is not needed for single sign-on).")


def sign_out() -> None:
    """Forget everything this session held (history, runs, pending confirmations), not just the identity."""
    for key in list(st.session_state.keys()):
        del st.session_state[key]
    if getattr(st.user, "is_logged_in", False):  # signed in through single sign-on: end that session too
        st.logout()


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
