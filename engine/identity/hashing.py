"""Salted hashes of passwords and API tokens; only hashes are ever kept in settings or memory.

Formats (all verified in constant time):

- ``scrypt$<n>$<r>$<p>$<salt b64>$<hash b64>``: what :func:`hash_secret` makes (passwords and tokens);
- ``pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>``: accepted, e.g. from another system;
- ``sha256:<hex>``: unsalted, accepted for API tokens only (a random token needs no salt), never for passwords.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets

from engine.errors import ConfigError

SCRYPT_N = 2 ** 14
"""scrypt cost (16 MiB of memory, about 50 ms per check here): the usual interactive-login setting."""
SCRYPT_R = 8
SCRYPT_P = 1
MIN_TOKEN_CHARS = 16
"""Shortest plain API token accepted: shorter ones can be guessed."""
_SHA256 = re.compile(r"^sha256:[0-9a-fA-F]{64}$")
_SCRYPT = re.compile(r"^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=_-]+)\$([A-Za-z0-9+/=_-]+)$")
_PBKDF2 = re.compile(r"^pbkdf2_sha256\$(\d+)\$([A-Za-z0-9+/=_-]+)\$([A-Za-z0-9+/=_-]+)$")
HASH_HELP = "make one with `python -m engine user hash-password` (or `user hash-token` for an API token)"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"A stored hash holds invalid base64; {HASH_HELP}.") from None


def hash_secret(secret: str, *, n: int = SCRYPT_N) -> str:
    """A new salted scrypt hash of ``secret``."""
    if not isinstance(secret, str) or not secret:
        raise ConfigError("Nothing to hash: give a non-empty password or token.")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode("utf-8"), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, maxmem=2 ** 26, dklen=32)
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def sha256_token(token: str) -> str:
    """The unsalted ``sha256:<hex>`` form of an API token (used to look a token up without storing it)."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def is_hash(text: str, *, allow_sha256: bool = True) -> bool:
    """Whether ``text`` is in one of the accepted hash formats."""
    if not isinstance(text, str):
        return False
    return bool(_SCRYPT.match(text) or _PBKDF2.match(text) or (allow_sha256 and _SHA256.match(text)))


def check_hash(text: str, *, allow_sha256: bool, what: str) -> str:
    """``text`` when it is an accepted hash; else a ConfigError that says how to make one."""
    if not is_hash(text, allow_sha256=allow_sha256):
        kinds = "scrypt$…, pbkdf2_sha256$…" + (" or sha256:<hex>" if allow_sha256 else "")
        raise ConfigError(f"{what} must be a hash ({kinds}), not the secret itself; {HASH_HELP}.")
    match = _SCRYPT.match(text)
    if match:
        n, r, p = (int(g) for g in match.groups()[:3])
        if n < 2 or n & (n - 1) or n > 2 ** 20 or not 1 <= r <= 32 or not 1 <= p <= 16:
            raise ConfigError(f"{what} has unusable scrypt parameters (n={n}, r={r}, p={p}); {HASH_HELP}.")
    match = _PBKDF2.match(text)
    if match and not 1 <= int(match.group(1)) <= 10_000_000:
        raise ConfigError(f"{what} has an unusable pbkdf2 iteration count; {HASH_HELP}.")
    return text


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` matches the ``stored`` hash (False for any malformed input)."""
    if not isinstance(secret, str) or not isinstance(stored, str):
        return False
    data = secret.encode("utf-8")
    if _SHA256.match(stored):
        return hmac.compare_digest(sha256_token(secret), "sha256:" + stored[7:].lower())
    match = _SCRYPT.match(stored)
    if match:
        n, r, p = (int(g) for g in match.groups()[:3])
        salt, expected = _unb64(match.group(4)), _unb64(match.group(5))
        try:
            digest = hashlib.scrypt(data, salt=salt, n=n, r=r, p=p, maxmem=2 ** 27, dklen=len(expected))
        except (ValueError, MemoryError):
            return False
        return hmac.compare_digest(digest, expected)
    match = _PBKDF2.match(stored)
    if match:
        salt, expected = _unb64(match.group(2)), _unb64(match.group(3))
        digest = hashlib.pbkdf2_hmac("sha256", data, salt, int(match.group(1)), dklen=len(expected))
        return hmac.compare_digest(digest, expected)
    return False


def new_token() -> str:
    """A fresh random API token (43 URL-safe characters)."""
    return secrets.token_urlsafe(32)
