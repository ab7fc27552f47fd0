"""The engine-side filter: a knowledge-base store as one identity may see and change it.

:class:`ScopedStore` has the store's methods that the pipeline, retriever, ingestor, agent tools and
pages use; every one of them is limited to the bases the identity may read (or write). A base the
identity may not read behaves as if it did not exist, so its name, documents, words and passages never
leak through search, answers, spelling corrections, document lists or agent tools. Anything the
wrapper does not define is refused rather than passed through unfiltered.

With ``on_read``, every base whose names, documents, words or passages a call may have revealed is reported to
it (an agent run records them, so that only people who may read them all see the run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.errors import KnowledgeBaseError
from engine.identity.model import Identity
from engine.store.search import Outcome


class ScopedStore:
    """A KnowledgeBaseStore limited to what ``identity`` may read and write."""

    def __init__(self, store: Any, identity: Identity,
                 on_read: Callable[[Iterable[str]], None] | None = None) -> None:
        if isinstance(store, ScopedStore):
            store = store.inner
        self.inner = store
        self.identity = identity
        self.on_read = on_read

    def _noted(self, names: Iterable[str]) -> None:
        """Report bases read (only readable ones reach here)."""
        if self.on_read is not None:
            self.on_read(list(names))

    # -- passthrough of non-data attributes -------------------------------------
    @property
    def settings(self):
        return self.inner.settings

    @property
    def embedder(self):
        return self.inner.embedder

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{type(self).__name__} does not offer {name!r}: a store seen through an identity "
                             "exposes only filtered methods.")

    def warm(self) -> None:
        """Load the embedding model and open the tables before a timed search; reads nothing for the caller."""
        self.embedder.encode_one("warm-up")
        self.inner.knowledge_base_names()

    # -- which bases --------------------------------------------------------------
    def _missing(self, kb: str) -> KnowledgeBaseError:
        known = ", ".join(self.knowledge_base_names()) or "none you may read"
        return KnowledgeBaseError(f"Knowledge base {kb!r} does not exist or you have no read grant for it "
                                  f"(yours: {known}).")

    def knowledge_base_names(self) -> list[str]:
        names = self.identity.readable(self.inner.knowledge_base_names())
        self._noted(names)
        return names

    def exists(self, kb: str) -> bool:
        if not self.identity.can_read(kb):
            return False
        self._noted([kb])
        return self.inner.exists(kb)

    def _readable(self, kb: str) -> str:
        if not self.identity.can_read(kb):
            raise self._missing(kb)
        self._noted([kb])
        return kb

    def _names(self, kb: str | Sequence[str] | None) -> list[str]:
        if kb is None:
            return self.knowledge_base_names()
        names = [kb] if isinstance(kb, str) else list(kb)
        return [self._readable(n) for n in names]

    # -- reading ------------------------------------------------------------------
    def list_knowledge_bases(self):
        infos = [info for info in self.inner.list_knowledge_bases() if self.identity.can_read(info.name)]
        self._noted(info.name for info in infos)
        return infos

    def list_documents(self, kb: str):
        return self.inner.list_documents(self._readable(kb))

    def get_document(self, doc_id: str, kb: str | None = None):
        if kb is not None:
            return self.inner.get_document(doc_id, self._readable(kb))
        for name in self.knowledge_base_names():
            try:
                return self.inner.get_document(doc_id, name)
            except KnowledgeBaseError:
                continue
        raise KnowledgeBaseError(f"Document {doc_id!r} was not found in the knowledge bases you may read; list them "
                                 "to see document ids.")

    def document_hashes(self, kb: str) -> dict[str, str]:
        self._writable_or_readable(kb)
        return self.inner.document_hashes(kb)

    def existing_documents(self, kb: str, doc_ids: Sequence[str]) -> dict[str, Any]:
        """Stored documents an ingest meets; only their ids for a writer without a read grant."""
        self._writable_or_readable(kb)
        found = self.inner.existing_documents(kb, doc_ids)
        return found if self.identity.can_read(kb) else {i: e.anonymous() for i, e in found.items()}

    def document_sentence_vectors(self, kb: str, doc_id: str) -> dict[str, Any]:
        """For an ingest replacing the document (its sentences are matched, never shown)."""
        self._writable_or_readable(kb)
        return self.inner.document_sentence_vectors(kb, doc_id)

    def count_chunks(self, kb: str, doc_id: str | None = None) -> int:
        self._writable_or_readable(kb)
        return self.inner.count_chunks(kb, doc_id)

    def _writable_or_readable(self, kb: str) -> None:
        if not (self.identity.can_read(kb) or self.identity.can_write(kb)):
            raise self._missing(kb)
        self._noted([kb])

    def vocabulary(self, kb: str | Sequence[str] | None = None, known: Sequence[str] | None = None):
        if known is not None:  # the bases the caller has just listed: only readable ones count, whoever listed them
            known = self.identity.readable(known)
        names = list(known) if kb is None and known is not None else self._names(kb)
        self._noted(names)
        return self.inner.vocabulary(names, known)

    def title_index(self, kb: str):
        return self.inner.title_index(self._readable(kb))

    def revisions(self, kb: str):
        return self.inner.revisions(self._readable(kb))

    def nearest_chunks(self, kb: str, doc_ids: Sequence[str], vector: Any, k: int):
        return self.inner.nearest_chunks(self._readable(kb), doc_ids, vector, k)

    def graph_tables(self, kb: str):
        """The entity graph of a base this identity may read (a walk reads one base's graph, never another's)."""
        return self.inner.graph_tables(self._readable(kb))

    def synonym_pairs(self, kb: str) -> int:
        return self.inner.synonym_pairs(self._readable(kb))

    def chunks_by_id(self, kb: str, chunks: dict[str, str]):
        return self.inner.chunks_by_id(self._readable(kb), chunks)

    def search(self, query: str, kb: str | Sequence[str] | None = None, mode: str = "hybrid", k: int = 10,
               filters: Any = None, vector: Any = None):
        names = self._names(kb)
        if not names:
            return []
        return self.inner.search(query, names, mode=mode, k=k, filters=filters, vector=vector)

    def sentence_vectors(self, chunks: Sequence[tuple[str, str]]):
        allowed = [(kb, c) for kb, c in chunks if self.identity.can_read(kb)]
        self._noted({kb for kb, _ in allowed})
        return self.inner.sentence_vectors(allowed)

    def search_many(self, requests: Sequence[Any], memo: Any = None) -> list[Any]:
        """The store's ``search_many``; a request for a base this identity may not read fails as a missing base."""
        allowed = [i for i, r in enumerate(requests) if self.identity.can_read(r.kb)]
        self._noted({requests[i].kb for i in allowed})
        outcomes = dict(zip(allowed, self.inner.search_many([requests[i] for i in allowed], memo)))
        return [outcomes[i] if i in outcomes else Outcome((), 0.0, self._missing(r.kb)) for i, r in enumerate(requests)]

    # -- writing ------------------------------------------------------------------
    def write_documents(self, kb: str, rows: Sequence[dict[str, Any]], replace_doc_ids: Iterable[str] = (),
                        on_conflict: str = "replace") -> list[Any]:
        """The store's write; a writer without a read grant learns only the ids of the stored documents it met."""
        self.identity.require_write(kb)
        written = self.inner.write_documents(kb, rows, replace_doc_ids=replace_doc_ids, on_conflict=on_conflict)
        return written if self.identity.can_read(kb) else [w.anonymous() for w in written]

    @property
    def sentence_filler(self):
        """The store's filler of sentence vectors: it fills only documents a write of this identity queued."""
        return self.inner.sentence_filler

    def fill_sentences(self, jobs):
        """The deferred sentence vectors of documents of a base this identity may write."""
        for kb in {job.kb for job in jobs}:
            self.identity.require_write(kb)
        return self.inner.fill_sentences(jobs)

    def documents_without_sentences(self, kb: str) -> dict[str, str]:
        """The documents of a base this identity may write that have no sentence vectors yet."""
        self.identity.require_write(kb)
        return self.inner.documents_without_sentences(kb)

    def maintain(self, kb: str):
        """Index upkeep after a write: for a base this identity may write."""
        self.identity.require_write(kb)
        return self.inner.maintain(kb)

    def rebuild_mentions(self, kb: str) -> int:
        """The entity graph made again: for a base this identity may write."""
        self.identity.require_write(kb)
        return self.inner.rebuild_mentions(kb)

    def delete_document(self, doc_id: str, kb: str) -> int:
        self._readable(kb)
        self.identity.require_write(kb)
        return self.inner.delete_document(doc_id, kb)

    def set_title(self, doc_id: str, kb: str, title: str):
        """Retitle a document of a base this identity may read and write."""
        self._readable(kb)
        self.identity.require_write(kb)
        return self.inner.set_title(doc_id, kb, title)

    def drop_knowledge_base(self, kb: str) -> None:
        self._readable(kb)
        self.identity.require_write(kb)
        self.inner.drop_knowledge_base(kb)

