"""Shared CLI plumbing: common flags, settings from flags, and output (text or one JSON object)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from engine.config import Settings, load_settings
from engine.redaction import redact_strings


def common_parser(*, defaults: bool = True) -> argparse.ArgumentParser:
    """Flags every command accepts, before or after the command name.

    The top-level parser sets the defaults; a command's parser (``defaults=False``) leaves a flag
    it was not given unset, so ``--data-dir X kb list`` keeps the X given before the command.
    """
    def default(value: Any) -> Any:
        return value if defaults else argparse.SUPPRESS

    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("common options")
    group.add_argument("--data-dir", default=default(None), help="data folder (default: $DATA_DIR or ./data)")
    group.add_argument("--json", action="store_true", default=default(False),
                       help="print exactly one JSON object on stdout")
    group.add_argument("--chunk-size", type=int, default=default(None), help="chunk length in characters")
    group.add_argument("--chunk-overlap", type=int, default=default(None), help="overlap between chunks in characters")
    group.add_argument("--max-file-mb", type=float, default=default(None), help="largest file accepted, in MB")
    group.add_argument("--model", dest="embedding_model", default=default(None),
                       help="embedding model package or folder")
    return parent


def settings_from(args: argparse.Namespace) -> Settings:
    return load_settings(
        data_dir=args.data_dir, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
        max_file_mb=args.max_file_mb, embedding_model=args.embedding_model,
    )


def emit(args: argparse.Namespace, payload: dict[str, Any], render: Callable[[dict[str, Any]], str]) -> None:
    """Print ``payload`` as JSON with --json, else as the text ``render`` makes of it; credentials redacted."""
    payload = redact_strings(payload)
    if args.json:
        sys.stdout.write(json.dumps(payload, default=str, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(payload).rstrip("\n") + "\n")


def table(rows: list[dict[str, Any]], columns: list[str], widths: dict[str, int] | None = None) -> str:
    """A plain fixed-width text table."""
    widths = dict(widths or {})
    for col in columns:
        widths.setdefault(col, max([len(col)] + [len(str(r.get(col, ""))) for r in rows]))
    def cut(value: Any, width: int) -> str:
        text = str(value if value is not None else "")
        return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
    lines = ["  ".join(col.ljust(widths[col]) for col in columns)]
    lines.append("  ".join("-" * widths[col] for col in columns))
    for row in rows:
        lines.append("  ".join(cut(row.get(col), widths[col]).ljust(widths[col]) for col in columns))
    return "\n".join(lines)
