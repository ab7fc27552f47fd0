"""CLI: ``calibrate`` fits the answer selector on your own labelled questions, for the bases they are about."""

from __future__ import annotations

import argparse
import sys

from engine.cli.common import emit, settings_from, table


def register(sub, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("calibrate", parents=[parent],
                       help="fit the answer selector on your labelled questions (k-fold cross-validated)")
    p.add_argument("--questions", default=None,
                   help='JSONL of {"id","question","answers":[...],"answerable":bool}, answerable and not')
    p.add_argument("--kb", action="append", default=[], help="the bases the questions are about (repeat; default all)")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--dry-run", action="store_true", help="fit and report, keep nothing")
    p.add_argument("--list", action="store_true", help="list the calibrated selectors")
    p.add_argument("--delete", default=None, metavar="NAME", help="delete a calibrated selector")
    p.set_defaults(handler=cmd_calibrate)


def cmd_calibrate(args) -> int:
    from engine.errors import EngineError
    from engine.evaluation.calibrate import calibrate
    from engine.offline.calibrate import SelectorStore

    settings = settings_from(args)
    store = SelectorStore(settings)
    if args.list:
        found = store.list()
        emit(args, {"selectors": found}, lambda p: table(
            [{"name": s["name"], "bases": ", ".join(s["bases"]), "questions": s["questions"], "date": s["date"]}
             for s in p["selectors"]], ["name", "bases", "questions", "date"]) if p["selectors"] else
             "no calibrated selectors; the default one decides")
        return 0
    if args.delete:
        if not store.delete(args.delete):
            raise EngineError(f"No calibrated selector named {args.delete!r}; see `python -m engine calibrate --list`.")
        emit(args, {"deleted": args.delete}, lambda p: f"deleted {p['deleted']}")
        return 0
    if not args.questions:
        raise EngineError("Pass --questions FILE.jsonl (or --list / --delete NAME).")
    from engine.evaluation.qa import read_qa_rows
    from engine.pipeline import Pipeline

    rows = read_qa_rows(args.questions)
    pipeline = Pipeline(settings)
    bases = tuple(args.kb) or tuple(pipeline.store.knowledge_base_names())
    quiet = args.json or not sys.stderr.isatty()
    progress = None if quiet else (lambda n, total: print(f"\rasked {n}/{total}", end="", file=sys.stderr, flush=True))
    result = calibrate(pipeline, rows, bases, folds=args.folds, progress=progress, source=str(args.questions))
    saved = None if args.dry_run else str(store.save(result))
    trained = result.model.trained
    payload = {"bases": list(bases), "questions": result.rows, "folds": args.folds, "C": trained["C"],
               "thresholds": trained["thresholds"], "cross_validated": trained["cross_validated"], "saved": saved}

    def render(p: dict) -> str:
        lines = [f"calibrated on {p['questions']} questions over {', '.join(p['bases'])} ({p['folds']}-fold)"]
        for target, figures in p["cross_validated"].items():
            lines.append(f"target accuracy {target}: threshold {p['thresholds'][target]}")
            lines.append(table([figures], ["coverage", "answered_accuracy", "refusal_recall", "coverage_at_80",
                                            "aurc", "roc_auc"]))
        lines.append(f"saved to {p['saved']}; asks over these bases now use it" if p["saved"] else "not saved (--dry-run)")
        return "\n".join(lines)

    emit(args, payload, render)
    return 0
