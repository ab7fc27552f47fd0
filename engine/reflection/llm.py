"""Generator and reviewer over any Provider: prompts from engine.prompts, review JSON from a structured call.

A draft the model refused or that stopped at ``max_tokens`` raises (an EngineError the pipeline
shows); a review that was refused, cut off or malformed becomes a failed ``format`` review, so the
loop never accepts an answer on a review it could not read.
"""

from __future__ import annotations

from typing import Sequence

from engine import prompts
from engine.llm.base import Provider
from engine.llm.errors import UnusableReplyError
from engine.llm.replies import check_complete
from engine.llm.structured import structured_call
from engine.reflection.injection import with_injection_issues
from engine.reflection.schema import REVIEW_TOOL, format_failure, review_from_payload
from engine.results import Evidence, Intent, Review


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

    def __init__(self, provider: Provider, model: str | None = None, *, max_tokens: int = 1024) -> None:
        _check_provider(provider)
        if max_tokens < 64:
            raise ValueError("max_tokens must be at least 64")
        self.provider = provider
        self.model = model
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        """``provider:model`` (or the provider's name when no model is set)."""
        return _part_name(self.provider, self.model)

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """A first answer with [n] citations.

        Raises ModelRefusalError or OutputCutOffError when the model declined or stopped at max_tokens.
        """
        prompt = prompts.get("generator.draft").render(
            question=question, intent=render_intent(intent), evidence=render_evidence(evidence))
        return self._ask(prompt, "writing the draft answer")

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """The answer rewritten with the review as feedback (raises as :meth:`draft` does)."""
        prompt = prompts.get("generator.revise").render(
            question=question, evidence=render_evidence(evidence), answer=answer, review=render_review(review))
        return self._ask(prompt, "revising the answer")

    def _ask(self, prompt: str, task: str) -> str:
        response = self.provider.chat(
            [{"role": "user", "content": prompt}],
            system=prompts.get("generator.system").render(),
            max_tokens=self.max_tokens,
            model=self.model,
        )
        check_complete(response, source=self.name, task=task, max_tokens=self.max_tokens)
        return response.text.strip()


class LLMReviewer:
    """Reviews answers with a chat model that fills the strict review schema (``submit_review``).

    The schema goes as structured outputs or as a tool, whichever the model accepts
    (:func:`~engine.llm.structured.structured_call`).

    ``require_citations=False`` is for answers written without [n] markers: each statement is
    then judged against all the evidence and missing citations are not an issue.
    """

    def __init__(
        self, provider: Provider, model: str | None = None, *, max_tokens: int = 2048, require_citations: bool = True
    ) -> None:
        _check_provider(provider)
        if max_tokens < 256:
            raise ValueError("max_tokens must be at least 256 to leave room for the review")
        self.provider = provider
        self.model = model
        self.max_tokens = max_tokens
        self.require_citations = require_citations

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
        prompt = prompts.get("reviewer.review").render(
            question=question, evidence=render_evidence(evidence), answer=answer, citation_rule=rule)
        try:
            payload = structured_call(
                self.provider,
                [{"role": "user", "content": prompt}],
                system=prompts.get("reviewer.system").render(),
                tool=REVIEW_TOOL,
                max_tokens=self.max_tokens,
                validate=False,
                model=self.model,
            )
        except UnusableReplyError as exc:
            return with_injection_issues(format_failure(str(exc)), evidence, answer)
        return with_injection_issues(review_from_payload(payload), evidence, answer)
