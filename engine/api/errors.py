"""Every error leaves the API as JSON ``{"error": "what to fix", ...}`` with a 4xx status for a caller's mistake.

401: no or bad token; 403: the role or grants do not allow it; 404: nothing there (or nothing this caller may
see); 413: upload too large; 422: the request does not match its schema; 429: too many invalid tokens from this
address lately (with Retry-After); 400: the engine refused the input.
A 500 means a bug, and says only that (the details go to the server log).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.errors import AuthenticationError, EngineError, PermissionDenied
from engine.agent.access import RunNotFound
from engine.identity.throttle import TooManySignIns

log = logging.getLogger(__name__)


class NotFound(EngineError):
    """The thing asked for is not there, or the caller may not see it."""


class TooLarge(EngineError):
    """The request body is over the configured limit."""


def error_body(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, **extra}


def _where(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body",)]
    return ".".join(parts) or "body"


def validation_message(errors: list[dict[str, Any]]) -> str:
    """One readable line per problem: 'question: String should have at least 1 character'."""
    lines = []
    for err in errors[:5]:
        lines.append(f"{_where(tuple(err.get('loc', ())))}: {err.get('msg', 'invalid')}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "Invalid request: " + "; ".join(lines) + more + ". See /openapi.json for the expected fields."


def install(app: FastAPI, on_validation_failure=None) -> None:
    """Register the handlers that turn errors into JSON responses."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        if on_validation_failure is not None:
            on_validation_failure(request)
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                  for e in exc.errors()]
        return JSONResponse(error_body(validation_message(exc.errors()), detail=errors), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "Request refused."
        if exc.status_code == 404 and message == "Not Found":
            message = f"No such endpoint: {request.method} {request.url.path}. See /openapi.json for the endpoints."
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}. See /openapi.json."
        return JSONResponse(error_body(message), status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(EngineError)
    async def engine_error(request: Request, exc: EngineError) -> JSONResponse:
        status, headers = status_of(exc), None
        if status == 401:
            headers = {"WWW-Authenticate": 'Bearer realm="workbench"'}
        elif isinstance(exc, TooManySignIns):
            headers = {"Retry-After": str(int(exc.retry_after_s + 0.999))}
        return JSONResponse(error_body(str(exc), error_type=type(exc).__name__), status_code=status, headers=headers)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(error_body("Internal error; the server log has the details."), status_code=500)


def status_of(exc: EngineError) -> int:
    if isinstance(exc, TooManySignIns):
        return 429
    if isinstance(exc, AuthenticationError):
        return 401
    if isinstance(exc, PermissionDenied):
        return 403
    if isinstance(exc, (NotFound, RunNotFound)):
        return 404
    if isinstance(exc, TooLarge):
        return 413
    return 400
