"""The store keeps the table handles it opens, and a kept handle sees what a fresh open would
(engine/store/tables.py): other writers' documents, deletions, a base dropped and made again."""

from __future__ import annotations

from collections import Counter

import lancedb
import pytest

from engine.ingest import Ingestor
from engine.pipeline import AskOptions, Pipeline
from engine.store import KnowledgeBaseStore, tables
from engine.store.catalogue import CATALOGUE_PREFIX
from engine.store.schema import TABLE_PREFIX
from engine.store.search import SearchRequest
from engine.store.sentences import SENTENCE_PREFIX

pytestmark = pytest.mark.integration

KB = "manuals"
BRAKES = {"id": "brakes", "title": "Brake wear", "text": "Replace the brake pads when the wear pins are flush. "
                                                         "Lockwire every caliper bolt after torquing it."}
TYRES = {"id": "tyres", "title": "Tyre pressure", "text": "Check tyre pressure cold, before the first flight."}
GALLEY = {"id": "galley", "title": "Galley", "text": "Descale the galley water boiler every 400 flight hours."}
TABLES = {TABLE_PREFIX + KB, CATALOGUE_PREFIX + KB, SENTENCE_PREFIX + KB}


class CountingConnection:
    """A LanceDB connection that counts the tables opened through it."""

    def __init__(self, db) -> None:
        self.db, self.opened = db, Counter()

    def __getattr__(self, name: str):
        return getattr(self.db, name)

    def open_table(self, name: str, **options):
        self.opened[name] += 1
        return self.db.open_table(name, **options)

    def list_tables(self, *args, **kwargs):
        self.opened["(listing)"] += 1
        return self.db.list_tables(*args, **kwargs)


def counted(store: KnowledgeBaseStore) -> CountingConnection:
    connection = CountingConnection(store._db.db)
    store._db.db = connection
    return connection


def ingest(store: KnowledgeBaseStore, records: list[dict]) -> None:
    """Write ``records`` and wait for their sentence vectors (embedded after the ingest), so that the tables a
    reader opens are all there."""
    Ingestor(store).ingest_records(records, KB)
    assert store.sentence_filler.wait(120)


def found(store: KnowledgeBaseStore, query: str) -> list[str]:
    return sorted({h.doc_id for h in store.search(query, KB, mode="keyword", k=5)})


def asks_worth_of_reads(store: KnowledgeBaseStore) -> None:
    """What an ask reads: the base list, the vocabulary, titles, searches in every mode, sentence vectors."""
    known = store.knowledge_base_names()
    assert known == [KB]
    store.vocabulary([KB], known)
    store.title_index(KB)
    outcomes = store.search_many([SearchRequest("brake pads", KB, mode) for mode in ("vector", "keyword", "hybrid")])
    store.sentence_vectors([(KB, hit.chunk_id) for outcome in outcomes for hit in outcome.hits])


def test_each_table_is_opened_once_however_many_asks_read_it(settings):
    ingest(KnowledgeBaseStore(settings), [BRAKES, TYRES])
    reader = KnowledgeBaseStore(settings)
    connection = counted(reader)
    for _ in range(3):
        asks_worth_of_reads(reader)
    assert connection.opened.pop("(listing)") == 3
    assert set(connection.opened) == TABLES
    assert set(connection.opened.values()) == {1}, connection.opened
    assert set(reader._db.kept()) == TABLES


def test_a_kept_handle_sees_another_writers_documents_and_deletions_at_once(settings):
    writer, reader = KnowledgeBaseStore(settings), KnowledgeBaseStore(settings)  # two connections, as two processes
    ingest(writer, [BRAKES])
    connection = counted(reader)
    assert found(reader, "lockwire caliper bolt") == ["brakes"]
    assert "tyre" not in reader.vocabulary(KB).frequencies

    ingest(writer, [TYRES])
    assert found(reader, "tyre pressure cold") == ["tyres"]
    assert "tyre" in reader.vocabulary(KB).frequencies
    assert sorted(d.doc_id for d in reader.list_documents(KB)) == ["brakes", "tyres"]

    writer.delete_document("brakes", KB)
    assert found(reader, "lockwire caliper bolt") == []
    assert [d.doc_id for d in reader.list_documents(KB)] == ["tyres"]
    assert connection.opened[TABLE_PREFIX + KB] == 1  # all of it through the handle opened first


def test_a_base_dropped_and_made_again_elsewhere_is_read_anew(settings):
    writer, reader = KnowledgeBaseStore(settings), KnowledgeBaseStore(settings)
    ingest(writer, [BRAKES, TYRES])
    asks_worth_of_reads(reader)

    writer.drop_knowledge_base(KB)  # and made again before the reader lists the bases
    ingest(writer, [GALLEY])
    assert found(reader, "descale galley boiler") == ["galley"]
    assert found(reader, "lockwire caliper bolt tyre") == []
    assert [d.doc_id for d in reader.list_documents(KB)] == ["galley"]

    writer.drop_knowledge_base(KB)
    assert reader.knowledge_base_names() == []  # the listing forgets the dropped base's handles
    assert reader._db.kept() == []
    assert reader._find(KB) is None
    assert not reader.exists(KB)


def test_a_base_dropped_here_is_forgotten_at_once(settings):
    store = KnowledgeBaseStore(settings)
    ingest(store, [BRAKES])
    asks_worth_of_reads(store)
    store.drop_knowledge_base(KB)
    assert store._db.kept() == []
    assert store._find(KB) is None
    ingest(store, [TYRES])
    assert found(store, "tyre pressure cold") == ["tyres"]
    assert found(store, "lockwire caliper bolt") == []


def test_an_ask_lists_the_store_once_and_opens_no_table_it_has_opened_before(settings):
    store = KnowledgeBaseStore(settings)
    ingest(store, [BRAKES, TYRES])
    pipeline = Pipeline(settings, store)
    options = AskOptions(provider="offline")
    pipeline.run("When must the brake pads be replaced?", options)
    connection = counted(store)
    answer = pipeline.run("How should the tyre pressure be checked?", options)
    assert answer.evidence and answer.status != "failure"
    assert connection.opened == {"(listing)": 1}


def version_lookups(store: KnowledgeBaseStore, monkeypatch) -> Counter:
    """Count the versions the store's derived parts look up (each a check of the table's latest manifest)."""
    looked: Counter = Counter()
    table_version = store._db.version.__func__

    def counting(self, table):
        before = dict(tables._VERSIONS)
        got = table_version(self, table)
        if tables._VERSIONS != before:
            looked[table.name] += 1
        return got

    monkeypatch.setattr(tables.Tables, "version", counting)
    return looked


def test_an_asks_derived_parts_look_up_each_version_once_per_interval(settings, monkeypatch):
    store = KnowledgeBaseStore(settings)
    ingest(store, [BRAKES, TYRES])
    monkeypatch.setattr(tables, "VERSION_TTL_S", 60.0)
    looked = version_lookups(store, monkeypatch)
    for _ in range(3):
        asks_worth_of_reads(store)
    assert looked and set(looked.values()) == {1}, looked  # vocabulary, titles, full-text index: once each
    monkeypatch.setattr(tables, "VERSION_TTL_S", 0.0)
    asks_worth_of_reads(store)
    assert all(n >= 2 for n in looked.values()), looked  # with no interval, each lookup is made again


def test_a_write_through_any_store_of_the_process_reaches_the_derived_parts_at_once(settings, monkeypatch):
    monkeypatch.setattr(tables, "VERSION_TTL_S", 60.0)  # so only the write's own notice can explain what is seen
    writer, reader = KnowledgeBaseStore(settings), KnowledgeBaseStore(settings)
    ingest(writer, [BRAKES])
    assert "tyre" not in reader.vocabulary(KB).frequencies
    assert len(reader.title_index(KB)) == 1
    ingest(writer, [TYRES])
    assert "tyre" in reader.vocabulary(KB).frequencies
    assert len(reader.title_index(KB)) == 2


def test_a_write_from_outside_reaches_the_derived_parts_within_the_interval(settings, monkeypatch):
    """Another process's write is not announced: a version looked up stands for ``VERSION_TTL_S``, then is looked
    up again (a raw LanceDB connection writes here, as another process would)."""
    store = KnowledgeBaseStore(settings)
    probe = store._db.create_table("probe", data=[{"x": 1}])
    monkeypatch.setattr(tables, "VERSION_TTL_S", 60.0)
    first = store._db.version(probe)
    lancedb.connect(settings.store_location).open_table("probe").add([{"x": 2}])
    assert store._db.version(probe) == first  # within the interval: the version looked up stands
    monkeypatch.setattr(tables, "VERSION_TTL_S", 0.0)
    assert store._db.version(probe) == first + 1
    with store._locks.hold(KB):  # a write under a base's lock here: every version is looked up again
        pass
    monkeypatch.setattr(tables, "VERSION_TTL_S", 60.0)
    lancedb.connect(settings.store_location).open_table("probe").add([{"x": 3}])
    with store._locks.hold(KB):
        pass
    assert store._db.version(probe) == first + 2


def test_a_lookup_overtaken_by_a_write_is_not_kept(settings, monkeypatch):
    store = KnowledgeBaseStore(settings)
    probe = store._db.create_table("probe", data=[{"x": 1}])
    monkeypatch.setattr(tables, "VERSION_TTL_S", 60.0)
    first = store._db.version(probe)
    real = type(probe).version

    class Overtaken:  # the table as a lookup sees it while a write lands in between
        name = probe.name

        @property
        def version(self):
            seen = real.fget(probe)
            probe.add([{"x": 2}])
            store._db.changed()
            return seen

    store._db.changed()
    assert store._db.version(Overtaken()) == first  # the lookup's own answer, from before the write
    assert store._db.version(probe) == first + 1  # not kept: the next lookup sees the write
