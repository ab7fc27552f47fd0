"""Request bodies of the API; each field says what it takes, and anything else is refused with a 422."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.orchestration.strategy import Strategy
from engine.store.schema import DOC_ID, KB_NAME

KbName = Annotated[str, Field(pattern=KB_NAME.pattern, max_length=63,
                              description="knowledge base: 1-63 lower-case letters, digits, '-' or '_'")]
DocId = Annotated[str, Field(pattern=DOC_ID.pattern, max_length=128, description="document id, as listed")]
MAX_QUESTION = 5000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _words(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain some words, not only spaces")
    return value


class AskRequest(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"question": "What is the final torque of the A320 axle nut?", "knowledge_bases": ["manuals"]}
    ]})

    question: str = Field(min_length=1, max_length=MAX_QUESTION, description="the question, in plain words")
    knowledge_bases: list[KbName] | None = Field(
        default=None, max_length=50, description="bases to search; absent or empty: the strategy routes over every "
        "base you may read")
    reflection: bool = Field(default=True, description="review and revise the draft (false: draft only)")
    mode: Literal["dual", "single"] = Field(default="dual", description="separate reviewer, or self-review")
    max_rounds: int = Field(default=2, ge=0, le=6, description="review/revise rounds before refusing")
    previous_question: str | None = Field(default=None, max_length=MAX_QUESTION,
                                          description="the question asked before, for follow-ups")
    target_accuracy: float | None = Field(
        default=None, ge=0, lt=1, description="answered accuracy the offline answer aims for (absent: the server's "
        "answer_accuracy setting; higher: fewer, surer answers; 0: the best candidate whatever its confidence)")

    _question = field_validator("question")(_words)


class RagRequest(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"query": "What is the final torque of the A320 axle nut?"}
    ]})

    query: str = Field(min_length=1, max_length=MAX_QUESTION, description="the question")
    target_accuracy: float | None = Field(
        default=None, ge=0, lt=1, description="as for /v1/ask: the answered accuracy the offline answer aims for")

    _query = field_validator("query")(_words)


PassageText = Annotated[str, Field(min_length=1, max_length=20_000)]


class Passage(_Body):
    text: PassageText
    title: str | None = Field(default=None, max_length=300)


class ReviewRequest(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"question": "What is the final torque?", "passages": ["The final torque is 325 N.m."],
         "answer": "The final torque is 150 N.m."}
    ]})

    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    passages: list[PassageText | Passage] = Field(min_length=1, max_length=50,
                                                  description="the evidence, numbered [1]..[n] in this order")
    answer: str = Field(min_length=1, max_length=20_000, description="the answer to check against the passages")

    _question = field_validator("question", "answer")(_words)


class SearchRequest(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"query": "axle nut torque", "k": 5}
    ]})

    query: str = Field(min_length=1, max_length=2000)
    knowledge_bases: list[KbName] | None = Field(default=None, max_length=50)
    mode: Literal["hybrid", "vector", "keyword"] = "hybrid"
    k: int = Field(default=10, ge=1, le=100)

    _query = field_validator("query")(_words)


class AgentRunRequest(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"request": "list the documents in manuals"}
    ]})

    request: str = Field(min_length=1, max_length=4000, description="what the agent should do, in plain words")

    _request = field_validator("request")(_words)


class StrategyUpdate(_Body):
    strategy: Strategy = Field(description="the whole strategy; saved as a new version")
    note: str = Field(default="", max_length=500, description="why it changed")
    activate: bool = Field(default=True, description="make the new version the active one")


class TitleUpdate(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"title": "A320 AMM 32-41-11 Main Landing Gear Wheel (Rev 12)"}
    ]})

    title: str = Field(min_length=1, max_length=300, description="the document's title, as search results show it")

    _title = field_validator("title")(_words)
