"""The entity graph's synonym edges: two names whose vectors are close ("Paul McCartney" and "McCartney", "River
Thames" and "Thames") are joined, so that a walk crosses from a passage that writes a name one way to the passages
that write it another (HippoRAG's synonym edges: Gutiérrez et al. 2024).

Each base ``kb`` has, beside its mention table (engine/store/mentions.py):
- ``gv_<kb>``: one row per name or title key its passages mention, with the key's vector (the store's embedding
  model on the key, ``encode_short``), in half precision (a cosine moves by about 0.001; at 16 bits a row is 0.8 kB,
  so this table is about 1.7 times the chunk table's size: retrieval_dev 6 MB beside 3.4 MB);
- ``gs_<kb>``: one row per direction of each synonym edge (``mention``, ``synonym``, ``similarity``).

A key gets a vector when its first passage is written and loses it, with its edges, when its last passage is
deleted (the mention write tells which keys appeared and which went), so no edge outlives a name. Codes (a key
with a digit) get none: "A320" and "A321", "737-8" and "737-9" are different things whose vectors are close. An edge
joins two keys whose cosine is at least ``MIN_SIMILARITY`` (HippoRAG's threshold); each key keeps its
``MOST_SYNONYMS`` closest. What it costs: about 0.3 ms of embedding per new key on two cores (retrieval_dev's 7,551
keys: 2.2 s, beside about 17 s for the rest of its ingest; docs/benchmarks.md).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
from lancedb.index import BTree, HnswSq

from engine.store.commits import retry_conflicts
from engine.store.schema import check_kb_name, in_values, open_named

log = logging.getLogger(__name__)

VECTOR_PREFIX = "gv_"
SYNONYM_PREFIX = "gs_"
MIN_SIMILARITY = 0.8
"""Cosine from which two names are synonyms: HippoRAG's setting, not fitted here. With this model it joins
"Barack Obama" and "Obama" (0.94), "New York City" and "New York" (0.94), "Jane Austen" and "Austen" (0.83), and not
"Boeing" and "Airbus" (0.72), "Harvard University" and "Yale University" (0.72) or "Ohio" and "Iowa" (0.70)
(tests/store/test_synonyms.py)."""
MOST_SYNONYMS = 5
"""Closest synonyms kept per key (a key close to many others is a generic word, and its edges would spread a walk's
mass thin)."""
FLAT_ROWS = 50_000
"""A vector table of at most this many rows is read whole for a write's comparisons (77 MB at most, as float32); a
larger one is searched through LanceDB, with the ANN index that ``maintain_table`` builds past this size."""
SLICE = 2_000
"""New keys compared at once (a slice's comparison with itself is SLICE x SLICE)."""
VECTOR_INDEX = "vector_idx"


def wanted(key: str) -> bool:
    """Whether ``key`` gets a vector: a name or title, not a code."""
    return not any(ch.isdigit() for ch in key)


def vector_schema(dim: int) -> pa.Schema:
    return pa.schema([pa.field("mention", pa.string(), nullable=False),
                      pa.field("vector", pa.list_(pa.float16(), dim), nullable=False)])


def synonym_schema() -> pa.Schema:
    return pa.schema([pa.field("mention", pa.string(), nullable=False),
                      pa.field("synonym", pa.string(), nullable=False),
                      pa.field("similarity", pa.float32(), nullable=False)])


def update(db, kb: str, encoder, appeared: Sequence[str], gone: Sequence[str]) -> None:
    """After a mention write (the base's lock held): the keys that ``gone`` from every passage lose their vectors
    and edges; the ``appeared`` keys get theirs, compared with every key already there and with each other."""
    gone = sorted({k for k in gone if wanted(k)})
    appeared = sorted({k for k in appeared if wanted(k)} - set(gone))
    if not gone and (not appeared or encoder is None):
        return  # nothing to remove or add: the tables are not opened (a base without synonyms has none)
    vectors = open_named(db, VECTOR_PREFIX + kb)
    if gone and vectors is not None:
        for at in range(0, len(gone), 1000):
            part = in_values("mention", gone[at:at + 1000])
            retry_conflicts(lambda: vectors.delete(part), f"Removing name vectors from {kb!r}")
        edges = open_named(db, SYNONYM_PREFIX + kb)
        if edges is not None:
            for at in range(0, len(gone), 1000):
                part = gone[at:at + 1000]
                where = f"{in_values('mention', part)} OR {in_values('synonym', part)}"
                retry_conflicts(lambda: edges.delete(where), f"Removing synonym edges from {kb!r}")
    if not appeared or encoder is None:
        return
    if vectors is not None:  # (a write cut short may have left some)
        known: set[str] = set()
        for at in range(0, len(appeared), 1000):
            part = in_values("mention", appeared[at:at + 1000])
            known |= set(vectors.search().where(part).select(["mention"]).limit(None).to_arrow()["mention"].to_pylist())
        appeared = [k for k in appeared if k not in known]
    encode = getattr(encoder, "encode_short", encoder.encode)
    rows = 0 if vectors is None else vectors.count_rows()
    held = None  # (names, vectors) of a table small enough to read: read once, each slice appended as stored
    if rows <= FLAT_ROWS:
        held = _read_vectors(vectors) if rows else ([], None)
    for at in range(0, len(appeared), SLICE):
        keys = appeared[at:at + SLICE]
        new = np.asarray(encode(keys), dtype=np.float32)
        pairs = _close_pairs(keys, new, vectors, held)
        stored = new.astype(np.float16)
        data = pa.table({"mention": keys, "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(stored.ravel()), new.shape[1])})
        if vectors is None:
            vectors = db.create_table(VECTOR_PREFIX + kb, schema=vector_schema(new.shape[1]), exist_ok=True)
        retry_conflicts(lambda: vectors.add(data.cast(vector_schema(new.shape[1]))), f"Writing name vectors to {kb!r}")
        if held is not None:
            names, matrix = held
            part = stored.astype(np.float32)
            held = (names + list(keys), part if matrix is None else np.concatenate([matrix, part]))
            held = held if len(held[0]) <= FLAT_ROWS else None  # past it, searched as a read would be
        if pairs:
            _add_edges(db, kb, pairs)


def _read_vectors(vectors) -> tuple[list[str], np.ndarray]:
    stored = vectors.search().select(["mention", "vector"]).limit(None).to_arrow()
    names = stored["mention"].to_pylist()
    matrix = stored["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False).reshape(len(names), -1)
    return names, matrix.astype(np.float32)


def _close_pairs(keys: Sequence[str], new: np.ndarray, vectors, held) -> list[tuple[str, str, float]]:
    """(key, other, cosine) for each new key and its closest keys, new or stored, at ``MIN_SIMILARITY`` or more:
    the stored ones from ``held`` (names, vectors) when the table is small enough to read, else searched."""
    found: list[tuple[str, str, float]] = []
    inside = new @ new.T
    np.fill_diagonal(inside, -1.0)
    for row, key in enumerate(keys):
        for col in np.flatnonzero(inside[row] >= MIN_SIMILARITY):
            found.append((key, keys[col], float(inside[row, col])))
    if held is not None:
        names, matrix = held
        if not names:
            return found
        outside = new @ matrix.T
        for row, key in enumerate(keys):
            for col in np.flatnonzero(outside[row] >= MIN_SIMILARITY):
                found.append((key, names[col], float(outside[row, col])))
    elif vectors is not None and vectors.count_rows():
        hits = (vectors.search(new, vector_column_name="vector").distance_type("dot").limit(MOST_SYNONYMS)
                .select(["mention"]).to_arrow())
        rows_of = hits["query_index"].to_pylist() if "query_index" in hits.column_names else [0] * hits.num_rows
        for row, name, distance in zip(rows_of, hits["mention"].to_pylist(), hits["_distance"].to_pylist()):
            if 1.0 - distance >= MIN_SIMILARITY:  # LanceDB's dot distance is one minus the dot product
                found.append((keys[row], name, float(1.0 - distance)))
    return found


def _add_edges(db, kb: str, pairs: Sequence[tuple[str, str, float]]) -> None:
    """Write both directions of each pair; each new key keeps its ``MOST_SYNONYMS`` closest (an old key may hold a
    few more: its edges are not rewritten)."""
    best: dict[str, list[tuple[float, str]]] = {}
    for key, other, sim in pairs:
        best.setdefault(key, []).append((sim, other))
    kept: dict[tuple[str, str], float] = {}
    for key, found in best.items():
        for sim, other in sorted(found, key=lambda p: (-p[0], p[1]))[:MOST_SYNONYMS]:
            kept[(key, other)] = kept[(other, key)] = round(sim, 4)
    edges = db.create_table(SYNONYM_PREFIX + kb, schema=synonym_schema(), exist_ok=True)
    ordered = sorted(kept)
    data = pa.table({"mention": [a for a, _ in ordered], "synonym": [b for _, b in ordered],
                     "similarity": [kept[p] for p in ordered]}, schema=synonym_schema())
    retry_conflicts(lambda: edges.merge_insert(["mention", "synonym"]).when_matched_update_all()
                    .when_not_matched_insert_all().execute(data), f"Writing synonym edges of {kb!r}")


def rebuild(db, kb: str, encoder, keys: Sequence[str]) -> None:
    """Make ``kb``'s name vectors and synonym edges again for these keys (its mention table made in one go)."""
    drop(db, kb)
    update(db, kb, encoder, keys, [])


def drop(db, kb: str) -> None:
    db.drop_table(VECTOR_PREFIX + kb, ignore_missing=True)
    db.drop_table(SYNONYM_PREFIX + kb, ignore_missing=True)


def edges_of(db, kb: str):
    """The synonym-edge table of ``kb``, or None."""
    return open_named(db, SYNONYM_PREFIX + check_kb_name(kb))


def synonym_map(table) -> Mapping[str, tuple[tuple[str, float], ...]]:
    """Key -> its synonyms and their similarity, closest first, from an edge table (read whole)."""
    if table is None:
        return {}
    return synonym_map_of(table.search().select(["mention", "synonym", "similarity"]).limit(None).to_arrow())


def synonym_map_of(rows: pa.Table) -> Mapping[str, tuple[tuple[str, float], ...]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for key, other, sim in zip(*(rows[c].to_pylist() for c in ("mention", "synonym", "similarity"))):
        out.setdefault(key, []).append((other, float(sim)))
    return {k: tuple(sorted(v, key=lambda p: (-p[1], p[0]))) for k, v in out.items()}


HELD_EDGES = 500_000
"""An edge table of at most this many rows (about 400,000 passages) is held in memory per version, as a dict of about
60 MB at most; a larger one is read by key at each walk (``ByKey``), through its ``mention`` index."""
MENTION_INDEX = "mention_idx"


class ByKey:
    """The synonyms of given keys, read from an edge table too large to hold (``HELD_EDGES``)."""

    def __init__(self, table) -> None:
        self.table = table

    def of(self, keys: Sequence[str]) -> Mapping[str, tuple[tuple[str, float], ...]]:
        if not keys:
            return {}
        where = in_values("mention", keys)
        rows = self.table.search().where(where).select(["mention", "synonym", "similarity"]).limit(None).to_arrow()
        return synonym_map_of(rows)


def synonyms_of(near, keys: Sequence[str]) -> Mapping[str, tuple[tuple[str, float], ...]]:
    """The synonyms of ``keys`` from a held map or a ``ByKey`` reader."""
    if isinstance(near, ByKey):
        return near.of(keys)
    return {k: near[k] for k in keys if k in near}


def read_all(db, kb: str) -> list[tuple[str, str, float]]:
    """Every edge of ``kb``, both directions (for checks and tests)."""
    return [(key, other, sim) for key, found in synonym_map(edges_of(db, kb)).items() for other, sim in found]


def maintain_table(db, kb: str) -> None:
    """Index upkeep of ``kb``'s name vectors: an ANN index once the table is larger than ``FLAT_ROWS`` (then
    searched rather than read whole), rows written since folded in."""
    edges = open_named(db, SYNONYM_PREFIX + kb)
    if edges is not None and edges.count_rows() > HELD_EDGES:
        if MENTION_INDEX not in {i.name for i in edges.list_indices()}:
            retry_conflicts(lambda: edges.create_index("mention", config=BTree(), replace=True, name=MENTION_INDEX),
                            f"Indexing the synonym edges of {kb!r}")
        elif int(getattr(edges.index_stats(MENTION_INDEX), "num_unindexed_rows", 0) or 0):
            retry_conflicts(edges.optimize, f"Updating the synonym-edge index of {kb!r}")
    table = open_named(db, VECTOR_PREFIX + kb)
    if table is None or table.count_rows() <= FLAT_ROWS:
        return
    names = {i.name for i in table.list_indices()}
    if VECTOR_INDEX not in names:
        retry_conflicts(lambda: table.create_index("vector", config=HnswSq(distance_type="dot"), name=VECTOR_INDEX),
                        f"Indexing the name vectors of {kb!r}")
    elif int(getattr(table.index_stats(VECTOR_INDEX), "num_unindexed_rows", 0) or 0):
        retry_conflicts(table.optimize, f"Updating the name-vector index of {kb!r}")
