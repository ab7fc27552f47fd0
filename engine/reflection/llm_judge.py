"""A support judge over any Provider: the model fills ``submit_judgement`` for one statement.

The judgement schema goes as structured outputs or as a tool, whichever the model accepts
(:func:`~engine.llm.structured.structured_call`); a refused, cut-off or malformed judgement is
"not supported".

Use it in place of the offline judge, keeping the rest of the offline reviewer (citations,
absolute wording, superseded revisions, relevance)::

    OfflineReviewer(judge=LLMJudge(get_provider("anthropic"), "claude-haiku-5-5"))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import prompts
from engine.llm.base import Provider, ToolSpec
from engine.llm.errors import UnusableReplyError
from engine.llm.structured import structured_call
from engine.reflection.judgement import Judgement
from engine.language.citations import strip_citations
from engine.language.tokens import normalise_phrase

JUDGEMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["supported", "score", "best", "reasons"],
    "properties": {
        "supported": {"type": "boolean", "description": "true when the evidence states the statement"},
        "score": {"type": "number", "minimum": 0, "maximum": 1,
                  "description": "how strongly the evidence backs the statement"},
        "best": {"type": "string", "description": "the evidence sentence that matches best, quoted exactly"},
        "reasons": {"type": "array", "items": {"type": "string"},
                    "description": "why the statement is not supported (empty when it is)"},
    },
}

JUDGE_TOOL = ToolSpec(
    name="submit_judgement",
    description="Submit whether the evidence backs the statement, a score in [0, 1], the best-matching "
                "evidence sentence and the reasons it is not supported.",
    input_schema=JUDGEMENT_SCHEMA,
    strict=True,
)


class LLMJudge:
    """Judges one statement at a time with a chat model; unusable output is a "not supported" judgement."""

    def __init__(self, provider: Provider, model: str | None = None, *, max_tokens: int = 512,
                 threshold: float = 0.5) -> None:
        if not callable(getattr(provider, "chat", None)):
            raise TypeError(f"provider must implement chat(); got {type(provider).__name__}")
        if max_tokens < 64:
            raise ValueError("max_tokens must be at least 64")
        if not 0 < threshold < 1:
            raise ValueError("threshold must be in (0, 1)")
        self.provider = provider
        self.model = model
        self.max_tokens = max_tokens
        self.threshold = threshold

    @property
    def name(self) -> str:
        prefix = str(getattr(self.provider, "name", type(self.provider).__name__)).split(":")[0]
        return f"{prefix}:{self.model}" if self.model else prefix

    def judge(self, statement: str, evidence_sentences: Sequence[str]) -> Judgement:
        """The model's verdict on ``statement`` against ``evidence_sentences``."""
        sentences = [s for s in dict.fromkeys(evidence_sentences) if s and s.strip()]
        if not sentences:
            return Judgement(False, 0.0, "", ("There is no evidence to check this statement against.",))
        evidence = "\n".join(f"[{n}] {s.replace('</evidence', '&lt;/evidence')}" for n, s in enumerate(sentences, 1))
        prompt = prompts.get("judge.statement").render(statement=strip_citations(statement), evidence=evidence)
        try:
            payload = structured_call(
                self.provider,
                [{"role": "user", "content": prompt}],
                system=prompts.get("judge.system").render(),
                tool=JUDGE_TOOL,
                max_tokens=self.max_tokens,
                model=self.model,
            )
        except UnusableReplyError as exc:
            return Judgement(False, 0.0, "", (f"the judge's output was not usable: {exc}",))
        best = _quoted(str(payload["best"]), sentences)
        reasons = tuple(str(r) for r in payload["reasons"] if str(r).strip())
        return Judgement(bool(payload["supported"]), float(payload["score"]), best, reasons)


def _quoted(best: str, sentences: list[str]) -> str:
    """The evidence sentence the model quoted (matched loosely), or "" when it quoted none of them."""
    wanted = normalise_phrase(best)
    if not wanted:
        return ""
    return next((s for s in sentences if normalise_phrase(s) == wanted), "") or next(
        (s for s in sentences if wanted in normalise_phrase(s)), "")
