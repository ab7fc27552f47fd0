"""Tools become JSON Schema from their type hints; bad declarations fail at registration."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from jsonschema import Draft202012Validator
from pydantic import Field

from engine.agent import InvalidArguments, ToolRegistry, default_registry, make_tool
from engine.agent.context import ToolContext

pytestmark = pytest.mark.unit


def lookup(
    ctx: ToolContext,
    code: Annotated[str, Field(pattern=r"^[A-Z]\d{4}$", description="Fault code, e.g. E4027.")],
    level: Literal["low", "high"] = "low",
    limit: Annotated[int, Field(ge=1, le=10)] = 3,
) -> dict:
    """Look up a fault code.

    Do not use it for free text. No side effects.
    """
    return {"code": code}


def test_schema_comes_from_the_signature():
    tool = make_tool(lookup)
    schema = tool.input_schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["code"] and "ctx" not in schema["properties"]
    assert schema["properties"]["code"] == {"type": "string", "pattern": r"^[A-Z]\d{4}$",
                                            "description": "Fault code, e.g. E4027."}
    assert schema["properties"]["level"]["enum"] == ["low", "high"]
    assert (schema["properties"]["limit"]["minimum"], schema["properties"]["limit"]["maximum"]) == (1, 10)
    Draft202012Validator.check_schema(schema)
    spec = tool.spec()
    assert spec.name == "lookup" and spec.input_schema == schema
    assert spec.description.startswith("Look up a fault code.\n\nDo not use it for free text.")
    assert "Risk: read; needs role viewer" in spec.description


def test_check_returns_typed_arguments_with_defaults():
    tool = make_tool(lookup)
    assert tool.check({"code": "E4027"}) == {"code": "E4027", "level": "low", "limit": 3}
    with pytest.raises(InvalidArguments, match="'E40' does not match"):
        tool.check({"code": "E40"})


def test_default_tools_have_closed_valid_schemas_and_declared_risks():
    registry = default_registry()
    assert registry.names() == [
        "search_knowledge_base", "get_document", "list_documents", "answer_with_review", "calculator",
        "convert_units", "compare_values", "export_report", "delete_document", "send_report",
    ]
    risks = {t.name: (t.risk, t.role) for t in registry}
    assert risks["delete_document"] == ("high", "admin") and risks["send_report"] == ("high", "analyst")
    assert risks["export_report"] == ("write", "analyst") and risks["calculator"] == ("read", "viewer")
    for tool in registry:
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["additionalProperties"] is False
        assert "title" not in tool.input_schema
    assert registry.get("delete_document").spec().description.count("approves") == 2
    assert "title" in registry.get("export_report").input_schema["properties"]
    since = registry.get("search_knowledge_base").input_schema["properties"]["since"]["anyOf"][0]
    assert since["format"] == "date"
    assert registry.get("send_report").input_schema["properties"]["to"]["format"] == "email"


def test_bad_declarations_are_refused():
    def undocumented(x: int) -> int:
        return x

    def untyped(x):
        """Has no hints."""

    def variadic(*args: int):
        """Variadic."""

    with pytest.raises(ValueError, match="docstring"):
        make_tool(undocumented)
    with pytest.raises(TypeError, match="type hint"):
        make_tool(untyped)
    with pytest.raises(TypeError, match="plain named parameter"):
        make_tool(variadic)
    with pytest.raises(ValueError, match="risk"):
        make_tool(lookup, risk="extreme")
    with pytest.raises(ValueError, match="role"):
        make_tool(lookup, role="root")
    with pytest.raises(ValueError, match="name"):
        make_tool(lookup, name="../bad")
    with pytest.raises(ValueError, match="prepare"):
        make_tool(lookup, prepare=lambda ctx, **kw: kw)
    registry = ToolRegistry([make_tool(lookup)])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(lookup)


def test_register_decorator_and_override():
    registry = ToolRegistry()

    @registry.register(risk="write", role="analyst")
    def note(text: str) -> dict:
        """Keep a note."""
        return {"text": text}

    tool = registry.get("note")
    assert (tool.risk, tool.role, tool.context) == ("write", "analyst", False)
    swapped = registry.override(note=lambda text: {"swapped": text})
    assert swapped.get("note").call(None, {"text": "x"}) == {"swapped": "x"}
    assert registry.get("note").call(None, {"text": "x"}) == {"text": "x"}
    assert swapped.get("note").input_schema == tool.input_schema
    with pytest.raises(ValueError, match="unknown tools"):
        registry.override(missing=print)
    assert "note" in registry and "other" not in registry and registry.get(None) is None
