"""Check the user and token maps of the settings (WORKBENCH_USERS, WORKBENCH_API_TOKENS) into one plain form.

Users: ``{"alice": {"password_hash": "scrypt$...", "role": "analyst", "grants": {"manuals": ["read", "write"]}}}``;
``password_hash`` may be left out for a user who only uses API tokens; ``role`` defaults to viewer; no
``grants`` means every knowledge base.

Tokens: ``{"<token or its hash>": "analyst"}``, ``{"...": {"user": "alice"}}`` (acts as that user) or
``{"...": {"name": "nightly-batch", "role": "analyst", "grants": {...}}}``. A plain token is replaced by its
``sha256:`` hash here, so only hashes stay in the settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.errors import ConfigError
from engine.identity.hashing import MIN_TOKEN_CHARS, check_hash, is_hash, sha256_token
from engine.identity.model import parse_grants
from engine.identity.roles import ROLES

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
USER_KEYS = {"password_hash", "role", "grants"}
TOKEN_KEYS = {"name", "role", "grants", "user"}


def check_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{where}: {name!r} is not a usable name; use 1-64 letters, digits, '.', '_', '@', '+' "
                          "or '-', starting with a letter or digit.")
    return name


def _role(value: Any, where: str) -> str:
    role = "viewer" if value is None else value
    if role not in ROLES:
        raise ConfigError(f"{where}: role {value!r} is not one of {', '.join(ROLES)}.")
    return role


def check_users(raw: Mapping[str, Any]) -> dict[str, Any]:
    """WORKBENCH_USERS checked: each user's password hash, role and grants; a ConfigError says what to fix."""
    users: dict[str, Any] = {}
    for name, entry in raw.items():
        where = f"WORKBENCH_USERS[{name!r}]"
        check_name(name, "WORKBENCH_USERS")
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where} must be an object: {{\"password_hash\": ..., \"role\": ..., \"grants\": ...}}.")
        unknown = set(entry) - USER_KEYS
        if unknown:
            raise ConfigError(f"{where} has unknown field(s) {sorted(unknown)}; use {sorted(USER_KEYS)}.")
        password_hash = entry.get("password_hash")
        if password_hash is not None:
            check_hash(password_hash, allow_sha256=False, what=f"{where}.password_hash")
        grants = parse_grants(entry.get("grants"), where)
        users[name] = {"password_hash": password_hash, "role": _role(entry.get("role"), where),
                       "grants": None if grants is None else {k: sorted(v) for k, v in grants.items()}}
    return users


def hashed_token_map(raw: Mapping[str, Any]) -> dict[str, Any]:
    """WORKBENCH_API_TOKENS with every plain token replaced by its sha256 hash and every entry checked."""
    tokens: dict[str, Any] = {}
    for n, (key, entry) in enumerate(raw.items(), start=1):
        where = f"WORKBENCH_API_TOKENS entry {n}"  # never the token itself in a message
        if not isinstance(key, str) or not key.strip():
            raise ConfigError(f"{where}: the token is empty.")
        if is_hash(key):
            stored = check_hash(key, allow_sha256=True, what=where)
        elif key.startswith(("sha256:", "scrypt$", "pbkdf2_sha256$")):
            stored = check_hash(key, allow_sha256=True, what=where)  # a malformed hash, explained
        elif any(ch.isspace() for ch in key):
            raise ConfigError(f"{where}: the token has spaces or line breaks in or around it, so no request can "
                              "send it; make a random one with `python -m engine user new-token`.")
        elif len(key) < MIN_TOKEN_CHARS:
            raise ConfigError(f"{where}: the token is shorter than {MIN_TOKEN_CHARS} characters; make a random one "
                              "with `python -m engine user new-token`.")
        else:
            stored = sha256_token(key)
        if stored in tokens:
            raise ConfigError(f"{where}: the same token is listed twice.")
        tokens[stored] = _token_entry(entry, where)
    return tokens


def _token_entry(entry: Any, where: str) -> dict[str, Any]:
    if isinstance(entry, str):
        return {"role": _role(entry, where)}
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: map the token to a role (\"analyst\") or to an object such as "
                          "{\"user\": \"alice\"} or {\"name\": \"batch\", \"role\": \"viewer\"}.")
    unknown = set(entry) - TOKEN_KEYS
    if unknown:
        raise ConfigError(f"{where} has unknown field(s) {sorted(unknown)}; use {sorted(TOKEN_KEYS)}.")
    if "user" in entry:
        if set(entry) != {"user"}:
            raise ConfigError(f"{where}: a token that acts as a user takes only {{\"user\": NAME}}; that user's "
                              "role and grants apply.")
        return {"user": check_name(entry["user"], where)}
    out: dict[str, Any] = {"role": _role(entry.get("role"), where)}
    if entry.get("name") is not None:
        out["name"] = check_name(entry["name"], where)
    grants = parse_grants(entry.get("grants"), where)
    if grants is not None:
        out["grants"] = {k: sorted(v) for k, v in grants.items()}
    return out
