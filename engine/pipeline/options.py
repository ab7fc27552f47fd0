"""Options for one pipeline run."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AskOptions(BaseModel):
    """How to answer one question; every field has a sensible default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    knowledge_bases: tuple[str, ...] | None = Field(default=None, description="None: the strategy routes over all")
    reflection: bool = True
    mode: Literal["dual", "single"] = "dual"
    max_rounds: int = Field(default=2, ge=0, le=6)
    threshold: float = Field(default=0.9, ge=0, le=1)
    provider: str | None = Field(default=None, description="provider id; None: anthropic with a key, else offline")
    generator_model: str | None = None
    reviewer_model: str | None = None
    strategy_version: str | None = Field(default=None, description="None: the active version")
    validation_retries: int = Field(default=1, ge=0, le=3)
    rollout_bucket: str | None = Field(default=None, description="set by experiments: which arm this run was in")
    when_ambiguous: Literal["caveat", "refuse"] = Field(
        default="caveat",
        description="when the evidence only partly answers the question: answer with the caveat stated, or refuse",
    )
    target_accuracy: float | None = Field(
        default=None, ge=0, lt=1,
        description="answered accuracy the offline answer selector aims for (None: the answer_accuracy setting; "
                    "0: answer with the best candidate whatever its confidence)",
    )
    user: str | None = Field(default=None, max_length=200,
                             description="who asked (recorded in the trace; traces are shown to the user who asked)")
    previous_question: str | None = Field(
        default=None, max_length=5000,
        description="the question asked just before in this session; a follow-up such as 'And on the 737?' is "
                    "read against it",
    )
