"""Users and tokens from settings: hashes only, sign-in, bearer tokens, grants, and clear errors for bad entries."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from engine.config import load_settings
from engine.errors import AuthenticationError, ConfigError
from engine.identity import LOCAL_ADMIN, Directory, hash_secret, sha256_token, verify_secret

pytestmark = pytest.mark.unit
TOKEN = "a-long-random-api-token-0123456789"


def _settings(tmp_path, users=None, tokens=None, **extra):
    return load_settings(data_dir=tmp_path, users=json.dumps(users or {}), api_tokens=json.dumps(tokens or {}),
                         **extra)


def test_hashes_verify_and_wrong_secrets_do_not():
    stored = hash_secret("correct horse")
    assert stored.startswith("scrypt$") and "correct" not in stored
    assert verify_secret("correct horse", stored)
    assert not verify_secret("correct hors", stored)
    assert hash_secret("correct horse") != stored  # salted
    salt = b"0123456789abcdef"
    pbkdf2 = "pbkdf2_sha256$1000$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(
        hashlib.pbkdf2_hmac("sha256", b"pw", salt, 1000)).decode()
    assert verify_secret("pw", pbkdf2) and not verify_secret("px", pbkdf2)
    assert verify_secret(TOKEN, sha256_token(TOKEN)) and not verify_secret(TOKEN + "x", sha256_token(TOKEN))
    assert not verify_secret("pw", "plain-text") and not verify_secret("pw", "scrypt$1$1$1$!!$!!")


def test_plain_tokens_are_hashed_when_settings_load(tmp_path):
    settings = _settings(tmp_path, tokens={TOKEN: "analyst"})
    assert list(settings.api_tokens) == [sha256_token(TOKEN)]
    assert TOKEN not in repr(settings) and TOKEN not in json.dumps(settings.api_tokens)
    identity = Directory.from_settings(settings).authenticate_token(TOKEN)
    assert identity.role == "analyst" and identity.grants is None and identity.source == "token"


def test_sign_in_checks_the_password_and_gives_role_and_grants(tmp_path):
    users = {"alice": {"password_hash": hash_secret("pw-alice"), "role": "analyst",
                       "grants": {"manuals": ["write"], "faq": ["read"]}}}
    directory = Directory.from_settings(_settings(tmp_path, users=users))
    alice = directory.sign_in("alice", "pw-alice")
    assert (alice.name, alice.role) == ("alice", "analyst")
    assert alice.can_read("manuals") and alice.can_write("manuals")  # write implies read
    assert alice.can_read("faq") and not alice.can_write("faq") and not alice.can_read("other")
    for name, password in (("alice", "wrong"), ("mallory", "pw-alice"), ("alice", "")):
        with pytest.raises(AuthenticationError, match="Unknown user name or wrong password"):
            directory.sign_in(name, password)
    assert directory.configured and directory.has_users


def test_tokens_act_as_a_role_a_user_or_a_named_client(tmp_path):
    users = {"bob": {"role": "viewer", "grants": {"faq": ["read"]}}}  # API only: no password
    salted = hash_secret("batch-token-0123456789")
    tokens = {TOKEN: {"user": "bob"}, salted: {"name": "nightly", "role": "admin"}, "r" * 20: "viewer"}
    directory = Directory.from_settings(_settings(tmp_path, users=users, tokens=tokens))
    bob = directory.authenticate_token(TOKEN)
    assert (bob.name, bob.role, bob.readable(["faq", "manuals"])) == ("bob", "viewer", ["faq"])
    nightly = directory.authenticate_token("batch-token-0123456789")
    assert (nightly.name, nightly.role, nightly.unrestricted) == ("nightly", "admin", True)
    assert directory.authenticate_token("batch-token-0123456789") is nightly  # cached after the slow check
    assert directory.authenticate_token("r" * 20).role == "viewer"
    with pytest.raises(AuthenticationError, match="not valid"):
        directory.authenticate_token("r" * 21)
    with pytest.raises(AuthenticationError, match="Unknown user name"):
        directory.sign_in("bob", "")  # no password: cannot sign in to the UI
    assert directory.identity_for("bob").readable(["faq", "manuals"]) == ["faq"]
    assert directory.identity_for("nobody") is None


def test_nothing_configured_is_the_single_local_admin(tmp_path):
    directory = Directory.from_settings(_settings(tmp_path))
    assert not directory.configured
    assert directory.local() is LOCAL_ADMIN and LOCAL_ADMIN.role == "admin" and LOCAL_ADMIN.unrestricted


@pytest.mark.parametrize(("users", "tokens", "message"), [
    ({"bob": {"password_hash": "secret", "role": "admin"}}, {}, "must be a hash"),
    ({"bob": {"password_hash": sha256_token("pw")}}, {}, "must be a hash"),  # unsalted: tokens only
    ({"bob": {"role": "root"}}, {}, "role 'root' is not one of viewer, analyst, admin"),
    ({"bob": {"grants": {"faq": ["delete"]}}}, {}, "unknown permission"),
    ({"bob": {"pasword_hash": "x"}}, {}, "unknown field"),
    ({"bad name!": {}}, {}, "not a usable name"),
    ({}, {"short": "admin"}, "shorter than 16 characters"),
    ({}, {TOKEN: "superuser"}, "role 'superuser'"),
    ({}, {"sha256:1234": "admin"}, "must be a hash"),
])
def test_bad_entries_say_what_to_fix(tmp_path, users, tokens, message):
    with pytest.raises(ConfigError, match=message) as caught:
        _settings(tmp_path, users=users, tokens=tokens)
    assert TOKEN not in str(caught.value)


def test_a_token_for_an_unknown_user_is_refused_at_start(tmp_path):
    with pytest.raises(ConfigError, match="acts as user 'carol', who is not in WORKBENCH_USERS"):
        Directory.from_settings(_settings(tmp_path, tokens={TOKEN: {"user": "carol"}}))


def test_json_that_does_not_parse_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USERS", "{alice: admin}")
    with pytest.raises(ConfigError, match="WORKBENCH_USERS is not valid JSON"):
        load_settings(data_dir=tmp_path)
