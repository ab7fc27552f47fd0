"""The offline planner's rules: a request split into steps, and one tool call with arguments per step.

A request is split where a new action starts ("search X in manuals and export the results": a
search, then an export). Each step is planned by rules: delete/remove -> delete_document, send
... to an address -> send_report, export/save a report -> export_report, compare X and Y ... ->
compare_values, list / what documents -> list_documents, search/find -> search_knowledge_base,
convert ... to a unit -> convert_units (of the figure given, or of one the previous step found),
arithmetic -> calculator, any other question -> answer_with_review. A step whose verb no tool
serves (translate, summarise...) is kept, with no tool, so that it is reported as not done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.language.quantities import figures

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
KB_PHRASE = re.compile(
    r"\s*\b(?:in|from)\s+(?:the\s+)?(?:(?:knowledge base|kb)\s+['\"]?(?P<a>[a-z0-9][a-z0-9_-]{0,62})['\"]?"
    r"|['\"]?(?P<b>[a-z0-9][a-z0-9_-]{0,62})['\"]?\s+(?:knowledge base|kb))\b", re.IGNORECASE)
TRAILING_KB = re.compile(r"\s+(?:in|from)\s+(?:the\s+)?([a-z0-9][a-z0-9_-]{0,62})\s*[?.!]*$")
NOT_A_BASE = frozenset("all them it full detail general short brief order".split())
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
CONVERT = re.compile(r"^(?:convert|express)\s+(?P<what>.*?)\s*\b(?:to|into|in)\s+(?P<unit>[^\s?!,;]+(?:\s*[/*]\s*\S+)?)"
                     r"[\s?.!]*$", re.IGNORECASE)
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
        if not kb and trailing and trailing.group(1).lower() not in NOT_A_BASE:
            kb = trailing.group(1).lower()
        return "list_documents", {"kb": kb} if kb else {}
    if re.match(r"^(?:search|find|look up|look for)\b", low):
        rest, kb = _strip_kb(re.sub(r"^(?:search|find|look up|look for)\s+(?:for\s+)?", "", text, flags=re.IGNORECASE))
        args = {}
        since = re.search(r"\s*\b(?:since|after)\s+(\d{4}(?:-\d{2}-\d{2})?)\b", rest)
        if since:
            args["since"] = since.group(1) if "-" in since.group(1) else f"{since.group(1)}-01-01"
            rest = rest[: since.start()] + rest[since.end():]
        trailing = TRAILING_KB.search(rest)
        if not kb and trailing and trailing.group(1).lower() not in NOT_A_BASE:
            kb, rest = trailing.group(1).lower(), rest[: trailing.start()]
        query = _tidy(re.sub(r"^(?:documents?|passages?)\s+(?:about|on|for)\s+", "", _tidy(rest), flags=re.I))
        mode = "keyword" if re.search(r"\b[A-Z]{1,4}-?\d{3,}\b|\d{3}-\d{3}", query) else "hybrid"
        return "search_knowledge_base", {"query": query[:500] or text[:500], "mode": mode, "k": 5,
                                         **({"kb": kb} if kb else {}), **args}
    convert = CONVERT.match(text)
    if convert:
        unit = convert.group("unit").rstrip(".")
        given = next((f for f in figures(convert.group("what")) if f.unit), None)
        if given is None:  # "convert it to lbf.ft": the figure comes from the previous step's results
            return "convert_units", {"to_unit": unit[:40]}
        written = re.sub(r"^[-+\d.,\s]+", "", given.text) or given.unit  # "N.m" as written, not "n.m"
        return "convert_units", {"value": given.value, "from_unit": written[:40], "to_unit": unit[:40]}
    expression = arithmetic(text)
    if expression:
        return "calculator", {"expression": expression[:200]}
    return "answer_with_review", {"question": text[:1000]}


ACTIONS = ("search", "find", "look up", "look for", "list", "show", "display", "compare", "export", "save", "send",
           "e-mail", "email", "mail", "delete", "remove", "calculate", "compute", "convert", "express")
"""Verbs that start a step the planner can map to a tool."""
NO_TOOL = ("translate", "summarise", "summarize", "print", "plot", "chart", "draw", "upload", "share", "schedule",
           "rename", "edit", "update", "fax", "post", "publish")
"""Verbs a person may chain that no workbench tool serves: such a step is reported as not done."""
_VERB = "|".join(re.escape(v) for v in sorted(ACTIONS + NO_TOOL, key=len, reverse=True))
STEP_BREAK = re.compile(rf"\s*(?:;|,?\s+(?:and\s+then|and\s+also|and|then)\b|,)\s+(?:please\s+)?(?=(?:{_VERB})\b)",
                        re.IGNORECASE)
PREVIOUS = re.compile(r"\b(?:the|those|these|all)\s+(?:results?|findings|passages|hits|list|comparison|answer|figures|"
                      r"values|documents)\b|\b(?:them|it|this|that)\b", re.IGNORECASE)
POLITE = re.compile(r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need)\s+you\s+to\s+)",
                    re.IGNORECASE)
QUESTION = re.compile(r"^(?:how|what|why|when|who|whom|whose|which|where|is|are|was|were|does|do|did|should|"
                      r"must|may|has|have)\b", re.IGNORECASE)
SHOW = re.compile(r"^(?:show|display|list|give)\b", re.IGNORECASE)
USES_PREVIOUS_TOOLS = frozenset({"export_report", "send_report"})


@dataclass(frozen=True)
class PlannedStep:
    """One step of a request: its words, the tool and arguments planned for it (tool None: no tool does it).

    ``uses_previous``: the step acts on the previous step's results (export or send "the results").
    """

    text: str
    tool: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    uses_previous: bool = False


def split_request(request: str) -> list[str]:
    """The request's steps, split where a new action verb starts ("... and export ...", "...; send ...").

    A question ("how do I find and remove ...?") is one step: it goes whole to the answer pipeline.
    """
    text = POLITE.sub("", _clean(request))
    if QUESTION.match(text):
        return [_clean(request)]
    return [part.strip(" ,;") for part in STEP_BREAK.split(text) if part.strip(" ,;")] or [text]


def plan_steps(request: str) -> tuple[PlannedStep, ...]:
    """Every step of ``request``, in order, each with its planned tool call."""
    steps = []
    for n, part in enumerate(split_request(request)):
        if re.match(rf"^(?:{'|'.join(NO_TOOL)})\b", part, re.IGNORECASE):
            steps.append(PlannedStep(part, None))
            continue
        if n > 0 and SHOW.match(part) and PREVIOUS.search(part):
            continue  # "... and show the results": the final answer shows them
        name, arguments = plan_request(part)
        uses_previous = n > 0 and name in USES_PREVIOUS_TOOLS and bool(PREVIOUS.search(part))
        if name == "convert_units" and "value" not in arguments:
            uses_previous = n > 0  # "... and convert it to lbf.ft": the figure the previous step found
        steps.append(PlannedStep(part, name, arguments, uses_previous))
    return tuple(steps)
