"""An ask as it happens: stage start and finish with timings, the draft as it is written, each review, the usage.

The parts are stand-ins so the events do not depend on what the answer says: a generator that
writes in one go (as the offline one does: the loop reports it sentence by sentence), a scripted
Claude that cites its search results, and an answerability check that always lets the question through.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import load_settings
from engine.llm.base import ChatResponse, Citation, TextBlock, Usage
from engine.llm.capabilities import ModelCapabilities
from engine.llm.scripted import ScriptedProvider
from engine.llm.usage import usage_of
from engine.pipeline import Pipeline
from engine.pipeline.events import stream_answer
from engine.pipeline.options import AskOptions
from engine.reflection import LLMGenerator, LLMReviewer, ReflectionLoop
from engine.results import Answerability, AnswerFocus, Review
from tests.ui.conftest import SAMPLE_QUESTION, build_small_store

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WRITTEN = "The axle nut torque is given in the AMM [1]. It was changed in Rev 12 [1]. Use the current revision [1]."
STAGES = ("perception", "orchestration", "retrieval", "answerability", "reflection", "validation")


class Answerable:
    """Lets every question through to drafting."""

    def prepare(self, question: str) -> None:
        return None

    def run(self, question, intent, evidence, known_vectors=None, **options) -> Answerability:
        return Answerability(verdict="answerable", focus=AnswerFocus(answer_type="value"), reason="stand-in")


class WritesInOneGo:
    """A generator without streaming of its own (like the offline one)."""

    name = "one-go"

    def draft(self, question, evidence, intent, *context) -> str:
        return WRITTEN

    def revise(self, question, evidence, answer, review) -> str:
        return answer


class Accepts:
    name = "accepts"

    def review(self, question, evidence, answer) -> Review:
        return Review(valid=True, confidence=0.97)


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Any:
    return build_small_store(tmp_path_factory.mktemp("streamed"))


def pipeline_over(store_dir, **parts) -> Pipeline:
    return Pipeline(load_settings(data_dir=store_dir), answerability=Answerable(), **parts)


def test_each_stage_reports_its_start_and_finish_and_the_draft_streams_sentence_by_sentence(store_dir):
    pipeline = pipeline_over(store_dir, reflection_factory=lambda *a, **k: ReflectionLoop(WritesInOneGo(), Accepts()))
    events: list[tuple[str, dict]] = []

    answer = pipeline.run(SAMPLE_QUESTION, AskOptions(provider="offline"), progress=lambda s, i: events.append((s, i)))

    assert answer.status == "success", answer.final
    started = [i["stage"] for s, i in events if s == "stage_started"]
    finished = [(i["stage"], i["ms"]) for s, i in events if s == "stage_finished"]
    assert [s for s in started if s in STAGES] == list(STAGES) and len(started) == len(finished)
    assert all(ms >= 0 for _, ms in finished)
    assert round(sum(ms for stage, ms in finished if stage == "retrieval"), 0) == round(answer.timings["retrieval"], 0)
    deltas = [i["text"] for s, i in events if s == "draft_delta"]
    assert len(deltas) == 3 and "".join(deltas) == WRITTEN  # one per sentence, in order, nothing lost
    kinds = [s for s, _ in events]
    assert kinds.index("draft_done") < kinds.index("review") < kinds.index("validation") < kinds.index("done")
    assert [i["round"] for s, i in events if s == "review"] == [1]
    usage = usage_of(answer)
    assert usage.total.calls == 0 and usage.total.cost_usd == 0.0 and usage.prices_as_of


def test_a_claude_ask_keeps_its_citations_checks_them_and_records_the_cost_per_stage(store_dir):
    def cite_first_result(messages, request) -> ChatResponse:
        first = messages[0]["content"][0]
        assert first["type"] == "search_result" and first["citations"] == {"enabled": True}
        passage = first["content"][-1]["text"]
        return ChatResponse((TextBlock("The documents give this figure", citations=(Citation(0, passage),)),
                             TextBlock(".")), "end_turn", Usage(1500, 40, cache_creation_input_tokens=900),
                            "claude-sonnet-5-5")

    review = ChatResponse((TextBlock('{"valid": true, "issues": [], "corrections": [], "confidence": 0.95, '
                                     '"reasoning": "ok"}'),), "end_turn", Usage(1200, 30), "claude-haiku-5-5")
    claude = ScriptedProvider([cite_first_result, review], name="anthropic",
                              capabilities=ModelCapabilities(json_output=True, citations=True, prompt_caching=True))
    pipeline = pipeline_over(store_dir, provider=claude)

    answer = pipeline.run(SAMPLE_QUESTION, AskOptions(generator_model="claude-sonnet-5-5",
                                                      reviewer_model="claude-haiku-5-5"))

    assert answer.draft == "The documents give this figure [1]."
    (cited,) = answer.extra["citations"]
    assert cited["n"] == 1 and cited["chunk_id"] == answer.evidence[0].chunk_id
    assert cited["cited_text"] in answer.evidence[0].text
    assert not [i for i in answer.validation.issues if "cited as" in i.message]
    usage = usage_of(answer)
    assert list(usage.stages) == ["draft", "review"] and usage.stages["draft"].cache_write_tokens == 900
    assert usage.stages["draft"].cost_usd == pytest.approx((1500 * 2 + 900 * 2.5 + 40 * 10) / 1e6)
    assert usage.total.cost_usd == pytest.approx(usage.stages["draft"].cost_usd + (1200 * 0.10 + 30 * 0.50) / 1e6)
    stored = pipeline.traces.get(answer.trace_id)
    assert usage_of(stored) == usage and stored["extra"]["citations"] == answer.extra["citations"]


def test_a_citation_whose_passage_is_not_in_its_chunk_fails_validation(store_dir):
    made_up = ChatResponse((TextBlock("It is 999 N.m", citations=(Citation(0, "The torque is 999 N.m."),)),
                            TextBlock(".")), "end_turn", Usage(10, 5), "claude-sonnet-5-5")
    review = ChatResponse((TextBlock('{"valid": true, "issues": [], "corrections": [], "confidence": 0.95, '
                                     '"reasoning": "ok"}'),), "end_turn", Usage(10, 5), "claude-haiku-5-5")
    claude = ScriptedProvider([made_up, review, made_up, review], name="anthropic",
                              capabilities=ModelCapabilities(json_output=True, citations=True))
    answer = pipeline_over(store_dir, provider=claude).run(SAMPLE_QUESTION, AskOptions(validation_retries=0))

    assert answer.status == "refused"
    assert any("does not occur in that evidence" in i.message for i in answer.validation.issues)


def test_stream_answer_yields_the_events_then_the_answer(store_dir):
    pipeline = pipeline_over(store_dir, reflection_factory=lambda *a, **k: ReflectionLoop(WritesInOneGo(), Accepts()))

    events = list(stream_answer(pipeline.run, SAMPLE_QUESTION, AskOptions(provider="offline")))

    kinds = [e.kind for e in events]
    assert kinds[0] == "stage_started" and events[0].data == {"stage": "perception"}
    assert kinds[-1] == "answer" and events[-1].data["answer"].status == "success"
    assert {"stage_finished", "draft_delta", "draft_done", "review"} <= set(kinds)
    review = next(e for e in events if e.kind == "review").data
    assert review == {"round": 1, "valid": True, "confidence": 0.97, "issues": []}


def test_a_run_that_breaks_ends_the_stream_with_an_error_event():
    def broken(question, options, progress):
        progress("stage_started", {"stage": "perception"})
        raise RuntimeError("boom")

    events = list(stream_answer(broken, "q"))
    assert [e.kind for e in events] == ["stage_started", "error"]
    assert events[-1].data == {"error": "Internal error (RuntimeError); see the trace."}


def test_a_model_generator_reads_the_evidence_when_the_offline_reader_doubts_its_value(store_dir):
    """With the shipped reader at a target no candidate reaches, the offline path refuses; a Claude ask over the same
    evidence is drafted and reviewed, and the verdict says why it was let through."""
    def writes(messages, request) -> ChatResponse:
        passage = messages[0]["content"][0]["content"][-1]["text"]
        return ChatResponse((TextBlock("The documents give this figure", citations=(Citation(0, passage),)),
                             TextBlock(".")), "end_turn", Usage(100, 10), "claude-sonnet-5-5")

    review = ChatResponse((TextBlock('{"valid": true, "issues": [], "corrections": [], "confidence": 0.95, '
                                     '"reasoning": "ok"}'),), "end_turn", Usage(100, 10), "claude-haiku-5-5")
    claude = ScriptedProvider([writes, review], name="anthropic",
                              capabilities=ModelCapabilities(json_output=True, citations=True))
    settings = load_settings(data_dir=store_dir, answer_accuracy=0.95)
    offline = Pipeline(settings).run(SAMPLE_QUESTION, AskOptions(provider="offline"))
    judged = offline.answerability
    assert offline.status == "refused" and judged.verdict == "unanswerable" and "not sure enough" in judged.reason
    answer = Pipeline(settings, provider=claude).run(SAMPLE_QUESTION, AskOptions(generator_model="claude-sonnet-5-5",
                                                                                 reviewer_model="claude-haiku-5-5"))
    assert answer.answerability.verdict == "answerable" and "the model reads it" in answer.answerability.reason
    assert answer.draft == "The documents give this figure [1]." and answer.reviews


def test_a_model_generator_is_still_refused_when_no_document_names_the_subject(store_dir):
    claude = ScriptedProvider([], name="anthropic", capabilities=ModelCapabilities(json_output=True, citations=True))
    answer = Pipeline(load_settings(data_dir=store_dir), provider=claude).run(
        "Who is the captain of the Pequod in Moby-Dick?", AskOptions())
    assert answer.status == "refused" and answer.answerability.verdict == "unanswerable"
    assert "Pequod" in answer.answerability.reason and claude.calls == []
