"""ScopedStore on a real LanceDB store: a base the identity may not read is invisible on every read path,
and writes need the role and a write grant."""

from __future__ import annotations

import pytest

from engine.errors import KnowledgeBaseError, PermissionDenied
from engine.identity import Identity
from engine.store.scoped import ScopedStore
from engine.ingest import Ingestor

pytestmark = pytest.mark.integration
ALICE = Identity("alice", "analyst", {"manuals": frozenset({"read", "write"})}, "password")
VIEWER = Identity("vera", "viewer", {"manuals": frozenset({"read", "write"})}, "password")


@pytest.fixture()
def store(store_copy):
    return store_copy


def test_unreadable_bases_do_not_exist_for_reads(store):
    view = ScopedStore(store, ALICE)
    assert view.knowledge_base_names() == ["manuals"]
    assert [b.name for b in view.list_knowledge_bases()] == ["manuals"]
    assert not view.exists("faq") and view.exists("manuals")
    assert all(h.knowledge_base == "manuals" for h in view.search("zephyrine manifold tolerance", k=10))
    assert view.search("zephyrine manifold", mode="keyword") == []
    assert "zephyrine" not in view.vocabulary() and "zephyrine" in store.vocabulary()
    assert "zephyrine" not in view.vocabulary(None, view.knowledge_base_names())  # as an ask reads it
    for call in (lambda: view.search("x", "faq"), lambda: view.list_documents("faq"),
                 lambda: view.get_document("secret-note", "faq"), lambda: view.vocabulary(["faq"]),
                 lambda: view.document_hashes("faq"), lambda: view.count_chunks("faq"),
                 lambda: view.title_index("faq"), lambda: view.nearest_chunks("faq", ["secret-note"], None, 1)):
        with pytest.raises(KnowledgeBaseError, match="does not exist or you have no read grant"):
            call()
    with pytest.raises(KnowledgeBaseError, match="not found in the knowledge bases you may read"):
        view.get_document("secret-note")
    assert view.get_document("torque-note")[0].knowledge_base == "manuals"
    assert len(view.title_index("manuals")) == len(store.title_index("manuals"))


def test_writes_need_the_role_and_the_grant(store):
    with pytest.raises(PermissionDenied, match="no write grant for knowledge base 'faq'"):
        ScopedStore(store, Identity("alice", "analyst", {"faq": frozenset({"read"})})).delete_document(
            "secret-note", "faq")
    with pytest.raises(PermissionDenied, match="needs the analyst or admin role"):
        Ingestor(ScopedStore(store, VIEWER)).ingest_records([{"id": "x", "title": "x", "text": "new text"}], "manuals")
    with pytest.raises(KnowledgeBaseError, match="no read grant"):
        ScopedStore(store, ALICE).drop_knowledge_base("faq")
    assert store.exists("faq") and store.count_chunks("faq") == 1


def test_methods_it_does_not_filter_are_not_reachable(store):
    with pytest.raises(AttributeError, match="exposes only filtered methods"):
        ScopedStore(store, ALICE)._open("faq")


def test_a_pipeline_over_the_view_never_cites_the_hidden_base(store):
    from engine.pipeline import AskOptions, Pipeline

    pipeline = Pipeline(store.settings, store)
    answer = pipeline.with_store(ScopedStore(store, ALICE)).run(
        "What is the zephyrine manifold tolerance?", AskOptions(provider="offline", user="alice"))
    assert all(e.knowledge_base == "manuals" for e in answer.evidence)
    assert "42" not in answer.final and {t.knowledge_base for t in answer.tasks} <= {"manuals"}
    assert pipeline.store is store  # the shared pipeline is unchanged
    full = pipeline.run("What is the zephyrine manifold tolerance?", AskOptions(provider="offline"))
    assert any(e.knowledge_base == "faq" for e in full.evidence)  # the base is there for someone who may read it


def test_every_public_store_method_has_a_filtered_counterpart():
    from engine.store import KnowledgeBaseStore

    public = {name for name in dir(KnowledgeBaseStore) if not name.startswith("_")}
    missing = sorted(public - set(dir(ScopedStore)))
    assert not missing, f"ScopedStore must define filtered versions of {missing} (engine/store/scoped.py)"
