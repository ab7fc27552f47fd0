"""Candidates and their features for every question of a reader dump (bench/reader_data.py), labelled against gold.

    python tools/reader_rows.py bench/results/reader_squad2.jsonl --out bench/results/rows_squad2.jsonl

Each output row is one question: ``{"id", "group", "answerable", "gold", "reading": {...}, "in_evidence",
"in_sentences", "candidates": [{"text", "kind", "evidence", "right", "features"}], "signals": {...}}``.
A candidate is right when, normalised as SQuAD normalises answers, a gold answer stands inside it and it is at
most ``SLACK`` words longer (so that the answer it would lead with states the gold value, and little more).
"""

from __future__ import annotations

import argparse
import json
import re
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SLACK = 4
SENTENCE_ROWS = 40
"""Sentences kept per question for fitting the sentence model (the best by the current ranking)."""


def squad_normal(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the SQuAD evaluation's normalisation)."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def right(candidate: str, gold: list[str]) -> bool:
    c = f" {squad_normal(candidate)} "
    for g in gold:
        n = squad_normal(g)
        if n and f" {n} " in c and len(c.split()) <= len(n.split()) + SLACK:
            return True
    return False


def inside(text: str, gold: list[str]) -> bool:
    t = f" {squad_normal(text)} "
    return any(squad_normal(g) and f" {squad_normal(g)} " in t for g in gold)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sentences", type=int, default=None, help="sentences parsed per question")
    parser.add_argument("--articles", choices=("even", "odd"), default=None,
                        help="only the questions of every other article (as tools/train_span_reader.py splits them): "
                             "score each half with the span model trained on the other (WORKBENCH_SPAN_MODEL)")
    parser.add_argument("--cache", default=str(ROOT / "bench" / "results" / "reader_cache"),
                        help="folder keeping sentence vectors and parses between runs (features change, texts do not)")
    args = parser.parse_args(argv)

    from engine.language.question import read_question
    from engine.offline.reader import SENTENCES, candidates
    from engine.offline.sentences import rank_sentences
    from engine.offline.signals import question_signals
    from engine.embeddings import VectorCache
    from engine.results import Evidence, Intent

    from engine.language import nlp

    nlp.PARSED_KEPT = 10_000_000  # every parse kept for the run (and saved for the next)
    cache = VectorCache(size=10_000_000)
    store = _Cache(Path(args.cache))
    store.load(cache)
    limit = args.sentences or SENTENCES
    rows = [json.loads(line) for line in open(args.dump)]
    if args.articles:
        from tools.train_span_reader import articles

        chosen = articles([{"title": r["group"]} for r in rows], args.articles)[0]
        rows = [r for r in rows if r["group"] in chosen]
    if args.limit:
        rows = rows[: args.limit]
    started = time.perf_counter()
    with open(args.out, "w") as handle:
        for number, row in enumerate(rows, start=1):
            intent = Intent.model_validate(row["intent"])
            evidence = [Evidence.model_validate(e) for e in row["evidence"]]
            reading = read_question(row["question"], tuple(e.text for e in intent.entities))
            sentences = rank_sentences(reading, evidence, cache.encode, intent)
            found = candidates(reading, evidence, sentences, limit=limit)
            gold = row["answers"] if row["answerable"] else []
            out = {
                "id": row["id"], "group": row["group"], "answerable": row["answerable"], "gold": gold,
                "question": row["question"],
                "reading": {"wh": reading.wh, "type": reading.answer_type, "head": reading.head,
                            "subjects": list(reading.subjects)},
                "in_evidence": bool(gold) and any(inside(e.text, gold) for e in evidence),
                "in_sentences": bool(gold) and any(inside(s.text, gold) for s in sentences[:limit]),
                "signals": question_signals(reading, evidence, sentences),
                "sentences": [{"right": bool(gold) and inside(x.text, gold), "features": dict(x.features)}
                              for x in sentences[:SENTENCE_ROWS]],
                "candidates": [{"text": c.text, "kind": c.kind, "evidence": c.sentence.evidence,
                                "right": right(c.text, gold), "sentence_right": bool(gold) and inside(c.sentence.text, gold),
                                "features": dict(c.features)} for c in found],
            }
            handle.write(json.dumps(out) + "\n")
            if number % 250 == 0:
                print(f"{number}/{len(rows)} {time.perf_counter() - started:.0f} s", file=sys.stderr)
    store.save(cache)
    return 0


class _Cache:
    """Vectors (npz) and spaCy parses (DocBin) of every text seen, so a rerun with new features embeds and parses
    nothing it has seen."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)

    def load(self, cache) -> None:
        import numpy as np

        vectors = self.folder / "vectors.npz"
        if vectors.is_file():
            data = np.load(vectors, allow_pickle=False)
            cache.remember(dict(zip(data["texts"].tolist(), data["vectors"])))
        docs = self.folder / "docs.spacy"
        if docs.is_file():
            from spacy.tokens import DocBin

            from engine.language import nlp

            vocab = nlp.pipeline("full").vocab
            for doc in DocBin().from_disk(docs).get_docs(vocab):
                nlp._PARSED[doc.user_data.get("key", doc.text)] = doc

    def save(self, cache) -> None:
        import numpy as np
        from spacy.tokens import DocBin

        from engine.language import nlp

        texts = list(cache._vectors)
        np.savez(self.folder / "vectors.npz", texts=np.array(texts), vectors=np.stack([cache._vectors[t] for t in texts]))
        bin_ = DocBin(store_user_data=True)
        for key, doc in nlp._PARSED.items():
            doc.user_data["key"] = key
            bin_.add(doc)
        bin_.to_disk(self.folder / "docs.spacy")


if __name__ == "__main__":
    raise SystemExit(main())
