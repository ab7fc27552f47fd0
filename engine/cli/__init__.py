"""Command-line entry point: builds the parser from command modules and maps errors to exit codes."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import traceback
import warnings
from contextvars import ContextVar

from engine.cli import agent_cmd, ask_cmd, calibrate_cmd, db_cmd, documents_cmd, eval_cmd, experiment_cmd, serve_cmd
from engine.cli.common import common_parser
from engine.errors import EngineError
from engine.redaction import redact_logging, redact_text

COMMAND_MODULES = [documents_cmd, ask_cmd, eval_cmd, calibrate_cmd, agent_cmd, experiment_cmd, db_cmd, serve_cmd]


_JSON_ERRORS = ContextVar("json_errors", default=False)


class _Parser(argparse.ArgumentParser):
    """An argument parser that, under --json, also reports a usage error as the one JSON object on stdout."""

    def error(self, message: str):  # type: ignore[override]
        if _JSON_ERRORS.get():
            _write_json_error(f"{message} (usage: {self.format_usage().strip().removeprefix('usage: ')})", "UsageError")
        super().error(message)  # usage and message on stderr, exit status 2


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m engine", description="The reflective RAG workbench engine.", parents=[common_parser()]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parent = common_parser(defaults=False)  # a command's own flags never undo those given before it
    for module in COMMAND_MODULES:
        module.register(sub, parent)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit code (0 ok, 1 error, 2 usage error, 130 interrupted).

    A failure is one ``error: ...`` line on stderr and, with --json, one JSON object ``{"ok": false, "error",
    "error_type"}`` on stdout; an unexpected exception (a bug) too, with its traceback on stderr only without
    --json. Credentials are redacted from all of it (see engine.redaction).
    """
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    redact_logging()
    warnings.simplefilter("ignore")
    argv = sys.argv[1:] if argv is None else list(argv)
    wants_json = "--json" in argv
    token = _JSON_ERRORS.set(wants_json)
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args) or 0)
    except EngineError as exc:
        return _fail(wants_json, str(exc), type(exc).__name__)
    except KeyboardInterrupt:
        return _fail(wants_json, "Interrupted.", "KeyboardInterrupt", code=130)
    except Exception as exc:  # noqa: BLE001 - a bug: still one clean, redacted report
        if not wants_json:
            sys.stderr.write(redact_text(traceback.format_exc()))
        return _fail(wants_json, f"Internal error ({type(exc).__name__}: {exc}). This is a bug in the engine; "
                                 "run the command again without --json to see the traceback.", "InternalError")
    finally:
        _JSON_ERRORS.reset(token)


def _fail(wants_json: bool, message: str, error_type: str, code: int = 1) -> int:
    if wants_json:
        _write_json_error(message, error_type)
    print(f"error: {redact_text(message)}", file=sys.stderr)
    return code


def _write_json_error(message: str, error_type: str) -> None:
    sys.stdout.write(json.dumps({"ok": False, "error": redact_text(message), "error_type": error_type},
                                ensure_ascii=False) + "\n")
    sys.stdout.flush()
