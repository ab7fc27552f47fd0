"""The chunk table layout shared by every knowledge base, and small value objects."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from engine.errors import KnowledgeBaseError

KB_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
TABLE_PREFIX = "kb_"


def check_kb_name(name: str) -> str:
    """Validate a knowledge-base name (lower-case letters, digits, '-' and '_')."""
    if not isinstance(name, str) or not KB_NAME.match(name):
        raise KnowledgeBaseError(
            f"Invalid knowledge base name {name!r}: use 1-63 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit."
        )
    return name


def check_doc_id(doc_id: str) -> str:
    """Validate a document id (no path separators, quotes or spaces)."""
    if not isinstance(doc_id, str) or not DOC_ID.match(doc_id) or ".." in doc_id:
        raise KnowledgeBaseError(
            f"Invalid document id {doc_id!r}: ids contain only letters, digits, '.', '-' and '_'. "
            "Run `python -m engine kb list` to see the ids."
        )
    return doc_id


def chunk_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("knowledge_base", pa.string(), nullable=False),
            pa.field("position", pa.int32(), nullable=False),
            pa.field("page", pa.int32()),
            pa.field("text", pa.string(), nullable=False),
            pa.field("search_text", pa.string(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dim), nullable=False),
            pa.field("title", pa.string(), nullable=False),
            pa.field("source", pa.string()),
            pa.field("update_date", pa.string()),  # ISO date; null = unknown
            pa.field("authority", pa.int8(), nullable=False),
            pa.field("doc_type", pa.string()),
            pa.field("series", pa.string()),
            pa.field("revision", pa.string()),
            pa.field("file_name", pa.string()),
            pa.field("content_hash", pa.string(), nullable=False),
            pa.field("ingested_at", pa.string(), nullable=False),
            pa.field("extra", pa.string()),  # JSON object of other metadata
        ]
    )


META_COLUMNS = [
    "chunk_id", "doc_id", "knowledge_base", "position", "page", "text", "title", "source", "update_date",
    "authority", "doc_type", "series", "revision", "file_name", "extra",
]


@dataclass(frozen=True)
class DocumentInfo:
    """One document in a knowledge base, as listed by the store."""

    doc_id: str
    knowledge_base: str
    title: str
    file_name: str
    update_date: str | None
    authority: int
    doc_type: str
    series: str | None
    revision: str | None
    chunks: int
    content_hash: str
    ingested_at: str

    @property
    def date_label(self) -> str:
        return self.update_date or "unknown"

    def to_dict(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["update_date"] = self.date_label
        return data


@dataclass(frozen=True)
class KnowledgeBaseInfo:
    name: str
    documents: int
    chunks: int
    earliest_date: str | None
    latest_date: str | None
    has_vector_index: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SearchHit:
    """A chunk returned by a search, with the score of the mode that found it (higher is better).

    ``vector`` is the chunk's stored embedding, so retrieval can compare chunks from different bases and
    modes on one scale (similarity to the question); it is left out of ``to_dict``.
    """

    chunk_id: str
    doc_id: str
    knowledge_base: str
    text: str
    score: float
    mode: str
    title: str
    source: str | None
    update_date: str | None
    authority: int
    doc_type: str | None
    page: int | None
    position: int
    file_name: str | None
    series: str | None = None
    revision: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    vector: Sequence[float] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_row(cls, row: dict[str, Any], score: float, mode: str) -> "SearchHit":
        return cls(
            chunk_id=row["chunk_id"], doc_id=row["doc_id"], knowledge_base=row["knowledge_base"], text=row["text"],
            score=float(score), mode=mode, title=row["title"], source=row.get("source"),
            update_date=row.get("update_date"), authority=int(row["authority"]), doc_type=row.get("doc_type"),
            page=row.get("page"), position=int(row["position"]), file_name=row.get("file_name"),
            series=row.get("series"), revision=row.get("revision"), extra=json.loads(row.get("extra") or "{}"),
            vector=row.get("vector"),
        )

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data.pop("vector", None)
        data["update_date"] = self.update_date or "unknown"
        return data


def sql_literal(value: str | int | date) -> str:
    """Quote a value for a LanceDB filter expression."""
    if isinstance(value, bool):
        raise TypeError("booleans are not filter values")
    if isinstance(value, int):
        return str(value)
    text = value.isoformat() if isinstance(value, date) else str(value)
    return "'" + text.replace("'", "''") + "'"


def open_named(db, name: str):
    """The table ``name`` of connection ``db``, or None when it is missing or only a folder whose creation was cut
    short (LanceDB lists such a folder but cannot open it)."""
    try:
        return db.open_table(name)
    except ValueError as exc:
        if "not found" in str(exc):
            return None
        raise


def in_values(column: str, values: Sequence[str]) -> str:
    """A filter keeping the rows whose ``column`` is one of ``values`` (each quoted once, in order)."""
    return f"{column} IN ({', '.join(sql_literal(v) for v in sorted(set(values)))})"
