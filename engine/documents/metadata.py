"""Resolve a document's metadata from the caller, a sidecar file, front matter and the file itself.

Priority, highest first: values passed by the caller, the sidecar ``NAME.meta.yaml`` /
``NAME.meta.json`` (NAME is the file name with or without its extension), the document's own
front matter, then what can be inferred (title from the first heading, source from the file name).
A missing date stays unknown (None); it is never invented.
"""

from __future__ import annotations

import os
import re
import stat
from datetime import date, datetime
from pathlib import Path
from typing import Any, Mapping

from engine.documents.files import inside, open_regular, read_at_most
from engine.documents.limits import DEFAULT_LIMITS, ParseLimits
from engine.documents.names import one_line, safe_name
from engine.documents.pdf_checks import looks_like_file_name
from engine.documents.safe_metadata import check_metadata_size, load_metadata
from engine.documents.types import DocumentMetadata, ParsedFile
from engine.errors import DocumentError
from engine.language.quantities import ISO_DAY

KNOWN_KEYS = frozenset(
    {"title", "source", "update_date", "authority", "doc_type", "knowledge_base", "series", "revision"}
)
DATE_ALIASES = ("update_date", "date", "updated", "last_updated", "effective_date")
DEFAULT_AUTHORITY = 3
SIDE_SUFFIXES = (".meta.yaml", ".meta.yml", ".meta.json")
MAX_FIELD_CHARS = 300  # titles are cut to this length when stored; no metadata value needs more
TEXT_FIELDS = {  # free-text metadata and an example of each, for error messages
    "title": "Maintenance manual chapter 32", "source": "Technical Publications", "doc_type": "manual",
    "series": "manual-chapter-32", "revision": "Rev 12",
}


def sidecar_paths(path: Path) -> list[Path]:
    """Candidate sidecar files for ``path``, most specific first."""
    names = []
    for base in (path.name, path.stem):
        names.extend(path.with_name(base + suffix) for suffix in SIDE_SUFFIXES)
    return names


def is_sidecar(path: Path) -> bool:
    return any(path.name.lower().endswith(s) for s in SIDE_SUFFIXES)


def read_sidecar(path: Path, limits: ParseLimits = DEFAULT_LIMITS, root: str | None = None,
                 follow_links: bool = False) -> dict[str, Any]:
    """Metadata from the first sidecar next to ``path`` (empty when there is none).

    A sidecar is read as its document is (engine/documents/files.py): a regular file only; a symbolic link only
    with ``follow_links`` and only to a file inside ``root`` (default: the document's folder). A sidecar that
    cannot be read that way rejects its document, rather than leaving it with metadata other than intended.
    """
    for candidate in sidecar_paths(path):
        shown = f"Sidecar {safe_name(candidate.name)}"
        try:
            info = candidate.lstat()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise DocumentError(f"{shown} cannot be read ({exc.strerror}); check its permissions.") from None
        target = candidate
        if stat.S_ISLNK(info.st_mode):
            real = os.path.realpath(candidate)
            if not follow_links or not inside(real, root or os.path.realpath(candidate.parent)):
                where = "" if not follow_links else " to a file outside the folder being ingested"
                raise DocumentError(f"{shown} is a symbolic link{where}; it was not read, and so neither was its "
                                    "document. Replace the link with the file itself.")
            target = Path(real)
        with open_regular(target, shown) as (handle, size):
            check_metadata_size(size, shown, limits)
            try:
                data = read_at_most(handle, limits.max_metadata_bytes)
            except OSError as exc:
                raise DocumentError(f"{shown} cannot be read ({exc.strerror}); check its permissions.") from None
        check_metadata_size(len(data), shown, limits)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise DocumentError(f"{shown} is not UTF-8 text; save it as UTF-8.") from None
        return parse_sidecar(candidate.name, text, limits)
    return {}


def parse_sidecar(name: str, text: str, limits: ParseLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The metadata mapping in sidecar ``name`` (YAML, or JSON for ``.json``)."""
    syntax = "json" if name.lower().endswith(".json") else "yaml"
    return load_metadata(text, syntax, f"Sidecar {safe_name(name)}", limits)


def sidecar_sets(sidecar: Mapping[str, Any], key: str) -> bool:
    """Whether ``sidecar`` gives a value for metadata ``key`` (any date alias counts for ``update_date``)."""
    keys = DATE_ALIASES if key in DATE_ALIASES else (key,)
    return any(sidecar.get(k) not in (None, "") for k in keys)


def check_metadata(values: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata given for a whole upload, checked before any file is read: the values, or a DocumentError
    that says what to write."""
    found, value = _pick_date(values)
    if found and value not in (None, ""):
        parse_date(value)
    if values.get("authority") not in (None, ""):
        parse_authority(values["authority"])
    for key, example in TEXT_FIELDS.items():
        value = values.get(key)
        if value is None:
            continue
        text = str(value)
        if not text.strip() or "\n" in text or "\r" in text or len(text) > MAX_FIELD_CHARS:
            raise DocumentError(f"{key} {text[:40]!r}{'...' if len(text) > 40 else ''} must be one non-empty line of "
                                f"at most {MAX_FIELD_CHARS} characters, e.g. {example!r}; leave it blank to take it "
                                "from each file.")
    return dict(values)


def parse_date(value: Any, field: str = "update_date") -> date | None:
    """ISO date (or datetime) -> date; empty or 'unknown' -> None; anything else is an error."""
    if value is None or (isinstance(value, str) and value.strip().lower() in {"", "unknown", "none", "n/a"}):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    problem = "not an ISO date"
    for parser in (date.fromisoformat, lambda s: datetime.fromisoformat(s).date()):
        try:
            return parser(text)
        except ValueError as exc:
            if ISO_DAY.match(text) and "range" in str(exc):
                problem = f"not a real date ({exc})"
            continue
    raise DocumentError(f"{field} {one_line(text)[:60]!r} is {problem}; write it as YYYY-MM-DD or leave it out.")


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
                text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
                extra[one_line(str(key))] = one_line(text)
    file_name = safe_name(file_name)
    hint = parsed.title_hint  # an office file's own title may be its template's "Document1" or a file name
    if parsed.format in ("docx", "pdf") and hint and looks_like_file_name(hint):
        hint = None
    title = one_line(str(first("title") or hint or "")) or _title_from_name(file_name)

    def text(key: str) -> str | None:
        value = first(key)
        return one_line(str(value))[:MAX_FIELD_CHARS] if value is not None else None

    return DocumentMetadata(
        title=title[:MAX_FIELD_CHARS],
        source=text("source") or file_name,
        update_date=parse_date(date_value),
        authority=parse_authority(first("authority")),
        doc_type=text("doc_type") or parsed.format,
        knowledge_base=knowledge_base,
        series=text("series"),
        revision=text("revision"),
        extra=extra,
    )
