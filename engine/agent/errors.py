"""Errors of the agent runtime and of the tools it runs.

A tool raises :class:`TransientToolError` when trying again may help (the runtime
retries it a bounded number of times with backoff) and :class:`ToolError` when it
will not. Both messages go back to the model, so they say what to do next.
"""

from __future__ import annotations

from engine.errors import EngineError


class AgentError(EngineError):
    """The runtime was asked for something it cannot do (unknown run, run not paused, bad role...)."""


class ToolError(EngineError):
    """A tool failed in a way that retrying will not fix; the message is shown to the model."""

    code = "tool_error"


class TransientToolError(ToolError):
    """A tool failed in a way that may pass on a retry (busy resource, brief outage)."""

    code = "transient_error"


class InvalidArguments(AgentError):
    """A tool call's arguments do not match the tool's input schema; the message lists why."""
