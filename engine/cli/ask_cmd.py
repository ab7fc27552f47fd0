"""CLI: ``ask`` a question through the whole pipeline; ``traces list`` / ``traces show`` stored runs."""

from __future__ import annotations

import argparse
import json

from engine.cli.common import emit, settings_from, table
from engine.llm.usage import describe, usage_of


def register(sub, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ask", parents=[parent], help="answer a question with review and validation")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--kb", action="append", help="knowledge base (repeat for several; default: strategy routes all)")
    p.add_argument("--no-reflection", action="store_true", help="draft only, no review loop")
    p.add_argument("--mode", choices=("dual", "single"), default="dual", help="separate reviewer or self-review")
    p.add_argument("--max-rounds", type=int, default=2, help="review/revise rounds before refusing")
    p.add_argument("--provider", default=None, help="offline | anthropic | anthropic:MODEL (default: by API key)")
    p.add_argument("--strategy-version", default=None, help="strategy version (default: the active one)")
    p.add_argument("--previous", metavar="QUESTION", default=None,
                   help="the question asked before; a follow-up such as 'And on the 737?' is read against it")
    p.add_argument("--accuracy", type=_accuracy, default=None, metavar="A",
                   help="target answered accuracy of the offline answer, from 0 up to 1 (default: the answer_accuracy "
                        "setting, 0.8); 0 answers with the best candidate whatever its confidence")
    p.set_defaults(handler=cmd_ask)

    tr = sub.add_parser("traces", help="stored pipeline runs")
    tr_sub = tr.add_subparsers(dest="traces_command", required=True, metavar="ACTION")
    p = tr_sub.add_parser("list", parents=[parent], help="newest runs first")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--status", choices=("success", "refused", "failure"))
    p.set_defaults(handler=cmd_traces_list)
    p = tr_sub.add_parser("stats", parents=[parent], help="latency percentiles, issues, iterations, refusal rate")
    p.add_argument("--limit", type=int, default=200, help="newest runs to include")
    p.set_defaults(handler=cmd_traces_stats)
    p = tr_sub.add_parser("show", parents=[parent], help="one run in full")
    p.add_argument("trace_id", metavar="ID")
    p.set_defaults(handler=cmd_traces_show)


def render_answer(p: dict) -> str:
    intent = p["intent"]
    lines = [f"status: {p['status']}   review rounds: {p['review_rounds']}   revisions: {p['revisions']}   "
             f"provider: {p['provider']}   "
             f"trace: {p['trace_id']}",
             f"intent: {intent['action']}  entities: {', '.join(e['text'] for e in intent['entities']) or '-'}  "
             f"constraints: {json.dumps({k: v for k, v in intent['constraints'].items() if v})}", "", "tasks:"]
    followup = (p.get("extra") or {}).get("followup")
    if intent.get("spelling"):
        lines[1:1] = ["spelling: " + ", ".join(f"{c['original']} -> {c['corrected']}" for c in intent["spelling"])]
    if followup:
        lines[1:1] = [f"understood as: {followup['resolved']}  ({followup['explanation']})"]
    lines += [f"  [{t['priority']}] {t['search_type']:7} {t['knowledge_base']:12} w={t['weight']:<5} {t['reason']}"
              for t in p["tasks"]]
    lines += ["", "evidence:"]
    lines += [f"  [{i}] {e['metadata']['title']} ({e['metadata']['update_date'] or 'unknown'}, "
              f"authority {e['metadata']['authority']}) score={e['score']} cred={e['credibility']}"
              for i, e in enumerate(p["evidence"], start=1)]
    judged = p.get("answerability")
    if judged:
        signals = ", ".join(f"{k}={v}" for k, v in judged["signals"].items())
        lines += ["", f"answerability: {judged['verdict']} - {judged['reason']}",
                  f"  expects {judged['focus']['answer_type']}; signals: {signals}"]
    if p["draft"] and p["draft"] != p["final"]:
        lines += ["", "draft:", p["draft"]]
    for n, review in enumerate(p["reviews"], start=1):
        issues = "; ".join(f"{i['type']}: {i['description']}" for i in review["issues"]) or "no issues"
        lines.append(f"review {n}: valid={review['valid']} confidence={review['confidence']} - {issues}")
    validation = p.get("validation") or {}
    checks = "; ".join(i["message"] for i in validation.get("issues", [])) or "all checks passed"
    lines += ["", f"validation: {checks}", "", "answer:", p["final"], "",
              "timings (ms): " + ", ".join(f"{k}={v:.0f}" for k, v in p["timings"].items()),
              "model usage: " + describe(usage_of(p))]
    return "\n".join(lines)


def _accuracy(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a target accuracy; give a number from 0 up to 1, e.g. 0.8")
    return value


def cmd_ask(args) -> int:
    from engine.pipeline import AskOptions, Pipeline

    options = AskOptions(
        knowledge_bases=tuple(args.kb) if args.kb else None, reflection=not args.no_reflection, mode=args.mode,
        max_rounds=args.max_rounds, provider=args.provider, strategy_version=args.strategy_version,
        previous_question=args.previous, target_accuracy=args.accuracy,
    )
    answer = Pipeline(settings_from(args)).run(args.question, options)
    counts = {"review_rounds": answer.review_rounds, "revisions": answer.revisions}
    emit(args, answer.model_dump(mode="json") | counts, render_answer)
    return 0 if answer.status != "failure" else 1


def cmd_traces_list(args) -> int:
    from engine.tracing import TraceStore

    runs = TraceStore(settings_from(args)).list(limit=args.limit, status=args.status)
    payload = {"traces": [r.to_dict() for r in runs]}
    emit(args, payload, lambda p: table(
        [dict(r, total_ms=f"{r['total_ms']:.0f}") for r in p["traces"]],
        ["trace_id", "created_at", "status", "iterations", "total_ms", "provider", "question"], {"question": 60},
    ) if p["traces"] else "No runs yet. Ask something: python -m engine ask \"QUESTION\"")
    return 0


def cmd_traces_stats(args) -> int:
    from engine.tracing import TraceStore, trace_stats

    store = TraceStore(settings_from(args))
    runs = store.list(limit=args.limit)
    stats = trace_stats(runs, [store.get(r.trace_id) for r in runs]).to_dict()

    def render(p: dict) -> str:
        rows = [{"stage": s, **v} for s, v in p["stage_latency"].items()]
        return (f"runs: {p['runs']}   refusal rate: {p['refusal_rate']:.0%}   statuses: {p['status_counts']}\n"
                f"issues: {p['issue_counts'] or 'none'}\nrevisions per run: {p['iterations']}\n\n"
                + (table(rows, ["stage", "p50", "p95", "n"]) if rows else ""))

    emit(args, stats, render)
    return 0


def cmd_traces_show(args) -> int:
    from engine.tracing import TraceStore

    payload = TraceStore(settings_from(args)).get(args.trace_id)
    emit(args, payload, render_answer)
    return 0
