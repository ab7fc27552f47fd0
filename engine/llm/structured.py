"""Forced structured output: make the model call one tool and return that call's input.

This is how the reviewer and other stages get JSON that follows a schema from any
:class:`~engine.llm.base.Provider`. With ``strict=True`` (the default) the tool is sent
with ``"strict": true``, which the Anthropic API uses to guarantee the input matches the
schema; the returned input is also checked here with ``jsonschema`` against the original
schema, because strict mode moves constraints it cannot enforce (``minimum``, ``maxLength``...)
into the description, and other providers give no guarantee at all.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import jsonschema

from engine.llm.base import Message, Provider, ToolSpec
from engine.llm.errors import StructuredOutputError


def forced_tool_choice(tool: ToolSpec) -> dict[str, Any]:
    """The ``tool_choice`` that makes the model call ``tool``."""
    return {"type": "tool", "name": tool.name}


def structured_call(
    provider: Provider,
    messages: Sequence[Message],
    *,
    system: str | None = None,
    tool: ToolSpec,
    max_tokens: int = 1024,
    strict: bool = True,
    validate: bool = True,
    model: str | None = None,
) -> dict[str, Any]:
    """Force ``provider`` to call ``tool`` and return the call's input.

    Raises :class:`~engine.llm.errors.StructuredOutputError` when the reply holds no call to
    ``tool``, was cut off at ``max_tokens``, or (with ``validate``) does not match the schema.
    """
    sent = dataclasses.replace(tool, strict=True) if strict and not tool.strict else tool
    response = provider.chat(
        messages,
        system=system,
        tools=[sent],
        tool_choice=forced_tool_choice(tool),
        max_tokens=max_tokens,
        model=model,
    )
    if response.stop_reason == "max_tokens":
        raise StructuredOutputError(
            f"{provider.name} was cut off at max_tokens={max_tokens} while filling {tool.name!r}. "
            "Raise max_tokens or shorten the input."
        )
    calls = [block for block in response.tool_uses if block.name == tool.name]
    if not calls:
        got = ", ".join(repr(b.name) for b in response.tool_uses) or f"text only, stop_reason={response.stop_reason}"
        raise StructuredOutputError(
            f"{provider.name} did not call the tool {tool.name!r} (got {got}). "
            "Retry, or check that the provider supports forced tool use."
        )
    arguments = calls[0].input
    if validate:
        check_against_schema(arguments, tool)
    return arguments


def check_against_schema(arguments: dict[str, Any], tool: ToolSpec) -> None:
    """Raise StructuredOutputError when ``arguments`` do not match ``tool.input_schema``."""
    validator_cls = jsonschema.validators.validator_for(tool.input_schema)
    errors = sorted(validator_cls(tool.input_schema).iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if errors:
        details = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5])
        raise StructuredOutputError(
            f"The input given to {tool.name!r} does not match its schema ({details}). Retry, or loosen the schema."
        )
