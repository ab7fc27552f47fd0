"""Ingest throughput of the two engines on the same files: in-process (local) and Ray Data (ray).

    python bench/bench_ingest_engines.py [--corpus ../shared/datasets/retrieval_dev/corpus.jsonl] [--limit N]
                                         [--num-cpus N] [--embed-actors N]

The corpus records ({"id", "title", "text"}) are written as one .txt file each with a .meta.json sidecar giving
its title, and both engines ingest that folder into a fresh store: parse (sandboxed worker) + metadata + chunk +
embed + LanceDB write + index maintenance. Then each ingests it again (every file unchanged). The engines take
turns, ``--rounds`` times each, and each one's fastest first pass is kept (other work shares this machine).

local: the model is loaded and warmed before the clock starts. ray: a local Ray instance (``--num-cpus``, default
all) is started before the clock starts (its start-up is reported apart); the clock includes starting the
embedding actors and loading the model in each. Set RAY_ADDRESS to run the ray engine on a cluster instead.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from common import DATASETS, report

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore


def write_corpus(corpus: Path, folder: Path, limit: int | None) -> int:
    """One .txt per record, its title in a sidecar; returns the number of files."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for line in corpus.open(encoding="utf-8"):
        if not line.strip():
            continue
        record = json.loads(line)
        (folder / f"{record['id']}.txt").write_text(record["text"], encoding="utf-8")
        (folder / f"{record['id']}.txt.meta.json").write_text(json.dumps({"title": record["title"]}), encoding="utf-8")
        count += 1
        if limit and count >= limit:
            break
    return count


def run(name: str, folder: Path, data_dir: Path, reader_for=None) -> list[dict]:
    """Ingest ``folder`` twice into a fresh store; one row per pass."""
    store = KnowledgeBaseStore(load_settings(data_dir=data_dir))
    ingestor = Ingestor(store, reader=reader_for(store) if reader_for else None)
    if reader_for is None:
        store.embedder.encode(["warm up the model"] * 8)
    rows = []
    for phase in ("first", "again"):
        started = time.perf_counter()
        result = ingestor.ingest_paths([folder], "corpus")
        store.sentence_filler.wait()  # the clock counts the sentence vectors too
        wall = time.perf_counter() - started
        chunks = result.chunks_written if phase == "first" else sum(f.chunks for f in result.files)
        rows.append({"engine": name, "pass": phase, "files": len(result.files),
                     "added": result.count("added"), "unchanged": result.count("unchanged"),
                     "rejected": result.count("rejected"), "chunks": chunks, "wall_s": round(wall, 2),
                     "chunks_per_s": round(chunks / wall, 1) if phase == "first" else None})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(DATASETS / "retrieval_dev" / "corpus.jsonl"))
    parser.add_argument("--limit", type=int, help="only the first N records")
    parser.add_argument("--num-cpus", type=int, help="CPUs of the local Ray instance (default: all)")
    parser.add_argument("--embed-actors", type=int, help="embedding actors (default: one per two CPUs)")
    parser.add_argument("--engines", default="local,ray", help="comma-separated: local, ray")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each engine, alternating (fastest kept)")
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    extra: dict = {"cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp, ExitStack() as stack:
        folder = Path(tmp) / "corpus"
        extra["files"] = write_corpus(Path(args.corpus), folder, args.limit)
        if "ray" in engines:
            from engine.ray_ingest import RayReader, ray_runtime

            started = time.perf_counter()
            ray = stack.enter_context(ray_runtime(num_cpus=args.num_cpus))
            extra["ray_start_s"] = round(time.perf_counter() - started, 2)
            extra["ray_cpus"] = int(ray.cluster_resources().get("CPU", 0))
        best: dict[str, list[dict]] = {}
        for round_ in range(args.rounds):  # alternate the engines; keep each one's fastest first pass
            for engine in engines:
                reader = (lambda store: RayReader(store, embed_actors=args.embed_actors)) if engine == "ray" else None
                rows = run(engine, folder, Path(tmp) / f"{engine}-{round_}", reader)
                if engine not in best or rows[0]["wall_s"] < best[engine][0]["wall_s"]:
                    best[engine] = rows
        rows = [row for engine in engines for row in best[engine]]
    report("ingest_engines", {**extra, "results": rows}, rows, list(rows[0]))


if __name__ == "__main__":
    main()
