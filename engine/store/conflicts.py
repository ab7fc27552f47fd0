"""What a write does with a document whose file name the base already holds: decided under the base's write lock.

A base keeps one document per file name (its id is made from the name). When a written document's id is taken,
the policy chosen by the user decides:

- ``replace`` (the default): the new version replaces the old one; the outcome names what it replaced;
- ``keep-both``: the new one is stored beside it under the next free id ``<id>-2``, ``<id>-3``... with the title
  suffix " (2)", " (3)"... (its vectors are those of its chunks under its own title, without the suffix);
- ``skip``: the old one stays and nothing is written.

Whatever the policy, a document whose content hash equals the stored one's (or, for ``keep-both``, a stored
copy's) is ``unchanged`` and not written. Because the decision is made under the lock, of several writers of one
file name exactly one is told ``added`` and each later one learns what it replaced, kept beside or left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

import pyarrow as pa
import pyarrow.compute as pc

from engine.errors import KnowledgeBaseError

OnConflict = Literal["replace", "keep-both", "skip"]
ON_CONFLICT: tuple[OnConflict, ...] = get_args(OnConflict)
WriteStatus = Literal["added", "replaced", "unchanged", "skipped"]


def check_on_conflict(value: str) -> OnConflict:
    if value not in ON_CONFLICT:
        raise KnowledgeBaseError(f"Unknown on-conflict choice {value!r}; choose one of {', '.join(ON_CONFLICT)}.")
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class ExistingDoc:
    """The stored document of a written file's name: what it replaced, was kept beside or left in place."""

    doc_id: str
    title: str | None = None
    update_date: str | None = None
    ingested_at: str | None = None
    content_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "content_hash"}

    def described(self) -> str:
        """'"Title" (dated 2024-01-02, stored 2025-03-04T10:00:00+00:00)', as far as it is known (only the id when
        nothing else is)."""
        if self.title is None and self.ingested_at is None:
            return self.doc_id
        facts = [f"dated {self.update_date}" if self.update_date else "date unknown"]
        if self.ingested_at:
            facts.append(f"stored {self.ingested_at}")
        name = f'"{self.title}"' if self.title else self.doc_id
        return f"{name} ({', '.join(facts)})"

    def anonymous(self) -> ExistingDoc:
        """Only the id: for a writer who may not read the base, a stored document's title and dates are not theirs."""
        return ExistingDoc(self.doc_id)


@dataclass(frozen=True)
class Written:
    """The outcome of one document of a write: ``requested_id`` is the id it came with, ``doc_id`` the one it is
    stored under (a keep-both copy's differs), ``title`` the title stored with it."""

    requested_id: str
    doc_id: str
    status: WriteStatus
    title: str | None = None
    existing: ExistingDoc | None = None

    def anonymous(self) -> Written:
        existing = self.existing.anonymous() if self.existing is not None else None
        return Written(self.requested_id, self.doc_id, self.status, self.title, existing)


def existing_from(entries: pa.Table) -> dict[str, ExistingDoc]:
    """ExistingDocs of catalogue rows, by doc_id."""
    columns = ["doc_id", "title", "update_date", "ingested_at", "content_hash"]
    return {row["doc_id"]: ExistingDoc(**row) for row in entries.select(columns).to_pylist()}


def copy_number(doc_id: str, base: str) -> int | None:
    """n when ``doc_id`` is ``base``'s keep-both copy ``<base>-n``, else None."""
    match = re.fullmatch(re.escape(base) + r"-(\d+)", doc_id)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Incoming:
    """A document about to be written: its id, content hash and title."""

    doc_id: str
    content_hash: str
    title: str


def decide(incoming: Sequence[Incoming], stored: Mapping[str, ExistingDoc], on_conflict: OnConflict) -> list[Written]:
    """The outcome of each incoming document, given the base's documents ``stored`` (for ``keep-both``: all of
    them, so that a free copy id is found), under ``on_conflict``. Pure: the caller holds the lock."""
    taken = set(stored)
    outcomes = []
    for doc in incoming:
        existing = stored.get(doc.doc_id)
        if existing is None:
            outcomes.append(Written(doc.doc_id, doc.doc_id, "added", doc.title))
            taken.add(doc.doc_id)
            continue
        copies = {n: stored[i] for i in stored if (n := copy_number(i, doc.doc_id)) is not None}
        same = [e for e in (existing, *copies.values()) if e.content_hash == doc.content_hash]
        if existing.content_hash == doc.content_hash or (on_conflict == "keep-both" and same):
            kept = existing if existing.content_hash == doc.content_hash else same[0]
            outcomes.append(Written(doc.doc_id, kept.doc_id, "unchanged", kept.title, existing))
        elif on_conflict == "replace":
            outcomes.append(Written(doc.doc_id, doc.doc_id, "replaced", doc.title, existing))
        elif on_conflict == "skip":
            outcomes.append(Written(doc.doc_id, doc.doc_id, "skipped", existing.title, existing))
        else:
            number = 2
            while f"{doc.doc_id}-{number}" in taken:
                number += 1
            copy = f"{doc.doc_id}-{number}"
            taken.add(copy)
            outcomes.append(Written(doc.doc_id, copy, "added", f"{doc.title} ({number})", existing))
    return outcomes


def renamed(rows: pa.Table, outcome: Written) -> pa.Table:
    """The chunk rows of a keep-both copy: the document's rows under its new id and title. The keyword-indexed
    text's first line is the title, so it is replaced there too (a " (n)" suffix adds no identifier tokens)."""
    mine = rows.filter(pc.equal(rows["doc_id"], outcome.requested_id))
    if outcome.doc_id == outcome.requested_id:
        return mine
    count = mine.num_rows
    old_title = mine["title"][0].as_py() if count else ""
    new = {
        "doc_id": pa.array([outcome.doc_id] * count, pa.string()),
        "chunk_id": pa.array([f"{outcome.doc_id}:{p:04d}" for p in mine["position"].to_pylist()], pa.string()),
        "title": pa.array([outcome.title] * count, pa.string()),
        "search_text": pa.array([outcome.title + t[len(old_title):] if t.startswith(old_title) else t
                                 for t in mine["search_text"].to_pylist()], pa.string()),
    }
    for name, column in new.items():
        if name in mine.column_names:
            at = mine.schema.get_field_index(name)
            mine = mine.set_column(at, mine.schema.field(name), column)
    return mine
