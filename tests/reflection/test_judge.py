"""The reviewer's support judge: the offline judge's checks, its settings, swapping in another judge
(a recording stub, an LLM judge on a scripted provider), and independence from the generator's scores."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from engine.llm.base import ChatResponse, TextBlock
from engine.llm.capabilities import ModelCapabilities
from engine.llm.scripted import ScriptedProvider
from engine.offline.judge import JudgeConfig, OfflineJudge
from engine.offline.reviewer import OfflineReviewer
from engine.reflection import Judgement, SupportJudge
from engine.reflection.llm_judge import LLMJudge
from engine.offline.support import EvidenceIndex
from engine.language.tokens import words
from tests.reflection.builders import evidence

pytestmark = pytest.mark.unit
HOURS = "What do the documents say about opening hours?"


class BagOfWords:
    """Deterministic hashed bag-of-words vectors (no model)."""

    def encode(self, texts):
        rows = np.zeros((len(texts), 256), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                rows[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge(BagOfWords())


def test_the_offline_judge_is_a_support_judge_and_checks_its_settings(judge):
    assert isinstance(judge, SupportJudge)
    with pytest.raises(ValueError, match="sum to 1"):
        JudgeConfig(coverage_weight=0.9, similarity_weight=0.4)
    with pytest.raises(ValueError, match="threshold"):
        JudgeConfig(threshold=1.0)
    with pytest.raises(TypeError, match="judge"):
        OfflineReviewer(BagOfWords(), judge=object())


def test_a_supported_statement_names_its_best_sentence(judge):
    sentences = ["The museum opens at 9 am.", "Bake the loaf for 40 minutes at 200 degrees."]
    verdict = judge.judge("Bake the loaf for 40 minutes [2].", sentences)
    assert verdict.supported and verdict.best == sentences[1] and verdict.findings == ()
    assert set(verdict.signals) == {"coverage", "similarity", "alignment"}


@pytest.mark.parametrize("statement, evidence_, kind, replacement", [
    ("The torque is 300 N.m.", ["The torque is 270 N.m; the pressure is 300 psi."], "unit", "270 N.m"),
    ("The A320 limit is 300 N.m.", ["The B737 limit is 300 N.m.", "The A320 limit is 270 N.m."], "subject", "270 N.m"),
    ("The torque is 310 N.m.", ["The torque is 270 N.m."], "number", "270 N.m"),
    ("The part is not approved.", ["The part is approved."], "negation", ""),
    ("The part is approved.", ["The part is not approved."], "negation", ""),
    ("Fault E4028 means a sensor fault.", ["Fault E4027 means a sensor fault."], "name", ""),
])
def test_each_hard_check_gives_a_finding(judge, statement, evidence_, kind, replacement):
    verdict = judge.judge(statement, evidence_)
    assert not verdict.supported
    assert [f.kind for f in verdict.findings] == [kind], verdict.findings
    assert verdict.findings[0].replacement == replacement


def test_the_threshold_is_configurable():
    sentences = ["Preheat the oven to 180 degrees before you put the tray in."]
    statement = "Heat the oven to 180 degrees before the tray goes in."
    assert OfflineJudge(BagOfWords()).judge(statement, sentences).supported
    strict = OfflineJudge(BagOfWords(), config=JudgeConfig(threshold=0.95))
    verdict = strict.judge(statement, sentences)
    assert not verdict.supported and "below 0.95" in verdict.reasons[-1]


def test_no_evidence_is_no_support(judge):
    assert not judge.judge("The torque is 300 N.m.", []).supported


class RecordingJudge:
    """Says what it was told to, and records what it was asked."""

    def __init__(self, supported: bool) -> None:
        self.supported = supported
        self.calls: list[tuple[str, list[str]]] = []

    def judge(self, statement, evidence_sentences):
        self.calls.append((statement, list(evidence_sentences)))
        return Judgement(self.supported, 0.9 if self.supported else 0.1, evidence_sentences[-1],
                         () if self.supported else ("the recording judge says no",))


def test_the_reviewer_asks_the_judge_it_is_given():
    doc = evidence("doc#1", "The museum opens at 9 am.", "Museum hours")
    no = RecordingJudge(False)
    review = OfflineReviewer(BagOfWords(), judge=no).review(HOURS, [doc], "The museum opens at 9 am [1].")
    assert not review.valid and review.issues[0].type == "fact"
    assert "the recording judge says no" in review.issues[0].description
    assert no.calls[0] == ("The museum opens at 9 am.", ["Museum hours", "The museum opens at 9 am."])
    yes = RecordingJudge(True)
    assert OfflineReviewer(BagOfWords(), judge=yes).review(HOURS, [doc], "The museum opens at 9 am [1].").valid


def test_the_reviewer_never_uses_the_generators_support_scores(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the reviewer must judge with its own judge")

    monkeypatch.setattr(EvidenceIndex, "support", refuse)
    monkeypatch.setattr(EvidenceIndex, "best_single", refuse)
    docs = [evidence("a#1", "The museum opens at 9 am.", "Hours"), evidence("b#1", "The zoo opens at 10 am.", "Zoo")]
    reviewer = OfflineReviewer(BagOfWords())
    assert reviewer.review(HOURS, docs, "The zoo opens at 10 am [2].").valid
    assert not reviewer.review(HOURS, docs, "The zoo opens at 10 am [1].").valid  # redirected by the judge
    assert not reviewer.review(HOURS, docs, "The zoo opens at 10 am.").valid  # uncited


def verdict(supported=True, score=0.9, best="The museum opens at 9 am.", reasons=()):
    return {"tool_use": {"name": "submit_judgement", "input": {
        "supported": supported, "score": score, "best": best, "reasons": list(reasons)}}}


def test_the_llm_judge_forces_one_tool_call_and_reads_it():
    provider = ScriptedProvider([verdict(best="the museum opens at 9 am")])
    judge = LLMJudge(provider, "small-model")
    found = judge.judge("The museum opens at 9 am [1].", ["Museum hours", "The museum opens at 9 am."])
    assert isinstance(judge, SupportJudge) and judge.name == "scripted:small-model"
    assert found == Judgement(True, 0.9, "The museum opens at 9 am.")
    call = provider.calls[0]
    assert call["tool_choice"] == {"type": "tool", "name": "submit_judgement"} and call["model"] == "small-model"
    prompt = call["messages"][0]["content"]
    assert "The museum opens at 9 am." in prompt and "[2] The museum opens at 9 am." in prompt and "[1]." not in prompt


def test_unusable_llm_judge_output_is_no_support():
    judge = LLMJudge(ScriptedProvider(["I think it is fine."]))
    found = judge.judge("The museum opens at 9 am.", ["The museum opens at 9 am."])
    assert not found.supported and "not usable" in found.reasons[0]


def test_the_offline_reviewer_runs_on_an_llm_judge():
    provider = ScriptedProvider([verdict(False, 0.2, "", ["the evidence gives 9 am, not 8 am"])])
    reviewer = OfflineReviewer(BagOfWords(), judge=LLMJudge(provider))
    review = reviewer.review(HOURS, [evidence("a#1", "The museum opens at 9 am.", "")], "It opens at 8 am [1].")
    assert not review.valid and "the evidence gives 9 am, not 8 am" in review.issues[0].description
    assert len(provider.calls) == 1  # one chunk: the search for a better citation reuses its judgement


def test_the_llm_judge_uses_structured_outputs_and_a_refusal_is_no_support():
    capabilities = ModelCapabilities(listed=True, json_output=True, thinking_types=frozenset({"adaptive"}))
    answer = '{"supported": true, "score": 0.95, "best": "The museum opens at 9 am.", "reasons": []}'
    provider = ScriptedProvider([answer, ChatResponse((TextBlock(answer),), "refusal")], capabilities=capabilities)
    judge = LLMJudge(provider, "small-model")

    found = judge.judge("The museum opens at 9 am [1].", ["The museum opens at 9 am."])
    assert found == Judgement(True, 0.95, "The museum opens at 9 am.")
    assert provider.calls[0]["output_format"]["required"] == ["supported", "score", "best", "reasons"]
    assert provider.calls[0]["tool_choice"] is None and provider.calls[0]["tools"] == []

    refused = judge.judge("The museum opens at 9 am [1].", ["The museum opens at 9 am."])
    assert not refused.supported and "declined" in refused.reasons[0]
