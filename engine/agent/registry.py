"""Tools as typed Python functions, registered with a risk level and a required role.

The docstring is the description the model sees (purpose, when not to use the tool,
side effects); the signature is its JSON Schema (see :mod:`engine.agent.schema`).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal

from engine.agent.schema import ArgumentChecker, ToolArgs, args_model, input_schema, takes_context
from engine.identity.roles import ROLES, Role
from engine.llm.base import ToolSpec

Risk = Literal["read", "write", "high"]
RISKS: tuple[Risk, ...] = ("read", "write", "high")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
Prepare = Callable[..., dict[str, Any]]
"""``prepare(ctx, **arguments) -> {"arguments": {...}, "summary": "..."}``: resolves a high-risk call
(read-only) before a person is asked; raise ToolError when it cannot be resolved."""
Warm = Callable[[Any], None]
"""``warm(ctx)``: loads what the tool needs (embedding model, store) before its deadline starts."""


def warm_search(ctx: Any) -> None:
    """Load the store's embedding model and open its tables, so a cold first search is not timed."""
    store = ctx.store
    warm = getattr(store, "warm", None)
    if callable(warm):  # a store that notes what a run reads warms itself without noting anything
        warm()
        return
    embedder = getattr(store, "embedder", None)
    if embedder is not None and callable(getattr(embedder, "encode_one", None)):
        embedder.encode_one("warm-up")
    names = getattr(store, "knowledge_base_names", None)
    if callable(names):
        names()


@dataclass(frozen=True)
class Tool:
    """A registered tool: its function, schema, risk and the least role allowed to call it.

    ``prepare`` (high-risk tools only) runs read-only before the pause, so the person approves
    the exact, resolved call (e.g. a document title turned into its id) that will run.
    ``confirm``: the call pauses until a person approves it (always for high risk; the policy
    may require it for more). ``warm`` runs before the tool's deadline starts.
    """

    name: str
    description: str
    func: Callable[..., Any]
    risk: Risk
    role: Role
    model: type[ToolArgs]
    input_schema: dict[str, Any]
    checker: ArgumentChecker
    context: bool = True
    timeout_s: float | None = None
    prepare: Prepare | None = None
    confirm: bool = False
    warm: Warm | None = None

    @property
    def needs_confirmation(self) -> bool:
        return self.confirm or self.risk == "high"

    def spec(self, confirm: bool | None = None) -> ToolSpec:
        """The tool as shown to the model (``confirm``: whether the policy pauses it; default the tool's own)."""
        note = f"\n\nRisk: {self.risk}; needs role {self.role} or higher."
        if self.needs_confirmation if confirm is None else confirm:
            note += " Runs only after a person approves it; you cannot approve it yourself."
        return ToolSpec(self.name, self.description + note, self.input_schema)

    def check(self, arguments: Any) -> dict[str, Any]:
        """Typed keyword arguments, or :class:`~engine.agent.errors.InvalidArguments`."""
        return self.checker.check(arguments)

    def call(self, ctx: Any, arguments: dict[str, Any]) -> Any:
        """Run the function with checked arguments (and the context when it takes one)."""
        return self.func(ctx, **arguments) if self.context else self.func(**arguments)


def make_tool(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    risk: Risk = "read",
    role: Role = "viewer",
    timeout_s: float | None = None,
    prepare: Prepare | None = None,
    confirm: bool | None = None,
    warm: Warm | None = None,
) -> Tool:
    """Build a Tool from a typed, documented function; bad declarations fail here, at import."""
    tool_name = name or func.__name__
    if not TOOL_NAME.match(tool_name):
        raise ValueError(f"Tool name {tool_name!r} must be 1-64 letters, digits, '_' or '-'.")
    if risk not in RISKS:
        raise ValueError(f"Tool {tool_name!r}: risk must be one of {RISKS}, got {risk!r}.")
    if role not in ROLES:
        raise ValueError(f"Tool {tool_name!r}: role must be one of {ROLES}, got {role!r}.")
    if timeout_s is not None and timeout_s <= 0:
        raise ValueError(f"Tool {tool_name!r}: timeout_s must be greater than 0.")
    if prepare is not None and risk != "high":
        raise ValueError(f"Tool {tool_name!r}: only high-risk tools take a prepare step.")
    if risk == "high" and confirm is False:
        raise ValueError(f"Tool {tool_name!r}: a high-risk tool always waits for a person's approval; "
                         "drop confirm=False or lower its risk.")
    description = inspect.getdoc(func)
    if not description:
        raise ValueError(f"Tool {tool_name!r} needs a docstring: it is the description the model sees.")
    model = args_model(func, tool_name)
    schema = input_schema(model)
    return Tool(tool_name, description, func, risk, role, model, schema, ArgumentChecker(tool_name, schema, model),
                takes_context(func), timeout_s, prepare, bool(confirm) or risk == "high", warm)


class ToolRegistry:
    """Tools by name; the runtime looks calls up here and anything not found is not allowed."""

    def __init__(self, tools: Iterator[Tool] | list[Tool] | tuple[Tool, ...] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"Tool {tool.name!r} is already registered.")
        self._tools[tool.name] = tool
        return tool

    def register(self, func: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Register a function as a tool; usable as ``@registry.register`` or ``@registry.register(risk="high")``."""
        if func is None:
            return lambda f: self.register(f, **options)
        self.add(make_tool(func, **options))
        return func

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name) if isinstance(name, str) else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self, allowed: Callable[[Tool], bool] | None = None,
              confirm: Callable[[Tool], bool] | None = None) -> list[ToolSpec]:
        """ToolSpecs of the tools ``allowed`` accepts (all by default), in registration order.

        ``confirm`` says which tools pause for approval (the policy's view); default each tool's own.
        """
        return [t.spec(confirm(t) if confirm else None) for t in self._tools.values() if allowed is None or allowed(t)]

    def override(self, **funcs: Callable[..., Any]) -> "ToolRegistry":
        """A copy whose named tools run other functions, with the same name, schema, risk and role.

        For tests and demos: swap a tool's implementation without touching its contract. A replacement
        is called like the original (with the context first when the original takes one).
        """
        unknown = set(funcs) - set(self._tools)
        if unknown:
            raise ValueError(f"Cannot override unknown tools {sorted(unknown)}; known: {self.names()}.")
        return ToolRegistry(
            dataclasses.replace(t, func=funcs[t.name]) if t.name in funcs else t for t in self._tools.values()
        )
