"""Read-only tools over the engine: search, documents, the reviewed answer pipeline, arithmetic, comparison.

Each tool is a typed function; its docstring is what the model reads and its signature is its
schema. Ids are constrained by patterns, so ``../x`` never reaches the store. Document titles
are passed through :func:`engine.output_safety.safe_text`: a title is shown to people as it is
given here, so it never carries a link, an image or HTML.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from engine.agent.calculator import evaluate
from engine.agent.context import ToolContext
from engine.agent.errors import ToolError
from engine.agent.figures import DEFAULT_AUTHORITY, prefer_authority, relevant_figures
from engine.language.citations import citations as cited_numbers
from engine.output_safety import safe_text

KB_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
DOC_ID_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.[A-Za-z0-9_-])*\.?$"
TEXT_LIMIT = 800
DOCUMENT_LIMIT = 6000

KbName = Annotated[str, Field(
    pattern=KB_PATTERN, max_length=63, description="Knowledge base name: lower-case letters, digits, '-' or '_'.")]
DocId = Annotated[str, Field(pattern=DOC_ID_PATTERN, min_length=1, max_length=128,
                             description="Document id as listed by list_documents, e.g. 'brake-wear-1a2b3c4d'.")]
Query = Annotated[str, Field(min_length=1, max_length=500, description="What to look for, in plain words.")]


def shown(ctx: ToolContext, text: str | None) -> str:
    """A title or answer as people may see it: no links or images outside the allowed hosts, no HTML."""
    return safe_text(text or "", getattr(ctx.settings, "allowed_link_hosts", ()))


def hit_dict(hit: Any, ctx: ToolContext | None = None) -> dict[str, Any]:
    """The parts of a SearchHit the model needs, text cut to a readable length (title made safe with ``ctx``)."""
    text = " ".join((hit.text or "").split())
    return {
        "doc_id": hit.doc_id, "title": shown(ctx, hit.title) if ctx is not None else safe_text(hit.title or ""), "knowledge_base": hit.knowledge_base, "chunk_id": hit.chunk_id,
        "score": round(float(hit.score), 4), "update_date": hit.update_date or "unknown", "page": hit.page,
        "authority": getattr(hit, "authority", DEFAULT_AUTHORITY),
        "text": text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + "…",
    }


def search_knowledge_base(
    ctx: ToolContext,
    query: Query,
    kb: KbName | None = None,
    mode: Annotated[Literal["hybrid", "vector", "keyword"], Field(
        description="hybrid mixes meaning and keywords; keyword for exact codes and part numbers.")] = "hybrid",
    k: Annotated[int, Field(ge=1, le=20, description="How many passages to return (1-20).")] = 5,
    since: Annotated[date | None, Field(description="Only documents updated on or after this date.")] = None,
) -> dict[str, Any]:
    """Search the knowledge bases for passages about a query; returns the best chunks with document, date and score.

    Use it to find evidence or to check what the documents say about something. Do not use it to
    answer a whole question (answer_with_review drafts, reviews and cites an answer) or to list
    documents (list_documents). Read-only; no side effects.
    """
    from engine.store.search import make_filters

    filters = make_filters(since=since) if since else None
    hits = ctx.store.search(query, kb, mode=mode, k=k, filters=filters)
    return {"query": query, "knowledge_base": kb or "all", "results": [hit_dict(h, ctx) for h in hits]}


def get_document(ctx: ToolContext, doc_id: DocId) -> dict[str, Any]:
    """Read one document: its title, knowledge base, date and text (long texts are cut).

    Use it after search_knowledge_base or list_documents gave you a doc_id. Do not use it to find
    documents by topic (search instead). Read-only; no side effects.
    """
    info, chunks = ctx.store.get_document(doc_id)
    text = "\n\n".join(chunk["text"] for chunk in chunks)
    return {
        "doc_id": info.doc_id, "title": shown(ctx, info.title), "knowledge_base": info.knowledge_base,
        "update_date": info.update_date or "unknown", "doc_type": info.doc_type, "chunks": len(chunks),
        "text": text[:DOCUMENT_LIMIT], "truncated": len(text) > DOCUMENT_LIMIT,
    }


def list_documents(ctx: ToolContext, kb: KbName | None = None) -> dict[str, Any]:
    """List the documents in one knowledge base, or in all of them: id, title, date, type, chunk count.

    Use it to see what is indexed or to find a document's id. Do not use it to search content.
    Read-only; no side effects.
    """
    names = [kb] if kb else ctx.store.knowledge_base_names()
    bases = []
    for name in names:
        docs = ctx.store.list_documents(name)
        bases.append({"name": name, "documents": [
            {"doc_id": d.doc_id, "title": shown(ctx, d.title), "update_date": d.update_date or "unknown",
             "doc_type": d.doc_type, "chunks": d.chunks} for d in docs]})
    return {"knowledge_bases": bases}


def answer_with_review(ctx: ToolContext, question: Annotated[str, Field(min_length=1, max_length=1000)]) -> dict:
    """Answer a question from the documents through the full pipeline: retrieval, draft, review, validation.

    Returns the final answer, its status (success, refused or failure) and the cited sources. Use it
    for questions that need a checked, cited answer. Slower than search; do not use it for lookups
    of a single passage. Read-only; no side effects.
    """
    if ctx.answer is None:
        raise ToolError("The answer pipeline is not available here; use search_knowledge_base and answer from "
                        "the passages instead.")
    answer = ctx.answer(question)
    cited = sorted(cited_numbers(answer.final or ""))
    citations = []
    for n in (n for n in cited if 0 < n <= len(answer.evidence)):
        evidence = answer.evidence[n - 1]
        citations.append({"n": n, "doc_id": evidence.doc_id, "title": shown(ctx, evidence.metadata.title),
                          "knowledge_base": evidence.knowledge_base, "chunk_id": evidence.chunk_id,
                          "update_date": evidence.metadata.update_date})
    return {"question": question, "status": answer.status, "final": shown(ctx, answer.final), "citations": citations}


def calculator(expression: Annotated[str, Field(
    min_length=1, max_length=200, description="Arithmetic such as '(12.5 + 3) * 4' or 'sqrt(2) / 3'.")]) -> dict:
    """Compute an arithmetic expression exactly, instead of doing sums in your head.

    Supports numbers, + - * / // % **, parentheses, pi, e and sqrt, abs, round, min, max, floor, ceil,
    log, log10, exp. Not for unit conversion or anything but numbers. No side effects.
    """
    return {"expression": expression, "value": evaluate(expression)}


def convert_units(
    value: Annotated[float, Field(description="The number to convert, e.g. 325.")],
    from_unit: Annotated[str, Field(min_length=1, max_length=40, description="Its unit as written, e.g. 'N.m'.")],
    to_unit: Annotated[str, Field(min_length=1, max_length=40, description="The unit wanted, e.g. 'lbf.ft'.")],
    source: Annotated[str, Field(max_length=300, description="Where the value came from (a document title), "
                                 "shown with the result; empty when the person gave it.")] = "",
) -> dict[str, Any]:
    """Convert a value from one unit to another (torque N.m to lbf.ft, pressure psi to bar, °C to °F...).

    Units as documents write them are understood ('Nm', 'ft-lb', 'lb.in'). Use it after finding a
    figure in the documents, or for a figure the person gave. Fails when the units measure different
    things. No side effects.
    """
    from engine.errors import UnitError
    from engine.units import convert

    try:
        result = convert(value, from_unit, to_unit).to_dict()
    except UnitError as exc:
        raise ToolError(str(exc)) from None
    return {**result, "source": source}


def compare_values(
    ctx: ToolContext,
    entity_a: Annotated[str, Field(min_length=1, max_length=120, description="First thing to compare, e.g. 'A320'.")],
    entity_b: Annotated[str, Field(min_length=1, max_length=120, description="Second thing, e.g. 'B737'.")],
    attribute: Annotated[str, Field(min_length=1, max_length=120, description="What to compare, e.g. 'oil quantity'.")],
    kb: KbName | None = None,
) -> dict[str, Any]:
    """Compare a measurable attribute of two things: searches the documents for each and extracts the figures.

    Returns, per entity, the numbers with units found in the evidence and their sources (each with
    the source's authority, 1-5), the best-supported figure first: when sources disagree, the most
    authoritative one is preferred and the others are listed as conflicts. An entity is missing when
    no figure was found. Use it for 'compare X and Y on Z' questions. Do not use it for non-numeric
    comparisons. Read-only; no side effects.
    """
    values, missing = [], []
    for entity in (entity_a, entity_b):
        figures: list[dict[str, Any]] = []
        for hit in ctx.store.search(f"{entity} {attribute}", kb, mode="hybrid", k=8):
            for figure in relevant_figures(hit.text, entity, attribute)[:3]:
                figures.append({**figure.to_dict(), "doc_id": hit.doc_id, "title": shown(ctx, hit.title),
                                "knowledge_base": hit.knowledge_base, "chunk_id": hit.chunk_id,
                                "update_date": hit.update_date or "unknown",
                                "authority": getattr(hit, "authority", DEFAULT_AUTHORITY)})
        figures, conflicts = prefer_authority(figures)
        values.append({"entity": entity, "figures": figures[:5], "conflicts": conflicts[:5]})
        if not figures:
            missing.append(entity)
    return {"attribute": attribute, "values": values, "missing": missing}
