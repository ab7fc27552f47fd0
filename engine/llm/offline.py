"""The offline provider: a deterministic planner for the agent, used when no API key is set.

From the latest person's request (never from tool results) it picks one tool and its
arguments by rules: delete/remove -> delete_document, send ... to an address -> send_report,
export/save a report -> export_report, compare X and Y ... -> compare_values, list / what
documents -> list_documents, search/find -> search_knowledge_base, arithmetic -> calculator,
any other question -> answer_with_review. Once that turn's tool results are in the
conversation it ends the turn with a summary of them; text inside results is only quoted,
so instructions planted in documents are never followed.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from engine.llm.base import ChatResponse, Message, TextBlock, ToolSpec, ToolUseBlock, Usage

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
KB_PHRASE = re.compile(
    r"\s*\b(?:in|from)\s+(?:the\s+)?(?:(?:knowledge base|kb)\s+['\"]?(?P<a>[a-z0-9][a-z0-9_-]{0,62})['\"]?"
    r"|['\"]?(?P<b>[a-z0-9][a-z0-9_-]{0,62})['\"]?\s+(?:knowledge base|kb))\b", re.IGNORECASE)
TRAILING_KB = re.compile(r"\s+(?:in|from)\s+(?:the\s+)?([a-z0-9][a-z0-9_-]{0,62})\s*[?.!]*$")
DOC_ID = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*-[0-9a-f]{8}$")
EXPR = re.compile(r"(?:(?:sqrt|abs|round|min|max|floor|ceil|log10|log|exp|pi)\b|\d+(?:\.\d+)?|\*\*|//|[-+*/%(),]|\s)+")
IS_MATH = re.compile(r"\d\s*(?:\*\*|//|[-+*/%])\s*[\d(a-z]|[a-z]+\s*\(\s*[\d(]")
MATH_FILLER = frozenset("what whats is calculate compute evaluate how much the result of value please equals".split())
WORD_OPS = ((r"\bplus\b", "+"), (r"\bminus\b", "-"), (r"\b(?:times|multiplied by)\b", "*"), (r"\bdivided by\b", "/"),
            (r"×", "*"), (r"÷", "/"), (r"\^", "**"), (r"(?<=\d)\s*x\s*(?=\d)", "*"))
COMPARE = (
    re.compile(r"^compare\s+(?P<a>.+?)\s+(?:and|with|vs\.?|versus|to)\s+(?P<b>.+?)\s+"
               r"(?:on|for|by|in terms of|regarding)\s+(?P<attr>.+)$", re.IGNORECASE),
    re.compile(r"^compare\s+(?:the\s+)?(?P<attr>.+?)\s+(?:of|for|between)\s+(?P<a>.+?)\s+"
               r"(?:and|with|vs\.?|versus)\s+(?P<b>.+)$", re.IGNORECASE),
    re.compile(r"^compare\s+(?P<a>\S+)\s+(?:and|with|vs\.?|versus|to)\s+(?P<b>\S+)\s+(?P<attr>.+)$", re.IGNORECASE),
)
UNTRUSTED = re.compile(r'<untrusted_data source="tool:([^"]*)">\s*(.*?)\s*</untrusted_data>', re.DOTALL)
Plan = tuple[str, dict[str, Any]]


def _clean(text: str) -> str:
    return re.sub(r"^(?:please\s+)", "", " ".join(text.split()).strip(), flags=re.IGNORECASE)


def _strip_kb(text: str) -> tuple[str, str | None]:
    match = KB_PHRASE.search(text)
    if not match:
        return text, None
    return (text[: match.start()] + text[match.end():]).strip(), (match.group("a") or match.group("b")).lower()


def _tidy(text: str) -> str:
    return re.sub(r"^(?:the|a|an|my)\s+", "", text.strip(" \"'?.!,:;"), flags=re.IGNORECASE).strip(" \"'")


def arithmetic(text: str) -> str | None:
    """The arithmetic expression a request asks to compute, or None when it is not a calculation."""
    normal = text
    for pattern, op in WORD_OPS:
        normal = re.sub(pattern, op, normal, flags=re.IGNORECASE)
    spans = [m.group(0).strip() for m in EXPR.finditer(normal.lower())]
    spans = [s for s in spans if re.search(r"\d", s) and IS_MATH.search(s)]
    if not spans:
        return None
    expr = max(spans, key=len)
    rest = set(re.findall(r"[a-z]+", normal.lower().replace(expr, " ")))
    return expr if rest <= MATH_FILLER else None


def plan_request(request: str) -> Plan:
    """The one tool call, with arguments, that the offline planner makes for ``request``."""
    text = _clean(request)
    low = text.lower()
    if re.match(r"^(?:delete|remove)\b", low):
        rest, kb = _strip_kb(re.sub(r"^(?:delete|remove)\s+", "", text, flags=re.IGNORECASE))
        target = _tidy(re.sub(r"^(?:the\s+)?(?:document|doc|file)s?\s+", "", _tidy(rest), flags=re.IGNORECASE))
        args: dict[str, Any] = {"doc_id": target} if DOC_ID.match(target) else {"title": target[:200] or rest}
        return "delete_document", {**args, **({"kb": kb} if kb else {})}
    email = EMAIL.search(text)
    if email and re.search(r"\b(?:send|e-?mail|mail)\b", low):
        subject = _tidy(re.sub(r"^.*?\b(?:send|e-?mail|mail)\b\s*(?:me\s+)?", "", text[: email.start()],
                               flags=re.IGNORECASE)).removesuffix(" to").strip() or "Workbench report"
        subject = subject[:1].upper() + subject[1:200]
        return "send_report", {"to": email.group(0), "subject": subject, "body": f"{subject}.\n\nRequest: {text}\n"}
    if re.match(r"^(?:export|save)\b", low) or re.search(r"\b(?:export|save)\b.*\breport\b", low):
        topic = _tidy(re.sub(r"^.*?\breport\b\s*(?:on|about|of|for)?\s*", "", text, flags=re.IGNORECASE))
        title = (f"Report on {topic}" if topic else "Workbench report")[:200]
        return "export_report", {"title": title, "body": f"Request: {text}\n"}
    if low.startswith("compare"):
        for pattern in COMPARE:
            match = pattern.match(text.rstrip("?.! "))
            if match:
                a, b, attr = (_tidy(match.group(k)) for k in ("a", "b", "attr"))
                if a and b and attr:
                    return "compare_values", {"entity_a": a[:120], "entity_b": b[:120], "attribute": attr[:120]}
    if re.match(r"^(?:list|show)\b", low) or re.search(r"\bwhat (?:documents|docs|files)\b", low):
        rest, kb = _strip_kb(text)
        trailing = TRAILING_KB.search(rest)
        if not kb and trailing and trailing.group(1).lower() not in ("all", "them"):
            kb = trailing.group(1).lower()
        return "list_documents", {"kb": kb} if kb else {}
    if re.match(r"^(?:search|find|look up|look for)\b", low):
        rest, kb = _strip_kb(re.sub(r"^(?:search|find|look up|look for)\s+(?:for\s+)?", "", text, flags=re.IGNORECASE))
        args = {}
        since = re.search(r"\s*\b(?:since|after)\s+(\d{4}(?:-\d{2}-\d{2})?)\b", rest)
        if since:
            args["since"] = since.group(1) if "-" in since.group(1) else f"{since.group(1)}-01-01"
            rest = rest[: since.start()] + rest[since.end():]
        query = _tidy(re.sub(r"^(?:documents?|passages?)\s+(?:about|on|for)\s+", "", _tidy(rest), flags=re.I))
        mode = "keyword" if re.search(r"\b[A-Z]{1,4}-?\d{3,}\b|\d{3}-\d{3}", query) else "hybrid"
        return "search_knowledge_base", {"query": query[:500] or text[:500], "mode": mode, "k": 5,
                                         **({"kb": kb} if kb else {}), **args}
    expression = arithmetic(text)
    if expression:
        return "calculator", {"expression": expression[:200]}
    return "answer_with_review", {"question": text[:1000]}


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
        lines.append(f"- {item.get('entity')}: {best.get('text')} (from {best.get('title')}, {best.get('doc_id')}, "
                     f"{best.get('update_date')})")
    return lines


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


class OfflineProvider:
    """Plans one tool call per request by rules, then summarises the results; no network, no key."""

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
        results = tool_results(messages[index + 1:])
        if results:
            return self._text(summarise(results), model)
        name, arguments = plan_request(request)
        offered = {tool.name for tool in tools}
        if name not in offered:
            reason = "no tools were offered" if not offered else f"the {name} tool is not available to this role"
            return self._text(f"I cannot do that here: {reason}. Ask someone with the right role, or rephrase.", model)
        use = ToolUseBlock(id=f"toolu_offline_{len(messages):03d}", name=name, input=arguments)
        return ChatResponse((use,), "tool_use", Usage(), model or self.name)

    def _text(self, text: str, model: str | None) -> ChatResponse:
        return ChatResponse((TextBlock(text),), "end_turn", Usage(output_tokens=len(text.split())), model or self.name)
