"""The JSON HTTP API over the engine (FastAPI): ``create_app(settings)``; served by ``python -m engine serve``."""

from engine.api.app import create_app

__all__ = ["create_app"]
