"""A tool's JSON Schema, derived from its typed signature, and argument checking against it.

The signature becomes a pydantic model (``extra="forbid"``); its JSON Schema is what the
model sees. Arguments are first bounded in depth and size (:mod:`engine.agent.limits`), then
checked with ``jsonschema`` (Draft 2020-12, formats on), whose messages go back to the model,
then converted by the pydantic model (e.g. ISO strings to dates); a value any check rejects
never reaches the tool.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable

from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic_core import to_jsonable_python

from engine.agent.context import ToolContext
from engine.agent.errors import InvalidArguments
from engine.agent.limits import argument_problem

MAX_ERRORS = 5
MAX_MESSAGE = 300


class ToolArgs(BaseModel):
    """Base of every generated argument model: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def takes_context(func: Callable[..., Any]) -> bool:
    """True when the function's first parameter is the ToolContext (named ``ctx`` or annotated so)."""
    params = list(inspect.signature(func).parameters.values())
    if not params:
        return False
    hints = typing.get_type_hints(func)
    return params[0].name == "ctx" or hints.get(params[0].name) is ToolContext


def args_model(func: Callable[..., Any], name: str) -> type[ToolArgs]:
    """A pydantic model of the function's parameters (the context parameter left out)."""
    hints = typing.get_type_hints(func, include_extras=True)
    params = list(inspect.signature(func).parameters.values())
    if takes_context(func):
        params = params[1:]
    fields: dict[str, Any] = {}
    for param in params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"Tool {name!r}: parameter {param.name!r} must be a plain named parameter.")
        if param.name not in hints:
            raise TypeError(f"Tool {name!r}: parameter {param.name!r} needs a type hint; the hint is its schema.")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], default)
    return create_model(f"{name}_arguments", __base__=ToolArgs, **fields)


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema without titles, closed to unknown properties."""
    schema = _drop_titles(model.model_json_schema())
    schema["type"] = "object"
    schema["additionalProperties"] = False
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    Draft202012Validator.check_schema(schema)
    return schema


def _drop_titles(node: Any) -> Any:
    """Remove pydantic's generated ``title`` keywords (property *names* called "title" stay)."""
    if isinstance(node, list):
        return [_drop_titles(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _drop_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _drop_titles(value)
    return out


class ArgumentChecker:
    """Checks one tool's arguments: JSON Schema first, then the pydantic model."""

    def __init__(self, name: str, schema: dict[str, Any], model: type[ToolArgs]) -> None:
        self.name = name
        self.schema = schema
        self.model = model
        self._validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def is_valid(self, arguments: Any) -> bool:
        """True when ``arguments`` (JSON values or the typed values a tool receives) pass the schema."""
        return self._validator.is_valid(to_jsonable_python(arguments))

    def check(self, arguments: Any) -> dict[str, Any]:
        """Typed keyword arguments for the tool, or InvalidArguments saying what to fix.

        Arguments too deep or too large to check are refused before the schema sees them.
        """
        problem = argument_problem(arguments)
        if problem:
            raise InvalidArguments(self._message(problem))
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
        if errors:
            problems = [_describe(error) for error in errors[:MAX_ERRORS]]
            more = f" (and {len(errors) - MAX_ERRORS} more)" if len(errors) > MAX_ERRORS else ""
            raise InvalidArguments(self._message("; ".join(problems) + more))
        try:
            parsed = self.model.model_validate(arguments)
        except ValidationError as exc:
            problems = [
                f"at '{'.'.join(str(p) for p in err['loc']) or '(root)'}': {_clip(err['msg'])}"
                for err in exc.errors()[:MAX_ERRORS]
            ]
            raise InvalidArguments(self._message("; ".join(problems))) from None
        return {field: getattr(parsed, field) for field in type(parsed).model_fields}

    def _message(self, problems: str) -> str:
        return (f"Invalid arguments for {self.name}: {problems}. "
                "Fix them to match the tool's input schema and call again.")


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"at '{where or '(root)'}': {_clip(_reason(error))}"


def _reason(error: Any) -> str:
    """The validator's message; for an optional value (anyOf with null) the message of the non-null branch."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches = [e for e in error.context if not (e.validator == "type" and e.validator_value == "null")]
        if branches:
            return "; ".join(dict.fromkeys(e.message for e in branches))
    return error.message


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
