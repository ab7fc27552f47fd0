"""The tool-calling agent: registered, schema-checked, permissioned tools run in a bounded, audited loop.

The model only proposes tool calls; :class:`AgentRuntime` checks each against the registry and the
policy, runs it with a deadline, pauses high-risk calls until a person approves them with
:meth:`AgentRuntime.resume`, and records every step in the audit log.
"""

from engine.agent.audit import AuditLog, redact
from engine.agent.context import ToolContext
from engine.agent.defaults import build_runtime, default_registry, pipeline_answer
from engine.agent.errors import AgentError, InvalidArguments, ToolError, TransientToolError
from engine.agent.policy import Decision, Policy, RateLimiter
from engine.agent.registry import Tool, ToolRegistry, make_tool
from engine.agent.run import AgentRun, PendingCall, Step
from engine.agent.runtime import AgentRuntime

__all__ = [
    "AgentError", "AgentRun", "AgentRuntime", "AuditLog", "Decision", "InvalidArguments", "PendingCall", "Policy",
    "RateLimiter", "Step", "Tool", "ToolContext", "ToolError", "ToolRegistry", "TransientToolError",
    "build_runtime", "default_registry", "make_tool", "pipeline_answer", "redact",
]
