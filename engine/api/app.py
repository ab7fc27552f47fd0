"""The FastAPI application: one set of engine objects per process, every route behind the caller's identity."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from engine.api import errors
from engine.api.auth import services as services_of
from engine.api.metrics import Metrics
from engine.api.routes_answers import router as answers
from engine.api.routes_documents import router as documents
from engine.api.routes_manage import router as manage
from engine.config import Settings, default_settings
from engine.facade import Workbench

log = logging.getLogger(__name__)
DESCRIPTION = """The reflective RAG workbench over HTTP: ask questions (full Answer or the short `/rag` form),
review answers, upload and manage documents, edit the retrieval strategy, run the agent and read traces.

When users or API tokens are configured (WORKBENCH_USERS, WORKBENCH_API_TOKENS), every `/v1` route and `/rag`
needs `Authorization: Bearer <token>`; changes need the analyst or admin role, and each caller sees only the
knowledge bases they may read. Errors are JSON: `{"error": "what to fix"}`."""


def create_app(settings: Settings | None = None, *, services: Workbench | None = None,
               warm: bool = True) -> FastAPI:
    """The API over ``settings`` (default: the environment's), served from the engine facade the pages use too.
    ``warm`` loads the store, the embedding model and spaCy at start-up."""
    engine = services or Workbench(settings or default_settings())
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if warm:
            from starlette.concurrency import run_in_threadpool

            await run_in_threadpool(engine.warm_up)
        yield

    app = FastAPI(title="Reflective RAG workbench API", version="1.0.0", description=DESCRIPTION, lifespan=lifespan)
    app.state.services = engine
    app.state.metrics = metrics
    errors.install(app, on_validation_failure=metrics.record_request_validation)
    app.middleware("http")(metrics.middleware)
    app.include_router(answers)
    app.include_router(documents)
    app.include_router(manage)

    @app.get("/healthz", tags=["service"], summary="Whether the store opens and the embedding model is loaded")
    def healthz(request: Request) -> Any:
        try:
            return services_of(request).health()
        except Exception as exc:  # the service is up but cannot serve: say why, with 503
            log.exception("health check failed")
            return JSONResponse({"ok": False, "error": f"{type(exc).__name__}: {exc}"}, status_code=503)

    @app.get("/metrics", tags=["service"], summary="Prometheus metrics (text format)",
             response_class=PlainTextResponse)
    def prometheus() -> Any:
        return metrics.render()

    return app
