"""The entity graph's edges: which passage mentions which name, code or title, in tables beside each base's chunks.

Each base ``kb`` has a table ``gm_<kb>`` with one row per (chunk, mention): the chunk's id and document, the
mention's key (engine/language/mentions.py), how it was first written in the chunk and its kind (name, code,
title). The graph's nodes are the chunks and the keys; an edge joins a chunk to each key it mentions, so two
passages that name the same thing are two steps apart. Beside it, ``gk_<kb>`` counts the passages that mention
each key, so that a walk knows what a key would cost to follow before it reads its rows, and weighs each key by
its specificity. The tables live where the chunks live (a folder, an object store), are written in the same write
as the chunks (under the base's lock, as the sentence vectors are), and lose a document's rows when the document
is deleted or replaced, so no mention outlives its passage and no count its mentions.

Reads are by key (``mention IN (...)``) and by chunk (``chunk_id IN (...)``), each with a scalar index, so an ask
reads only the neighbourhood of its seeds, never the whole graph (engine/retrieval/graph.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from engine.language.mentions import passage_mentions
from engine.store.catalogue import in_list
from engine.store.commits import retry_conflicts
from engine.store.maintenance import CHUNK_INDEX, DOC_INDEX, index_names, scalar_index
from engine.store import synonyms
from engine.store.schema import check_kb_name, in_values, open_named
from engine.store.search import read_rows, run_all

log = logging.getLogger(__name__)

MENTION_PREFIX = "gm_"
COUNT_PREFIX = "gk_"
MENTION_INDEX = "mention_idx"
_BUILD = {MENTION_INDEX: scalar_index("mention", MENTION_INDEX), CHUNK_INDEX: scalar_index("chunk_id", CHUNK_INDEX),
          DOC_INDEX: scalar_index("doc_id", DOC_INDEX)}


def mention_schema() -> pa.Schema:
    return pa.schema([
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("mention", pa.string(), nullable=False),
        pa.field("written", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
    ])


def rows_for(chunks: pa.Table) -> pa.Table:
    """The mention rows of chunk rows (``chunk_id``, ``doc_id``, ``title``, ``text``)."""
    out: dict[str, list[str]] = {name: [] for name in mention_schema().names}
    columns = [chunks[c].to_pylist() for c in ("chunk_id", "doc_id", "title", "text")]
    for chunk_id, doc_id, title, text in zip(*columns):
        for mention in passage_mentions(title or "", text or ""):
            out["chunk_id"].append(chunk_id)
            out["doc_id"].append(doc_id)
            out["mention"].append(mention.key)
            out["written"].append(mention.written)
            out["kind"].append(mention.kind)
    return pa.table(out, schema=mention_schema())


def count_schema() -> pa.Schema:
    return pa.schema([pa.field("mention", pa.string(), nullable=False),
                      pa.field("chunks", pa.int64(), nullable=False)])


def write_rows(db, kb: str, rows: pa.Table | None, doc_ids: Sequence[str], encoder=None) -> None:
    """After a chunk commit (the base's lock held): the mention rows of ``doc_ids`` become ``rows`` (none: removed),
    the count of passages per mention (``gk_<kb>``) follows, and the synonym edges of the names that appeared (given
    an ``encoder``, the store's embedder) or went (engine/store/synonyms.py). A failure costs only the graph's reach
    (the chunks landed), so it is logged, not raised; ``python -m engine kb graph KB`` makes them again."""
    table = open_named(db, MENTION_PREFIX + kb)
    empty = rows is None or not rows.num_rows
    if table is None and empty:
        return
    try:
        if table is None:
            table = db.create_table(MENTION_PREFIX + kb, schema=mention_schema(), exist_ok=True)
        old = pa.table({"mention": pa.array([], pa.string())})
        if doc_ids:
            old = table.search().where(in_list(doc_ids)).select(["mention"]).limit(None).to_arrow()
            retry_conflicts(lambda: table.delete(in_list(doc_ids)), f"Removing mentions from {kb!r}")
        if not empty:
            retry_conflicts(lambda: table.add(rows.cast(mention_schema())), f"Writing mentions to {kb!r}")
        appeared, gone = _recount(db, kb, old["mention"].to_pylist(), [] if empty else rows["mention"].to_pylist())
        synonyms.update(db, kb, encoder, appeared, gone)
    except Exception as exc:  # noqa: BLE001 - the chunks landed; the graph reaches less until it is rebuilt
        log.warning("mentions of %s not written (the graph will not reach those passages): %s", kb, exc)


def _recount(db, kb: str, removed: Sequence[str], added: Sequence[str]) -> tuple[list[str], list[str]]:
    """Move the passage counts of the mentions a write removed and added (each row is one passage's mention);
    returns the mentions that no passage had before and those that no passage has now."""
    delta: dict[str, int] = {}
    for key in removed:
        delta[key] = delta.get(key, 0) - 1
    for key in added:
        delta[key] = delta.get(key, 0) + 1
    delta = {k: d for k, d in delta.items() if d}
    if not delta:
        return [], []
    counts = db.create_table(COUNT_PREFIX + kb, schema=count_schema(), exist_ok=True)
    keys = sorted(delta)
    now: dict[str, int] = {}
    for at in range(0, len(keys), 1000):  # a filter of at most a thousand keys
        part = _rows_of(counts, keys[at:at + 1000], ["mention", "chunks"])
        now.update(zip(part["mention"].to_pylist(), part["chunks"].to_pylist()))
    after = {k: now.get(k, 0) + d for k, d in delta.items()}
    kept = {k: n for k, n in after.items() if n > 0}
    gone = sorted(k for k, n in after.items() if n <= 0 and k in now)
    if kept:
        data = pa.table({"mention": list(kept), "chunks": list(kept.values())}, schema=count_schema())
        retry_conflicts(lambda: counts.merge_insert("mention").when_matched_update_all()
                        .when_not_matched_insert_all().execute(data), f"Counting mentions of {kb!r}")
    for at in range(0, len(gone), 1000):
        part = gone[at:at + 1000]
        retry_conflicts(lambda: counts.delete(in_values("mention", part)), f"Counting mentions of {kb!r}")
    return sorted(k for k in kept if k not in now), gone


def recount_all(db, kb: str, encoder=None) -> None:
    """Count the passages of every mention of ``kb`` afresh (after its mention table was made in one go), and with
    an ``encoder`` make its synonym edges again."""
    table = table_of(db, kb)
    db.drop_table(COUNT_PREFIX + kb, ignore_missing=True)
    if table is None:
        return
    counted = table.search().select(["mention"]).limit(None).to_arrow()["mention"].value_counts()
    data = pa.table({"mention": counted.field("values"), "chunks": pc.cast(counted.field("counts"), pa.int64())},
                    schema=count_schema())
    db.create_table(COUNT_PREFIX + kb, data=data, schema=count_schema(), exist_ok=True)
    if encoder is not None:
        synonyms.rebuild(db, kb, encoder, counted.field("values").to_pylist())


def _rows_of(table, keys: Sequence[str], columns: list[str]) -> pa.Table:
    return table.search().where(in_values("mention", keys)).select(columns).limit(None).to_arrow()


def retitle(db, kb: str, chunks: pa.Table, encoder=None) -> None:
    """A document's chunks got a new title: its mention rows are made again from them."""
    doc_ids = sorted(set(chunks["doc_id"].to_pylist()))
    write_rows(db, kb, rows_for(chunks), doc_ids, encoder)


def drop(db, kb: str) -> None:
    db.drop_table(MENTION_PREFIX + kb, ignore_missing=True)
    db.drop_table(COUNT_PREFIX + kb, ignore_missing=True)
    synonyms.drop(db, kb)


def maintain_table(db, kb: str) -> None:
    """Index upkeep of ``kb``'s mention tables: ``mention``, ``chunk_id`` and ``doc_id`` indexes on the mentions, a
    ``mention`` index on the counts, rows written since folded in."""
    for name, wanted in ((MENTION_PREFIX, (MENTION_INDEX, CHUNK_INDEX, DOC_INDEX)), (COUNT_PREFIX, (MENTION_INDEX,))):
        table = open_named(db, name + kb)
        if table is None or table.count_rows() == 0:
            continue
        names = index_names(table)
        for index in wanted:
            if index not in names:
                _BUILD[index](table)
        if any(int(getattr(table.index_stats(i), "num_unindexed_rows", 0) or 0) for i in wanted if i in names):
            retry_conflicts(table.optimize, f"Updating the indexes of {table.name}")
    synonyms.maintain_table(db, kb)


COLUMNS = ["chunk_id", "doc_id", "mention", "written", "kind"]


async def by_mention(table, keys: Sequence[str], limit: int) -> pa.Table:
    """Rows of ``table`` whose mention is one of ``keys`` (at most ``limit``)."""
    return await read_rows(table, in_values("mention", keys), COLUMNS, limit)


async def by_chunk(table, chunk_ids: Sequence[str], limit: int) -> pa.Table:
    """Rows of ``table`` of these chunks (at most ``limit``)."""
    return await read_rows(table, in_values("chunk_id", chunk_ids), COLUMNS, limit)


def counts_of(db, kb: str):
    """The passage-count table of ``kb``, or None."""
    return open_named(db, COUNT_PREFIX + check_kb_name(kb))


Row = tuple[str, str, str, str, str]
"""A mention row as a walk reads it: (chunk_id, doc_id, mention, written, kind), as ``COLUMNS``."""

LOCAL_ROWS = 50_000
"""A mention table of at most this many rows (about 5,000 passages) is read whole once per version, as the walk
first needs it, and walked from memory: a read by key or chunk costs 2-5 ms of LanceDB's query planning however
few rows it returns, against microseconds from memory."""

HELD_ROWS = 1_000_000
"""A larger table, up to this many rows (about 100,000 passages), is held too, but read on a background thread once
it has been unchanged for a moment (engine/store/reading.py ``HOLD_AFTER_S``): until it is loaded, and after each
write until the new version is, the walk reads the store by key and by chunk. At 100,000 passages (949,248 rows)
the load took 0.7 s and holds 65 MB of rows and 20 MB of positions, and the process's peak memory grew by about
300 MB while reading (docs/benchmarks.md). A larger table is never held."""


@dataclass(frozen=True)
class LocalGraph:
    """A mention table held in memory, compactly: its rows as read (Arrow columns) and, per mention and per chunk,
    the positions of its rows."""

    rows: pa.Table
    by_mention: Mapping[str, np.ndarray]
    by_chunk: Mapping[str, np.ndarray]

    @classmethod
    def of(cls, rows: pa.Table) -> LocalGraph:
        rows = rows.select(COLUMNS).combine_chunks()  # (a read by position from one chunk of rows is fast)
        return cls(rows, _positions(rows["mention"]), _positions(rows["chunk_id"]))

    def of_mentions(self, keys: Sequence[str], limit: int) -> list[Row]:
        """The rows of these mentions, in order of key (at most ``limit``)."""
        return self._take(self.by_mention, keys, limit)

    def of_chunks(self, chunk_ids: Sequence[str], limit: int) -> list[Row]:
        """The rows of these chunks, in order of chunk id (at most ``limit``)."""
        return self._take(self.by_chunk, chunk_ids, limit)

    def _take(self, index: Mapping[str, np.ndarray], keys: Sequence[str], limit: int) -> list[Row]:
        spans, total = [], 0
        for key in sorted(set(keys)):
            if total >= limit:
                break
            spans.append(index.get(key, _NONE)[: limit - total])
            total += len(spans[-1])
        at = np.concatenate(spans) if spans else _NONE
        return _tuples(self.rows.take(at)) if len(at) else []


_NONE = np.zeros(0, dtype=np.int64)


def _positions(column) -> dict[str, np.ndarray]:
    """Each distinct value of a string column -> the positions of its rows, in order (one stable sort of the
    values' codes: the rows themselves are not copied)."""
    encoded = pc.dictionary_encode(column)
    encoded = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
    codes = encoded.indices.to_numpy()
    if not len(codes):
        return {}
    order = np.argsort(codes, kind="stable")
    starts = np.flatnonzero(np.diff(codes[order])) + 1
    bounds = zip(np.concatenate([[0], starts]).tolist(), np.concatenate([starts, [len(codes)]]).tolist())
    values = encoded.dictionary.take(pa.array(codes[order[np.concatenate([[0], starts])]])).to_pylist()
    return {value: order[first:end] for value, (first, end) in zip(values, bounds)}


def local_graph(table) -> LocalGraph:
    """``table`` read whole into memory (the caller has counted its rows: ``LOCAL_ROWS``, ``HELD_ROWS``)."""
    return LocalGraph.of(table.search().select(COLUMNS).limit(None).to_arrow())


@dataclass(frozen=True)
class GraphTables:
    """A base's mention table and, for each mention that two or more of its passages share, how many do (a mention
    of one passage joins it to nothing, so a walk never follows it; it is most mentions); ``local``: the same rows
    in memory, for a small table."""

    mentions: Any
    shared: Mapping[str, int]
    local: LocalGraph | None = None
    synonyms: Any = field(default_factory=dict)
    """Key -> its synonyms and their similarity (engine/store/synonyms.py): a held map or a reader by key."""

    def synonyms_of(self, keys: Sequence[str]) -> Mapping[str, tuple[tuple[str, float], ...]]:
        return synonyms.synonyms_of(self.synonyms, keys)

    def rows_by_mention(self, keys: Sequence[str], limit: int) -> list[Row]:
        """The rows of these mentions (at most ``limit``)."""
        if self.local is not None:
            return self.local.of_mentions(keys, limit)
        return _tuples(run_one(by_mention(self.mentions, keys, limit)))

    def rows_by_chunk(self, chunk_ids: Sequence[str], limit: int) -> list[Row]:
        """The rows of these chunks (at most ``limit``)."""
        if self.local is not None:
            return self.local.of_chunks(chunk_ids, limit)
        return _tuples(run_one(by_chunk(self.mentions, chunk_ids, limit)))


def _tuples(rows: pa.Table) -> list[Row]:
    return list(zip(*(rows[c].to_pylist() for c in COLUMNS)))


def shared_counts(counts) -> dict[str, int]:
    """Mention -> passages, for the mentions of two or more passages, from a count table."""
    if counts is None:
        return {}
    rows = counts.search().where("chunks >= 2").select(["mention", "chunks"]).limit(None).to_arrow()
    return dict(zip(rows["mention"].to_pylist(), rows["chunks"].to_pylist()))


def table_of(db, kb: str):
    """The mention table of ``kb``, or None (a base written before the graph existed, or a failed write)."""
    return open_named(db, MENTION_PREFIX + check_kb_name(kb))


def count(db, kb: str) -> int:
    table = table_of(db, kb)
    return 0 if table is None else table.count_rows()


def read_all(db, kb: str, where: str | None = None) -> pa.Table:
    """Every mention row of ``kb`` (matching ``where``): for checks and tests, not for asks."""
    table = table_of(db, kb)
    if table is None:
        return mention_schema().empty_table()
    query = table.search().select(mention_schema().names).limit(None)
    return (query.where(where) if where else query).to_arrow()


def run_one(coroutine):
    """Await one read on LanceDB's event loop."""
    return run_all([coroutine])[0]
