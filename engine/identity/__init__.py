"""Who is acting and what they may see: users, API tokens, roles (viewer < analyst < admin) and per-base grants.

The :class:`Directory` answers "who is this?" for a UI sign-in or an API token; an :class:`Identity` says what
its holder may do. The engine-side filter that limits a store to the bases an identity may read and write is
:class:`engine.store.scoped.ScopedStore`; the agent under identities is :mod:`engine.agent.access`.
"""

from engine.identity.directory import Directory
from engine.identity.hashing import hash_secret, new_token, sha256_token, verify_secret
from engine.identity.model import LOCAL_ADMIN, Identity, parse_grants

__all__ = ["Directory", "Identity", "LOCAL_ADMIN", "hash_secret", "new_token", "parse_grants",
           "sha256_token", "verify_secret"]
