"""Two workbench instances on one PostgreSQL database and one LanceDB store: a run paused for confirmation in one
is approved in the other, and both instances' traces appear in one list."""

from __future__ import annotations

import pytest

from engine.agent import AuditLog, build_runtime
from engine.config import load_settings
from engine.database import Database
from engine.ingest import Ingestor
from engine.llm.scripted import ScriptedProvider
from engine.orchestration import StrategyStore
from engine.pipeline import AskOptions, Pipeline
from engine.store import KnowledgeBaseStore
from engine.tracing import TraceStore
from tests.database.conftest import new_postgres_database

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class Instance:
    """What one app process holds: its own database engine (connection pool), store handle, pipeline, runtime."""

    def __init__(self, data, url: str, provider: ScriptedProvider) -> None:
        self.settings = load_settings(data_dir=data, database_url=url)
        self.db = Database(url)
        self.store = KnowledgeBaseStore(self.settings)
        self.traces = TraceStore(self.db)
        self.pipeline = Pipeline(self.settings, self.store, strategies=StrategyStore(self.db), traces=self.traces)
        self.runtime = build_runtime(self.settings, provider, store=self.store, audit=AuditLog(self.db))


def test_a_run_paused_in_one_instance_is_approved_in_the_other(postgres_server, tmp_path):
    url = new_postgres_database(postgres_server)
    data = tmp_path / "data"
    Ingestor(KnowledgeBaseStore(load_settings(data_dir=data, database_url=url))).ingest_records([
        {"id": "old-manual", "title": "Old wheel manual", "text": "The old wheel nut torque was 250 N.m."},
        {"id": "new-manual", "title": "Wheel manual", "text": "The wheel nut torque is 300 N.m."},
    ], "manuals")
    first = Instance(data, url, ScriptedProvider([{"tool_use": {"name": "delete_document",
                                                                "input": {"title": "old wheel manual"}}}]))
    second = Instance(data, url, ScriptedProvider(["Deleted the old wheel manual."]))
    assert first.db.engine is not second.db.engine

    run = first.runtime.start("delete the old wheel manual", "ada", "admin")
    assert run.status == "paused" and run.pending.arguments["doc_id"] == "old-manual"
    assert [r["run_id"] for r in AuditLog(second.db).runs(status="paused")] == [run.run_id]
    done = second.runtime.resume(run.run_id, approve=True, approver="boss")
    assert done.status == "completed" and [s.decision for s in done.steps] == ["confirmation_required", "approved"]
    assert [d.doc_id for d in first.store.list_documents("manuals")] == ["new-manual"]  # gone for both
    with pytest.raises(Exception, match="not waiting for approval"):
        first.runtime.resume(run.run_id, approve=True, approver="boss")

    a = first.pipeline.run("What is the wheel nut torque?", AskOptions(provider="offline", user="ada"))
    b = second.pipeline.run("What was the old wheel nut torque?", AskOptions(provider="offline", user="bob"))
    for instance in (first, second):
        listed = {t.trace_id: t.user for t in instance.traces.list()}
        assert listed == {a.trace_id: "ada", b.trace_id: "bob"}
    assert second.traces.get(a.trace_id)["question"] == "What is the wheel nut torque?"
