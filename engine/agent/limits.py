"""Bounds on what a model may send as tool arguments, and text made safe to store.

Arguments are checked for shape before JSON-Schema validation: a value nested hundreds of
levels deep, or with tens of thousands of parts, is refused with a clear message instead of
exhausting the recursion of the validator, the redactor or the JSON encoder. The walk is
iterative, so it cannot overflow itself. Text from a model or a document may hold lone
UTF-16 surrogates (``"\\udc80"``), which SQLite and UTF-8 output reject; :func:`clean`
replaces them with U+FFFD before anything is stored or printed.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 16
"""Levels of nesting a tool argument may have; the deepest schema of the workbench's tools has 2."""
MAX_PARTS = 5_000
"""Values (strings, numbers, list items, object members) in one call's arguments."""
MAX_CHARS = 200_000
"""Characters of text in one call's arguments (the largest field, a report body, takes 50,000)."""
STORED_DEPTH = 48
"""Nesting kept when run state and audit rows are stored; deeper parts are cut (bounds every later recursion)."""
PREVIEW_DEPTH = 4
PREVIEW_ITEMS = 20
"""How much of refused, oversized arguments is kept for the audit log: enough to see what was sent."""
CUT = "[cut: nested too deep]"
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def argument_problem(value: Any) -> str | None:
    """Why ``value`` is too deep or too large to check (a message for the model), or None when it is fine."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    parts = chars = 0
    while stack:
        item, depth = stack.pop()
        parts += 1
        if depth > MAX_DEPTH:
            return (f"the arguments nest more than {MAX_DEPTH} levels deep; send the flat values the tool's input "
                    "schema describes")
        if parts > MAX_PARTS:
            return f"the arguments hold more than {MAX_PARTS} values; send only the fields the tool's schema lists"
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, (dict, list, tuple)):
            if parts + len(stack) + len(item) > MAX_PARTS:
                return f"the arguments hold more than {MAX_PARTS} values; send only the fields the tool's schema lists"
            if isinstance(item, dict):
                chars += sum(len(key) for key in item if isinstance(key, str))
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        if chars > MAX_CHARS:
            return f"the arguments hold more than {MAX_CHARS} characters of text; send a shorter request"
    return None


def clean_text(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD (always encodable as UTF-8)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean(value: Any, depth: int = STORED_DEPTH, items: int = MAX_PARTS) -> Any:
    """A copy of JSON-like ``value`` safe to store: text cleaned, keys made strings, nesting and size cut.

    Parts below ``depth`` levels become :data:`CUT`; lists and objects keep their first ``items`` entries.
    Anything that is not JSON data becomes its ``repr`` (cleaned), so the copy always encodes.
    """
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (dict, list, tuple)) and depth <= 0:
        return CUT
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else clean_text(repr(k)): clean(v, depth - 1, items)
                for k, v in list(value.items())[:items]}
    if isinstance(value, (list, tuple)):
        return [clean(v, depth - 1, items) for v in value[:items]]
    return clean_text(repr(value))[:200]
