"""Structured output: JSON that follows a schema, asked for in the way the model accepts.

This is how the reviewer and the judge get schema-shaped JSON from any
:class:`~engine.llm.base.Provider`. The way is chosen per model from what the provider reports
(:mod:`engine.llm.capabilities`, read from the Models API for Claude):

- ``json_output``: structured outputs, ``output_config.format`` with the schema; the reply's text
  is the JSON (every current Claude model, and the only way on Claude Sonnet 5.5 and Opus 5.5,
  which answer a forced ``tool_choice`` with a 400);
- ``forced_tool``: the tool sent with a ``tool_choice`` that forces it (models without structured
  outputs, and providers that report no capabilities, such as the scripted one);
- ``tool``: the tool offered without forcing, for a model with neither.

Whatever the way, the JSON is checked here with ``jsonschema`` against the original schema, since
the API moves constraints it cannot enforce (``minimum``, ``maxLength``...) into descriptions
and other providers guarantee nothing. A refusal or a reply cut off at ``max_tokens`` raises
before anything is parsed (:func:`engine.llm.replies.check_complete`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Sequence

import jsonschema

from engine.llm.base import ChatResponse, Message, Provider, ToolSpec
from engine.llm.capabilities import capabilities_of
from engine.llm.errors import StructuredOutputError
from engine.llm.replies import check_complete


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
    on_response: Callable[[ChatResponse], None] | None = None,
) -> dict[str, Any]:
    """Ask ``provider`` for a JSON object following ``tool.input_schema`` and return it.

    ``tool`` names the object and carries its schema; it is sent as a tool only when the model
    takes no structured outputs; it is then strict when ``strict`` or ``tool.strict`` says so and the
    model supports strict tools. ``on_response`` sees the reply before it is checked (to count its
    tokens, which are billed even when the reply cannot be used).

    Raises :class:`~engine.llm.errors.ModelRefusalError` for a refusal,
    :class:`~engine.llm.errors.OutputCutOffError` for a reply cut off at ``max_tokens``, and
    :class:`~engine.llm.errors.StructuredOutputError` when the reply holds no such object or
    (with ``validate``) the object does not match the schema.
    """
    capabilities = capabilities_of(provider, model)
    mode = capabilities.structured_mode
    task = f"filling {tool.name!r}"
    if mode == "json_output":
        response = provider.chat(messages, system=system, max_tokens=max_tokens, model=model,
                                 output_format=tool.input_schema)
        if on_response is not None:
            on_response(response)
        check_complete(response, source=provider.name, task=task, max_tokens=max_tokens)
        arguments = _json_object(response, provider.name, tool)
    else:
        sent = dataclasses.replace(tool, strict=(strict or tool.strict) and capabilities.strict_tools)
        choice = forced_tool_choice(tool) if mode == "forced_tool" else {"type": "auto"}
        response = provider.chat(messages, system=system, tools=[sent], tool_choice=choice,
                                 max_tokens=max_tokens, model=model)
        if on_response is not None:
            on_response(response)
        check_complete(response, source=provider.name, task=task, max_tokens=max_tokens)
        arguments = _tool_input(response, provider.name, tool, forced=mode == "forced_tool")
    if validate:
        check_against_schema(arguments, tool)
    return arguments


def _json_object(response: ChatResponse, source: str, tool: ToolSpec) -> dict[str, Any]:
    """The JSON object in the reply's text (thinking blocks are never part of it)."""
    text = response.text.strip()
    if not text:
        raise StructuredOutputError(
            f"{source} sent no JSON for {tool.name!r} (stop_reason={response.stop_reason}). Retry.")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StructuredOutputError(
            f"{source} sent text that is not JSON for {tool.name!r} ({exc.msg} at character {exc.pos}). Retry."
        ) from exc
    if not isinstance(value, dict):
        raise StructuredOutputError(
            f"{source} sent a JSON {type(value).__name__} for {tool.name!r}, not an object. Retry.")
    return value


def _tool_input(response: ChatResponse, source: str, tool: ToolSpec, *, forced: bool) -> dict[str, Any]:
    """The input of the first call to ``tool`` in the reply."""
    calls = [block for block in response.tool_uses if block.name == tool.name]
    if not calls:
        got = ", ".join(repr(b.name) for b in response.tool_uses) or f"text only, stop_reason={response.stop_reason}"
        hint = "check that the provider supports forced tool use" if forced else "the model chose not to call it"
        raise StructuredOutputError(f"{source} did not call the tool {tool.name!r} (got {got}). Retry, or {hint}.")
    return calls[0].input


def check_against_schema(arguments: dict[str, Any], tool: ToolSpec) -> None:
    """Raise StructuredOutputError when ``arguments`` do not match ``tool.input_schema``."""
    validator_cls = jsonschema.validators.validator_for(tool.input_schema)
    errors = sorted(validator_cls(tool.input_schema).iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if errors:
        details = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5])
        raise StructuredOutputError(
            f"The input given to {tool.name!r} does not match its schema ({details}). Retry, or loosen the schema."
        )
