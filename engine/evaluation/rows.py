"""Checks shared by the dataset readers: a row is a JSON object with the fields it needs, lists hold strings."""

from __future__ import annotations

from typing import Any

from engine.errors import EngineError


def require_fields(data: Any, fields: tuple[str, ...], where: str) -> dict[str, Any]:
    """``data`` as a dict holding every name in ``fields``; otherwise an EngineError naming what to add."""
    if not isinstance(data, dict):
        raise EngineError(f"{where} must be a JSON object.")
    missing = [k for k in fields if k not in data]
    if missing:
        needs = ", ".join(fields[:-1]) + f" and {fields[-1]}" if len(fields) > 1 else fields[0]
        raise EngineError(f"{where} lacks {', '.join(missing)}; each row needs {needs}.")
    return data


def string_list(value: Any, name: str, where: str) -> list[str]:
    """``value`` as a list of strings (a single string becomes a one-item list)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EngineError(f"{where}: {name} must be a list of strings.")
    return value
