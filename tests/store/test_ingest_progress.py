"""Ingest reports progress inside each file (chunks embedded) and a result for every file, repeats included."""

from __future__ import annotations

import pytest

import engine.embed_budget as embed_budget
from engine.ingest import FileResult, Ingestor, IngestStep

pytestmark = pytest.mark.integration

LONG = "\n\n".join(f"Paragraph {n}: torque the axle nut to {100 + n} N.m in two stages, then check." for n in range(60))


def test_each_file_reports_steps_as_its_chunks_are_embedded(store, monkeypatch):
    monkeypatch.setattr(embed_budget, "FIRST_STEP", 2)  # a small first step measures the rate, then larger ones
    monkeypatch.setattr(embed_budget, "EMBED_STEP", 3)
    events: list[IngestStep | FileResult] = []
    report = Ingestor(store).ingest_bytes(
        [("long.md", LONG.encode()), ("short.md", b"# Note\n\nChock the wheels."), ("short.md", b"again")],
        "manuals", progress=events.append, on_step=events.append)
    results = {f.name: f for f in report.files if f.status == "added"}
    steps = {name: [e for e in events if isinstance(e, IngestStep) and e.name == name] for name in results}
    long_steps = [(s.done, s.total) for s in steps["long.md"]]
    total = results["long.md"].chunks
    assert total > 6 and long_steps[0] == (0, total) and long_steps[-1] == (total, total)
    assert [d for d, _ in long_steps] == [0, *range(2, total, 3), total]
    assert [(s.done, s.total) for s in steps["short.md"]] == [(0, 1), (1, 1)]
    finished = [e for e in events if isinstance(e, FileResult)]
    assert sorted((f.name, f.status) for f in finished) == [("long.md", "added"), ("short.md", "added"),
                                                            ("short.md", "rejected")]
    assert events.index(steps["long.md"][-1]) < events.index(results["long.md"])


def test_cli_ingest_shows_per_file_progress_on_stderr(capsys, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nFirst note.")
    (folder / "b.md").write_text("# B\n\nSecond note.")
    from engine.cli import main

    assert main(["ingest", str(folder), "--kb", "notes", "--data-dir", str(tmp_path / "data")]) == 0
    captured = capsys.readouterr()
    assert "notes: 2 added" in captured.out
    assert "notes" in captured.err and "2/2" in captured.err and "b.md: added" in captured.err
