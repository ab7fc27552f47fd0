"""The workbench's tool set and a runtime wired over a data folder (used by the CLI and the pages)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from engine.agent.actions import delete_document, export_report, resolve_delete, send_report
from engine.agent.audit import AuditLog
from engine.agent.context import ToolContext
from engine.agent.policy import Policy
from engine.agent.registry import Tool, ToolRegistry, make_tool, warm_search
from engine.agent.runtime import AgentRuntime
from engine.agent.tools import (
    answer_with_review, calculator, compare_values, convert_units, get_document, list_documents,
    search_knowledge_base,
)
from engine.config import Settings
from engine.errors import EngineError
from engine.identity.roles import Role
from engine.llm.base import Provider


def default_registry() -> ToolRegistry:
    """Every workbench tool with its risk level and least role (a new registry; the tools are built once)."""
    return ToolRegistry(_default_tools())


@lru_cache(maxsize=1)
def _default_tools() -> tuple[Tool, ...]:
    return (
        make_tool(search_knowledge_base, warm=warm_search),
        make_tool(get_document),
        make_tool(list_documents),
        make_tool(answer_with_review, timeout_s=120.0),
        make_tool(calculator, timeout_s=2.0),
        make_tool(convert_units, timeout_s=10.0),
        make_tool(compare_values, timeout_s=30.0, warm=warm_search),
        # no approval: a new file inside the data folder, never overwritten or sent (see export_report's docstring)
        make_tool(export_report, risk="write", role="analyst", confirm=False),
        make_tool(delete_document, risk="high", role="admin", prepare=resolve_delete),
        make_tool(send_report, risk="high", role="analyst"),
    )


def build_runtime(
    settings: Settings,
    provider: Provider,
    *,
    store: Any = None,
    answer: Callable[[str], Any] | None = None,
    registry: ToolRegistry | None = None,
    policy: Policy | None = None,
    audit: AuditLog | None = None,
    context_hook: Callable[[ToolContext], ToolContext] | None = None,
    **options: Any,
) -> AgentRuntime:
    """An AgentRuntime over ``settings.data_dir``: its store, its audit log, the default tools and policy.

    ``store`` defaults to a KnowledgeBaseStore on the data folder (opened on first use);
    ``options`` go to :class:`AgentRuntime` (max_steps, default_timeout_s...). ``context_hook`` gets each run's
    context before its tools see it (e.g. to limit the store to the bases the run's user may read).
    """
    opened: dict[str, Any] = {"store": store}

    def context(user: str, role: Role) -> ToolContext:
        if opened["store"] is None:
            from engine.store import KnowledgeBaseStore

            opened["store"] = KnowledgeBaseStore(settings)
        ctx = ToolContext(settings=settings, store=opened["store"], user=user, role=role, answer=answer)
        return context_hook(ctx) if context_hook is not None else ctx

    options.setdefault("allowed_link_hosts", settings.allowed_link_hosts)
    return AgentRuntime(
        provider, registry or default_registry(), policy or Policy(), audit or AuditLog(settings),
        context, **options,
    )


def pipeline_answer(settings: Settings, store: Any, provider_id: str | None = None) -> Callable[[str], Any]:
    """The full question pipeline as ``answer(question) -> Answer`` for the answer_with_review tool.

    The pipeline is imported and built on the first question, so runs that never ask one stay light.
    """
    built: dict[str, Any] = {}

    def answer(question: str) -> Any:
        if "pipeline" not in built:
            try:
                from engine.pipeline import AskOptions, Pipeline

                built["pipeline"] = Pipeline(settings, store)
            except ImportError as exc:
                raise EngineError("The answer pipeline (engine.pipeline) cannot be loaded here; "
                                  f"use search_knowledge_base instead ({exc}).") from exc
            built["options"] = AskOptions(provider=provider_id)
        return built["pipeline"].run(question, built["options"])

    return answer
