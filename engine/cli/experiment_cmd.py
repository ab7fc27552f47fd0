"""CLI: ``experiment run|list|show`` (A/B over a question set) and ``rollout get|set`` (reflection share)."""

from __future__ import annotations

import argparse
import sys

from engine.cli.common import emit, settings_from, table

VARIANT_HELP = ("reflection: A/B are on|off (default A=off B=on); mode: single|dual (default A=single B=dual); "
                "strategy: A/B are versions or 'active' (both required)")


def register(sub, parent: argparse.ArgumentParser) -> None:
    ex = sub.add_parser("experiment", help="A/B experiments over a question set")
    ex_sub = ex.add_subparsers(dest="experiment_command", required=True, metavar="ACTION")
    p = ex_sub.add_parser("run", parents=[parent], help="run every question through variants A and B")
    p.add_argument("--questions", required=True, metavar="FILE|samples|traces",
                   help="a .txt (one per line, # comments) or .jsonl file, the sample questions, or past traces; "
                        "a .jsonl in the eval qa format (answers, answerable) also scores answers against gold")
    p.add_argument("--limit", type=int, default=None, help="run at most N questions (traces: the N newest)")
    p.add_argument("--variant", required=True, choices=("reflection", "strategy", "mode"), help=VARIANT_HELP)
    p.add_argument("--a", dest="value_a", default=None, metavar="VALUE", help="variant A's value")
    p.add_argument("--b", dest="value_b", default=None, metavar="VALUE", help="variant B's value")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (same seed, same intervals)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--kb", action="append", help="knowledge base (repeat for several; default: strategy routes all)")
    p.add_argument("--provider", default=None, help="offline | anthropic | anthropic:MODEL (default: by API key)")
    p.set_defaults(handler=cmd_experiment_run)
    p = ex_sub.add_parser("list", parents=[parent], help="stored experiments, newest first")
    p.add_argument("--limit", type=int, default=20)
    p.set_defaults(handler=cmd_experiment_list)
    p = ex_sub.add_parser("show", parents=[parent], help="one stored experiment")
    p.add_argument("experiment_id", metavar="ID")
    p.set_defaults(handler=cmd_experiment_show)

    ro = sub.add_parser("rollout", help="share of Ask traffic that gets reflection")
    ro_sub = ro.add_subparsers(dest="rollout_command", required=True, metavar="ACTION")
    p = ro_sub.add_parser("get", parents=[parent], help="show the current share")
    p.set_defaults(handler=cmd_rollout_get)
    p = ro_sub.add_parser("set", parents=[parent], help="set the share, 0-100 %%")
    p.add_argument("percent", metavar="PERCENT")
    p.set_defaults(handler=cmd_rollout_set)


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}g}" if abs(value) < 1000 else f"{value:.0f}"


def render_experiment(p: dict) -> str:
    lines = [f"experiment {p['id']}   {p['created_at']}   source: {p['source']}   questions: {len(p['questions'])}",
             f"A: {p['variant_a']['name']}   B: {p['variant_b']['name']}   "
             f"{'paired' if p['paired'] else 'unpaired'} bootstrap, {p['n_resamples']} resamples, seed {p['seed']}",
             ""]
    for arm in p["arms"]:
        lines.append(f"{arm['arm']} ({arm['variant']}): {arm['answers']} answers, {arm['successes']} success, "
                     f"{arm['refusals']} refused, {arm['failures']} failed")
    ci = f"{round(p['confidence'] * 100):g}% CI"
    rows = [{"metric": d["label"], "A": _fmt(d["a"]), "B": _fmt(d["b"]), "B - A": _fmt(d["diff"]),
             ci: f"[{_fmt(d['ci_low'])}, {_fmt(d['ci_high'])}]", "verdict": d["verdict"]} for d in p["diffs"]]
    lines += ["", table(rows, ["metric", "A", "B", "B - A", ci, "verdict"])]
    if p.get("interval_note"):
        lines.append(p["interval_note"])
    answers = [{"q": r["index"] + 1, "arm": r["arm"], "status": r["status"], "issues": r["review_issues"],
                "ms": _fmt(r["latency_ms"]), "trace_id": r["trace_id"] or "-",
                "question / error": r["error"] or r["question"]} for r in p["records"]]
    lines += ["", table(answers, list(answers[0]), {"question / error": 70}) if answers else "no answers"]
    if p.get("saved_to"):
        lines += ["", f"saved to {p['saved_to']}"]
    lines.append("open an answer's trace: python -m engine traces show TRACE_ID")
    return "\n".join(lines)


def cmd_experiment_run(args) -> int:
    from engine.experiments import ExperimentRunner, ExperimentStore, load_question_set, runner, variant_pair
    from engine.pipeline.options import AskOptions

    settings = settings_from(args)
    base = AskOptions(knowledge_bases=tuple(args.kb) if args.kb else None, provider=args.provider)
    variant_a, variant_b = variant_pair(args.variant, args.value_a, args.value_b, base)
    if args.variant == "strategy":
        from engine.orchestration import StrategyStore

        versions = StrategyStore(settings)
        for variant in (variant_a, variant_b):
            if variant.options.strategy_version:
                versions.load(variant.options.strategy_version)  # fails early with a clear message
    questions = load_question_set(args.questions, settings, args.limit)
    experiment = ExperimentRunner(runner.build_pipeline(settings), variant_a, variant_b, seed=args.seed,
                                  n_resamples=args.resamples)
    total = len(questions.limited(args.limit)) * 2
    done = [0]

    def progress(index: int, arm: str, answer) -> None:
        done[0] += 1
        if not args.json:
            ms = answer.timings.get("total")
            print(f"[{done[0]}/{total}] q{index + 1} {arm}: {answer.status}"
                  + (f" ({ms:.0f} ms)" if ms is not None else ""), file=sys.stderr)

    result = experiment.run(questions, limit=args.limit, progress=progress)
    path = ExperimentStore(settings).save(result)
    emit(args, {**result.to_dict(), "saved_to": f"the workbench database, experiment {path}"}, render_experiment)
    return 0


def cmd_experiment_list(args) -> int:
    from engine.experiments import ExperimentStore

    items = ExperimentStore(settings_from(args)).list(limit=args.limit)
    emit(args, {"experiments": items}, lambda p: table(
        p["experiments"], ["id", "created_at", "source", "variant_a", "variant_b", "questions", "failures"],
    ) if p["experiments"] else "No experiments yet. Run one: python -m engine experiment run --questions samples "
                               "--variant reflection")
    return 0


def cmd_experiment_show(args) -> int:
    from engine.experiments import ExperimentStore

    result = ExperimentStore(settings_from(args)).get(args.experiment_id)
    emit(args, result.to_dict(), render_experiment)
    return 0


def _render_rollout(p: dict) -> str:
    when = f"set {p['updated_at']}" if p["updated_at"] else "default, never set"
    return f"reflection share: {p['label']} of Ask traffic ({when})"


def cmd_rollout_get(args) -> int:
    from engine.experiments import RolloutStore

    emit(args, RolloutStore(settings_from(args)).get().to_dict(), _render_rollout)
    return 0


def cmd_rollout_set(args) -> int:
    from engine.experiments import RolloutStore

    emit(args, RolloutStore(settings_from(args)).set(args.percent).to_dict(), _render_rollout)
    return 0
