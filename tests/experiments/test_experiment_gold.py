"""A/B over a question file with gold answers: answered accuracy, refusal recall and coverage per arm."""

from __future__ import annotations

import json

import pytest

from engine.evaluation.qa import score
from engine.experiments import (
    MIN_PAIRED_QUESTIONS, ExperimentError, ExperimentResult, QuestionSet, compare_arms, run_experiment,
    variant_pair,
)
from engine.pipeline.options import AskOptions
from tests.experiments.fakes import FakePipeline, make_answer

pytestmark = pytest.mark.unit


def gold_file(n_answerable: int, n_unanswerable: int) -> bytes:
    rows = [{"id": f"a{i}", "question": f"What is the torque of part {i}?", "answers": [f"{100 + i} N.m"],
             "answerable": True} for i in range(n_answerable)]
    rows += [{"id": f"u{i}", "question": f"What colour is hangar {i}?", "answers": [], "answerable": False}
             for i in range(n_unanswerable)]
    return "\n".join(json.dumps(r) for r in rows).encode()


def respond(question: str, options: AskOptions):
    """Reflection on: right values and refusals; off: a wrong value on every other answerable question and
    an answer to every unanswerable one."""
    number = int(question.split()[-1].rstrip("?"))
    if question.startswith("What colour"):
        if options.reflection:
            return make_answer(question, status="refused", final="The documents do not say.")
        return make_answer(question, final="Hangar walls are grey.")
    if options.reflection or number % 2 == 0:
        return make_answer(question, final=f"The torque is {100 + number} n.m [1].")
    return make_answer(question, final=f"The torque is {999} N.m [1].")


def test_a_gold_question_file_keeps_its_answers_and_limit_cuts_both():
    questions = QuestionSet.from_upload("gold.jsonl", gold_file(3, 1))
    assert len(questions) == 4 and len(questions.gold) == 4
    assert questions.gold[0].answers == ("100 N.m",) and questions.gold[3].answerable is False
    cut = questions.limited(2)
    assert cut.questions == questions.questions[:2] and cut.gold == questions.gold[:2]
    assert QuestionSet.from_upload("plain.jsonl", b'{"question": "Why?"}\n').gold == ()


def test_a_file_with_gold_on_some_rows_only_is_refused():
    mixed = gold_file(1, 0) + b'\n{"question": "no gold here"}\n'
    with pytest.raises(ExperimentError, match="answers"):
        QuestionSet.from_upload("mixed.jsonl", mixed)


def test_each_arm_is_scored_against_the_gold_answers():
    questions = QuestionSet.from_upload("gold.jsonl", gold_file(6, 4))
    result = run_experiment(FakePipeline(respond), questions, *variant_pair("reflection"), n_resamples=200)
    off, on = result.arm("A").values, result.arm("B").values
    assert (off["answered_accuracy"], off["refusal_recall"], off["coverage"]) == (0.5, 0.0, 1.0)
    assert (on["answered_accuracy"], on["refusal_recall"], on["coverage"]) == (1.0, 1.0, 1.0)
    assert result.diff("answered_accuracy").diff == 0.5 and result.diff("refusal_recall").diff == 1.0
    b_rows = [r for r in result.records if r.arm == "B"]
    assert [r.correct for r in b_rows][:6] == [True] * 6 and all(r.answerable is False for r in b_rows[6:])
    rows = [{"answerable": r.answerable, "answered": r.status == "success", "correct": bool(r.correct),
             "chars": 0, "seconds": 0.0} for r in result.records if r.arm == "A"]
    assert score(rows)["answered_accuracy"] == off["answered_accuracy"]  # the eval qa scoring itself


def test_fewer_than_twenty_paired_questions_get_no_interval_and_no_verdict():
    questions = QuestionSet.from_upload("gold.jsonl", gold_file(6, 4))
    result = run_experiment(FakePipeline(respond), questions, *variant_pair("reflection"), n_resamples=200)
    assert MIN_PAIRED_QUESTIONS == 20
    for diff in result.diffs:
        assert diff.ci_low is None and diff.ci_high is None and not diff.significant, diff
        assert diff.verdict == "too few questions to judge"
    assert "10 paired questions" in result.interval_note and "20" in result.interval_note
    again = ExperimentResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.interval_note == result.interval_note and again.records == result.records


def test_twenty_paired_questions_get_intervals_and_a_verdict():
    questions = QuestionSet.from_upload("gold.jsonl", gold_file(12, 8))
    result = run_experiment(FakePipeline(respond), questions, *variant_pair("reflection"), n_resamples=300)
    assert result.interval_note == ""
    accuracy, recall = result.diff("answered_accuracy"), result.diff("refusal_recall")
    assert accuracy.ci_low is not None and accuracy.ci_low <= accuracy.diff <= accuracy.ci_high
    assert accuracy.verdict == "B better" and recall.verdict == "B better"


def test_without_gold_no_gold_metrics_are_reported():
    questions = QuestionSet("list", tuple(f"What is the torque of part {i}?" for i in range(3)))
    result = run_experiment(FakePipeline(respond), questions, *variant_pair("reflection"), n_resamples=50)
    assert "answered_accuracy" not in result.arm("A").values
    with pytest.raises(ExperimentError):
        result.diff("answered_accuracy")


def test_compare_arms_withholds_intervals_below_the_minimum():
    a = [make_answer(f"q{i}", valid=False) for i in range(5)]
    b = [make_answer(f"q{i}", valid=True) for i in range(5)]
    from engine.experiments import AnswerRecord

    ra = [AnswerRecord.from_answer(i, "A", x) for i, x in enumerate(a)]
    rb = [AnswerRecord.from_answer(i, "B", x) for i, x in enumerate(b)]
    withheld = {d.metric: d for d in compare_arms(ra, rb, n_resamples=100).diffs}["validation_pass_rate"]
    assert withheld.diff == 1.0 and withheld.ci_low is None and withheld.verdict == "too few questions to judge"
    shown = {d.metric: d for d in compare_arms(ra, rb, n_resamples=100, min_questions=1).diffs}
    assert shown["validation_pass_rate"].verdict == "B better"
