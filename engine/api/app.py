"""The FastAPI application: one set of engine objects per process, every route behind the caller's identity."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

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

    app = FastAPI(title="Reflective RAG workbench API", version="1.0.0", description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    serve_docs(app)
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


DOCS_ASSETS = "/docs-assets"
"""Where Swagger UI's and ReDoc's scripts are served from this process (they ship in the fastapi-offline
package), so /docs and /redoc work with no network: FastAPI's defaults load them from a CDN."""


def docs_assets_folder():
    """The folder of the packaged Swagger UI and ReDoc files."""
    from importlib.resources import files

    return files("fastapi_offline") / "static"


def serve_docs(app: FastAPI) -> None:
    """/docs (Swagger UI) and /redoc, their scripts and styles served locally from DOCS_ASSETS."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=str(docs_assets_folder())), name="docs-assets")
    redirect = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}{redirect}", swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css", swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png")

    @app.get(redirect, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png", with_google_fonts=False)
