"""Sentence vectors stored with each chunk, so that an ask does not embed its evidence sentence by sentence.

The answerability check compares the question with every sentence of the evidence (``read_sentences``). Those
sentences are text of the corpus, known at ingest: they are embedded once, after the ingest has written the chunks
(engine/store/sentence_fill.py; with the chunks when ``defer_sentence_vectors`` is off), and stored, per chunk, its
sentences and their vectors, in a table of their own next to the base's chunk table (``sv_<base>``, so that the
chunk table's scans and searches read no more than before). At ask time the store reads them back for the chunks
that became evidence (one query per base, by ``chunk_id``, all at once) and hands them, by sentence text, to the
check. A sentence the check reads that is not among them (text cut to the context budget, or read another way by a
newer version of the engine) is embedded as before. The vectors are the store's embedder's, the model the check
uses too.

Cost (docs/benchmarks.md, "Engine overhead per ask: searches at once, sentence vectors stored"): three to seven
sentences per chunk, two to four times the bytes of the chunk table, and, with chunk vectors embedded whole (the
default), about twice the ingest's embedding; with ``chunk_vectors = "pooled"`` a chunk's own vector is pooled from
its units' vectors (``embed_chunks``), so each word is embedded once. ``store_sentence_vectors`` turns storing them
off (the chunk vectors are the same); chunks written without them are read as before.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from engine.language.layout import evidence_units, read_sentences
from engine.store.catalogue import in_list
from engine.store.commits import retry_conflicts
from engine.store.maintenance import maintain_sentences
from engine.store.schema import check_kb_name, in_values, open_named, sql_literal
from engine.store.search import read_rows, run_all

log = logging.getLogger(__name__)

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


def chunk_units(title: str, chunk_text: str) -> tuple[str, ...]:
    """What a chunk's vector is the mean of: its document's title and each unit of its text (sentences, list
    items, table rows, headings, questions, code: engine/language/layout.py), in order."""
    units = [u.text for u in evidence_units(chunk_text)] or [chunk_text.strip()]
    head = (title or "").strip()
    return tuple(u for u in ([head] if head else []) + units if u) or (f"{title}\n{chunk_text}",)


MODES = ("whole", "pooled", "late")
"""How a chunk's vector and its sentences' vectors are made (the ``chunk_vectors`` setting; ``embed_chunks``)."""
_WORD = re.compile(r"\w+")


def bulk_weighted(embedder: Any):
    """The embedder's weighted encoding for bulk work (``bulk_weighted`` of the ONNX embedder: one text on a
    one-thread session too, so files embedding side by side each keep a core), else ``encode_weighted``, else None."""
    return getattr(embedder, "bulk_weighted", None) or getattr(embedder, "encode_weighted", None)


def embed_chunks(embedder: Any, title: str, chunk_texts: Sequence[str], with_sentences: bool = True,
                 mode: str = "whole", known: Mapping[str, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, list[tuple[tuple[str, ...], np.ndarray]] | None]:
    """Vectors of one document's chunks, and (``with_sentences``) per chunk its read sentences and their vectors,
    from one call to the embedder, each distinct text embedded once.

    ``mode`` "whole" (the default of the ``chunk_vectors`` setting): a chunk's vector is its text embedded whole,
    after its title, and each sentence is embedded again on its own. "late": the chunk's vector is the same, and
    each sentence's vector is pooled from the vectors of its word pieces in that same run (``late_sentences``), so
    the ingest reads each word once and the chunk vectors, and so retrieval, are exactly those of "whole"; but each
    sentence's vector takes on its chunk's context, which blurs the reader's choice between the sentences of one
    chunk (docs/benchmarks.md, "Sentence vectors from the chunk's own run"). "pooled": a chunk's vector is pooled
    from its units and its title (``chunk_units``), which are embedded anyway, so the ingest reads each word once,
    not twice: each unit counts by its weight, the norm of the sum of its token vectors (``encode_weighted``), so
    the chunk's vector is the mean of all its units' token vectors, the model's own mean pooling over the chunk but
    with each unit read on its own (an embedder without weights counts each unit once). Pooled, the ingest of
    retrieval_dev is about twice as fast with the same recall@10 of hybrid search, but the pipeline's retrieval
    loses 0.03 of nDCG@10 (docs/benchmarks.md, "Ingest beside LlamaIndex").

    ``known``: vectors already stored for some sentences (those of the file's earlier version), used instead of
    embedding them again; with "whole" only, since pooling also needs each unit's weight, which is not stored (and
    "late" embeds no sentence on its own).
    """
    if mode not in MODES:
        raise ValueError(f"unknown chunk vector mode {mode!r}; choose one of {', '.join(MODES)}")
    if mode == "late" and getattr(embedder, "encode_tokens", None) is not None:
        return late_sentences(embedder, title, chunk_texts, with_sentences)
    whole = mode != "pooled"
    units = [(f"{title}\n{text}",) if whole else chunk_units(title, text) for text in chunk_texts]
    read = [read_sentences(text) for text in chunk_texts] if with_sentences else None
    distinct = list(dict.fromkeys([*(u for parts in units for u in parts),
                                   *(s for sentences in read or () for s in sentences)]))
    if not distinct:
        return np.zeros((0, 0), dtype=np.float32), [] if with_sentences else None
    reused = {t: v for t, v in (known or {}).items() if whole and len(v) == getattr(embedder, "dim", len(v))}
    fresh = [t for t in distinct if t not in reused]
    weighted = bulk_weighted(embedder)
    if not fresh:
        vectors, weights = np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.float32)
    elif weighted is not None:
        vectors, weights = weighted(fresh)
    else:
        vectors, weights = embedder.encode(fresh), np.ones(len(fresh), dtype=np.float32)
    if len(fresh) < len(distinct):
        stored = [t for t in distinct if t in reused]
        vectors = np.concatenate([np.asarray(vectors, dtype=np.float32).reshape(len(fresh), -1),
                                  np.asarray([reused[t] for t in stored], dtype=np.float32)])
        weights = np.concatenate([weights, np.ones(len(stored), dtype=np.float32)])
        distinct = fresh + stored
    vectors = np.asarray(vectors, dtype=np.float32)
    row_of = {text: i for i, text in enumerate(distinct)}
    sums = np.stack([weights[rows] @ vectors[rows] for rows in ([row_of[u] for u in parts] for parts in units)])
    pooled = (sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)).astype(np.float32)
    if read is None:
        return pooled, None
    return pooled, [(sentences, vectors[[row_of[s] for s in sentences]]) for sentences in read]


def embed_sentences(embedder: Any, chunk_texts: Sequence[str], known: Mapping[str, np.ndarray] | None = None,
                    between: Callable[[], None] | None = None, slice_texts: int = 32
                    ) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Per chunk, its read sentences and their vectors, each distinct sentence embedded once (``known``: vectors
    stored for some of them, used as they are): the sentence half of ``embed_chunks`` in "whole" mode, with the
    same vectors (the embedder reads one text per run, so a vector does not depend on what is embedded beside it).
    ``between()`` is called before each slice of ``slice_texts`` sentences (the fill's pause for an ingest)."""
    read = [read_sentences(text) for text in chunk_texts]
    dim = getattr(embedder, "dim", None)
    reused = {t: v for t, v in (known or {}).items() if dim is None or len(v) == dim}
    fresh = [t for t in dict.fromkeys(s for sentences in read for s in sentences) if t not in reused]
    weighted = bulk_weighted(embedder)
    parts = []
    for at in range(0, len(fresh), max(1, slice_texts)):
        if between is not None:
            between()
        part = fresh[at:at + max(1, slice_texts)]
        parts.append(np.asarray(weighted(part)[0] if weighted is not None else embedder.encode(part), dtype=np.float32))
    vectors = np.concatenate(parts) if parts else np.zeros((0, dim or 0), dtype=np.float32)
    by_text = {**reused, **dict(zip(fresh, vectors))}
    return [(sentences, np.asarray([by_text[t] for t in sentences], dtype=np.float32).reshape(len(sentences), -1))
            for sentences in read]


def late_sentences(embedder: Any, title: str, chunk_texts: Sequence[str], with_sentences: bool = True
                   ) -> tuple[np.ndarray, list[tuple[tuple[str, ...], np.ndarray]] | None]:
    """``embed_chunks`` in "late" mode: each chunk embedded whole after its title (its vector as in "whole"), and
    each of its read sentences' vectors the normalised mean of its word pieces' vectors from that run, read in the
    light of the chunk ("late chunking", Günther et al. 2024). A sentence that cannot be found in the chunk's text
    (the layout rewrote it, as it does table rows) or that lies past the model's length limit is embedded on its
    own, in one call for the whole part."""
    texts = [f"{title}\n{text}" for text in chunk_texts]
    vectors, pieces, spans = embedder.encode_tokens(texts) if texts else (np.zeros((0, 0), dtype=np.float32), [], [])
    vectors = np.asarray(vectors, dtype=np.float32)
    if not with_sentences:
        return vectors, None
    found: list[tuple[tuple[str, ...], list[np.ndarray | None]]] = []
    alone: list[str] = []
    for full, text, piece_vectors, piece_span in zip(texts, chunk_texts, pieces, spans):
        sentences = read_sentences(text)
        rows: list[np.ndarray | None] = []
        for sentence, where in zip(sentences, locate(full, sentences, len(full) - len(text))):
            inside = None if where is None else ((piece_span[:, 0] >= where[0]) & (piece_span[:, 1] <= where[1])
                                                 & (piece_span[:, 1] > piece_span[:, 0]))
            if inside is None or not inside.any():
                rows.append(None)
                alone.append(sentence)
                continue
            total = np.asarray(piece_vectors, dtype=np.float32)[inside].sum(axis=0)
            rows.append(total / max(float(np.linalg.norm(total)), 1e-12))
        found.append((sentences, rows))
    unique = list(dict.fromkeys(alone))
    own = dict(zip(unique, np.asarray(embedder.encode(unique), dtype=np.float32))) if unique else {}
    dim = vectors.shape[1]
    return vectors, [(sentences, np.asarray([own[s] if r is None else r for s, r in zip(sentences, rows)],
                                            dtype=np.float32).reshape(len(sentences), dim))
                     for sentences, rows in found]


def locate(text: str, sentences: Sequence[str], start: int = 0) -> list[tuple[int, int] | None]:
    """Where each of ``sentences`` (in order, as the layout read them from ``text``) stands in ``text`` from
    ``start`` on: from its first word to the end of its last, each word found after the one before. A sentence
    whose words are not all found there, or only spread over much more text than it has, gets None (the layout
    rewrote it, e.g. a table row read as "header: cell" records)."""
    places: list[tuple[int, int] | None] = []
    cursor = start
    for sentence in sentences:
        at, first = cursor, None
        for word in _WORD.findall(sentence):
            at = text.find(word, at)
            if at < 0:
                break
            first = at if first is None else first
            at += len(word)
        if at < 0 or first is None or at - first > 2 * len(sentence) + 20:
            places.append(None)
            continue
        places.append((first, at))
        cursor = at
    return places


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


def read_document(db, kb: str, doc_id: str) -> dict[str, np.ndarray]:
    """The stored vectors of the sentences of document ``doc_id`` of ``kb``, by sentence text (none when the base
    has no sentence table or the document none stored)."""
    table = open_named(db, SENTENCE_PREFIX + check_kb_name(kb))
    if table is None:
        return {}
    return found_vectors(run_all([read_rows(table, f"doc_id = {sql_literal(doc_id)}", [SENTENCES, VECTORS])])[0])


def read_vectors(db, chunks: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """The stored vectors of the sentences of these ``(kb, chunk_id)`` chunks, by sentence text; chunks written
    without them, or gone since, add nothing. One query per base, every base at once."""
    by_base: dict[str, list[str]] = {}
    for kb, chunk_id in chunks:
        by_base.setdefault(kb, []).append(chunk_id)
    reads = []
    for kb, chunk_ids in by_base.items():
        table = open_named(db, SENTENCE_PREFIX + check_kb_name(kb))
        if table is not None:
            reads.append(read_rows(table, in_values("chunk_id", chunk_ids), [SENTENCES, VECTORS]))
    found: dict[str, np.ndarray] = {}
    for rows in run_all(reads):
        found.update(found_vectors(rows))
    return found


def write_rows(db, kb: str, rows: pa.Table | None, doc_ids: Sequence[str], dim: int) -> None:
    """After a chunk commit (the base's lock held): the sentence rows of ``doc_ids`` become ``rows`` (none:
    removed). A failure only costs speed (asks embed those sentences), so it is logged, not raised."""
    table = open_named(db, SENTENCE_PREFIX + kb)
    empty = rows is None or not rows.num_rows
    if table is None and empty:
        return
    try:
        if table is None:
            table = db.create_table(SENTENCE_PREFIX + kb, schema=sentence_schema(dim), exist_ok=True)
        if empty:
            retry_conflicts(lambda: table.delete(in_list(doc_ids)), f"Removing sentences from {kb!r}")
            return
        retry_conflicts(lambda: table.merge_insert("chunk_id").when_matched_update_all()
                        .when_not_matched_insert_all().when_not_matched_by_source_delete(in_list(doc_ids))
                        .execute(rows.cast(sentence_schema(dim))), f"Writing sentence vectors to {kb!r}")
    except Exception as exc:  # noqa: BLE001 - the chunks landed; asks embed what is missing here
        log.warning("sentence vectors of %s not written (asks will embed them): %s", kb, exc)


def add_rows(db, kb: str, rows: pa.Table, dim: int) -> None:
    """Sentence rows of chunks written earlier, filled in afterwards (engine/store/sentence_fill.py): each row
    replaces the one of its chunk, if any; no other row is removed. Call with the base's lock held."""
    if not rows.num_rows:
        return
    table = open_named(db, SENTENCE_PREFIX + kb)
    if table is None:
        table = db.create_table(SENTENCE_PREFIX + kb, schema=sentence_schema(dim), exist_ok=True)
    retry_conflicts(lambda: table.merge_insert("chunk_id").when_matched_update_all().when_not_matched_insert_all()
                    .execute(rows.cast(sentence_schema(dim))), f"Writing sentence vectors to {kb!r}")


def documents_with_rows(db, kb: str) -> set[str]:
    """The documents of ``kb`` that have sentence rows."""
    table = open_named(db, SENTENCE_PREFIX + check_kb_name(kb))
    if table is None:
        return set()
    rows = table.search().select(["doc_id"]).limit(None).to_arrow()
    return set(pc.unique(rows["doc_id"]).to_pylist()) if rows.num_rows else set()


def split_off(rows: Any, dim: int) -> tuple[Any, pa.Table | None]:
    """Chunk rows handed to the store, and the sentence rows they carry (None when they carry none)."""
    if not isinstance(rows, pa.Table) or SENTENCES not in rows.column_names:
        return rows, None
    sentences = rows.select(sentence_schema(dim).names).filter(pc.is_valid(rows[SENTENCES]))
    return rows.drop_columns([SENTENCES, VECTORS]), sentences


def maintain_table(db, kb: str) -> None:
    """Index upkeep of ``kb``'s sentence table, when it has one."""
    table = open_named(db, SENTENCE_PREFIX + kb)
    if table is not None:
        maintain_sentences(table)
