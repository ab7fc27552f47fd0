"""Per-file progress on the terminal (stderr) while files are ingested: one bar per run, the current file beside it.

The bar counts files, and a file being embedded counts for the part of it that is done, so the bar (and its time
estimate) moves with the work rather than only when a group of files is committed."""

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
        self.done = 0
        self.partial: dict[str, float] = {}  # files being embedded: the part of each that is done

    def _move(self) -> None:
        n = min(self.done + sum(self.partial.values()), self.bar.total or 0)
        self.bar.n = int(n) if n == int(n) else round(n, 1)  # "2/23" once files land, "2.4/23" inside a file

    def step(self, step: IngestStep) -> None:
        what = "read" if step.done == 0 else f"{step.done}/{step.total} chunks embedded"
        self.partial[step.name] = 0.95 * step.fraction
        self._move()
        self.bar.set_postfix_str(f"{step.name}: {what}", refresh=True)

    def file(self, result: FileResult) -> None:
        self.partial.pop(result.name, None)
        self.done += 1
        self._move()
        self.bar.set_postfix_str(f"{result.name}: {result.status}", refresh=True)

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
