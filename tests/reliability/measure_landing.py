"""When the files of one ingest land: the wait from a file being read to its commit, and the run's total time.

    .venv/bin/python -m tests.reliability.measure_landing [--notes 200] [--long-chunks 1500]

Two cases, each on a fresh store with the real model (chunk size 400): ``notes``, a folder of small notes (what
grouped commits cost against one commit per batch), and ``long-in-the-middle``, ten notes, one long file, ten
notes (how long the notes read before the long file wait for their commit). A file's read time is its first
progress step; its landing time is when its result is reported, which an ingest does after the commit.
Works on any revision whose ingest reports steps and results (run it from an export with this file copied in).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path


def note(n: int) -> bytes:
    return f"# Note {n}\n\nCheck the brake wear pin of wheel {n} before each flight.\n".encode()


def long_text(chunks: int) -> bytes:
    sentence = "Step {n}: torque the axle nut of wheel {n} to the value in the table, then lockwire it. "
    return ("# Long procedure\n\n" + "".join(sentence.format(n=n) for n in range(chunks * 4))).encode()


def run(files: dict[str, bytes]) -> dict:
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
        store = KnowledgeBaseStore(load_settings(data_dir=Path(tmp) / "data", chunk_size=400, chunk_overlap=60))
        store.embedder.encode(["warm up"])
        read: dict[str, float] = {}
        landed: dict[str, float] = {}
        started = time.monotonic()
        report = Ingestor(store).ingest_paths(
            [folder], "kb", progress=lambda r: landed.setdefault(r.name, time.monotonic()),
            on_step=lambda s: read.setdefault(s.name, time.monotonic()))
        seconds = time.monotonic() - started
        waits = {n: landed[n] - read[n] for n in read if n in landed}
        notes = [w for n, w in waits.items() if n.startswith("a-")]  # the notes read before the long file
        return {"files": len(files), "seconds": round(seconds, 1),
                "statuses": {s: sum(1 for f in report.files if f.status == s) for s in ("added", "rejected")},
                "commits": getattr(report, "commits", None),
                "wait_p50_s": round(statistics.median(notes or list(waits.values())), 2),
                "wait_max_s": round(max(notes or list(waits.values())), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--long-chunks", type=int, default=1500)
    args = parser.parse_args()
    notes = {f"n-{i:04d}.md": note(i) for i in range(args.notes)}
    middle = {**{f"a-{i:02d}.md": note(i) for i in range(10)}, "m-long.md": long_text(args.long_chunks),
              **{f"z-{i:02d}.md": note(i) for i in range(10)}}
    for case, files in (("notes", notes), ("long-in-the-middle", middle)):
        print(json.dumps({"case": case, **run(files)}), flush=True)


if __name__ == "__main__":
    main()
