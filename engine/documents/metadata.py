"""Resolve a document's metadata from the caller, a sidecar file, front matter and the file itself.

Priority, highest first: values passed by the caller, the sidecar ``NAME.meta.yaml`` /
``NAME.meta.json`` (NAME is the file name with or without its extension), the document's own
front matter, then what can be inferred (title from the first heading, source from the file name).
A missing date stays unknown (None); it is never invented.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, Mapping

import yaml

from engine.documents.types import DocumentMetadata, ParsedFile
from engine.errors import DocumentError

KNOWN_KEYS = frozenset(
    {"title", "source", "update_date", "authority", "doc_type", "knowledge_base", "series", "revision"}
)
DATE_ALIASES = ("update_date", "date", "updated", "last_updated", "effective_date")
DEFAULT_AUTHORITY = 3
SIDE_SUFFIXES = (".meta.yaml", ".meta.yml", ".meta.json")


def sidecar_paths(path: Path) -> list[Path]:
    """Candidate sidecar files for ``path``, most specific first."""
    names = []
    for base in (path.name, path.stem):
        names.extend(path.with_name(base + suffix) for suffix in SIDE_SUFFIXES)
    return names


def is_sidecar(path: Path) -> bool:
    return any(path.name.lower().endswith(s) for s in SIDE_SUFFIXES)


def read_sidecar(path: Path) -> dict[str, Any]:
    """Metadata from the first sidecar next to ``path`` (empty when there is none)."""
    for candidate in sidecar_paths(path):
        if candidate.is_file():
            text = candidate.read_text(encoding="utf-8")
            try:
                data = json.loads(text) if candidate.suffix == ".json" else yaml.safe_load(text)
            except (json.JSONDecodeError, yaml.YAMLError) as exc:
                raise DocumentError(f"Sidecar {candidate.name} is not valid: {exc}. Fix it and retry.") from None
            if not isinstance(data, dict):
                raise DocumentError(f"Sidecar {candidate.name} must hold a mapping of metadata keys.")
            return data
    return {}


def parse_date(value: Any, field: str = "update_date") -> date | None:
    """ISO date (or datetime) -> date; empty or 'unknown' -> None; anything else is an error."""
    if value is None or (isinstance(value, str) and value.strip().lower() in {"", "unknown", "none", "n/a"}):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    for parser in (date.fromisoformat, lambda s: datetime.fromisoformat(s).date()):
        try:
            return parser(text)
        except ValueError:
            continue
    raise DocumentError(f"{field} {text!r} is not an ISO date; write it as YYYY-MM-DD or leave it out.")


def parse_authority(value: Any) -> int:
    if value is None or value == "":
        return DEFAULT_AUTHORITY
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise DocumentError(f"authority {value!r} must be a whole number from 1 to 5.") from None
    if not 1 <= number <= 5:
        raise DocumentError(f"authority {number} is out of range; use 1 (lowest) to 5 (highest).")
    return number


def _pick_date(layer: Mapping[str, Any]) -> tuple[bool, Any]:
    for key in DATE_ALIASES:
        if key in layer:
            return True, layer[key]
    return False, None


def _title_from_name(name: str) -> str:
    stem = Path(name).stem
    return re.sub(r"[_\-]+", " ", stem).strip().capitalize() or name


def resolve_metadata(
    file_name: str,
    parsed: ParsedFile,
    knowledge_base: str,
    *,
    sidecar: Mapping[str, Any] | None = None,
    caller: Mapping[str, Any] | None = None,
) -> DocumentMetadata:
    """Merge the metadata layers into one DocumentMetadata."""
    layers = [dict(caller or {}), dict(sidecar or {}), dict(parsed.embedded_meta or {})]

    def first(key: str) -> Any:
        for layer in layers:
            value = layer.get(key)
            if value not in (None, ""):
                return value
        return None

    date_value = None
    for layer in layers:
        found, value = _pick_date(layer)
        if found and value not in (None, ""):
            date_value = value
            break
    extra = {}
    for layer in reversed(layers):
        for key, value in layer.items():
            if key not in KNOWN_KEYS and key not in DATE_ALIASES and value is not None:
                extra[str(key)] = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    title = first("title") or parsed.title_hint or _title_from_name(file_name)
    return DocumentMetadata(
        title=str(title).strip()[:300],
        source=str(first("source") or file_name),
        update_date=parse_date(date_value),
        authority=parse_authority(first("authority")),
        doc_type=str(first("doc_type") or parsed.format),
        knowledge_base=knowledge_base,
        series=str(first("series")) if first("series") is not None else None,
        revision=str(first("revision")) if first("revision") is not None else None,
        extra=extra,
    )
