"""The embedding model run by ONNX Runtime instead of PyTorch (same weights, same vectors).

The first use exports the packaged sentence-transformers model (transformer, mean pooling and
L2 normalisation in one graph) to ONNX with ``torch.onnx.export``; the ``onnx-int8`` backend then
quantises its MatMul weights (all but the first layer's) to int8, per channel, with ONNX Runtime's
dynamic quantisation.
Nothing is downloaded. The result is kept in a cache folder keyed by the weights' hash and the
backend, written to a temporary folder first and renamed into place, so concurrent first uses
never see half a model; later loads only open the file.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import numpy as np

from engine.errors import ConfigError
from engine.fork_safe import ForkSafePool

ONNX_BACKENDS = ("onnx", "onnx-int8")
MODEL_FILE = "model.onnx"
MANIFEST_FILE = "manifest.json"
EXPORT_VERSION = 4
"""Bump when the exported graph changes, so old cache folders are not reused (3: the token sum's norm as a second
output, the weight of a unit in its chunk's vector; 4: the token vectors as a third, from which a chunk's sentence
vectors are pooled)."""
SHORT_ROWS_PER_RUN = 64
"""Most texts in one run of ``encode_short``."""
OUTPUTS = ("sentence_embedding", "token_sum_norm")
TOKENS = "token_vectors"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
POOL_SESSIONS_MAX = 8
"""Calls of two texts or more run on a pool of sessions, one per core (at most this many; each holds its own copy of
the model, about 90 MB), each running one text at a time on one thread of its own, side by side. One session with
two threads waits for both at every step of every run: on this 2-core machine under load (load average 10-13) 80
chunks and 280 sentences, one text per run, took 27-28 s and 10.9 CPU-seconds there against 12-14 s and 5.7
CPU-seconds on two one-thread sessions (docs/benchmarks.md, "Ingest side by side with LlamaIndex"). A session's
thread count does not change a vector (``tests/test_onnx_embedder.py`` checks it bit for bit)."""
INT8_ROWS_PER_RUN = 1
"""Texts per ONNX Runtime run with ``onnx-int8``. Dynamic quantisation sets its activation scales from the
whole input of a run, padding included, so in a batch a text's vector depends on its batch mates (cosine 0.97
to its own single-text vector was measured on sample_docs sentences). One text per run makes every vector a
function of its text alone: a query and the same text at ingest get the same vector, and so do two ingest
engines. Batching it without that dependence was measured and did not pay on an earlier machine's CPU (AVX2, no
VNNI): statically quantised activations (ONNX Runtime's QDQ quantiser, calibrated on sample_docs) batched by padded
length used 5.6 CPU-seconds where one text per run used 5.5-5.8, the float model batched 5.5-6.3, and the
static model's vectors moved further from the float ones (cosine 0.993 mean against 0.996). On a CPU with AVX-512
VNNI, dynamic int8 in batches of 32 ran at most 1.3 times as many word pieces per second per core as one text per run
(short texts; 1.1 times at 48 pieces); static quantisation was not measured there."""


def _require_onnxruntime():
    try:
        import onnxruntime
    except ImportError:
        raise ConfigError(
            "The ONNX embedding backends need onnxruntime; install requirements.txt "
            "or set WORKBENCH_EMBEDDING_BACKEND=torch."
        ) from None
    return onnxruntime


def weights_digest(model_dir: Path) -> str:
    """A short hash of the model's weights and configuration files (the cache key)."""
    digest = hashlib.sha256()
    for path in sorted(model_dir.rglob("*")):
        if path.is_file() and path.suffix in {".safetensors", ".bin", ".json", ".txt"}:
            digest.update(path.relative_to(model_dir).as_posix().encode())
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def cache_folder(model_dir: Path, backend: str, cache_dir: Path) -> Path:
    """Where the exported model for these weights and this backend lives."""
    ort = _require_onnxruntime()
    name = f"{model_dir.name}-{weights_digest(model_dir)}-{backend}-v{EXPORT_VERSION}-ort{ort.__version__}"
    return Path(cache_dir).expanduser() / name


def _export_fp32(model_dir: Path, target: Path) -> None:
    """Trace transformer + mean pooling + normalisation into one ONNX graph at ``target``."""
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu")
    transformer = st[0].auto_model.eval()

    class Pooled(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            total = (hidden * mask).sum(1)
            mean = total / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1), total.norm(p=2, dim=1), hidden * mask

    sample = st.tokenizer(["an example sentence", "a second, longer example sentence"], padding=True,
                          return_tensors="pt")
    args = tuple(sample[name] for name in _INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, TOKENS)} | {name: {0: "batch"} for name in OUTPUTS}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(transformer).eval(), args, str(target), input_names=list(_INPUTS),
                          output_names=[*OUTPUTS, TOKENS], dynamic_axes=axes, opset_version=17,
                          dynamo=False)


class _DropAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def _quantize(source: Path, target: Path) -> None:
    """Int8 weights (per channel) for every MatMul but the first layer's, which keeps short texts within
    cosine 0.99 of the PyTorch vectors; activations are quantised dynamically at run time."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    first_layer = [node.name for node in onnx.load(str(source), load_external_data=False).graph.node
                   if node.op_type == "MatMul" and "layer.0/" in node.name]
    advice = _DropAdvice()
    logging.getLogger().addFilter(advice)
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"], nodes_to_exclude=first_layer)
    finally:
        logging.getLogger().removeFilter(advice)


@contextmanager
def built_atomically(folder: Path, marker: str) -> Iterator[Path]:
    """A work folder beside ``folder``, renamed into place when the block ends without error (atomic: a reader never
    sees half an export); when another process got there first, its folder (holding ``marker``) is kept."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        yield work
        try:
            os.rename(work, folder)  # atomic; fails if another process got there first
        except OSError:
            if not (folder / marker).is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def export_model(model_dir: Path, backend: str, folder: Path) -> None:
    """Export (and for ``onnx-int8`` quantise) the model into ``folder``, atomically."""
    with built_atomically(folder, MANIFEST_FILE) as work:
        fp32 = work / ("model_fp32.onnx" if backend == "onnx-int8" else MODEL_FILE)
        _export_fp32(model_dir, fp32)
        if backend == "onnx-int8":
            _quantize(fp32, work / MODEL_FILE)
            fp32.unlink()
        manifest = {"backend": backend, "source": str(model_dir), "weights": weights_digest(model_dir),
                    "export_version": EXPORT_VERSION}
        (work / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1))


def export_in_child(model_dir: Path, backend: str, folder: Path) -> None:
    """``export_model`` in a child process. The export holds the interpreter lock for most of its 10-30 s: run in a
    thread of a serving process (the app indexing its first documents in the background) it starved the page being
    drawn, and a fresh `make run` drew its first page at 57.6 s instead of about 26 s."""
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    result = subprocess.run([sys.executable, "-m", "engine.onnx_embedder", str(model_dir), backend, str(folder)],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0 and not (folder / MANIFEST_FILE).is_file():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ConfigError(f"Exporting the embedding model to {folder} failed ({detail[0][:400]}); check that the "
                          "folder is writable and that requirements.txt is installed, then try again.")


def _max_seq_length(model_dir: Path) -> int:
    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text()).get("max_seq_length") or 256)
    return 256


class OnnxEmbedder:
    """Encodes texts into L2-normalised float32 vectors with ONNX Runtime (cosine = dot product)."""

    def __init__(self, model_dir: Path, backend: str, cache_dir: Path, batch_size: int = 64,
                 model_name: str | None = None) -> None:
        if backend not in ONNX_BACKENDS:
            raise ConfigError(f"Unknown ONNX embedding backend {backend!r}; choose one of {', '.join(ONNX_BACKENDS)}.")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        _require_onnxruntime()  # a clear error first when it is missing
        from tokenizers import Tokenizer

        self.model_name = model_name or str(model_dir)
        self.backend = backend
        self.batch_size = INT8_ROWS_PER_RUN if backend == "onnx-int8" else batch_size
        self.folder = cache_folder(model_dir, backend, cache_dir)
        self.exported = False
        if not (self.folder / MANIFEST_FILE).is_file():
            logging.getLogger(__name__).info(
                "Exporting the embedding model for %s into %s (once; about 10-20 s)", backend, self.folder)
            export_in_child(model_dir, backend, self.folder)
            self.exported = True
        self._session = self._open_session(stop_spinning=True)
        self._pool: _SessionPool | None = None  # opened on the first call of two texts or more
        self._pool_lock = threading.Lock()
        self._beside_session = None  # one thread: opened on the first ``encode_beside``
        self._beside_lock = threading.Lock()
        self.max_seq_length = _max_seq_length(model_dir)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)
        self._tokenizer.no_padding()
        self._encode_lock = threading.Lock()
        self.dim = int(self._run(self._tokenizer.encode_batch(["dimension probe"])).shape[1]) - 1

    def _open_session(self, stop_spinning: bool, threads: int = 0):
        ort = _require_onnxruntime()
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads  # 0: ONNX Runtime's default, every core
        if stop_spinning:
            options.add_session_config_entry("session.force_spinning_stop", "1")
        return ort.InferenceSession(str(self.folder / MODEL_FILE), options, providers=["CPUExecutionProvider"])

    def _pool_for_bulk(self) -> "_SessionPool":
        """The pool of one-thread sessions (see ``POOL_SESSIONS_MAX``), opened on first use."""
        with self._pool_lock:
            if self._pool is None:
                cores = _usable_cores()
                size = min(cores, POOL_SESSIONS_MAX)
                threads = max(1, cores // size)
                self._pool = _SessionPool([self._open_session(stop_spinning=True, threads=threads)
                                           for _ in range(size)])
            return self._pool

    def _run(self, encodings: list, session=None, tokens: bool = False):
        """Vectors of ``encodings``, each row followed by its weight (see ``encode_weighted``); with ``tokens`` also
        each text's token vectors (padding left out)."""
        width = max(len(e.ids) for e in encodings)
        feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in _INPUTS}
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            feeds["input_ids"][row, :n] = enc.ids
            feeds["attention_mask"][row, :n] = enc.attention_mask
            feeds["token_type_ids"][row, :n] = enc.type_ids
        out = (session or self._session).run([*OUTPUTS, TOKENS] if tokens else list(OUTPUTS), feeds)
        rows = np.concatenate([out[0], out[1].reshape(-1, 1)], axis=1)
        if not tokens:
            return rows
        return rows, [out[2][row, :len(enc.ids)].astype(np.float32, copy=False) for row, enc in enumerate(encodings)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns shape (len(texts), dim). One text runs on the model's own session (every core
        on that one text); more run side by side on the pool of one-thread sessions, longest first, in batches of
        similar token counts (one text per run with int8, see ``INT8_ROWS_PER_RUN``)."""
        return self.encode_weighted(texts)[0]

    def encode_weighted(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``encode(texts)``, and each text's weight: the norm of the sum of its token vectors before pooling (its
        token count times the norm of their mean). The normalised sum of a chunk's units' vectors, each scaled by
        its weight, is the mean of all their token vectors (engine/store/sentences.py)."""
        return self._weighted(texts, bulk=False)

    def bulk_weighted(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``encode_weighted`` for bulk work (the ingest, the sentence fill), where several callers embed at once:
        a single text runs on a one-thread session of the pool too, instead of on the model's own session with
        every core under a lock, so two files embedding side by side each keep a core busy. On retrieval_dev's 994
        one-chunk records the model's own session took 14 s, the pool 10.5 s. The vectors are the same bit for bit
        (a session's thread count does not change them)."""
        return self._weighted(texts, bulk=True)

    def _weighted(self, texts: Sequence[str], bulk: bool) -> tuple[np.ndarray, np.ndarray]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), np.zeros(0, dtype=np.float32)
        encodings = self._tokenizer.encode_batch([str(t).strip() for t in texts])
        runs, results = self._run_all(encodings, bulk=bulk)
        out = np.empty((len(encodings), results[0].shape[1]), dtype=np.float32)
        for rows, vectors in zip(runs, results):
            out[rows] = vectors
        return np.ascontiguousarray(out[:, :-1]), out[:, -1].copy()

    def encode_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """``encode(texts)``, and per text the vectors of its word pieces from the same run (before pooling) with
        each piece's character span in the text ((0, 0) for the model's special pieces). A part of the text is
        read in the light of the whole by pooling the vectors of its pieces (engine/store/sentences.py); pieces
        past the model's length limit are not read, so their spans are missing."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), [], []
        shifts = [len(str(t)) - len(str(t).lstrip()) for t in texts]
        encodings = self._tokenizer.encode_batch([str(t).strip() for t in texts])
        runs, results = self._run_all(encodings, tokens=True)
        vectors = np.empty((len(encodings), self.dim), dtype=np.float32)
        pieces: list[np.ndarray] = [np.zeros((0, self.dim), dtype=np.float32)] * len(encodings)
        for rows, (pooled, hidden) in zip(runs, results):
            vectors[rows] = pooled[:, :-1]
            for row, token_vectors in zip(rows, hidden):
                pieces[row] = token_vectors
        return vectors, pieces, [piece_spans(e.offsets, shift) for e, shift in zip(encodings, shifts)]

    def _run_all(self, encodings: list, tokens: bool = False, bulk: bool = False) -> tuple[list[np.ndarray], list]:
        """The rows of each run and its ``_run`` result. One text runs on the model's own session (every core on
        that one text) unless ``bulk``; more run side by side on the pool of one-thread sessions, longest first, in
        batches of similar token counts (one text per run with int8, see ``INT8_ROWS_PER_RUN``)."""
        if len(encodings) == 1 and not bulk:
            with self._encode_lock:  # ONNX Runtime already uses every core; serialise callers
                return [np.arange(1)], [self._run(encodings, self._session, tokens)]
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        runs = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        results = self._pool_for_bulk().map(
            lambda rows, session: self._run([encodings[i] for i in rows], session, tokens), runs)
        return runs, results

    def encode_short(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many short texts (names) in runs of up to ``SHORT_ROWS_PER_RUN`` texts of the same token count (no
        padding), on the pool of one-thread sessions: a third of the time of one text per run (retrieval_dev's 7,551
        names: 2.2 s against 6.8 s). With ``onnx-int8`` a vector then depends a little on its run mates
        (``INT8_ROWS_PER_RUN``; cosine 0.96 or more to its own one-text vector), so these vectors are compared only
        with each other (the entity graph's synonym edges, engine/store/synonyms.py), never with a question's. The
        runs are made from the sorted texts, so the same texts give the same vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch([str(t).strip() for t in texts])
        order = sorted(range(len(texts)), key=lambda i: (len(encodings[i].ids), str(texts[i]).strip()))
        runs: list[np.ndarray] = []
        for _, group in itertools.groupby(order, key=lambda i: len(encodings[i].ids)):
            rows = list(group)
            runs.extend(np.asarray(rows[at:at + SHORT_ROWS_PER_RUN]) for at in range(0, len(rows), SHORT_ROWS_PER_RUN))
        results = self._pool_for_bulk().map(lambda rows, session: self._run([encodings[i] for i in rows], session),
                                            runs)
        out = np.empty((len(encodings), self.dim), dtype=np.float32)
        for rows, vectors in zip(runs, results):
            out[rows] = vectors[:, :-1]
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def encode_beside(self, text: str) -> np.ndarray:
        """``encode_one`` on a one-thread session, for a text embedded beside other work that keeps one core busy
        (the question, while perception reads it). Two threads would share a core with that work and slow both: the
        question embedded beside perception took perception from 3.3 to 4.6 ms on two threads, 3.0 ms on one. The
        session holds the same model, so the vector is the same (``tests/test_onnx_embedder.py``)."""
        encodings = self._tokenizer.encode_batch([str(text).strip()])
        with self._beside_lock:
            if self._beside_session is None:
                self._beside_session = self._open_session(stop_spinning=True, threads=1)
            return self._run(encodings, self._beside_session)[0, :-1].astype(np.float32, copy=False)


def piece_spans(offsets: Sequence[tuple[int, int]], shift: int = 0) -> np.ndarray:
    """Word pieces' character spans as an array of rows (start, end), moved by ``shift`` (the whitespace stripped
    from the text's start before it was read); the model's special pieces keep (0, 0)."""
    spans = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    spans[spans[:, 1] > 0] += shift
    return spans


def _usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _SessionPool:
    """Sessions of one model, each running one job at a time on a thread of its own; callers may share it."""

    def __init__(self, sessions: list) -> None:
        if not sessions:
            raise ValueError("a session pool needs at least one session")
        self.sessions = list(sessions)
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        for session in self.sessions:
            self._idle.put(session)
        self._threads = ForkSafePool(len(self.sessions), "embed")  # a forked child gets threads of its own

    def map(self, job, items: Sequence) -> list:
        """``job(item, session)`` for every item, side by side on the free sessions; results in the items' order."""
        def run(item):
            session = self._idle.get()
            try:
                return job(item, session)
            finally:
                self._idle.put(session)

        return [future.result() for future in [self._threads.submit(run, item) for item in items]]


if __name__ == "__main__":  # the child of ``export_in_child``: MODEL_DIR BACKEND FOLDER
    os.nice(10)  # behind the process that is serving pages
    export_model(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
