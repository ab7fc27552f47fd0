"""Sign-in limits (issue 27, item 6): failed password sign-ins per user name and failures per address (passwords
and API tokens) within a sliding window; over a limit, attempts are refused before any secret is checked, with
a message that says how long to wait. Tokens with spaces around them are malformed, in requests and settings."""

from __future__ import annotations

import json

import pytest

from engine.config import load_settings
from engine.errors import AuthenticationError, ConfigError
from engine.identity import Directory, hash_secret
from engine.identity.throttle import MAX_TRACKED, SignInThrottle, TooManySignIns

pytestmark = pytest.mark.unit
TOKEN = "a-long-random-api-token-0123456789"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _directory(clock: Clock, per_user: int = 3, per_address: int = 5) -> Directory:
    users = {name: {"password_hash": hash_secret(f"pw-{name}", n=16), "role": "analyst"} for name in ("ann", "ben")}
    settings = load_settings(users=json.dumps(users), api_tokens=json.dumps({TOKEN: "viewer"}))
    return Directory(settings.users, settings.api_tokens,
                     throttle=SignInThrottle(per_user, per_address, window_s=60.0, clock=clock))


def test_a_user_name_is_refused_after_too_many_failures_even_with_the_right_password():
    clock = Clock()
    directory = _directory(clock)
    for _ in range(3):
        with pytest.raises(AuthenticationError, match="Unknown user name or wrong password"):
            directory.sign_in("ann", "guess")
    with pytest.raises(TooManySignIns, match=r"for this user name \(3 in the last 1 min\); wait 1 min and try") as exc:
        directory.sign_in("ann", "pw-ann")
    assert exc.value.retry_after_s == pytest.approx(60.0)
    assert directory.sign_in("ben", "pw-ben").name == "ben"  # another name is not held back
    clock.now += 30
    with pytest.raises(TooManySignIns, match="wait 30 s"):
        directory.sign_in("ann", "pw-ann")
    clock.now += 30  # the failures have left the window
    assert directory.sign_in("ann", "pw-ann").name == "ann"


def test_success_clears_the_names_failures_and_unknown_names_count_too():
    clock = Clock()
    directory = _directory(clock)
    for _ in range(2):
        with pytest.raises(AuthenticationError):
            directory.sign_in("ann", "guess")
    directory.sign_in("ann", "pw-ann")
    for _ in range(2):  # two more failures do not reach the limit of three: the count started again
        with pytest.raises(AuthenticationError):
            directory.sign_in("ann", "guess")
    directory.sign_in("ann", "pw-ann")
    for _ in range(3):
        with pytest.raises(AuthenticationError, match="Unknown user name"):
            directory.sign_in("mallory", "x")
    with pytest.raises(TooManySignIns):  # the same answer as for a real name: nothing tells them apart
        directory.sign_in("mallory", "x")


def test_an_address_is_refused_after_too_many_failures_across_names_and_tokens():
    clock = Clock()
    directory = _directory(clock, per_user=100, per_address=5)
    for n in range(3):
        with pytest.raises(AuthenticationError):
            directory.sign_in(f"name{n}", "x", "192.0.2.1")
    for n in range(2):
        with pytest.raises(AuthenticationError, match="The API token is not valid"):
            directory.authenticate_token(f"wrong-token-{n:020d}", "192.0.2.1")
    with pytest.raises(TooManySignIns, match="from your address"):
        directory.authenticate_token(TOKEN, "192.0.2.1")
    with pytest.raises(TooManySignIns, match="from your address"):
        directory.sign_in("ann", "pw-ann", "192.0.2.1")
    assert directory.authenticate_token(TOKEN, "192.0.2.2").role == "viewer"
    assert directory.sign_in("ann", "pw-ann", "192.0.2.2").name == "ann"
    clock.now += 61
    assert directory.authenticate_token(TOKEN, "192.0.2.1").role == "viewer"


def test_a_token_with_spaces_in_or_around_it_is_malformed():
    directory = _directory(Clock())
    assert directory.authenticate_token(TOKEN).role == "viewer"
    for sent in (f" {TOKEN}", f"{TOKEN} ", f"{TOKEN}\n", f"\t{TOKEN}", f"{TOKEN[:9]} {TOKEN[9:]}"):
        with pytest.raises(AuthenticationError, match="The API token is not valid"):
            directory.authenticate_token(sent)
    with pytest.raises(ConfigError, match="spaces or line breaks"):
        load_settings(api_tokens=json.dumps({f"{TOKEN} ": "viewer"}))


def test_the_throttle_checks_its_settings_and_bounds_its_memory():
    with pytest.raises(ValueError):
        SignInThrottle(per_user=0)
    with pytest.raises(ValueError):
        SignInThrottle(window_s=0)
    throttle = SignInThrottle(per_user=1, per_address=1, window_s=60, clock=Clock())
    for n in range(MAX_TRACKED + 50):
        throttle.failed(f"name{n}")
    assert len(throttle._failures) == MAX_TRACKED
    throttle.check("never-failed")  # checking a name keeps nothing
    assert len(throttle._failures) == MAX_TRACKED
    with pytest.raises(TooManySignIns):
        throttle.check(f"name{MAX_TRACKED + 49}")


def test_the_limits_come_from_the_settings(tmp_path):
    settings = load_settings(data_dir=tmp_path, sign_in_max_failures=2, sign_in_max_failures_per_address=7,
                             sign_in_window_s=90)
    throttle = Directory.from_settings(settings).throttle
    assert (throttle.per_user, throttle.per_address, throttle.window_s) == (2, 7, 90)
