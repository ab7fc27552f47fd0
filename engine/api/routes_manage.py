"""Strategy versions, agent runs and stored traces."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query

from engine.api.auth import Caller, Engine, Writer
from engine.api.errors import NotFound
from engine.api.schemas import AgentRunRequest, StrategyUpdate
from engine.errors import ConfigError, EngineError

router = APIRouter()
VERSION = r"^\d{8}T\d{12}Z$"
RUN_ID = r"^[A-Za-z0-9_-]{1,64}$"
TRACE_ID = r"^[A-Za-z0-9_-]{1,64}$"


# -- strategy --------------------------------------------------------------------------------------------------
def _strategy_payload(engine) -> dict[str, Any]:
    version, strategy = engine.strategies.active()
    return {"active_version": version, "strategy": strategy.model_dump(mode="json"),
            "versions": [asdict(v) for v in engine.strategies.versions()]}


@router.get("/v1/strategy", tags=["strategy"], summary="The active strategy and every saved version")
def get_strategy(engine: Engine, identity: Caller) -> dict[str, Any]:
    return _strategy_payload(engine)


@router.put("/v1/strategy", tags=["strategy"], summary="Save a new strategy version")
def put_strategy(body: StrategyUpdate, engine: Engine, identity: Writer) -> dict[str, Any]:
    """Saves `strategy` as a new version (never overwrites one), active unless `activate` is false. Needs the
    analyst or admin role."""
    version = engine.strategies.save(body.strategy, note=body.note or f"saved by {identity.name} via the API",
                                     activate=body.activate)
    return {"saved_version": version, **_strategy_payload(engine)}


@router.post("/v1/strategy/{version}/activate", tags=["strategy"], summary="Make a saved version the active one")
def activate_strategy(engine: Engine, identity: Writer,
                      version: Annotated[str, Path(pattern=VERSION, description="e.g. 20250101T120000000000Z")]
                      ) -> dict[str, Any]:
    try:
        engine.strategies.activate(version)
    except ConfigError as exc:
        if "does not exist" in str(exc):
            raise NotFound(str(exc)) from None
        raise
    return _strategy_payload(engine)


# -- agent -----------------------------------------------------------------------------------------------------
@router.post("/v1/agent/runs", tags=["agent"], summary="Run a request through the tool-calling agent")
def start_run(body: AgentRunRequest, engine: Engine, identity: Caller) -> dict[str, Any]:
    """Runs until the request is done or a high-risk call waits for approval (`status: paused`, `pending` set).
    The run acts as you, with your role; its tools see only the bases you may read."""
    return engine.gate.start(identity, body.request).to_dict()


@router.get("/v1/agent/runs/{run_id}", tags=["agent"], summary="One agent run as it stands")
def get_run(engine: Engine, identity: Caller, run_id: Annotated[str, Path(pattern=RUN_ID)]) -> dict[str, Any]:
    return engine.gate.get(identity, run_id).to_dict()


def _decide(engine, identity, run_id: str, approve: bool) -> dict[str, Any]:
    return engine.gate.decide(identity, run_id, approve).to_dict()


@router.post("/v1/agent/runs/{run_id}/approve", tags=["agent"], summary="Approve a paused run's pending call")
def approve_run(engine: Engine, identity: Caller, run_id: Annotated[str, Path(pattern=RUN_ID)]) -> dict[str, Any]:
    """Runs the pending call once, then continues the run. Your role must allow the tool; a call on a base needs
    your write grant; you may not approve your own run unless WORKBENCH_ALLOW_SELF_APPROVAL is set."""
    return _decide(engine, identity, run_id, True)


@router.post("/v1/agent/runs/{run_id}/deny", tags=["agent"], summary="Deny a paused run's pending call")
def deny_run(engine: Engine, identity: Caller, run_id: Annotated[str, Path(pattern=RUN_ID)]) -> dict[str, Any]:
    return _decide(engine, identity, run_id, False)


# -- traces ----------------------------------------------------------------------------------------------------
@router.get("/v1/traces", tags=["traces"], summary="Stored pipeline runs, newest first")
def list_traces(
    engine: Engine, identity: Caller,
    status: Annotated[Literal["success", "refused", "failure"] | None, Query()] = None,
    provider: Annotated[str | None, Query(max_length=200)] = None,
    strategy_version: Annotated[str | None, Query(max_length=64)] = None,
    since: Annotated[datetime | None, Query(description="ISO date or time (UTC unless it says otherwise); runs "
                                            "created at or after it")] = None,
    issue_type: Annotated[str | None, Query(max_length=64, description="e.g. citation, validation:timeliness")
                          ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    """Only runs over bases you may read (a run that failed before touching any base: only if you asked it)."""
    if since is not None and since.tzinfo is not None:
        since = since.astimezone(timezone.utc).replace(tzinfo=None)
    filters = {"status": status, "provider": provider, "strategy_version": strategy_version,
               "since": since.isoformat() if since else None, "issue_type": issue_type}
    runs = engine.traces_for(identity).list(limit=limit, offset=offset, **filters)
    return {"traces": [r.to_dict() for r in runs], "limit": limit, "offset": offset,
            "next_offset": offset + len(runs) if len(runs) == limit else None}


@router.get("/v1/traces/{trace_id}", tags=["traces"], summary="One stored run in full")
def get_trace(engine: Engine, identity: Caller,
              trace_id: Annotated[str, Path(pattern=TRACE_ID)]) -> dict[str, Any]:
    try:
        return engine.traces_for(identity).get(trace_id)
    except EngineError:
        raise NotFound(f"No trace {trace_id!r} that you may see; list them with GET /v1/traces.") from None

