"""Generator and reviewer over any Provider: prompts from engine.prompts, review JSON from a structured call.

A draft the model refused or that stopped at ``max_tokens`` raises (an EngineError the pipeline
shows); a review that was refused, cut off or malformed becomes a failed ``format`` review, so the
loop never accepts an answer on a review it could not read.

What each request looks like follows what the model accepts (:mod:`engine.llm.capabilities`):

- a model that cites search results itself (Claude) gets the evidence as ``search_result`` blocks
  and attaches its own citations, which become the answer's [n] markers
  (:mod:`engine.reflection.citing`); any other gets numbered ``<document>`` text and types [n];
- a model with prompt caching gets a cache breakpoint at the end of the stable prefix: the
  evidence, shared by the draft and every revision, and the question with the documents, shared by
  every review round of an ask.

Drafts and revisions stream when the provider can (:func:`engine.llm.streaming.stream_chat`); every
call's tokens go to the part's :class:`~engine.llm.usage.UsageMeter` under its stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engine import prompts
from engine.llm.base import ChatResponse, Provider
from engine.llm.capabilities import capabilities_of
from engine.llm.errors import UnusableReplyError
from engine.llm.replies import check_complete
from engine.llm.streaming import OnEvent, stream_chat
from engine.llm.structured import structured_call
from engine.llm.usage import UsageMeter
from engine.reflection.citing import CACHE_BREAKPOINT, CitedSpan, cited_answer, search_results
from engine.reflection.injection import with_injection_issues
from engine.reflection.schema import REVIEW_TOOL, format_failure, review_from_payload
from engine.results import Evidence, Intent, Review


@dataclass(frozen=True)
class Drafted:
    """An answer as written: its text with [n] markers, and the passages the model cited (Claude's citations)."""

    text: str
    citations: tuple[CitedSpan, ...] = ()


def render_evidence(evidence: Sequence[Evidence]) -> str:
    """Evidence numbered [1]..[n] with title, date and authority, each wrapped as untrusted document text."""
    if not evidence:
        return "(no documents)"
    template = prompts.get("evidence.document")
    parts = []
    for number, item in enumerate(evidence, start=1):
        meta = item.metadata
        parts.append(template.render(
            index=number,
            title=_attribute(meta.title or item.doc_id),
            date=meta.update_date.isoformat() if meta.update_date else "unknown",
            authority=meta.authority,
            source=_attribute(meta.source or meta.file_name or item.knowledge_base),
            text=item.text.replace("</document", "&lt;/document").strip(),
        ))
    return "\n\n".join(parts)


def render_intent(intent: Intent) -> str:
    """A one-line summary of what the question asks for."""
    parts = [f"action={intent.action}"]
    if intent.entities:
        parts.append("entities=" + ", ".join(intent.entity_texts))
    c = intent.constraints
    if c.time:
        window = f"{c.time.start or '…'} to {c.time.end or '…'}"
        parts.append(f"time={c.time.text!r} ({window})")
    if c.source:
        parts.append(f"source={c.source}")
    if c.quantitative:
        parts.append(f"quantity={c.quantitative.kind} ({c.quantitative.text!r})")
    return "; ".join(parts)


def render_review(review: Review) -> str:
    """A review as feedback text for the generator."""
    lines = [f"valid={str(review.valid).lower()}, confidence={review.confidence:.2f}"]
    for issue in review.issues:
        where = f" at {issue.location!r}" if issue.location else ""
        lines.append(f"- {issue.type}{where}: {issue.description}")
    for fix in review.corrections:
        lines.append(f"- suggested {fix.type} correction: {fix.original!r} -> {fix.corrected!r}")
    if review.reasoning:
        lines.append(f"Reviewer's reasoning: {review.reasoning}")
    return "\n".join(lines)


def _attribute(value: str) -> str:
    return str(value).replace('"', "'").replace("\n", " ").strip()


def _part_name(provider: Provider, model: str | None) -> str:
    prefix = str(getattr(provider, "name", type(provider).__name__))
    return f"{prefix.split(':')[0]}:{model}" if model else prefix


def _check_provider(provider: Provider) -> None:
    if not callable(getattr(provider, "chat", None)):
        raise TypeError(f"provider must implement chat(); got {type(provider).__name__}")


class LLMGenerator:
    """Drafts and revises cited answers with a chat model."""

    def __init__(self, provider: Provider, model: str | None = None, *, max_tokens: int = 1024,
                 meter: UsageMeter | None = None) -> None:
        _check_provider(provider)
        if max_tokens < 64:
            raise ValueError("max_tokens must be at least 64")
        self.provider = provider
        self.model = model
        self.max_tokens = max_tokens
        self.meter = meter if meter is not None else UsageMeter()

    @property
    def name(self) -> str:
        """``provider:model`` (or the provider's name when no model is set)."""
        return _part_name(self.provider, self.model)

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """A first answer with [n] citations.

        Raises ModelRefusalError or OutputCutOffError when the model declined or stopped at max_tokens.
        """
        return self.compose(question, evidence, intent).text

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """The answer rewritten with the review as feedback (raises as :meth:`draft` does)."""
        return self.rewrite(question, evidence, answer, review).text

    def compose(self, question: str, evidence: Sequence[Evidence], intent: Intent,
                on_event: OnEvent | None = None) -> Drafted:
        """:meth:`draft` with the passages cited, streaming each event of the reply to ``on_event``."""
        capabilities = capabilities_of(self.provider, self.model)
        if capabilities.citations:
            ask = prompts.get("generator.draft_cited").render(question=question, intent=render_intent(intent))
            content = [*search_results(evidence, cache=capabilities.prompt_caching), {"type": "text", "text": ask}]
            return self._ask(content, "generator.system_cited", "draft", "writing the draft answer", on_event,
                             evidence)
        prompt = prompts.get("generator.draft").render(
            question=question, intent=render_intent(intent), evidence=render_evidence(evidence))
        return self._ask(prompt, "generator.system", "draft", "writing the draft answer", on_event, evidence)

    def rewrite(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review,
                on_event: OnEvent | None = None) -> Drafted:
        """:meth:`revise` with the passages cited, streaming as :meth:`compose` does."""
        capabilities = capabilities_of(self.provider, self.model)
        if capabilities.citations:
            ask = prompts.get("generator.revise_cited").render(question=question, answer=answer,
                                                               review=render_review(review))
            content = [*search_results(evidence, cache=capabilities.prompt_caching), {"type": "text", "text": ask}]
            return self._ask(content, "generator.system_cited", "revise", "revising the answer", on_event, evidence)
        prompt = prompts.get("generator.revise").render(
            question=question, evidence=render_evidence(evidence), answer=answer, review=render_review(review))
        return self._ask(prompt, "generator.system", "revise", "revising the answer", on_event, evidence)

    def _ask(self, content: str | list, system: str, stage: str, task: str, on_event: OnEvent | None,
             evidence: Sequence[Evidence]) -> Drafted:
        response = stream_chat(
            self.provider, [{"role": "user", "content": content}], on_event=on_event,
            system=prompts.get(system).render(), max_tokens=self.max_tokens, model=self.model,
        )
        self._record(stage, response)
        check_complete(response, source=self.name, task=task, max_tokens=self.max_tokens)
        if isinstance(content, list):
            text, cited = cited_answer(response, evidence)
            return Drafted(text, cited)
        return Drafted(response.text.strip())

    def _record(self, stage: str, response: ChatResponse) -> None:
        self.meter.record(stage, response.model or self.model or "", response.usage)


class LLMReviewer:
    """Reviews answers with a chat model that fills the strict review schema (``submit_review``).

    The schema goes as structured outputs or as a tool, whichever the model accepts
    (:func:`~engine.llm.structured.structured_call`).

    ``require_citations=False`` is for answers written without [n] markers: each statement is
    then judged against all the evidence and missing citations are not an issue.
    """

    def __init__(
        self, provider: Provider, model: str | None = None, *, max_tokens: int = 2048, require_citations: bool = True,
        meter: UsageMeter | None = None,
    ) -> None:
        _check_provider(provider)
        if max_tokens < 256:
            raise ValueError("max_tokens must be at least 256 to leave room for the review")
        self.provider = provider
        self.model = model
        self.max_tokens = max_tokens
        self.require_citations = require_citations
        self.meter = meter if meter is not None else UsageMeter()

    @property
    def name(self) -> str:
        """``provider:model`` (or the provider's name when no model is set)."""
        return _part_name(self.provider, self.model)

    def review(self, question: str, evidence: Sequence[Evidence], answer: str) -> Review:
        """The model's review; a refusal, a cut-off review and output that fails the schema become a format issue."""
        if self.require_citations:
            rule = prompts.get("reviewer.citation_required").render(count=len(evidence))
        else:
            rule = prompts.get("reviewer.citation_optional").render()
        documents = prompts.get("reviewer.documents").render(question=question, evidence=render_evidence(evidence))
        rest = prompts.get("reviewer.review").render(answer=answer, citation_rule=rule)
        if capabilities_of(self.provider, self.model).prompt_caching:
            content: str | list = [{"type": "text", "text": documents, "cache_control": dict(CACHE_BREAKPOINT)},
                                   {"type": "text", "text": rest}]
        else:
            content = f"{documents}\n\n{rest}"
        try:
            payload = structured_call(
                self.provider,
                [{"role": "user", "content": content}],
                system=prompts.get("reviewer.system").render(),
                tool=REVIEW_TOOL,
                max_tokens=self.max_tokens,
                validate=False,
                model=self.model,
                on_response=self._record,
            )
        except UnusableReplyError as exc:
            return with_injection_issues(format_failure(str(exc)), evidence, answer)
        return with_injection_issues(review_from_payload(payload), evidence, answer)

    def _record(self, response: ChatResponse) -> None:
        self.meter.record("review", response.model or self.model or "", response.usage)

