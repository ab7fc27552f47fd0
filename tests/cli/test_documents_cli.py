"""Every documented CLI form works; --json prints exactly one JSON object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import helpers
from tests.helpers import run_json

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]




@pytest.fixture()
def data_dir(tmp_path):
    return str(tmp_path / "data")


def test_ingest_list_search_delete(tmp_path, capsys, data_dir):
    docs = tmp_path / "docs"
    helpers.write_corpus(docs)
    (docs / "bad.pdf").write_bytes(b"not a pdf")
    code, out = run_json(capsys, "ingest", str(docs), "--kb", "manuals", "--data-dir", data_dir)
    assert code == 0
    assert out["summary"] == {"added": 6, "unchanged": 0, "replaced": 0, "rejected": 1, "skipped": 0}
    bad = next(f for f in out["files"] if f["name"] == "bad.pdf")
    assert bad["status"] == "rejected" and "upload a real PDF" in bad["reason"]

    code, out = run_json(capsys, "ingest", str(docs / "brake-wear.md"), "--kb", "manuals", "--data-dir", data_dir)
    assert out["files"][0]["status"] == "unchanged"

    code, out = run_json(capsys, "kb", "list", "--data-dir", data_dir)
    (kb,) = out["knowledge_bases"]
    assert kb["name"] == "manuals" and len(kb["documents"]) == 6
    doc = next(d for d in kb["documents"] if d["file_name"] == "fault-codes.csv")
    assert set(doc) >= {"doc_id", "title", "file_name", "update_date", "chunks"} and doc["update_date"] == "unknown"

    code, out = run_json(capsys, "search", "E4027", "--kb", "manuals", "--mode", "keyword", "--k", "3",
                         "--data-dir", data_dir)
    assert out["results"][0]["file_name"] == "fault-codes.csv"
    code, out = run_json(capsys, "search", "torque", "--kb", "manuals", "--mode", "vector", "--k", "10",
                         "--since", "2024-01-01", "--doc-type", "manual", "--data-dir", data_dir)
    assert out["results"] and all(r["update_date"] >= "2024-01-01" and r["doc_type"] == "manual" for r in out["results"])

    code, out = run_json(capsys, "kb", "delete-doc", doc["doc_id"], "--kb", "manuals", "--data-dir", data_dir)
    assert code == 0 and out["chunks_deleted"] == doc["chunks"]
    code, out = run_json(capsys, "kb", "delete-doc", doc["doc_id"], "--kb", "manuals", "--data-dir", data_dir)
    assert code == 1 and out["ok"] is False and "kb list" in out["error"]


def test_eval_retrieval_prints_the_metrics(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    topics = ["hydraulic pump", "fuel quantity probe", "cabin pressure controller", "brake accumulator",
              "pitot heater", "landing light", "engine fire bottle", "oxygen generator"]
    corpus.write_text("\n".join(json.dumps({"id": f"p{i}", "title": t.title(), "text": f"The {t} is checked every 600 hours."})
                                for i, t in enumerate(topics)))
    queries = tmp_path / "queries.jsonl"
    queries.write_text("\n".join(json.dumps({"id": f"q{i}", "text": f"When is the {t} checked?"}) for i, t in enumerate(topics)))
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("qid\tdocid\tscore\n" + "\n".join(f"q{i}\tp{i}\t1" for i in range(len(topics))))
    for mode in ("vector", "keyword", "hybrid"):
        code, out = run_json(capsys, "eval", "retrieval", "--corpus", str(corpus), "--queries", str(queries),
                             "--qrels", str(qrels), "--k", "10", "--mode", mode)
        assert code == 0
        assert {"recall@5", "recall@10", "ndcg@10", "mrr@10", "p50_ms", "p95_ms"} <= set(out)
        assert out["recall@10"] == 1.0 and out["mrr@10"] >= 0.9, (mode, out)


def test_bad_flag_values_fail_cleanly(capsys, data_dir):
    code, out = run_json(capsys, "search", "x", "--since", "soon", "--data-dir", data_dir)
    assert code == 1 and "YYYY-MM-DD" in out["error"]
    code, out = run_json(capsys, "kb", "list", "--data-dir", data_dir, "--chunk-size", "10")
    assert code == 1 and "chunk_size" in out["error"]


def test_module_entry_point_prints_one_json_object(tmp_path):
    helpers.write_corpus(tmp_path / "docs")
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "ingest", str(tmp_path / "docs" / "brake-wear.md"), "--kb", "faq",
         "--json", "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["added"] == 1
    assert proc.stdout.count("\n") == 1


def test_ingest_on_conflict_and_follow_links(tmp_path, capsys, data_dir):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text("# Report north\n\nNorth readings.")
    run_json(capsys, "ingest", str(docs), "--kb", "reports", "--data-dir", data_dir)
    (docs / "report.md").write_text("# Report south\n\nSouth readings.")
    code, out = run_json(capsys, "ingest", str(docs), "--kb", "reports", "--data-dir", data_dir,
                         "--on-conflict", "keep-both")
    (kept,) = out["files"]
    assert code == 0 and kept["status"] == "added" and kept["title"] == "Report south (2)"
    assert kept["existing"]["title"] == "Report north"
    (docs / "report.md").write_text("# Report east\n\nEast readings.")
    from engine.cli import main

    assert main(["ingest", str(docs), "--kb", "reports", "--data-dir", data_dir, "--on-conflict", "skip"]) == 0
    out, _ = capsys.readouterr()
    assert "skipped" in out and "Report north" in out and "reports: 0 added" in out
    assert main(["ingest", str(docs), "--kb", "reports", "--data-dir", data_dir]) == 0
    out, _ = capsys.readouterr()
    assert 'Replaced "Report north"' in out

    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "v3.md").write_text("# Version 3\n\nThird.")
    (docs / ".versions").mkdir()
    (docs / ".versions" / "v2.md").write_text("# Version 2\n\nSecond.")
    (docs / "current.md").symlink_to(".versions/v2.md")
    (docs / "outside.md").symlink_to(tmp_path / "store" / "v3.md")
    code, out = run_json(capsys, "ingest", str(docs), "--kb", "linked", "--data-dir", data_dir, "--follow-links")
    outcome = {f["name"]: f for f in out["files"]}
    assert outcome["current.md"]["status"] == "added" and outcome["current.md"]["title"] == "Version 2"
    assert outcome["outside.md"]["status"] == "skipped" and "outside the folder" in outcome["outside.md"]["reason"]


def test_set_title_retitles_a_document_and_search_shows_it(tmp_path, capsys, data_dir):
    docs = tmp_path / "docs"
    helpers.write_corpus(docs)
    run_json(capsys, "ingest", str(docs), "--kb", "manuals", "--data-dir", data_dir)
    code, out = run_json(capsys, "kb", "list", "--data-dir", data_dir)
    doc = next(d for d in out["knowledge_bases"][0]["documents"] if d["file_name"] == "fault-codes.csv")
    code, out = run_json(capsys, "kb", "set-title", doc["doc_id"], "AMIS fault code table", "--kb", "manuals",
                         "--data-dir", data_dir)
    assert code == 0 and out["title"] == "AMIS fault code table" and out["chunks"] == doc["chunks"]
    code, out = run_json(capsys, "search", "E4027", "--kb", "manuals", "--mode", "keyword", "--k", "1",
                         "--data-dir", data_dir)
    assert out["results"][0]["title"] == "AMIS fault code table"
    code, out = run_json(capsys, "kb", "set-title", doc["doc_id"], " ", "--kb", "manuals", "--data-dir", data_dir)
    assert code == 1 and "cannot be empty" in out["error"]


def test_kb_graph_makes_a_base_s_entity_graph_again(tmp_path, capsys, data_dir):
    from engine.config import load_settings
    from engine.store import KnowledgeBaseStore
    from engine.store import mentions

    docs = tmp_path / "docs"
    helpers.write_corpus(docs)
    run_json(capsys, "ingest", str(docs), "--kb", "manuals", "--data-dir", data_dir)
    store = KnowledgeBaseStore(load_settings(data_dir=Path(data_dir)))
    written = mentions.count(store._db, "manuals")
    assert written > 0
    mentions.drop(store._db, "manuals")
    code, out = run_json(capsys, "kb", "graph", "manuals", "--data-dir", data_dir)
    assert code == 0 and out["mention_rows"] == written and out["chunks"] > 0
    code, out = run_json(capsys, "kb", "graph", "nowhere", "--data-dir", data_dir)
    assert code == 1 and "does not exist" in out["error"]
