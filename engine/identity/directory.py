"""The user store: who may sign in (UI), which API tokens are valid, and what each may do.

Built from Settings (WORKBENCH_USERS, WORKBENCH_API_TOKENS). With neither configured the directory is
*open*: everyone is the single local admin, as without sign-in. Failed sign-ins and invalid tokens are limited
per user name and per client address (:class:`~engine.identity.throttle.SignInThrottle`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cache
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.errors import AuthenticationError, ConfigError
from engine.identity.hashing import SCRYPT_N, hash_secret, sha256_token, verify_secret
from engine.identity.model import LOCAL_ADMIN, Identity, parse_grants
from engine.identity.throttle import SignInThrottle

if TYPE_CHECKING:
    from engine.config import Settings

_CACHE_SIZE = 256


class Directory:
    """Users and API tokens, checked once; answers "who is this?" for a password or a bearer token."""

    def __init__(self, users: Mapping[str, Any] | None = None, tokens: Mapping[str, Any] | None = None,
                 *, allow_self_approval: bool = False, throttle: SignInThrottle | None = None) -> None:
        self._users: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (users or {}).items()}
        self._identities: dict[str, Identity] = {
            name: Identity(name, entry["role"], parse_grants(entry.get("grants"), name), "password")
            for name, entry in self._users.items()
        }
        self._fast: dict[str, Identity] = {}  # sha256 token hash -> identity
        self._slow: list[tuple[str, Identity]] = []  # salted token hashes, checked one by one
        for stored, entry in (tokens or {}).items():
            identity = self._token_identity(stored, entry)
            if stored.startswith("sha256:"):
                self._fast[stored.lower()] = identity
            else:
                self._slow.append((stored, identity))
            self._identities.setdefault(identity.name, identity)
        self._seen: OrderedDict[str, Identity] = OrderedDict()  # sha256 of tokens matched against salted hashes
        self._lock = threading.Lock()
        self.allow_self_approval = allow_self_approval
        self.throttle = throttle or SignInThrottle()

    @classmethod
    def from_settings(cls, settings: "Settings") -> "Directory":
        throttle = SignInThrottle(settings.sign_in_max_failures, settings.sign_in_max_failures_per_address,
                                  settings.sign_in_window_s)
        return cls(settings.users, settings.api_tokens, allow_self_approval=settings.allow_self_approval,
                   throttle=throttle)

    def _token_identity(self, stored: str, entry: Mapping[str, Any]) -> Identity:
        if "user" in entry:
            name = entry["user"]
            if name not in self._identities:
                raise ConfigError(f"An API token acts as user {name!r}, who is not in WORKBENCH_USERS; add the user "
                                  "or map the token to a role.")
            user = self._identities[name]
            return Identity(user.name, user.role, user.grants, "token")
        name = entry.get("name") or f"token-{stored.split('$')[-1].split(':')[-1][:8]}"
        if name in self._users:
            raise ConfigError(f"An API token is named {name!r}, like a user; use {{\"user\": {name!r}}} to act as "
                              "that user, or another name.")
        return Identity(name, entry["role"], parse_grants(entry.get("grants"), name), "token")

    # -- questions ----------------------------------------------------------------
    @property
    def configured(self) -> bool:
        """True when sign-in is required (any user or token is configured)."""
        return bool(self._users or self._fast or self._slow)

    @property
    def has_users(self) -> bool:
        """True when someone can sign in to the UI with a password."""
        return any(entry.get("password_hash") for entry in self._users.values())

    def local(self) -> Identity:
        """The single local user; only when nothing is configured."""
        if self.configured:
            raise AuthenticationError("Sign-in is required: users or API tokens are configured.")
        return LOCAL_ADMIN

    def sign_in(self, name: str, password: str, address: str | None = None) -> Identity:
        """The user's identity when the password matches; else AuthenticationError (same message either way).

        ``address``: the client's address, for the per-address limit; over a limit, TooManySignIns (checked
        before the password, which is then not looked at)."""
        key = name if isinstance(name, str) else ""
        self.throttle.check(key, address)
        entry = self._users.get(name) if isinstance(name, str) else None
        stored = (entry or {}).get("password_hash") or _dummy_hash()
        matched = verify_secret(password or "", stored)
        if entry is None or not entry.get("password_hash") or not matched:
            self.throttle.failed(key, address)
            raise AuthenticationError("Unknown user name or wrong password; check both and try again.")
        self.throttle.succeeded(key)
        return self._identities[name]

    def authenticate_token(self, token: str, address: str | None = None) -> Identity:
        """The identity an API token stands for; AuthenticationError when it is not valid (a token with spaces or
        line breaks in or around it is not), TooManySignIns when ``address`` sent too many invalid ones lately."""
        if not isinstance(token, str) or not token.strip():
            raise AuthenticationError("Send an API token: Authorization: Bearer <token>.")
        self.throttle.check(None, address)
        found = None if any(ch.isspace() for ch in token) else self._lookup(token)
        if found is None:
            self.throttle.failed(None, address)
            raise AuthenticationError("The API token is not valid; check it, or ask an admin for a new one.")
        return found

    def _lookup(self, token: str) -> Identity | None:
        quick = sha256_token(token)
        found = self._fast.get(quick)
        if found is None:
            with self._lock:
                found = self._seen.get(quick)
            if found is None:
                found = next((ident for stored, ident in self._slow if verify_secret(token, stored)), None)
                if found is not None:
                    with self._lock:
                        self._seen[quick] = found
                        while len(self._seen) > _CACHE_SIZE:
                            self._seen.popitem(last=False)
        return found

    def identity_for(self, name: str) -> Identity | None:
        """The identity a user or named token acts as, by name (None when unknown); the local admin when open."""
        if not self.configured:
            return LOCAL_ADMIN if name == LOCAL_ADMIN.name else Identity(name, "admin", None, "local")
        return self._identities.get(name)

    def names(self) -> list[str]:
        return sorted(self._identities)


@cache
def _dummy_hash() -> str:
    """Checked for unknown names too, so the time a sign-in takes does not tell which names exist."""
    return hash_secret("not a password", n=SCRYPT_N)
