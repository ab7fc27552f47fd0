"""Answer or refuse on retrieval_dev's full corpus, split by what the offline path was tuned on.

qa_dev's questions come from retrieval_dev; about half of them (``"answerable": false``) had their
supporting passages removed, so on qa_dev they were only ever measured as refusals. Over
retrieval_dev's full corpus every one of them can be answered. Their answers were never tuned on:
they are the held-out half. The other half (answerable on qa_dev) is the tuned half.

Questions are retrieval_dev's queries with its gold answers (qa_dev's aliases where it has them);
yes/no questions are left out, as qa_dev leaves them out. Prints one JSON object (overall and per
half: coverage, answered accuracy, correct answers) and then a table.
Run from the project root: ``python bench/bench_qa_full_corpus.py [--limit N] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import DATASETS, report

from engine.evaluation.qa import evaluate_qa, score

RETRIEVAL = DATASETS / "retrieval_dev"
QA_DEV = DATASETS / "qa_dev" / "questions.jsonl"


def _rows(limit: int | None) -> tuple[list[dict], dict[str, bool]]:
    """The questions (all answerable over the full corpus) and, per id, whether qa_dev kept its passages."""
    answers = {r["id"]: r["answer"] for r in map(json.loads, (RETRIEVAL / "answers.jsonl").open(encoding="utf-8"))}
    qa_dev = {r["id"]: r for r in map(json.loads, QA_DEV.open(encoding="utf-8"))}
    rows = []
    for query in map(json.loads, (RETRIEVAL / "queries.jsonl").open(encoding="utf-8")):
        gold = answers.get(query["id"], "")
        if not gold or gold.lower() in ("yes", "no"):
            continue
        aliases = qa_dev[query["id"]]["answers"] if query["id"] in qa_dev else [gold]
        rows.append({"id": query["id"], "question": query["text"], "answers": aliases, "answerable": True})
    rows = rows[:limit] if limit else rows
    return rows, {i: bool(r["answerable"]) for i, r in qa_dev.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--out", type=Path, default=None, help="write per-question rows (JSONL) here")
    args = parser.parse_args(argv)

    rows, tuned = _rows(args.limit)
    with tempfile.TemporaryDirectory(prefix="qa-full-") as tmp:
        questions = Path(tmp) / "questions.jsonl"
        questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        result = evaluate_qa(questions, corpus=RETRIEVAL / "corpus.jsonl")
    halves = {
        "all": list(result.rows),
        "tuned (answerable on qa_dev)": [r for r in result.rows if tuned.get(r["id"], False)],
        "held out (unanswerable on qa_dev)": [r for r in result.rows if not tuned.get(r["id"], False)],
    }
    table = []
    for name, part in halves.items():
        metrics = score(part)
        table.append({"questions": name, "n": len(part), "answered": sum(1 for r in part if r["answered"]),
                      "correct": metrics["correct_answerable"], "coverage": metrics["coverage"],
                      "answered_accuracy": metrics["answered_accuracy"], "p50_s": metrics["p50_s"]})
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in result.rows), encoding="utf-8")
    report("qa_full_corpus", {"halves": table}, table,
           ["questions", "n", "answered", "correct", "coverage", "answered_accuracy", "p50_s"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
