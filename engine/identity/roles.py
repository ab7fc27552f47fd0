"""Roles: what a user or token may do, in rising order (viewer < analyst < admin).

The settings check users and tokens against them, identities carry one, and the agent's tools and policy
require one; they live here, below all three.
"""

from typing import Literal

Role = Literal["viewer", "analyst", "admin"]
ROLES: tuple[Role, ...] = ("viewer", "analyst", "admin")
"""Every role, lowest first: each may do what the ones before it may."""
