"""Start-up indexing in the background (engine/bootstrap.py): the model first, then one knowledge base per
subfolder, with a state the pages read while it runs; nothing is indexed into a store that has bases."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bootstrap import Bootstrap
from engine.config import load_settings
from engine.store import KnowledgeBaseStore

pytestmark = pytest.mark.integration


def sample_folder(root: Path, sections: int = 40) -> Path:
    """Two bases: ``manuals`` with a long task-card file and a note, ``notes`` with one note."""
    (root / "manuals").mkdir(parents=True)
    (root / "notes").mkdir()
    cards = "\n\n".join(f"Task card {i:03d}: inspect panel {i % 17} in zone {i % 7} and record the torque "
                        f"value {40 + i} Nm before the release of the aircraft." for i in range(sections))
    (root / "manuals" / "task-cards.txt").write_text(cards)
    (root / "manuals" / "brakes.md").write_text("# Brakes\n\nReplace the brake when the wear pin is flush.\n")
    (root / "notes" / "towing.md").write_text("# Towing\n\nChock the wheels before towing.\n")
    return root


def test_an_empty_store_is_indexed_base_by_base_with_progress(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    bootstrap = Bootstrap(store, sample_folder(tmp_path / "sample"))
    assert bootstrap.state().stage == "waiting"
    seen = []
    bootstrap.start()
    while not bootstrap.wait(0.05):
        seen.append(bootstrap.state())
    state = bootstrap.state()
    assert state.stage == "done" and state.bases == ("manuals", "notes") and state.bases_done == ("manuals", "notes")
    assert state.overall is not None and state.overall.fraction == 1.0 and state.overall.files_done == 3
    assert {f.status for f in state.files} == {"added"}
    assert store.knowledge_base_names() == ["manuals", "notes"]
    fractions = [s.overall.fraction for s in seen if s.stage == "indexing" and s.overall is not None]
    assert fractions == sorted(fractions) and len(set(fractions)) >= 2  # it moved while indexing


def test_a_store_with_bases_is_left_alone(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    from engine.ingest import Ingestor

    Ingestor(store).ingest_bytes([("a.md", b"# A\n\nText.")], "mine")
    bootstrap = Bootstrap(store, sample_folder(tmp_path / "sample")).start()
    assert bootstrap.wait(120)
    assert bootstrap.state().stage == "skipped" and store.knowledge_base_names() == ["mine"]


def test_a_failure_is_reported_not_raised(tmp_path):
    class Broken:
        settings = load_settings(data_dir=tmp_path / "data")

        @property
        def embedder(self):
            raise RuntimeError("no model here")

    bootstrap = Bootstrap(Broken(), tmp_path).start()
    assert bootstrap.wait(30)
    state = bootstrap.state()
    assert state.stage == "failed" and "no model here" in state.error and "Documents page" in state.message
