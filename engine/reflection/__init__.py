"""Self-reflection: a generator drafts a cited answer, a reviewer checks it, the loop corrects or refuses.

``build_reflection("offline" | "anthropic[:model]", "dual" | "single")`` gives a ready
:class:`ReflectionLoop`; ``loop.run(question, evidence, intent)`` returns a :class:`ReflectionResult`.
"""

from engine.reflection.factory import OfflineSelfReviewer, build_reflection, eval_reviewer
from engine.reflection.judge import Finding, JudgeConfig, Judgement, OfflineJudge, SupportJudge
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
from engine.reflection.offline_generate import OfflineGenerator
from engine.reflection.offline_review import OfflineReviewer
from engine.reflection.protocols import Generator, Reviewer
from engine.reflection.schema import REVIEW_SCHEMA, REVIEW_TOOL, review_from_payload, schema_errors
from engine.reflection.support import VectorCache

__all__ = [
    "Finding",
    "Generator",
    "JudgeConfig",
    "Judgement",
    "LLMGenerator",
    "LLMJudge",
    "LLMReviewer",
    "OfflineGenerator",
    "OfflineJudge",
    "OfflineReviewer",
    "OfflineSelfReviewer",
    "REVIEW_SCHEMA",
    "REVIEW_TOOL",
    "ReflectionLoop",
    "ReflectionResult",
    "Reviewer",
    "SupportJudge",
    "RoundRecord",
    "VectorCache",
    "apply_corrections",
    "build_reflection",
    "eval_reviewer",
    "refusal_message",
    "render_evidence",
    "render_review",
    "review_from_payload",
    "schema_errors",
    "usable_corrections",
]
