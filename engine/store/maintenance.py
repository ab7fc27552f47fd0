"""Index upkeep for one knowledge-base table, kept out of the write path.

A write commits rows and nothing else. Afterwards (at the end of an ingest, on the next ingest
after a crash, or before a keyword search finds the full-text index missing) :func:`maintain`
brings the table's indexes up to date:

- the full-text index on ``search_text`` (English stemming and stop words) must exist; without
  it LanceDB still answers keyword queries, but by a plain scan without stemming, so "bolts"
  no longer finds "bolt";
- the scalar (BTree) index on ``doc_id`` must exist, so deleting, replacing or reading one document
  finds its rows without scanning the table;
- the ANN vector index is built once the table reaches ``ann_index_min_rows``;
- rows written since the indexes were built are folded into them (``optimize``, which also
  compacts the small fragments that many small writes leave).

Everything here can be redone at any time; a failure leaves the data as it was, and the next
call finds the same work still to do. Until then searches still see every row: LanceDB scans
rows an index does not cover yet.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from lancedb.index import FTS, BTree

from engine.config import Settings
from engine.store.commits import retry_conflicts

log = logging.getLogger(__name__)
FTS_INDEX = "search_text_idx"
DOC_INDEX = "doc_id_idx"
CHUNK_INDEX = "chunk_id_idx"
VECTOR_INDEX = "vector_idx"
CATALOGUE_MAX_FRAGMENTS = 16
"""A document catalogue is compacted once it has this many fragments (each write adds about two)."""


@dataclass(frozen=True)
class IndexHealth:
    """What a table lacks: indexes the store expects but that are missing, and rows not yet in an index."""

    rows: int
    missing: tuple[str, ...] = ()
    unindexed_rows: int = 0

    @property
    def healthy(self) -> bool:
        return not self.missing and not self.unindexed_rows


@dataclass(frozen=True)
class MaintenanceResult:
    """What one maintenance pass did; ``pending`` says what is left to do and why (None: nothing)."""

    knowledge_base: str
    built: tuple[str, ...] = ()
    optimized: bool = False
    pending: str | None = None


def expected_indexes(rows: int, settings: Settings) -> tuple[str, ...]:
    """The indexes a table of ``rows`` rows should have (none while it is empty)."""
    if rows == 0:
        return ()
    return (FTS_INDEX, DOC_INDEX, VECTOR_INDEX) if rows >= settings.ann_index_min_rows else (FTS_INDEX, DOC_INDEX)


def index_names(table) -> set[str]:
    return {index.name for index in table.list_indices()}


def index_health(table, settings: Settings) -> IndexHealth:
    """How far the table's indexes are behind its rows."""
    rows = table.count_rows()
    present = index_names(table)
    missing = tuple(name for name in expected_indexes(rows, settings) if name not in present)
    unindexed = 0
    for name in present:
        stats = table.index_stats(name)
        unindexed = max(unindexed, int(getattr(stats, "num_unindexed_rows", 0) or 0))
    return IndexHealth(rows=rows, missing=missing, unindexed_rows=unindexed)


def build_keyword_index(table) -> None:
    """(Re)build the full-text index on ``search_text``."""
    retry_conflicts(
        lambda: table.create_index("search_text", config=FTS(language="English", stem=True, remove_stop_words=True),
                                   replace=True, name=FTS_INDEX),
        f"Building the keyword index of {table.name}",
    )


def scalar_index(column: str, name: str):
    def build(table) -> None:
        """(Re)build the BTree index on ``column``."""
        retry_conflicts(lambda: table.create_index(column, config=BTree(), replace=True, name=name),
                        f"Building the {column} index of {table.name}")
    return build


build_doc_index = scalar_index("doc_id", DOC_INDEX)
build_chunk_index = scalar_index("chunk_id", CHUNK_INDEX)
BUILDERS = {FTS_INDEX: build_keyword_index, DOC_INDEX: build_doc_index}


def build_vector_index(table) -> None:
    log.info("building ANN index on %s", table.name)
    retry_conflicts(
        lambda: table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                                   name=VECTOR_INDEX, replace=True),
        f"Building the vector index of {table.name}",
    )


def maintain(table, kb: str, settings: Settings) -> MaintenanceResult:
    """Build the indexes the table lacks, then fold unindexed rows in; raises what LanceDB raises."""
    health = index_health(table, settings)
    built = []
    for name in health.missing:
        BUILDERS.get(name, build_vector_index)(table)
        built.append(name)
    optimized = False
    if health.unindexed_rows:
        retry_conflicts(table.optimize, f"Updating the indexes of {table.name}")
        optimized = True
    return MaintenanceResult(kb, tuple(built), optimized)


def maintain_sentences(table) -> None:
    """A sentence table (engine/store/sentences.py): its ``chunk_id`` index built, new rows folded in."""
    if table.count_rows() == 0:
        return
    if CHUNK_INDEX not in index_names(table):
        build_chunk_index(table)
    elif int(getattr(table.index_stats(CHUNK_INDEX), "num_unindexed_rows", 0) or 0):
        retry_conflicts(table.optimize, f"Updating the index of {table.name}")


def tidy_catalogue(catalogue) -> bool:
    """Compact a document catalogue that many small writes have split into fragments; True when it did."""
    if catalogue.stats()["fragment_stats"]["num_fragments"] < CATALOGUE_MAX_FRAGMENTS:
        return False
    retry_conflicts(catalogue.optimize, f"Compacting {catalogue.name}")
    return True
