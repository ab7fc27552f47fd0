"""File names and one-line metadata made safe to store and to print.

A file name or a title can hold terminal escape sequences, NUL bytes or bidirectional overrides;
printed raw they recolour or rewrite the terminal, stored raw they travel into every result. Such
characters are kept visible as escapes (``\\x1b``), never passed through.
"""

from __future__ import annotations

import re
from pathlib import PurePath

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]")
_WHITESPACE = re.compile(r"\s+")
MAX_NAME_CHARS = 255
"""The longest file name most file systems allow."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with control, invisible-format and bidirectional characters written as escapes."""
    return _CONTROL.sub(_escape, text)


def safe_name(name: str, limit: int = MAX_NAME_CHARS) -> str:
    """A file name fit to store and print: controls escaped, at most ``limit`` characters, extension kept."""
    clean = escape_controls(name)
    if len(clean) <= limit:
        return clean
    suffix = PurePath(clean).suffix
    suffix = suffix if len(suffix) < limit // 2 else ""
    return clean[: limit - len(suffix) - 1] + "…" + suffix


def one_line(text: str) -> str:
    """Metadata text as one line: runs of whitespace (newlines included) become one space, controls escapes."""
    return escape_controls(_WHITESPACE.sub(" ", text).strip())
