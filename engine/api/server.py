"""How ``python -m engine serve`` runs the API on uvicorn: HTTP/1.1 through h11, with limits that hold before the
app sees a request.

uvicorn answers a request h11 cannot parse (headers over the size limit, a control character in a header, a
malformed request line) itself, before the app. Its own answer is a plain-text 400; here it is the API's JSON
``{"error": ..., "error_type": ...}``, with 431 for headers over ``api_max_header_kb`` and 400 for the rest, and
the connection is then closed. Everything else about the transport is uvicorn's (keep-alive, proxy headers
from 127.0.0.1, graceful shutdown).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import H11Protocol

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from engine.config import Settings

TOO_LARGE = ("The request's headers are larger than this server accepts ({limit} KB in all); send fewer or "
             "shorter headers (WORKBENCH_API_MAX_HEADER_KB sets the limit).")
MALFORMED = ("The request is not valid HTTP/1.1 (a malformed request line, or a header with a character that is "
             "not allowed, such as a control character); nothing was done. Fix the request and send it again.")


class _Connection(h11.Connection):
    """h11's server connection, keeping the protocol error it raised so the answer can say which it was."""

    error: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.error = exc
            raise


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, whose answers to requests it cannot parse are JSON, like the API's."""

    def __init__(self, config: "uvicorn.Config", *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.max_header_bytes = config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.conn = _Connection(h11.SERVER, self.max_header_bytes)

    def send_400_response(self, msg: str) -> None:
        error = getattr(self.conn, "error", None)
        status = 431 if getattr(error, "error_status_hint", 400) == 431 else 400
        message = TOO_LARGE.format(limit=self.max_header_bytes // 1024) if status == 431 else MALFORMED
        body = json.dumps({"error": message, "error_type": "BadRequest"}).encode("ascii")
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii")),
                   (b"connection", b"close")]
        try:
            response = h11.Response(status_code=status, headers=headers, reason=HTTPStatus(status).phrase.encode())
            self.transport.write(self.conn.send(response) or b"")
            self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:  # a response had already begun: nothing more can be said on this connection
            pass
        self.transport.close()


def server_config(app: "FastAPI", settings: "Settings", *, host: str, port: int,
                  log_level: str = "info") -> "uvicorn.Config":
    """The uvicorn configuration ``serve`` uses: the JSON-error h11 protocol and the header size limit."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level, http=JsonErrorH11Protocol,
                          h11_max_incomplete_event_size=int(settings.api_max_header_kb * 1024))


def serve(app: "FastAPI", settings: "Settings", *, host: str, port: int, log_level: str = "info") -> None:
    """Run the API until interrupted."""
    import uvicorn

    uvicorn.Server(server_config(app, settings, host=host, port=port, log_level=log_level)).run()
