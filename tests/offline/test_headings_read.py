"""The reader reads headings and what stands under them: a changelog's release heading holds the release's date,
and the section under it says what the release changed."""

from __future__ import annotations

from engine.embeddings import VectorCache
from engine.language.question import read_question
from engine.offline.reader import candidates
from engine.offline.sentences import rank_sentences
from engine.results import Evidence

CHANGELOG = ("## [3.2.0] - 2025-06-19\n\n### Added\n\n- A `--dry-run` option for the sync command.\n\n"
             "## [3.1.4] - 2025-02-03\n\n### Fixed\n\n- Timestamps of archived folders are kept.\n")


def _evidence() -> list[Evidence]:
    return [Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", score=1.0, text=CHANGELOG,
                     metadata={"title": "Changelog", "source": "CHANGELOG.md"})]


def test_a_release_heading_is_read_and_its_date_is_a_candidate():
    reading = read_question("When was version 3.2.0 released?")
    sentences = rank_sentences(reading, _evidence(), VectorCache().encode)
    headings = [s for s in sentences if s.kind == "heading"]
    assert any("3.2.0" in s.text for s in headings)
    found = candidates(reading, _evidence(), sentences)
    assert any("2025-06-19" in c.text for c in found)


def test_a_sentence_under_a_sub_heading_stays_in_its_numbered_section():
    """Flattened text has no heading levels: "Added" under "[3.2.0] - ..." is part of release 3.2.0, so a question
    naming 3.2.0 keeps what it added and leaves out what 3.1.4 fixed."""
    reading = read_question("What option did release 3.2.0 add to the sync command?")
    sentences = rank_sentences(reading, _evidence(), VectorCache().encode)
    added = next(s for s in sentences if "dry-run" in s.text)
    assert "3.2.0" in added.heading and "Added" in added.heading
    assert not any("Timestamps" in s.text for s in sentences)
