"""CLI: ``eval qa|review --provider anthropic --batch``: the evaluation's model calls as Message Batches.

Progress of each batch goes to stderr while it is polled. The batch state (ids submitted, results
read) is kept in a file, by default ``DATA_DIR/batches/eval-<qa|review>-<file>.json``: run the same
command again after an interruption and it waits for the batch it had submitted instead of paying
for a new one; ``--batch-id`` resumes a given batch.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.errors import ConfigError


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """The --batch flags of ``eval qa`` and ``eval review``."""
    parser.add_argument("--batch", action="store_true",
                        help="send the model calls as Message Batches (half price, results within 24 h; "
                             "needs --provider anthropic[:model])")
    parser.add_argument("--batch-id", default=None, metavar="ID",
                        help="with --batch: resume this batch (msgbatch_...) and read its results when it ends")
    parser.add_argument("--batch-state", default=None, metavar="FILE",
                        help="with --batch: where to keep batch ids and results "
                             "(default: DATA_DIR/batches/eval-<kind>-<file>.json)")
    parser.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                        help="with --batch: seconds between polls of a running batch (default 30)")


def claude_provider(provider_id: str) -> Any:
    """The Anthropic provider a batch evaluation sends through; ConfigError for any other provider."""
    from engine.llm.anthropic_provider import AnthropicProvider
    from engine.llm.registry import get_provider, parse_provider_id

    prefix, _ = parse_provider_id(provider_id)
    if prefix != "anthropic":
        raise ConfigError(f"--batch sends Message Batches to Claude; use --provider anthropic[:model] "
                          f"(got {provider_id!r}), or drop --batch.")
    provider = get_provider(provider_id)
    assert isinstance(provider, AnthropicProvider)
    return provider


def batch_state(args, kind: str, source: str):
    """The state file of this evaluation, with ``--batch-id`` added to wait for."""
    from engine.cli.common import settings_from
    from engine.evaluation.batch import BatchState, default_state_file

    path = Path(args.batch_state) if args.batch_state else default_state_file(
        settings_from(args).data_dir, kind, source)
    state = BatchState.load(path)
    if args.batch_id:
        state.add_batch(args.batch_id.strip())
    return state


def progress_printer(args):
    """A callback that shows each poll of a batch on stderr (nothing with --json or without a terminal)."""
    quiet = getattr(args, "json", False) or not sys.stderr.isatty()

    def show(progress) -> None:
        print(f"\r{progress.describe()}", end="" if not progress.ended else "\n", file=sys.stderr, flush=True)

    return None if quiet else show


def run_summary(run, args=None) -> dict[str, Any]:
    """The batches of a finished evaluation, for its JSON payload (and a line on stderr on a terminal)."""
    if args is not None and progress_printer(args) is not None:
        print(f"{run.requests} request(s) in {len(run.batch_ids)} batch(es): {', '.join(run.batch_ids) or 'none'} "
              f"(state kept in {run.state_file})", file=sys.stderr)
    return {"batch_ids": list(run.batch_ids), "passes": run.passes, "requests": run.requests,
            "state_file": run.state_file}


def eval_qa_batch(args, options) -> Any:
    """The ``eval qa`` report through Message Batches; the payload gains a ``batch`` summary."""
    from engine.cli.common import settings_from
    from engine.evaluation.batch import evaluate_qa_in_batches

    provider = claude_provider(args.provider)
    state = batch_state(args, "qa", args.questions)
    report, run = evaluate_qa_in_batches(
        args.questions, provider, state, corpus=args.corpus, k=args.k, settings=settings_from(args), limit=args.limit,
        options=options, on_progress=progress_printer(args), **({"poll_s": args.poll} if args.poll else {}))
    return report, run_summary(run, args)


def eval_review_batch(args) -> Any:
    """The ``eval review`` report through one Message Batch."""
    from engine.evaluation.batch import evaluate_review_in_batches
    from engine.llm.registry import parse_provider_id

    provider = claude_provider(args.provider)
    state = batch_state(args, "review", args.file)
    report, run = evaluate_review_in_batches(
        args.file, provider, state, model=parse_provider_id(args.provider)[1], limit=args.limit, out=args.out,
        on_progress=progress_printer(args), **({"poll_s": args.poll} if args.poll else {}))
    return report, run_summary(run, args)
