"""Dump what the reader sees: for each question of a labelled set, the pipeline's intent and retrieved evidence.

The reader (engine/offline/reader.py) and the answer selector are trained and measured on these dumps, so that
retrieval (which does not change while they are fitted) runs once per set instead of once per experiment.

    python bench/reader_data.py squad2 --out bench/results/reader_squad2.jsonl     # 6,078 questions, 646 paragraphs
    python bench/reader_data.py qa_dev --out bench/results/reader_qa_dev.jsonl     # 91 questions, 900 passages
    python bench/reader_data.py sample --out bench/results/reader_sample.jsonl     # bench/questions/sample_train.jsonl
                                                                                   # over sample_docs' three bases

Each output row: ``{"id", "question", "answers", "answerable", "group", "intent", "evidence": [...]}`` where
``group`` is the unit that cross-validation folds must not split (squad2: the article; qa_dev: the question).
Retrieval is the pipeline's first attempt with the default strategy (perception, orchestration, fused retrieval).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATASETS = ROOT.parent / "shared" / "datasets"


def _squad2() -> tuple[list[dict], list[dict]]:
    rows = [json.loads(line) for line in (DATASETS / "squad2" / "questions.jsonl").open()]
    corpus: dict[str, dict] = {}
    for r in rows:
        corpus.setdefault(r["paragraph"], {"id": r["paragraph"].replace("#", "-p"), "title": r["title"].replace("_", " "),
                                           "text": r["context"]})
    questions = [{"id": r["id"], "question": r["question"], "answers": r["answers"], "answerable": r["answerable"],
                  "group": r["title"], "paragraph": r["paragraph"]} for r in rows]
    return list(corpus.values()), questions


def _qa_dev() -> tuple[list[dict], list[dict]]:
    folder = DATASETS / "qa_dev"
    corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open()]
    questions = [dict(json.loads(line)) for line in (folder / "questions.jsonl").open()]
    for q in questions:
        q["group"] = q["id"]
    return corpus, questions


def _sample() -> tuple[list[dict], list[dict]]:
    questions = [dict(json.loads(line)) for line in (ROOT / "bench" / "questions" / "sample_train.jsonl").open()]
    for q in questions:
        q["group"] = q["id"]
    return [], questions  # the corpus is sample_docs, indexed by `python -m engine bootstrap`


def _questions(paths: list[str]) -> list[dict]:
    """Labelled question files, asked over the bases already in --data-dir. Each question's group (the unit folds
    do not split) is set once its evidence is known: the document that holds its answer, else that of its best hit
    (``_document_of``), so that out-of-fold figures are those of documents never fitted on."""
    return [dict(json.loads(line)) for path in paths for line in open(path)]


def _document_of(row: dict) -> str:
    """The file name of the first evidence holding a gold answer, else of the best evidence."""
    from tools.reader_rows import inside

    evidence = row["evidence"]
    holding = [e for e in evidence if row.get("answers") and inside(e["text"], row["answers"])]
    best = (holding or evidence or [{"metadata": {}}])[0]["metadata"]
    return best.get("file_name") or best.get("source") or "none"


SETS = {"squad2": _squad2, "qa_dev": _qa_dev, "sample": _sample, "questions": None}  # questions: --questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--data-dir", default=None, help="keep the store here (default: a temporary folder)")
    parser.add_argument("--questions", nargs="+", default=(),
                        help="with the set 'questions': labelled JSONL files asked over every base of --data-dir")
    args = parser.parse_args(argv)

    from engine.config import load_settings
    from engine.evaluation.retrieval import EVAL_KB
    from engine.ingest import Ingestor
    from engine.orchestration import StrategyRouter
    from engine.orchestration.strategy import Strategy
    from engine.perception import get_perception
    from engine.retrieval import Retriever
    from engine.store import KnowledgeBaseStore

    if args.set == "questions":
        if not args.questions or not args.data_dir:
            parser.error("the set 'questions' needs --questions FILE ... and --data-dir STORE (an indexed store)")
        corpus, questions = [], _questions(args.questions)
    else:
        corpus, questions = SETS[args.set]()
    if args.limit:
        questions = questions[: args.limit]
    with tempfile.TemporaryDirectory(prefix="reader-data-") as tmp:
        data = Path(args.data_dir) if args.data_dir else Path(tmp)
        settings = load_settings(data_dir=data)
        store = KnowledgeBaseStore(settings)
        if args.set == "questions":
            bases = store.knowledge_base_names()
        elif args.set == "sample":
            if not store.knowledge_base_names():
                from engine.cli import main as cli

                cli(["bootstrap", "--data-dir", str(data), "--json"])
            bases = store.knowledge_base_names()
        elif EVAL_KB not in store.knowledge_base_names():
            started = time.perf_counter()
            report = Ingestor(store).ingest_records(corpus, EVAL_KB)
            store.sentence_filler.wait()
            rejected = [f for f in report.files if f.status == "rejected"]
            if rejected:
                raise SystemExit(f"{len(rejected)} passages rejected, e.g. {rejected[0].name}: {rejected[0].reason}")
            print(f"indexed {len(corpus)} passages in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        if args.set not in ("sample", "questions"):
            bases = [EVAL_KB]
        perception = get_perception()
        retriever = Retriever(store)
        strategy = Strategy()
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with out.open("w") as handle:
            for number, q in enumerate(questions, start=1):
                intent = perception.run(q["question"])
                tasks = StrategyRouter(strategy, bases).run(intent)
                result = retriever.run(tasks, intent, strategy)
                row = {**q, "intent": intent.model_dump(mode="json"),
                       "evidence": [e.model_dump(mode="json") for e in result.evidence]}
                if args.set == "questions":  # folds by document: the one holding the answer, else the best hit's
                    row["group"] = _document_of(row)
                handle.write(json.dumps(row) + "\n")
                if number % 200 == 0:
                    print(f"{number}/{len(questions)} {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
