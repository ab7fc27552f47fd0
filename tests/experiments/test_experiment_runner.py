"""Running both variants over a question set, progress, failures, storage and tables."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from sqlalchemy import insert

from engine.database import Database
from engine.database.tables import experiments

from engine.errors import EngineError
from engine.experiments import (
    ExperimentError, ExperimentResult, ExperimentRunner, ExperimentStore, QuestionSet, Variant, run_experiment,
    variant_pair,
)
from engine.pipeline.options import AskOptions
from tests.experiments.fakes import FakePipeline, make_answer

pytestmark = pytest.mark.unit

QUESTIONS = QuestionSet("file:qs.txt", ("Odd?", "Even??", "Three", "Four", "Five!"))


def test_runs_every_question_in_both_arms(fake_pipeline):
    seen = []
    result = run_experiment(fake_pipeline, QUESTIONS, *variant_pair("reflection"), seed=1, n_resamples=200,
                            progress=lambda i, arm, answer: seen.append((i, arm, answer.status)))
    assert len(fake_pipeline.calls) == 10 and len(result.records) == 10
    assert [(i, arm) for i, arm, _ in seen][:4] == [(0, "A"), (0, "B"), (1, "B"), (1, "A")]  # order alternates
    assert {opts.reflection for q, opts in fake_pipeline.calls if opts.rollout_bucket.endswith(":B")} == {True}
    assert all(o.rollout_bucket == f"experiment:{result.id}:{'B' if o.reflection else 'A'}"
               for _, o in fake_pipeline.calls)
    assert result.source == "file:qs.txt" and result.paired and result.failures == 0
    assert result.arm("B").values["validation_pass_rate"] == 1.0
    assert result.arm("A").values["validation_pass_rate"] == 0.6  # Odd?, Even?? and Four have even lengths
    assert result.diff("validation_pass_rate").diff == pytest.approx(0.4)
    assert result.diff("latency_p50_ms").diff == 200.0
    assert len(result.trace_ids()) == 10 and len(result.trace_ids("A")) == 5


def test_failures_are_counted_not_fatal():
    def respond(question, options):
        if question == "crash" and options.reflection:
            raise RuntimeError("bug in reviewer")
        if question == "engine":
            raise EngineError("store is locked; retry")
        return make_answer(question)

    pipeline = FakePipeline(respond)
    result = ExperimentRunner(pipeline, *variant_pair("reflection"), n_resamples=100).run(
        ["ok", "crash", "engine", "  "])
    assert len(result.questions) == 3  # blank lines are dropped
    assert (result.arm("A").failures, result.arm("B").failures) == (1, 2)
    errors = {(r.question, r.arm): r.error for r in result.records if r.error}
    assert errors[("crash", "B")] == "Internal error (RuntimeError: bug in reviewer)"
    assert errors[("engine", "A")] == "store is locked; retry"
    assert result.diff("failure_rate").diff == pytest.approx(1 / 3, abs=1e-6)


def test_limit_and_empty_sets(fake_pipeline):
    result = run_experiment(fake_pipeline, QUESTIONS, *variant_pair("mode"), limit=2, n_resamples=50)
    assert result.questions == ("Odd?", "Even??") and len(fake_pipeline.calls) == 4
    assert {o.mode for _, o in fake_pipeline.calls} == {"single", "dual"}
    with pytest.raises(ExperimentError, match="no questions"):
        run_experiment(fake_pipeline, [], *variant_pair("mode"))


def test_variant_bucket_is_kept_when_set(fake_pipeline):
    a = Variant("control", AskOptions(reflection=False, rollout_bucket="mine"))
    run_experiment(fake_pipeline, ["q"], a, Variant.reflection(True), n_resamples=10)
    assert [o.rollout_bucket for _, o in fake_pipeline.calls][0] == "mine"


def test_runner_rejects_bad_settings(fake_pipeline):
    a, b = variant_pair("reflection")
    with pytest.raises(ExperimentError, match="run"):
        ExperimentRunner(object(), a, b)
    with pytest.raises(ExperimentError, match="2000"):
        ExperimentRunner(fake_pipeline, a, b, n_resamples=0)


def test_result_serialises_and_tabulates(fake_pipeline):
    result = run_experiment(fake_pipeline, QUESTIONS, *variant_pair("reflection"), n_resamples=100)
    text = json.dumps(result.to_dict(), allow_nan=False)
    assert ExperimentResult.from_dict(json.loads(text)) == result
    metrics = pd.DataFrame(result.rows())
    assert list(metrics["metric"])[:2] == ["validation_pass_rate", "review_issues_per_answer"]
    assert {"A", "B", "diff", "ci_low", "ci_high", "verdict"} <= set(metrics.columns)
    answers = pd.DataFrame(result.answer_rows())
    assert len(answers) == 10 and set(answers["variant"]) == {"reflection off", "reflection on"}
    assert answers["trace_id"].str.len().min() > 0


def test_store_saves_lists_and_loads(tmp_path, fake_pipeline):
    store = ExperimentStore(tmp_path)
    assert store.list() == []
    first = run_experiment(fake_pipeline, QUESTIONS, *variant_pair("reflection"), n_resamples=50, store=store)
    second = ExperimentRunner(fake_pipeline, *variant_pair("mode"), n_resamples=50).run(
        QUESTIONS, experiment_id="99990101T000000Z-ffffff")
    store.save(second)
    assert ExperimentStore(Database(f"sqlite:///{tmp_path / 'workbench.db'}")).get(first.id) == first
    listed = store.list()
    assert [s["id"] for s in listed] == [second.id, first.id]  # newest first; same second: by id
    assert listed[0].keys() >= {"id", "created_at", "source", "variant_a", "variant_b", "questions", "failures"}
    with store.db.begin() as conn:
        conn.execute(insert(experiments).values(id="broken", created_at="9999", result="{"))
    assert len(store.list()) == 2 and len(store.list(limit=1)) == 1
    with pytest.raises(ExperimentError, match="cannot be read"):
        store.get("broken")
    with pytest.raises(ExperimentError, match="experiment list"):
        store.get("20000101T000000Z-000000")
    with pytest.raises(ExperimentError, match="not an experiment id"):
        store.get("../escape")
    assert store.delete(first.id) and not store.delete(first.id)
