"""Per-file progress on the terminal (stderr) while files are ingested: one bar per run, the current file beside it."""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

from engine.ingest import FileResult, IngestStep


class TerminalProgress:
    """A tqdm bar over a run's files; ``file`` and ``step`` are the Ingestor's ``progress`` and ``on_step``."""

    def __init__(self, label: str, files: int, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.bar = tqdm(total=files, desc=label, unit="file", file=stream or sys.stderr, disable=not enabled,
                        dynamic_ncols=True, mininterval=0.2)

    def step(self, step: IngestStep) -> None:
        what = "read" if step.done == 0 else f"{step.done}/{step.total} chunks embedded"
        self.bar.set_postfix_str(f"{step.name}: {what}", refresh=True)

    def file(self, result: FileResult) -> None:
        self.bar.update(1)
        self.bar.set_postfix_str(f"{result.name}: {result.status}", refresh=True)

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
