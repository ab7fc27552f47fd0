"""The ingest's progress tally: each file's state and fraction, and an overall fraction that moves with the
embedding, not only when files land."""

from __future__ import annotations

import pytest

from engine.ingest_progress import IngestProgress
from engine.ingest_results import FileResult, IngestStep

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_overall_moves_while_a_file_is_embedded():
    clock = Clock()
    tally = IngestProgress(["a.pdf", "b.md"], clock=clock)
    assert tally.overall().fraction == 0 and [f.describe() for f in tally.files()] == ["waiting to be read"] * 2
    tally.step(IngestStep("a.pdf", 0, 40))
    first = tally.overall().fraction
    tally.step(IngestStep("a.pdf", 20, 40))
    clock.now = 10.0
    middle = tally.overall()
    assert 0 < first < middle.fraction < 0.5
    assert tally.files()[0].describe() == "20/40 chunks embedded" and middle.chunks_embedded == 20
    assert "0 of 2 files done · 20 chunks embedded · 10 s · about" in middle.describe()
    tally.file(FileResult("a.pdf", "added", chunks=40))
    assert tally.overall().fraction == 0.5 and tally.overall().files_done == 1
    tally.file(FileResult("b.md", "unchanged"))
    assert tally.finished and tally.overall().fraction == 1.0
    assert [f.status for f in tally.files()] == ["added", "unchanged"]


def test_of_two_files_with_one_name_the_repeat_is_the_one_rejected():
    tally = IngestProgress(["note.txt", "note.txt"])
    tally.step(IngestStep("note.txt", 0, 1))
    tally.file(FileResult("note.txt", "rejected"))
    assert [f.state for f in tally.files()] == ["embedding", "finished"]
    tally.file(FileResult("note.txt", "added", chunks=1))
    assert [f.status for f in tally.files()] == ["added", "rejected"]


def test_names_can_be_added_for_a_later_ingest():
    tally = IngestProgress(["a.md"])
    tally.file(FileResult("a.md", "added", chunks=2))
    tally.add(["b.md", "c.md"])
    assert tally.overall().files == 3 and round(tally.overall().fraction, 3) == round(1 / 3, 3)
