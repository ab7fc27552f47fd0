"""Command-line entry point: builds the parser from command modules and maps errors to exit codes."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import warnings

from engine.cli import agent_cmd, ask_cmd, documents_cmd, eval_cmd, experiment_cmd, serve_cmd
from engine.cli.common import common_parser
from engine.errors import EngineError

COMMAND_MODULES = [documents_cmd, ask_cmd, eval_cmd, agent_cmd, experiment_cmd, serve_cmd]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine", description="The reflective RAG workbench engine.", parents=[common_parser()]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parent = common_parser(defaults=False)  # a command's own flags never undo those given before it
    for module in COMMAND_MODULES:
        module.register(sub, parent)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit code (0 ok, 1 engine error, 2 usage error)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    warnings.simplefilter("ignore")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except EngineError as exc:
        if getattr(args, "json", False):
            sys.stdout.write(json.dumps({"ok": False, "error": str(exc), "error_type": type(exc).__name__}) + "\n")
        print(f"error: {exc}", file=sys.stderr)
        return 1
