"""The peer side of bench/bench_ingest_peer.py: LlamaIndex ingesting the same texts with the same model.

Run by that script with the throwaway virtualenv's Python, never with the project's; it imports nothing from
the project. It reads a JSON job ({"docs": [{"id", "title", "text"}], "model": folder, "queries": [...] or
null}), builds the index the way LlamaIndex's documentation does (VectorStoreIndex over a LanceDBVectorStore,
HuggingFaceEmbedding on the local model folder, LlamaIndex's default chunking and batch size) and writes one
JSON result: the ingest's wall and CPU seconds (model loaded and warmed before the clock; the clock stops once
the table and its full-text index are written), the node count, and with queries each one's top document ids
from a hybrid search.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main(job_path: str, out_path: str) -> None:
    from llama_index.core import Document, Settings, StorageContext, VectorStoreIndex
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.lancedb import LanceDBVectorStore

    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    embed = HuggingFaceEmbedding(model_name=job["model"], device="cpu")
    embed.get_text_embedding_batch(["warm up the model"] * 8)
    Settings.embed_model = embed
    Settings.llm = None
    docs = [Document(text=d["text"], id_=d["id"], metadata={"title": d["title"]}) for d in job["docs"]]
    with tempfile.TemporaryDirectory(prefix="peer-lancedb-") as tmp:
        load = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        store = LanceDBVectorStore(uri=tmp, table_name="corpus", query_type="hybrid")
        index = VectorStoreIndex.from_documents(docs, storage_context=StorageContext.from_defaults(vector_store=store))
        store.table.create_fts_index(store.text_key, replace=True)  # what its first hybrid search would build
        store._fts_index_ready = True
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        result = {"seconds": seconds, "cpu_seconds": cpu, "nodes": store.table.count_rows(), "load": load}
        if job.get("queries"):
            retriever = index.as_retriever(similarity_top_k=job.get("k", 10) * 3)
            ranked = {}
            for query in job["queries"]:
                seen: dict[str, None] = {}
                for hit in retriever.retrieve(query["text"]):
                    seen.setdefault(hit.node.ref_doc_id, None)
                ranked[query["id"]] = list(seen)[: job.get("k", 10)]
            result["rankings"] = ranked
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
