"""The offline provider: a deterministic planner for the agent, used when no API key is set.

From the latest person's request (never from tool results) it plans the request's steps by
rules (:mod:`engine.llm.offline_plan`) and calls one tool per turn, in order. A step that
exports or sends "the results" gets the previous step's results as its body, and is not
done when that step failed or found nothing. Once every step is settled it ends the turn
with a summary of the results and lists the steps not done (``ChatResponse.unfinished``),
so the run is never reported completed when a step did nothing. Text inside results is
only quoted, so instructions planted in documents are never followed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from engine.llm.base import ChatResponse, Message, TextBlock, ToolSpec, ToolUseBlock, UnfinishedStep, Usage
from engine.llm.offline_figures import figure_to_convert
from engine.llm.offline_plan import PlannedStep, plan_request, plan_steps

__all__ = ["OfflineProvider", "PlannedStep", "plan_request", "plan_steps", "summarise", "tool_results"]

UNTRUSTED = re.compile(r'<untrusted_data source="tool:([^"]*)">\s*(.*?)\s*</untrusted_data>', re.DOTALL)


def _request_index(messages: Sequence[Message]) -> tuple[int, str] | None:
    """Index and text of the latest user message that is the person's own words (not tool results)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            return index, content
        if isinstance(content, list):
            texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
            if any(t.strip() for t in texts):
                return index, " ".join(texts)
    return None


def tool_results(messages: Sequence[Message]) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, result envelope) for every tool_result block in ``messages``, in order."""
    names: dict[str, str] = {}
    found = []
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                names[str(block.get("id"))] = str(block.get("name"))
            elif block.get("type") == "tool_result":
                raw = block.get("content")
                raw = raw if isinstance(raw, str) else " ".join(
                    b.get("text", "") for b in raw or [] if isinstance(b, dict))
                match = UNTRUSTED.search(raw)
                try:
                    envelope = json.loads(match.group(2)) if match else {}
                except json.JSONDecodeError:
                    envelope = {}
                if not isinstance(envelope, dict) or "ok" not in envelope:
                    envelope = {"ok": not block.get("is_error"), "result": raw[:500], "message": ""}
                found.append((names.get(str(block.get("tool_use_id")), match.group(1) if match else "tool"), envelope))
    return found


def _quote(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text or "").split())
    return f'"{flat if len(flat) <= limit else flat[: limit - 1] + "…"}"'


def _search(result: dict) -> list[str]:
    hits = result.get("results") or []
    if not hits:
        return [f"No passages found for {_quote(result.get('query'))}."]
    lines = [f"Found {len(hits)} passage(s) for {_quote(result.get('query'))}:"]
    for n, hit in enumerate(hits, 1):
        lines.append(f"{n}. {hit.get('title')} ({hit.get('doc_id')}, {hit.get('knowledge_base')}, "
                     f"{hit.get('update_date')}): {_quote(hit.get('text'))}")
    return lines


def _list(result: dict) -> list[str]:
    bases = result.get("knowledge_bases") or []
    if not bases:
        return ["There are no knowledge bases yet."]
    lines = []
    for kb in bases:
        docs = kb.get("documents") or []
        lines.append(f"{kb.get('name')}: {len(docs)} document(s)")
        lines += [f"- {d.get('title')} ({d.get('doc_id')}, {d.get('update_date')})" for d in docs]
    return lines


def _compare(result: dict) -> list[str]:
    lines = [f"Comparison of {result.get('attribute')}:"]
    for item in result.get("values") or []:
        figures = item.get("figures") or []
        if not figures:
            lines.append(f"- {item.get('entity')}: no figure found in the documents.")
            continue
        best = figures[0]
        lines.append(f"- {item.get('entity')}: {best.get('text')} (from {_source(best)})")
        for other in item.get("conflicts") or []:
            rank = "lower" if other.get("authority", 3) < best.get("authority", 3) else "the same"
            lines.append(f"  {other.get('text')} in {_source(other)} disagrees; it has {rank} authority, so "
                         f"{best.get('text')} is given.")
    return lines


def _source(figure: dict) -> str:
    authority = f", authority {figure['authority']}" if "authority" in figure else ""
    return f"{figure.get('title')}, {figure.get('doc_id')}, {figure.get('update_date')}{authority}"


def _answer(result: dict) -> list[str]:
    lines = [str(result.get("final") or "The pipeline gave no answer."), f"(status: {result.get('status')})"]
    cites = result.get("citations") or []
    lines += [f"[{c.get('n')}] {c.get('title')} ({c.get('doc_id')})" for c in cites]
    return lines


SUMMARIES = {
    "search_knowledge_base": _search,
    "list_documents": _list,
    "compare_values": _compare,
    "answer_with_review": _answer,
    "calculator": lambda r: [f"{r.get('expression')} = {r.get('value')}"],
    "convert_units": lambda r: [f"{r.get('text')}" + (f" (the value from {r['source']})" if r.get("source") else "")],
    "get_document": lambda r: [f"{r.get('title')} ({r.get('doc_id')}, {r.get('knowledge_base')}, "
                               f"{r.get('update_date')}): {_quote(r.get('text'), 400)}"],
    "export_report": lambda r: [f"Saved the report {_quote(r.get('title'))} to {r.get('path')}."],
    "delete_document": lambda r: [f"Deleted {r.get('deleted')} from {r.get('knowledge_base')} "
                                  f"({r.get('chunks_deleted')} chunks)."],
    "send_report": lambda r: [f"Saved the message to {r.get('to')} in the outbox ({r.get('path')}); "
                              "nothing left this machine."],
}


def summarise(results: list[tuple[str, dict[str, Any]]]) -> str:
    """A plain-text answer built only from the tool results (their text is quoted, never obeyed)."""
    lines: list[str] = []
    for name, envelope in results:
        if not envelope.get("ok"):
            if envelope.get("error") == "rejected_by_user":
                lines.append(f"A person denied the {name} call, so it was not done.")
            else:
                lines.append(f"{name} did not succeed ({envelope.get('error')}): {envelope.get('message')}")
            continue
        result = envelope.get("result")
        render = SUMMARIES.get(name)
        lines += render(result) if render and isinstance(result, dict) else [f"{name}: {_quote(result, 400)}"]
    return "\n".join(lines)


EMPTY = {
    "search_knowledge_base": lambda r: not r.get("results"),
    "list_documents": lambda r: not any(kb.get("documents") for kb in r.get("knowledge_bases") or []),
    "compare_values": lambda r: all(not v.get("figures") for v in r.get("values") or []),
}
"""When a tool's result holds nothing that a later step could export or send."""
TITLES = {
    "search_knowledge_base": lambda r: f"Search results for {r.get('query')}",
    "list_documents": lambda r: "Document list",
    "compare_values": lambda r: f"Comparison of {r.get('attribute')}",
    "answer_with_review": lambda r: f"Answer to: {r.get('question')}",
}


@dataclass(frozen=True)
class _Settled:
    """A planned step once decided: its result envelope, or why it was not run."""

    number: int
    step: PlannedStep
    envelope: dict[str, Any] | None = None
    reason: str = ""

    @property
    def done(self) -> bool:
        return bool(self.envelope and self.envelope.get("ok"))


def _blocked(step: PlannedStep, settled: list[_Settled], offered: set[str]) -> str:
    """Why ``step`` cannot run now (empty when it can)."""
    if step.tool is None:
        return f"there is no tool to {step.text} here"
    if step.tool not in offered:
        return "no tools were offered" if not offered else f"the {step.tool} tool is not available to this role"
    if step.tool == "convert_units" and "value" not in step.arguments:
        return _nothing_to_convert(step, settled)
    if step.uses_previous and settled:
        previous, verb = settled[-1], "send" if step.tool == "send_report" else "export"
        if not previous.done:
            return f"step {previous.number} ({previous.step.text}) was not done, so there was nothing to {verb}"
        empty = EMPTY.get(str(previous.step.tool))
        if empty is not None and empty(previous.envelope.get("result") or {}):
            return f"step {previous.number} ({previous.step.text}) found nothing, so there was nothing to {verb}"
    return ""


def _previous_figure(step: PlannedStep, settled: list[_Settled]):
    """The figure the previous step found for a "convert it" step (None when there is none)."""
    previous = settled[-1]
    return figure_to_convert(str(previous.step.tool), previous.envelope.get("result") or {},
                             step.arguments["to_unit"], previous.step.text)


def _nothing_to_convert(step: PlannedStep, settled: list[_Settled]) -> str:
    """Why a "convert it" step has no figure to convert (empty when it has one)."""
    unit = step.arguments.get("to_unit")
    if not step.uses_previous or not settled:
        return f"no value was given to convert to {unit}; say which, e.g. 'convert 325 N.m to {unit}'"
    previous = settled[-1]
    if not previous.done:
        return f"step {previous.number} ({previous.step.text}) was not done, so there was nothing to convert"
    if _previous_figure(step, settled) is None:
        return (f"step {previous.number} ({previous.step.text}) found no figure in a unit that converts to {unit}, "
                "so there was nothing to convert")
    return ""


def _export_lines(name: str, result: dict[str, Any]) -> list[str]:
    """A result as Markdown for a report: search passages in full, other results as summarised."""
    if name == "search_knowledge_base":
        hits = result.get("results") or []
        return [f"## {n}. {hit.get('title')}\n\n{hit.get('doc_id')}, {hit.get('knowledge_base')}, "
                f"{hit.get('update_date')}\n\n{hit.get('text')}\n" for n, hit in enumerate(hits, 1)]
    render = SUMMARIES.get(name)
    return render(result) if render else [_quote(result, 4000)]


def _arguments(step: PlannedStep, settled: list[_Settled], request: str) -> dict[str, Any]:
    """The step's arguments; an export or send of "the results" gets the previous results as its body."""
    if not step.uses_previous or not settled:
        return step.arguments
    if step.tool == "convert_units":
        found = _previous_figure(step, settled)
        return {"value": found.value, "from_unit": found.unit, "to_unit": step.arguments["to_unit"],
                "source": found.source[:300]}
    previous = settled[-1]
    result = previous.envelope["result"] if previous.envelope else {}
    name = str(previous.step.tool)
    title = " ".join(TITLES.get(name, lambda r: f"Results of: {previous.step.text}")(result).split())[:200]
    arguments = dict(step.arguments)
    key = "subject" if step.tool == "send_report" else "title"
    if "report" not in step.text.lower() or key == "subject":
        arguments[key] = title
    body = "\n".join([f"Request: {request}", "", *_export_lines(name, result)])
    arguments["body"] = body[:50_000]
    return arguments


def _unfinished(item: _Settled) -> UnfinishedStep | None:
    if item.envelope is None:
        return UnfinishedStep(item.step.text, item.reason, item.step.tool, ran=False)
    if item.done:
        return None
    error = item.envelope.get("error")
    reason = "a person denied it" if error == "rejected_by_user" else str(item.envelope.get("message") or error)
    return UnfinishedStep(item.step.text, reason, item.step.tool, ran=True)


def report(settled: list[_Settled]) -> str:
    """The final answer: each step's results (quoted, never obeyed), and the steps not done."""
    if len(settled) == 1:
        (item,) = settled
        if item.envelope is None:
            return f"I cannot do that here: {item.reason}. Ask someone with the right role, or rephrase."
        return summarise([(str(item.step.tool), item.envelope)])
    lines: list[str] = []
    for item in settled:
        if item.envelope is None:
            lines.append(f"Step {item.number} ({item.step.text}): not done, {item.reason}.")
            continue
        lines.append(f"Step {item.number} ({item.step.text}): {'done' if item.done else 'not done'}.")
        lines += ["  " + line for line in summarise([(str(item.step.tool), item.envelope)]).splitlines()]
    missing = sum(not item.done for item in settled)
    if missing:
        lines.append(f"Not done: {missing} of {len(settled)} requested steps.")
    return "\n".join(lines)


class OfflineProvider:
    """Plans a request's steps by rules, calls one tool per turn, then summarises; no network, no key."""

    def __init__(self, model: str | None = None, name: str = "offline") -> None:
        self.model = model or "planner"
        self.name = name if model is None else f"{name}:{model}"

    def __repr__(self) -> str:
        return f"OfflineProvider(name={self.name!r})"

    def chat(
        self,
        messages: Sequence[Message],
        *,
        system: str | None = None,
        tools: Sequence[ToolSpec] = (),
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        model: str | None = None,
    ) -> ChatResponse:
        """Answer one turn deterministically: a planned tool call, or a summary of the results so far."""
        found = _request_index(messages)
        if found is None:
            return self._text("Send a request as a user message, e.g. 'list the documents in manuals'.", model)
        index, request = found
        results = iter(tool_results(messages[index + 1:]))
        offered = {tool.name for tool in tools}
        settled: list[_Settled] = []
        for number, step in enumerate(plan_steps(request), 1):
            reason = _blocked(step, settled, offered)
            if reason:
                settled.append(_Settled(number, step, reason=reason))
                continue
            result = next(results, None)
            if result is None:
                use = ToolUseBlock(id=f"toolu_offline_{len(messages):03d}", name=str(step.tool),
                                   input=_arguments(step, settled, request))
                return ChatResponse((use,), "tool_use", Usage(), model or self.name)
            settled.append(_Settled(number, step, result[1]))
        unfinished = tuple(u for u in map(_unfinished, settled) if u is not None)
        return self._text(report(settled), model, unfinished)

    def _text(self, text: str, model: str | None, unfinished: tuple[UnfinishedStep, ...] = ()) -> ChatResponse:
        return ChatResponse((TextBlock(text),), "end_turn", Usage(output_tokens=len(text.split())), model or self.name,
                            unfinished)
