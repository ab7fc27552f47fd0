"""Who is calling: ``Authorization: Bearer <token>`` checked against the directory; the local admin when open."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from engine.errors import AuthenticationError
from engine.facade import Workbench
from engine.identity import Identity

bearer = HTTPBearer(auto_error=False, description="An API token from WORKBENCH_API_TOKENS (needed only when "
                    "users or tokens are configured).")


def services(request: Request) -> Workbench:
    return request.app.state.services


def current_identity(request: Request,
                     credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)] = None) -> Identity:
    """The caller's identity; AuthenticationError (401) when a token is needed and missing or wrong, TooManySignIns
    (429) when the caller's address sent too many invalid tokens lately.

    The token is read from the header as sent (``credentials`` only documents the scheme in the OpenAPI spec,
    and comes stripped of spaces): a token with spaces or line breaks around it is not valid.
    """
    directory = services(request).directory
    if not directory.configured:
        return directory.local()
    header = request.headers.get("authorization", "")
    if not header:
        raise AuthenticationError("This API needs a token: send Authorization: Bearer <token> (ask an admin for "
                                  "one; `python -m engine user new-token` makes one).")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        raise AuthenticationError("Use the Bearer scheme: Authorization: Bearer <token>.")
    address = request.client.host if request.client else None
    identity = directory.authenticate_token(token, address)
    request.state.identity = identity
    return identity


def writer(identity: Annotated[Identity, Depends(current_identity)]) -> Identity:
    """The caller, who must be an analyst or admin (403 otherwise)."""
    identity.require_change("This change")
    return identity


Caller = Annotated[Identity, Depends(current_identity)]
Writer = Annotated[Identity, Depends(writer)]
Engine = Annotated[Workbench, Depends(services)]
