"""Self-reflection: a generator drafts a cited answer, a reviewer checks it, the loop corrects or refuses.

``engine.assemble.build_reflection("offline" | "anthropic[:model]", "dual" | "single")`` gives a ready
:class:`ReflectionLoop`; ``loop.run(question, evidence, intent)`` returns a :class:`ReflectionResult`. This package
holds the loop, the protocols, the review schema, the LLM parts and injection handling; the offline parts are in
``engine.offline``.
"""

from engine.reflection.judgement import Finding, Judgement, SupportJudge
from engine.reflection.llm import LLMGenerator, LLMReviewer, render_evidence, render_review
from engine.reflection.llm_judge import LLMJudge
from engine.reflection.loop import (
    ReflectionLoop,
    ReflectionResult,
    RoundRecord,
    apply_corrections,
    refusal_message,
    usable_corrections,
)
from engine.reflection.protocols import AnswerabilityJudge, Generator, Reviewer
from engine.reflection.schema import REVIEW_SCHEMA, REVIEW_TOOL, review_from_payload, schema_errors

__all__ = [
    "AnswerabilityJudge",
    "Finding",
    "Generator",
    "Judgement",
    "LLMGenerator",
    "LLMJudge",
    "LLMReviewer",
    "REVIEW_SCHEMA",
    "REVIEW_TOOL",
    "ReflectionLoop",
    "ReflectionResult",
    "Reviewer",
    "RoundRecord",
    "SupportJudge",
    "apply_corrections",
    "refusal_message",
    "render_evidence",
    "render_review",
    "review_from_payload",
    "schema_errors",
    "usable_corrections",
]
