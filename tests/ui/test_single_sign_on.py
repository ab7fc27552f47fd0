"""Single sign-on (OpenID Connect through st.login) where a provider is configured in secrets: the sign-in page
offers it beside the password form, and a signed-in account maps to its WORKBENCH_USERS entry, never to a role
the provider claims."""

from __future__ import annotations

import pytest

from components.sign_in import oidc_identity
from engine.errors import AuthenticationError
from engine.identity import Directory
from tests.ui.sign_in import configure_users

pytestmark = pytest.mark.integration

AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "not-a-real-secret",
        "client_id": "workbench", "client_secret": "not-a-real-secret",
        "server_metadata_url": "https://login.example.org/.well-known/openid-configuration"}


def test_the_sign_in_page_offers_single_sign_on_when_a_provider_is_configured(app, monkeypatch, ui_data_dir):
    configure_users(monkeypatch, {"ann@example.org": {"role": "analyst"}, "bob": {"role": "admin"}})
    app.secrets["auth"] = AUTH
    at = app.run()
    assert not at.exception and [t.value for t in at.title] == ["Sign in"]
    labels = [b.label for b in at.button]
    assert "Sign in with single sign-on" in labels and "Sign in" in labels  # and the password form for bob


def test_without_a_provider_there_is_no_single_sign_on_button(app, monkeypatch, ui_data_dir):
    configure_users(monkeypatch, {"bob": {"role": "admin"}})
    at = app.run()
    assert "Sign in with single sign-on" not in [b.label for b in at.button]


def test_a_signed_in_account_is_the_workbench_user_its_email_names():
    directory = Directory(users={"ann@example.org": {"role": "analyst", "grants": {"manuals": ["read"]}}})
    identity = oidc_identity(directory, {"email": "ann@example.org", "email_verified": True, "role": "admin"})
    assert identity.name == "ann@example.org" and identity.role == "analyst"   # the provider's "role" is ignored
    with pytest.raises(AuthenticationError, match="not a workbench user"):
        oidc_identity(directory, {"email": "eve@example.org", "email_verified": True})
    with pytest.raises(AuthenticationError):  # an unverified e-mail does not name a user
        oidc_identity(directory, {"email": "ann@example.org", "email_verified": False})
