"""The pipeline over part of the sample corpus: misspelt questions and follow-up questions.

The store is built once for the module from a few sample_docs/ files (real embedding model, real LanceDB).
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.pipeline import Pipeline
from engine.pipeline.options import AskOptions
from engine.store import KnowledgeBaseStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"
CORPUS = {
    "manuals": ("a320-amm-32-41-rev11.docx", "a320-amm-32-41-rev11.meta.yaml", "a320-amm-32-41-rev12.pdf",
                "a320-amm-32-41-rev12.meta.yaml", "b737-amm-12-15-51-tyre-pressure.txt",
                "fleet-fuel-efficiency-report-2022.html", "fleet-fuel-efficiency-report-2022.meta.yaml",
                "fleet-fuel-efficiency-report-2023.pdf", "fleet-fuel-efficiency-report-2023.meta.yaml"),
    "regulations": ("neaa-ad-2025-0042-mlg-axle-nut.pdf", "neaa-ad-2025-0042-mlg-axle-nut.meta.yaml"),
}
FAST = AskOptions(provider="offline", reflection=False)
TORQUE = "What is the final torque for the A320 main wheel axle nut?"
TORQUE_TYPOS = "What is the final torqe for the A320 main wheel axel nut?"
FUEL = "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports."


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory) -> Pipeline:
    root = tmp_path_factory.mktemp("followup")
    settings = load_settings(data_dir=root / "data")
    store = KnowledgeBaseStore(settings)
    for kb, names in CORPUS.items():
        folder = root / "src" / kb
        folder.mkdir(parents=True)
        for name in names:
            shutil.copy2(SAMPLE_DOCS / kb / name, folder / name)
        report = Ingestor(store).ingest_paths([folder], kb)
        assert not [f for f in report.files if f.status == "rejected"]
    return Pipeline(settings, store, today=lambda: date(2026, 12, 2))


def test_typos_retrieve_the_same_evidence_as_the_right_spelling(pipeline):
    right = pipeline.run(TORQUE, FAST)
    typos = pipeline.run(TORQUE_TYPOS, FAST)
    assert typos.question == TORQUE_TYPOS and typos.intent.raw_query == TORQUE_TYPOS
    assert typos.intent.search_query == TORQUE
    assert typos.evidence and typos.evidence[0].chunk_id == right.evidence[0].chunk_id
    assert [e.chunk_id for e in typos.evidence] == [e.chunk_id for e in right.evidence]
    # the user sees what was searched: in the plan and in the stored trace
    assert all(t.query == TORQUE and "spelling: torqe → torque, axel → axle" in t.reason
               for t in typos.tasks if t.priority == 0)
    stored = pipeline.traces.get(typos.trace_id)
    assert [(c["original"], c["corrected"]) for c in stored["intent"]["spelling"]] == [("torqe", "torque"),
                                                                                      ("axel", "axle")]
    assert right.intent.spelling == ()


def test_without_the_correction_keyword_search_finds_nothing(pipeline):
    assert pipeline.store.search("torqe axel", mode="keyword", k=5) == []
    assert pipeline.store.search("torque axle", mode="keyword", k=5)


def test_a_follow_up_is_answered_as_the_full_question(pipeline):
    answer = pipeline.run("And on the 737?", FAST.model_copy(update={"previous_question": TORQUE}))
    resolved = "What is the final torque for the 737 main wheel axle nut?"
    assert answer.question == resolved and answer.intent.raw_query == resolved
    assert [e.text for e in answer.intent.entities] == ["737"]
    assert answer.extra["followup"] == {"asked": "And on the 737?", "resolved": resolved, "from": TORQUE,
                                        "explanation": "follow-up to the previous question: A320 → 737"}
    assert all(t.query == resolved for t in answer.tasks if t.priority == 0)
    assert pipeline.traces.get(answer.trace_id)["extra"]["followup"]["asked"] == "And on the 737?"


def test_a_follow_up_on_the_date_moves_the_time_constraint(pipeline):
    answer = pipeline.run("and for 2022?", FAST.model_copy(update={"previous_question": FUEL}))
    assert answer.question == FUEL.replace("2023", "2022")
    time = answer.intent.constraints.time
    assert (time.start, time.end) == (date(2022, 1, 1), date(2022, 12, 31))
    assert any(t.filters.since == date(2022, 1, 1) for t in answer.tasks)
    assert any(e.metadata.title.startswith("2022 Fleet Fuel Efficiency Report") for e in answer.evidence)


def test_a_question_that_stands_alone_is_answered_as_asked(pipeline):
    question = "And what is the tyre pressure for the B737?"
    answer = pipeline.run(question, FAST.model_copy(update={"previous_question": TORQUE}))
    assert answer.question == question and "followup" not in answer.extra


def test_the_question_is_embedded_while_perception_reads_it(pipeline, monkeypatch):
    import threading

    embedder, calls = pipeline.store.embedder, []
    real, beside = embedder.encode, embedder.encode_beside
    monkeypatch.setattr(embedder, "encode",
                        lambda texts: calls.append((list(texts), threading.current_thread().name)) or real(texts))
    monkeypatch.setattr(embedder, "encode_beside",
                        lambda text: calls.append(([text], threading.current_thread().name)) or beside(text))
    question = "What is the final torque for the A320 main wheel axle nut, embedded ahead?"
    pipeline.run(question, FAST)
    assert [name[:11] for texts, name in calls if question in texts] == ["embed-ahead"]
    calls.clear()  # a misspelt question is searched as corrected: that text is embedded beside the searches
    answer = pipeline.run("What is the final torqe for the A320 main wheel axel nut, embedded ahead?", FAST)
    assert answer.intent.corrected_query
    assert [name[:12] for texts, name in calls if answer.intent.search_query in texts] == ["store-reads_"]
