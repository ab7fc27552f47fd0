"""Sentence vectors stored with each chunk, so that an ask does not embed its evidence sentence by sentence.

The answerability check compares the question with every sentence of the evidence (``read_sentences``). Those
sentences are text of the corpus, known at ingest: the ingest embeds them with the chunk and stores, per chunk, its
sentences and their vectors, in a table of their own next to the base's chunk table (``sv_<base>``, so that the
chunk table's scans and searches read no more than before). At ask time the store reads them back for the chunks
that became evidence (one query per base, by ``chunk_id``, all at once) and hands them, by sentence text, to the
check. A sentence the check reads that is not among them (text cut to the context budget, or read another way by a
newer version of the engine) is embedded as before. The vectors are the store's embedder's, the model the check
uses too.

Cost (docs/benchmarks.md, "Engine overhead per ask: searches at once, sentence vectors stored"): three to seven
sentences per chunk, two to four times the bytes of the chunk table, and the ingest embeds about twice as much
text. ``store_sentence_vectors`` turns it off; chunks written without them are read as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from engine.reflection.units import read_sentences

SENTENCE_PREFIX = "sv_"
SENTENCES = "sentences"
VECTORS = "sentence_vectors"


def sentence_fields(dim: int) -> list[pa.Field]:
    """The two sentence columns, as the ingest hands them to the store with the chunk rows."""
    return [pa.field(SENTENCES, pa.list_(pa.string())), pa.field(VECTORS, pa.list_(pa.list_(pa.float32(), dim)))]


def sentence_schema(dim: int) -> pa.Schema:
    """A base's sentence table: one row per chunk."""
    return pa.schema([pa.field("chunk_id", pa.string(), nullable=False), pa.field("doc_id", pa.string(), nullable=False),
                      *sentence_fields(dim)])


def embed_sentences(embedder: Any, texts: Sequence[str]) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Per chunk text: its sentences and their vectors (each distinct sentence of the batch embedded once)."""
    per_chunk = [read_sentences(text) for text in texts]
    distinct = list(dict.fromkeys(s for sentences in per_chunk for s in sentences))
    vectors = np.asarray(embedder.encode(distinct), dtype=np.float32) if distinct else np.zeros((0, 0), np.float32)
    row_of = {sentence: i for i, sentence in enumerate(distinct)}
    return [(sentences, vectors[[row_of[s] for s in sentences]]) for sentences in per_chunk]


def columns(embedded: Sequence[tuple[Sequence[str], np.ndarray]], dim: int) -> dict[str, pa.Array]:
    """Arrow columns for rows in the order of ``embedded`` (built from numpy, not from Python lists of floats)."""
    sentences = pa.array([list(s) for s, _ in embedded], type=pa.list_(pa.string()))
    counts = np.array([len(k) for k, _ in embedded], dtype=np.int32)
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    flat = np.concatenate([v.reshape(-1, dim) for _, v in embedded]) if len(embedded) else np.zeros((0, dim))
    inner = pa.FixedSizeListArray.from_arrays(pa.array(flat.astype(np.float32).ravel()), dim)
    return {SENTENCES: sentences, VECTORS: pa.ListArray.from_arrays(offsets, inner)}


def found_vectors(rows: pa.Table) -> dict[str, np.ndarray]:
    """Sentence text -> stored vector, for rows holding ``sentences`` and ``sentence_vectors``."""
    found: dict[str, np.ndarray] = {}
    for sentences, vectors in zip(rows[SENTENCES].to_pylist(), rows[VECTORS].combine_chunks()):
        row = vectors.values  # one fixed-size list per sentence; None for a chunk written without them
        if not sentences or row is None or len(row) != len(sentences):
            continue
        found.update(zip(sentences, row.flatten().to_numpy(zero_copy_only=False).reshape(len(sentences), -1)))
    return found
