"""``bootstrap`` and ``ingest`` show progress on the terminal as they go: per file, and inside a long file as its
chunks are embedded, not all at once when the batch ends."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def _long_text(sections: int) -> str:
    return "\n\n".join(
        f"Section {i}. Work card {i:04d} covers access panel {i * 7 % 97} in zone {i % 13}. Inspect fastener row "
        f"{i % 31}, record the torque value {40 + i % 60} Nm and sign the card before release. " * 4
        for i in range(sections))


def _timed_lines(stream) -> list[tuple[float, str]]:
    """Each terminal update (tqdm redraws with carriage returns) with the time it arrived."""
    out: list[tuple[float, str]] = []
    buffer = b""
    while chunk := stream.read1(4096):
        buffer += chunk
        *parts, buffer = re.split(rb"[\r\n]", buffer)
        out.extend((time.monotonic(), p.decode(errors="replace")) for p in parts if p.strip())
    if buffer.strip():
        out.append((time.monotonic(), buffer.decode(errors="replace")))
    return out


def test_bootstrap_reports_each_base_and_moves_inside_a_long_file(tmp_path: Path):
    sample = tmp_path / "sample"
    (sample / "manuals").mkdir(parents=True)
    (sample / "notes").mkdir()
    (sample / "manuals" / "work-cards.txt").write_text(_long_text(300))
    (sample / "manuals" / "brakes.md").write_text("# Brakes\n\nReplace the brake when the wear pin is flush.\n")
    (sample / "notes" / "towing.md").write_text("# Towing\n\nChock the wheels before towing.\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine", "bootstrap", "--sample-dir", str(sample), "--data-dir", str(tmp_path / "d")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=lambda: lines.extend(_timed_lines(proc.stderr)))
    reader.start()
    stdout = proc.stdout.read().decode()
    assert proc.wait(timeout=600) == 0, "\n".join(text for _, text in lines)[-3000:]
    ended = time.monotonic()
    reader.join(timeout=10)
    texts = [text for _, text in lines]
    steps = [(t, int(m.group(1))) for t, text in lines if (m := re.search(r"(\d+)/\d+ chunks embedded", text))]
    assert len({done for _, done in steps}) >= 2, texts      # the long file's chunks were counted as they went
    assert steps[0][0] < ended - 0.5, texts                  # ... while the run was still going, not at its end
    assert any(text.startswith("manuals") and "2/2" in text for text in texts), texts
    assert any(text.startswith("notes") and "1/1" in text for text in texts), texts
    assert "Indexed manuals" in stdout and "Indexed notes" in stdout
