"""An ingest to kill: loads the embedding model, says ``ready``, then ingests a folder in a few calls.

    python -m tests.reliability.crash_ingest DATA_DIR FOLDER [--calls N] [--die-after-commit]

``--die-after-commit`` makes the process SIGKILL itself the moment its first chunk rows are
committed, before anything else (index work, reports) can happen: the exact point where a crash
used to leave a base that later runs called "unchanged" but never indexed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

KB = "manuals"


def die_after_first_commit() -> None:
    """Kill this process as soon as a LanceDB add or merge commits to a chunk table (fault injection for the
    crash tests); the document catalogue's commits before it go through."""
    from lancedb.merge import LanceMergeInsertBuilder
    from lancedb.table import LanceTable

    def killing(method, name_of):
        def wrapper(self, *args, **kwargs):
            result = method(self, *args, **kwargs)
            if name_of(self).startswith("kb_"):
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        return wrapper

    LanceTable.add = killing(LanceTable.add, lambda table: table.name)
    LanceMergeInsertBuilder.execute = killing(LanceMergeInsertBuilder.execute, lambda builder: builder._table.name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--calls", type=int, default=1, help="split the folder's files over this many ingest calls")
    parser.add_argument("--die-after-commit", action="store_true")
    args = parser.parse_args()

    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    store = KnowledgeBaseStore(load_settings(data_dir=args.data_dir, chunk_size=400, chunk_overlap=60))
    store.embedder.encode(["warm up"])
    if args.die_after_commit:
        die_after_first_commit()
    files = sorted(p for p in args.folder.iterdir() if p.is_file())
    groups = [files[i::args.calls] for i in range(args.calls)]
    print("ready", flush=True)
    ingestor = Ingestor(store)
    for number, group in enumerate(groups):
        report = ingestor.ingest_paths(group, KB)
        print(f"done {number} {report.to_dict()['summary']}", flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
