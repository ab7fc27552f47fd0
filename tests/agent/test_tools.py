"""The workbench tools over an in-memory store: what they return and what they write."""

from __future__ import annotations

from datetime import date
from email import message_from_string

import pytest

from engine.agent import ToolContext, ToolError
from engine.agent.actions import delete_document, export_report, resolve_delete, send_report, slug
from engine.agent.tools import (
    answer_with_review, calculator, compare_values, get_document, list_documents, search_knowledge_base,
)
from engine.config import load_settings
from engine.errors import KnowledgeBaseError
from tests.agent.fakes import FakeDoc, FakeStore, fake_answer, sample_store

pytestmark = pytest.mark.unit


@pytest.fixture()
def ctx(tmp_path):
    return ToolContext(load_settings(data_dir=tmp_path / "data"), sample_store(), "ana", "admin", fake_answer)


def test_search_passes_mode_k_and_date_filter(ctx):
    out = search_knowledge_base(ctx, "brake wear pin", kb="manuals", mode="keyword", k=3, since=date(2024, 1, 1))
    assert out["results"][0]["doc_id"] == "brake-wear-1a2b3c4d"
    (call,) = ctx.store.searches
    assert (call["kb"], call["mode"], call["k"], call["filters"].since) == ("manuals", "keyword", 3, date(2024, 1, 1))
    assert all(r["update_date"] >= "2024-01-01" for r in out["results"])


def test_get_and_list_documents(ctx):
    doc = get_document(ctx, "apu-oil-5e6f7a8b")
    assert doc["title"] == "APU oil servicing" and "5.7 qt" in doc["text"] and doc["truncated"] is False
    listed = list_documents(ctx)
    assert [kb["name"] for kb in listed["knowledge_bases"]] == ["archive", "manuals"]
    assert len(list_documents(ctx, "manuals")["knowledge_bases"][0]["documents"]) == 2
    with pytest.raises(KnowledgeBaseError):
        get_document(ctx, "missing-doc")


def test_answer_with_review_returns_final_status_and_citations(ctx):
    out = answer_with_review(ctx, "When is the brake replaced?")
    assert out["status"] == "success" and "[1]" in out["final"]
    assert out["citations"] == [{"n": 1, "doc_id": "brake-wear-1a2b3c4d", "title": "Brake wear pin check",
                                 "knowledge_base": "manuals", "chunk_id": "brake-wear-1a2b3c4d#0",
                                 "update_date": None}]
    with pytest.raises(ToolError, match="search_knowledge_base"):
        answer_with_review(ToolContext(ctx.settings, ctx.store, "ana", "admin", None), "q")


def test_calculator_tool():
    assert calculator("1.5 * 4") == {"expression": "1.5 * 4", "value": 6.0}


def test_compare_values_extracts_figures_with_sources(ctx):
    out = compare_values(ctx, "A320", "B737", "oil quantity")
    a, b = out["values"]
    assert (a["entity"], a["figures"][0]["text"], a["figures"][0]["doc_id"]) == ("A320", "5.7 qt", "apu-oil-5e6f7a8b")
    assert b["figures"][0]["text"] == "6.1 qt" and out["missing"] == []
    assert compare_values(ctx, "A320", "A350", "oil quantity")["missing"] == ["A350"]


def test_compare_values_prefers_the_higher_authority_figure_when_sources_conflict(tmp_path):
    store = FakeStore([
        FakeDoc("shop-note-0badf00d", "faq", "Shop note: A320 wheel change tips",
                "A320 axle nut torque: A320 final torque 250 N.m, back off to align. A320 axle nut torque tips.",
                "2019-03-12", authority=2),
        FakeDoc("sb-axle-nut-11223344", "manuals", "SB A320-32-1457 axle nut",
                "The A320 final torque is 325 N.m with dry threads.", "2024-11-18", authority=5),
        FakeDoc("b737-amm-55667788", "manuals", "B737 AMM axle nut", "The B737 axle nut torque is 200 N.m.",
                authority=4),
    ])
    ctx = ToolContext(load_settings(data_dir=tmp_path / "data"), store, "ana", "admin", fake_answer)
    assert [h.doc_id for h in store.search("A320 axle nut torque")][0] == "shop-note-0badf00d"  # the note ranks first
    a, b = compare_values(ctx, "A320", "B737", "axle nut torque")["values"]
    best = a["figures"][0]
    assert (best["text"], best["doc_id"], best["authority"]) == ("325 N.m", "sb-axle-nut-11223344", 5)
    assert [(c["text"], c["doc_id"]) for c in a["conflicts"]] == [("250 N.m", "shop-note-0badf00d")]
    assert b["figures"][0]["text"] == "200 N.m" and b["conflicts"] == []


def test_compare_summary_names_the_source_authority_and_the_overruled_figure():
    from engine.llm.offline import summarise

    result = {"attribute": "axle nut torque", "missing": [], "values": [{
        "entity": "A320",
        "figures": [{"text": "325 N.m", "value": 325.0, "unit": "N.m", "title": "SB A320-32-1457", "authority": 5,
                     "doc_id": "sb-1", "update_date": "2024-11-18"}],
        "conflicts": [{"text": "250 N.m", "value": 250.0, "unit": "N.m", "title": "Shop note", "authority": 2,
                       "doc_id": "note-1", "update_date": "2019-03-12"}]}]}
    text = summarise([("compare_values", {"ok": True, "result": result})])
    assert "A320: 325 N.m (from SB A320-32-1457, sb-1, 2024-11-18, authority 5)" in text
    assert "250 N.m" in text and "Shop note" in text and "lower authority" in text


def test_export_report_writes_a_slugged_file_inside_exports(ctx):
    out = export_report(ctx, "../../etc/passwd Q3 review", "# Body\ntext")
    path = ctx.data_dir / "exports"
    (written,) = path.iterdir()
    assert str(written) == out["path"] and written.name.endswith("-etc-passwd-q3-review.md")
    assert written.read_text().startswith("# ../../etc/passwd Q3 review\n\n# Body")
    export_report(ctx, "../../etc/passwd Q3 review", "again")
    assert len(list(path.iterdir())) == 2
    assert slug("../..") == "report" and slug("Ünïcode / Tïtle") == "n-code-t-tle"


def test_send_report_only_writes_to_the_outbox(ctx):
    out = send_report(ctx, "ops@example.com", "Brake summary", "All brakes checked.")
    (eml,) = (ctx.data_dir / "outbox").iterdir()
    message = message_from_string(eml.read_text())
    assert (message["To"], message["Subject"], message["From"]) == ("ops@example.com", "Brake summary",
                                                                    "workbench@localhost")
    assert "All brakes checked." in message.get_payload() and out["delivered"] is False


def test_delete_resolution(ctx):
    prepared = resolve_delete(ctx, title="brake wear")
    assert prepared["arguments"] == {"doc_id": "brake-wear-1a2b3c4d", "kb": "manuals", "title": "Brake wear pin check"}
    assert "Brake wear pin check" in prepared["summary"]
    with pytest.raises(ToolError, match="doc_id or its title|give its doc_id"):
        resolve_delete(ctx)
    with pytest.raises(ToolError, match="No document"):
        resolve_delete(ctx, title="fuel pump")
    ctx.store.docs.append(type(ctx.store.docs[0])("brake-wear-2", "archive", "Old brake wear pin check", "x"))
    with pytest.raises(ToolError, match="matches 2 documents"):
        resolve_delete(ctx, title="brake wear")
    assert resolve_delete(ctx, title="Brake wear pin check")["arguments"]["doc_id"] == "brake-wear-1a2b3c4d"
    out = delete_document(ctx, doc_id="brake-wear-2", kb="archive")
    assert out["chunks_deleted"] == 1 and ctx.store.deleted == [("brake-wear-2", "archive")]


def test_pipeline_answer_reports_a_missing_pipeline_as_an_engine_error(ctx, monkeypatch):
    import sys

    from engine.agent import pipeline_answer
    from engine.errors import EngineError

    monkeypatch.setitem(sys.modules, "engine.pipeline", None)
    answer = pipeline_answer(ctx.settings, ctx.store, "offline")
    with pytest.raises(EngineError, match="search_knowledge_base"):
        answer("anything")
