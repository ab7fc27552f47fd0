"""CLI: ``eval retrieval`` (search quality), ``eval review`` (the reviewer as a hallucination detector), ``eval qa``."""

from __future__ import annotations

import argparse

from engine.cli.batch_eval import add_batch_options
from engine.cli.common import emit, settings_from, table
from engine.evaluation.retrieval import evaluate_retrieval

RETRIEVAL_MODES = ("vector", "keyword", "hybrid", "pipeline")
DEFAULT_RETRIEVAL_MODE = "hybrid"


def register(sub, parent: argparse.ArgumentParser) -> None:
    ev = sub.add_parser("eval", help="measure retrieval or answer review on a dataset")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True, metavar="WHAT")
    p = ev_sub.add_parser("retrieval", parents=[parent], help="recall/nDCG/MRR of a search mode on a corpus")
    p.add_argument("--corpus", required=True, help="JSONL of {id, title, text}")
    p.add_argument("--queries", required=True, help="JSONL of {id, text}")
    p.add_argument("--qrels", required=True, help="TSV: qid docid score")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--mode", choices=RETRIEVAL_MODES, default=DEFAULT_RETRIEVAL_MODE)
    p.add_argument("--per-query", action="store_true", help="include each query's ranking in the JSON")
    p.set_defaults(handler=cmd_eval_retrieval)
    r = ev_sub.add_parser("review", parents=[parent],
                          help="accuracy/F1 of the answer reviewer at spotting unsupported answers")
    r.add_argument("file", metavar="FILE.jsonl", help='JSONL of {"id","question","passages":[...],"answer","label"?}')
    r.add_argument("--out", default=None, help="write one verdict per row to this JSONL file")
    r.add_argument("--limit", type=int, default=None, help="review only the first N rows")
    r.add_argument("--provider", default="offline",
                   help="reviewer provider: 'offline' (default) or 'anthropic[:model]'")
    add_batch_options(r)
    r.set_defaults(handler=cmd_eval_review)
    q = ev_sub.add_parser("qa", parents=[parent], help="answer-or-refuse: coverage, answered accuracy, refusal recall")
    q.add_argument("--questions", required=True, help='JSONL of {"id","question","answers":[...],"answerable":bool}')
    q.add_argument("--corpus", default=None,
                   help="JSONL of {id, title, text} indexed into a fresh temporary base (default: ask over --data-dir)")
    q.add_argument("--k", type=int, default=None, help="evidence chunks per question (default: the strategy's)")
    q.add_argument("--limit", type=int, default=None, help="ask only the first N questions")
    q.add_argument("--out", default=None, help="write one row per question to this JSONL file")
    q.add_argument("--provider", default="offline", help="'offline' (default) or 'anthropic[:model]'")
    q.add_argument("--no-reflection", action="store_true", help="draft only, no review loop")
    q.add_argument("--when-ambiguous", choices=("caveat", "refuse"), default="caveat",
                   help="partly answering evidence: answer with a caveat (default) or refuse")
    q.add_argument("--folds", type=int, default=None,
                   help="also fit the answer selector on K-1 folds of these questions and score the held-out fold")
    q.add_argument("--calibration", default=None,
                   help="a selector file saved by `calibrate` to decide with (default: the bases' own)")
    q.add_argument("--accuracy", type=float, default=None,
                   help="target answered accuracy of the selector (default: the answer_accuracy setting, 0.8)")
    add_batch_options(q)
    q.set_defaults(handler=cmd_eval_qa)


def cmd_eval_retrieval(args) -> int:
    searcher = None
    if args.mode == "pipeline":
        from engine.evaluation.pipeline_search import pipeline_searcher

        searcher = pipeline_searcher()
    report = evaluate_retrieval(args.corpus, args.queries, args.qrels, k=args.k, mode=args.mode,
                                settings=settings_from(args), searcher=searcher)
    payload = report.to_dict(with_queries=args.per_query)

    def render(p: dict) -> str:
        keys = ["recall@5", "recall@10", "ndcg@10", "mrr@10", "p50_ms", "p95_ms"]
        return f"mode={p['mode']} queries={p['queries']} chunks={p['chunks']}\n" + table([p], keys)

    emit(args, payload, render)
    return 0


def cmd_eval_review(args) -> int:
    from engine.evaluation.review import METRIC_KEYS, evaluate_review
    from engine.assemble import eval_reviewer

    batch = None
    if args.batch:  # one Message Batch of reviews (engine/cli/batch_eval.py)
        from engine.cli.batch_eval import eval_review_batch

        report, batch = eval_review_batch(args)
    else:
        reviewer = eval_reviewer(args.provider, settings=settings_from(args))
        report = evaluate_review(args.file, reviewer, limit=args.limit, out=args.out)
    payload = report.to_dict() | ({"batch": batch} if batch else {})

    def render(p: dict) -> str:
        head = f"file={p['file']} reviewer={p['reviewer']} rows={p['rows']} labelled={p['labelled']}"
        row = {"rows_per_s": p["rows_per_s"], **(p["metrics"] or {})}
        keys = [*METRIC_KEYS, "rows_per_s"] if p["metrics"] else ["rows_per_s"]
        tail = f"\nverdicts written to {p['out']}" if p["out"] else ""
        return head + "\n" + table([row], keys) + tail

    emit(args, payload, render)
    return 0


def cmd_eval_qa(args) -> int:
    import json
    import sys
    from pathlib import Path

    from engine.evaluation.qa import METRIC_KEYS, SELECTIVE_KEYS, evaluate_qa
    from engine.pipeline import AskOptions

    from engine.offline.selector import selector_from

    options = AskOptions(provider=args.provider, reflection=not args.no_reflection,
                         when_ambiguous=args.when_ambiguous, target_accuracy=args.accuracy)
    selector = selector_from(args.calibration) if args.calibration else None
    quiet = args.json or not sys.stderr.isatty()
    progress = None if quiet else (lambda n, total: print(f"\r{n}/{total}", end="", file=sys.stderr, flush=True))
    batch = None
    if args.batch:  # the questions' model calls as Message Batches (engine/cli/batch_eval.py)
        from engine.cli.batch_eval import eval_qa_batch

        report, batch = eval_qa_batch(args, options)
    else:
        report = evaluate_qa(args.questions, corpus=args.corpus, k=args.k, settings=settings_from(args),
                         limit=args.limit, options=options, progress=progress, folds=args.folds, selector=selector)
    payload = report.to_dict() | ({"batch": batch} if batch else {})
    if args.out:
        target = Path(args.out)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as handle:
            for row in report.rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        payload["out"] = str(target)

    def render(p: dict) -> str:
        tail = f"\nper-question rows written to {p['out']}" if p.get("out") else ""
        selective = "".join(f"\n{name}: " + table([figures], [k for k in ("coverage", "answered_accuracy",
                                                                         "refusal_recall", *SELECTIVE_KEYS)])
                            for name, figures in p.get("selective", {}).items())
        return f"questions={p['questions']}\n" + table([p], list(METRIC_KEYS)) + selective + tail

    emit(args, payload, render)
    return 0
