"""Uploads are not buried: undated, default-authority documents that alone answer a question rank first.

Two bases in a LanceDB store on tmp_path with the real embedding model: a new base of undated authority-3
uploads, and a base of dated authority-5 documents on nearby topics. Retrieval is planned the way the
pipeline plans it (Perception, the default Strategy and its router).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.orchestration import Strategy, StrategyRouter
from engine.retrieval import Retriever
from engine.store import KnowledgeBaseStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]
SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"

POLICIES = [  # dated, authority 5, near the uploads' topic
    ("fire-extinguishers.md", "---\ntitle: Portable fire extinguisher inspection policy\nupdate_date: 2025-09-01\n"
     "authority: 5\ndoc_type: policy\n---\n# Portable fire extinguishers\n\nEvery portable fire extinguisher in the "
     "offices is inspected monthly. The pressure gauge needle must be in the green band. Extinguishers are serviced "
     "by the contractor every 12 months and hydrostatically tested every 5 years.\n"),
    ("server-room-access.md", "---\ntitle: Server room access and safety policy\nupdate_date: 2025-06-15\n"
     "authority: 5\ndoc_type: policy\n---\n# Server room access\n\nOnly staff on the access list may enter the server "
     "room. Visitors are escorted at all times. The room temperature is kept between 18 and 27 degrees Celsius, and "
     "the fire alarm panel is tested every week.\n"),
    ("gas-cylinder-storage.md", "---\ntitle: Compressed gas cylinder storage rules\nupdate_date: 2025-03-20\n"
     "authority: 5\ndoc_type: regulation\n---\n# Gas cylinder storage\n\nCompressed gas cylinders are stored upright "
     "and chained to a wall. Full and empty cylinders are kept apart and labelled. Cylinders are never stored near "
     "exits or heat sources.\n"),
]
UPLOADS = [  # no date, no authority: the defaults
    ("fm200-suppression-note.txt", "Server room fire suppression system note.\n\nThe FM-200 suppression cylinder in "
     "the server room must be refilled when its gauge reads below 360 psi at 21 degrees Celsius. A refill is booked "
     "with the suppression vendor within 48 hours of a low reading, and the cylinder weight is logged after each "
     "refill.\n"),
    ("ups-battery-note.txt", "UPS battery replacement note.\n\nThe server room UPS batteries are replaced every four "
     "years, or earlier when the self-test reports a runtime below 10 minutes.\n"),
    ("nitrogen-cart-note.txt", "Hangar 3 nitrogen servicing cart note.\n\nChange the nitrogen bottle on the hangar 3 "
     "servicing cart when the bottle pressure falls below 300 psi. The cart regulator stays set to 230 psi.\n"),
]
SAMPLE_TYRES = [  # dated, authority 5 sample documents about tyre inflation with nitrogen
    SAMPLE_DOCS / "manuals" / "a320-amm-12-14-32-tyre-pressure.md",
    SAMPLE_DOCS / "manuals" / "b737-amm-12-15-51-tyre-pressure.txt",
    SAMPLE_DOCS / "regulations" / "neaa-nr-2023-061-tyre-inspection.txt",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> KnowledgeBaseStore:
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path_factory.mktemp("fair") / "data"))
    ingest = Ingestor(store)
    ingest.ingest_bytes([(name, text.encode()) for name, text in POLICIES], "policies")
    ingest.ingest_paths(SAMPLE_TYRES, "manuals")
    report = ingest.ingest_bytes([(name, text.encode()) for name, text in UPLOADS], "uploads")
    assert report.count("added") == len(UPLOADS)
    return store


def retrieve(store: KnowledgeBaseStore, question: str, bases: list[str] | None = None):
    from engine.perception import get_perception

    intent = get_perception().run(question)
    strategy = Strategy()
    tasks = StrategyRouter(strategy, bases or store.knowledge_base_names()).run(intent)
    return Retriever(store).run(tasks, intent, strategy).evidence


@pytest.mark.parametrize(("question", "answer_file"), [
    ("When must the server room FM-200 cylinder be refilled?", "fm200-suppression-note.txt"),
    ("When must the nitrogen bottle on the hangar 3 servicing cart be changed?", "nitrogen-cart-note.txt"),
])
def test_the_upload_that_alone_answers_ranks_first_over_all_bases(store, question, answer_file):
    alone = retrieve(store, question, ["uploads"])
    assert alone[0].metadata.file_name == answer_file  # its own base puts it first ...
    evidence = retrieve(store, question)
    top = evidence[0]
    assert top.metadata.file_name == answer_file, [(e.knowledge_base, e.metadata.title, e.score) for e in evidence]
    assert top.knowledge_base == "uploads" and top.metadata.update_date is None and top.metadata.authority == 3
    assert {e.knowledge_base for e in evidence} > {"uploads"}  # ... and the other bases were searched too


def test_the_top_hit_of_each_base_with_a_relevant_hit_survives(store):
    evidence = retrieve(store, "What nitrogen pressure is used to inflate tyres, and when is the cart bottle changed?")
    bases = {e.knowledge_base for e in evidence}
    assert {"uploads", "manuals"} <= bases
    best = {}
    for e in evidence:
        best.setdefault(e.knowledge_base, e)
    assert best["uploads"].metadata.file_name == "nitrogen-cart-note.txt"
