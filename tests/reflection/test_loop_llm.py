"""The review loop with LLM generator and reviewer on scripted providers: accept, correct, revise, refuse."""

from __future__ import annotations

import json

import pytest

from engine.errors import ConfigError, EngineError, MissingKeyError
from engine.llm.base import ChatResponse, Refusal, TextBlock, ToolUseBlock
from engine.llm.capabilities import ModelCapabilities
from engine.llm.errors import ModelRefusalError, OutputCutOffError
from engine.llm.scripted import ScriptedProvider
from engine.assemble import OfflineSelfReviewer, build_reflection
from engine.offline.generator import OfflineGenerator
from engine.offline.reviewer import OfflineReviewer
from engine.reflection import LLMGenerator, LLMReviewer, REVIEW_SCHEMA, ReflectionLoop
from engine.assemble import eval_reviewer
from tests.reflection.builders import AMM_REV12, BRAKE_PIN, intent

pytestmark = pytest.mark.unit

EVIDENCE = (AMM_REV12, BRAKE_PIN)
QUESTION = "What torque for the A320 axle nut?"
INTENT = intent(QUESTION)


def review(valid=True, confidence=0.95, issues=(), corrections=()):
    return {"tool_use": {"name": "submit_review", "input": {
        "valid": valid, "issues": list(issues), "corrections": list(corrections), "confidence": confidence,
        "reasoning": "checked"}}}


def issue(kind="fact", description="120 lbf.ft is not what [1] says",
          location="Torque the axle nut to 120 lbf.ft [1]."):
    return {"type": kind, "description": description, "location": location}


def loop(gen_replies, rev_replies, **kw):
    gen, rev = ScriptedProvider(gen_replies, name="gen"), ScriptedProvider(rev_replies, name="rev")
    return ReflectionLoop(LLMGenerator(gen, "gen-model"), LLMReviewer(rev, "rev-model"), **kw), gen, rev


def test_accept_a_valid_confident_review():
    reflection, gen, rev = loop(["Torque the axle nut to 150 lbf.ft [1]."], [review()])
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "success" and result.iterations == 0
    assert result.final == result.draft == "Torque the axle nut to 150 lbf.ft [1]."
    assert [r.action for r in result.rounds] == ["accepted"]
    assert set(result.timings) == {"draft", "review", "revise"}
    prompt = gen.calls[0]["messages"][0]["content"]
    assert '<document index="1"' in prompt and '<document index="2"' in prompt and "untrusted" in prompt
    assert "A320 AMM 32-41-11 MLG wheel (Rev 12)" in prompt and 'date="2025-03-01"' in prompt
    assert gen.calls[0]["model"] == "gen-model" and gen.calls[0]["tools"] == []


def test_reviewer_call_forces_the_strict_review_tool():
    reflection, gen, rev = loop(["Torque the axle nut to 150 lbf.ft [1]."], [review()])
    reflection.run(QUESTION, EVIDENCE, INTENT)
    call = rev.calls[0]
    assert call["tool_choice"] == {"type": "tool", "name": "submit_review"}
    assert call["tools"] == [{"name": "submit_review", "description": call["tools"][0]["description"],
                              "input_schema": REVIEW_SCHEMA, "strict": True}]
    assert call["model"] == "rev-model"
    assert "Torque the axle nut to 150 lbf.ft [1]." in call["messages"][0]["content"]


def test_correct_applies_corrections_without_asking_the_generator():
    fix = {"type": "fact", "original": "120 lbf.ft", "corrected": "150 lbf.ft"}
    reflection, gen, rev = loop(["Torque the axle nut to 120 lbf.ft [1]."],
                                [review(False, 0.3, [issue()], [fix]), review()])
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "success" and result.iterations == 1
    assert result.final == result.revised == "Torque the axle nut to 150 lbf.ft [1]."
    assert [r.action for r in result.rounds] == ["corrected", "accepted"]
    assert result.rounds[0].applied_corrections[0].corrected == "150 lbf.ft"
    assert len(gen.calls) == 1 and len(rev.calls) == 2
    assert rev.calls[1]["messages"][0]["content"].count("150 lbf.ft [1]") == 1


def test_revise_when_no_correction_applies_sends_the_review_to_the_generator():
    stale = {"type": "fact", "original": "not in the answer", "corrected": "x"}
    reflection, gen, rev = loop(
        ["Torque the axle nut to 120 lbf.ft [1].", "Torque the axle nut to 150 lbf.ft [1]."],
        [review(False, 0.3, [issue(description="figure contradicts evidence [1]")], [stale]), review()])
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert [r.action for r in result.rounds] == ["revised", "accepted"]
    assert result.final == "Torque the axle nut to 150 lbf.ft [1]."
    prompt = gen.calls[1]["messages"][0]["content"]
    assert "figure contradicts evidence [1]" in prompt and "Torque the axle nut to 120 lbf.ft [1]." in prompt
    assert "'not in the answer' -> 'x'" in prompt


def test_valid_but_unconfident_review_is_not_accepted():
    reflection, gen, rev = loop(["A [1].", "B [1]."], [review(True, 0.5), review(True, 0.92)], threshold=0.9)
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert [r.action for r in result.rounds] == ["revised", "accepted"] and result.final == "B [1]."


def test_refuse_after_max_rounds_keeps_everything():
    bad = review(False, 0.2, [issue(description="No document gives this torque")])
    reflection, gen, rev = loop(["Torque 120 [1].", "Torque 125 [1].", "Torque 130 [1]."], [bad, bad, bad],
                                max_rounds=2)
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "refused" and result.iterations == 2 and len(result.reviews) == 3
    assert result.refusal_reason.startswith("I could not verify an answer from the documents: ")
    assert "No document gives this torque" in result.refusal_reason and result.final == result.refusal_reason
    assert result.draft == "Torque 120 [1]." and result.revised == "Torque 130 [1]."
    assert [r.action for r in result.rounds] == ["revised", "revised", "refused"]
    assert gen.pending == rev.pending == 0


@pytest.mark.parametrize("bad_reply", [
    {"tool_use": {"name": "submit_review", "input": {"valid": "yes", "confidence": 2}}},
    "I think the answer is fine.",
    {"tool_use": {"name": "other_tool", "input": {}}},
])
def test_malformed_review_becomes_a_format_issue_not_a_crash(bad_reply):
    reflection, gen, rev = loop(["Torque the axle nut to 150 lbf.ft [1]."], [bad_reply], max_rounds=0)
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "refused"
    assert [i.type for i in result.reviews[0].issues] == ["format"] and result.reviews[0].valid is False
    assert "format" in result.refusal_reason


JSON_OUTPUT = ModelCapabilities(listed=True, json_output=True, thinking_types=frozenset({"adaptive", "between_tools"}))
PASSING = {"valid": True, "issues": [], "corrections": [], "confidence": 0.99, "reasoning": "all supported"}


def test_reviewer_uses_structured_outputs_when_the_model_takes_them():
    rev = ScriptedProvider([json.dumps(PASSING)], name="rev", capabilities=JSON_OUTPUT)
    reflection = ReflectionLoop(LLMGenerator(ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1]."]), "gen"),
                                LLMReviewer(rev, "rev-model"))
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "success"
    call = rev.calls[0]
    assert call["output_format"] == REVIEW_SCHEMA and call["tools"] == [] and call["tool_choice"] is None
    assert "submit_review fields" in call["system"] and "calling the submit_review tool" not in call["system"]


@pytest.mark.parametrize("capabilities", [None, JSON_OUTPUT], ids=["forced-tool", "json-output"])
def test_a_refused_review_is_not_a_pass_even_when_it_reads_as_one(capabilities):
    looks_fine = (ToolUseBlock("t1", "submit_review", PASSING) if capabilities is None
                  else TextBlock(json.dumps(PASSING)))
    refused = ChatResponse((looks_fine,), "refusal", refusal=Refusal("general_harms", ""))
    gen = ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1]."])
    rev = ScriptedProvider([refused], name="rev", capabilities=capabilities)
    result = ReflectionLoop(LLMGenerator(gen, "gen"), LLMReviewer(rev, "rev-model"), max_rounds=0).run(
        QUESTION, EVIDENCE, INTENT)
    assert result.status == "refused" and result.reviews[0].valid is False
    assert [i.type for i in result.reviews[0].issues] == ["format"]
    assert "declined while filling 'submit_review'" in result.refusal_reason and "general_harms" in result.refusal_reason


def test_a_review_cut_off_at_max_tokens_is_not_a_pass():
    cut = ChatResponse((TextBlock('{"valid": true, "issues": [], "corrections": [], "confidence": 0.99'),),
                       "max_tokens")
    rev = ScriptedProvider([cut], name="rev", capabilities=JSON_OUTPUT)
    reviewer = LLMReviewer(rev, "rev-model", max_tokens=300)
    review = reviewer.review(QUESTION, EVIDENCE, "Torque the axle nut to 150 lbf.ft [1].")
    assert review.valid is False and review.confidence < 0.9
    assert "cut off at max_tokens=300" in review.issues[0].description


@pytest.mark.parametrize("reply, error, words", [
    (ChatResponse((TextBlock("I can't help with"),), "refusal", refusal=Refusal("cyber", "Declined.")),
     ModelRefusalError, "declined while writing the draft answer (stop_reason refusal: cyber: Declined.)"),
    (ChatResponse((TextBlock("Torque the axle nut to"),), "max_tokens"), OutputCutOffError,
     "cut off at max_tokens=1024 while writing the draft answer"),
])
def test_a_refused_or_cut_off_draft_is_an_engine_error_not_an_answer(reply, error, words):
    generator = LLMGenerator(ScriptedProvider([reply], name="scripted"), "gen-model")
    with pytest.raises(error) as caught:
        generator.draft(QUESTION, EVIDENCE, INTENT)
    assert isinstance(caught.value, EngineError) and words in str(caught.value)
    assert str(caught.value).startswith("scripted:gen-model ")


def test_no_evidence_refuses_without_calling_a_model():
    reflection, gen, rev = loop([], [])
    result = reflection.run(QUESTION, [], INTENT)
    assert result.status == "refused" and "no evidence" in result.refusal_reason
    assert gen.calls == [] and rev.calls == []


@pytest.mark.parametrize("kwargs", [{"max_rounds": -1}, {"max_rounds": "2"}, {"max_rounds": True},
                                    {"threshold": 1.5}, {"threshold": -0.1}, {"mode": "triple"}])
def test_constructor_rejects_bad_settings(kwargs):
    gen = LLMGenerator(ScriptedProvider())
    with pytest.raises(ValueError):
        ReflectionLoop(gen, LLMReviewer(ScriptedProvider()), **kwargs)


def test_constructor_rejects_parts_without_the_protocol():
    with pytest.raises(TypeError, match="generator"):
        ReflectionLoop(object(), LLMReviewer(ScriptedProvider()))  # type: ignore[arg-type]


def test_dual_mode_uses_two_models_and_single_mode_one():
    provider = ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1].", review()])
    dual = build_reflection("scripted", "dual", provider=provider, generator_model="big", reviewer_model="small")
    dual.run(QUESTION, EVIDENCE, INTENT)
    assert [c["model"] for c in provider.calls] == ["big", "small"] and dual.mode == "dual"

    provider = ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1].", review()])
    single = build_reflection("scripted", "single", provider=provider, generator_model="one")
    result = single.run(QUESTION, EVIDENCE, INTENT)
    assert [c["model"] for c in provider.calls] == ["one", "one"] and result.mode == "single"
    assert single.generator.provider is single.reviewer.provider


def test_provider_label_names_the_models_the_parts_call():
    provider = ScriptedProvider()
    dual = build_reflection("scripted", provider=provider, generator_model="big", reviewer_model="small")
    single = build_reflection("scripted", "single", provider=provider, generator_model="one")
    assert dual.provider_label("scripted") == "scripted:big / scripted:small"
    assert single.provider_label("scripted") == "scripted:one"
    assert build_reflection("scripted", provider=provider).provider_label("scripted") == "scripted"
    assert build_reflection("offline").provider_label("offline") == "offline"


def test_dual_mode_accepts_a_separate_reviewer_provider():
    gen, rev = ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1]."]), ScriptedProvider([review()])
    build_reflection("scripted", provider=gen, reviewer_provider=rev).run(QUESTION, EVIDENCE, INTENT)
    assert len(gen.calls) == len(rev.calls) == 1


def test_factory_builds_offline_parts_and_rejects_bad_modes():
    dual = build_reflection("offline", "dual")
    assert isinstance(dual.generator, OfflineGenerator) and isinstance(dual.reviewer, OfflineReviewer)
    single = build_reflection("offline", "single", max_rounds=1, threshold=0.8)
    assert isinstance(single.generator, OfflineSelfReviewer) and single.generator is single.reviewer
    assert single.describe()["max_rounds"] == 1
    assert isinstance(build_reflection(None), ReflectionLoop)  # no key in tests: offline
    with pytest.raises(ConfigError, match="dual"):
        build_reflection("offline", "triple")
    with pytest.raises(MissingKeyError):
        build_reflection("anthropic:claude-sonnet-4-5")


def test_eval_reviewer_does_not_require_citations():
    provider = ScriptedProvider([review()])
    reviewer = eval_reviewer("scripted", provider=provider)
    reviewer.review("q", EVIDENCE, "An answer without markers.")
    prompt = provider.calls[0]["messages"][0]["content"]
    assert "do not report missing citations" in prompt
    assert eval_reviewer("offline").require_citations is False


def test_a_revision_that_changes_nothing_ends_the_loop_early():
    bad = review(False, 0.2, [issue(description="No document gives this torque")])
    reflection, gen, rev = loop(["Torque 120 [1].", "Torque 120 [1]."], [bad], max_rounds=3)
    result = reflection.run(QUESTION, EVIDENCE, INTENT)
    assert result.status == "refused" and len(rev.calls) == 1 and len(gen.calls) == 2
    assert [r.action for r in result.rounds] == ["refused"] and result.iterations == 0
