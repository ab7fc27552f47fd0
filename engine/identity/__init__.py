"""Who is acting and what they may see: users, API tokens, roles (viewer < analyst < admin) and per-base grants.

The :class:`Directory` answers "who is this?" for a UI sign-in or an API token; an :class:`Identity` says what
its holder may do; :class:`ScopedStore` is the engine-side filter that limits a store to the bases an identity
may read and write, used by the API and the pages alike.
"""

from engine.identity.directory import Directory
from engine.identity.hashing import hash_secret, new_token, sha256_token, verify_secret
from engine.identity.model import LOCAL_ADMIN, Identity, parse_grants
from engine.identity.scope import ScopedStore

__all__ = ["Directory", "Identity", "LOCAL_ADMIN", "ScopedStore", "hash_secret", "new_token", "parse_grants",
           "sha256_token", "verify_secret"]
