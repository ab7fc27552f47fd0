"""Experiments page: a tiny A/B on the offline provider shows the metrics table and charts; rollout share saves."""

from __future__ import annotations

import pytest

from engine.experiments import ExperimentStore, RolloutStore
from tests.ui.conftest import open_page

pytestmark = pytest.mark.integration


def _experiments(app):
    at = open_page(app, "experiments")
    assert not at.exception
    return at


def _frame(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.slow
def test_tiny_ab_shows_metrics_and_charts(app, ui_data_dir):
    at = _experiments(app)
    at.radio(key="experiments.source").set_value("upload").run()
    at.file_uploader(key="experiments.file").set_value(("two.txt", (
        b"# two questions\n"
        b"What is the current final torque for the A320 main landing gear wheel axle nut according to the AMM?\n"
        b"Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.\n"
    ), "text/plain")).run()
    at.number_input(key="experiments.limit").set_value(2).run()
    assert not at.button(key="experiments.run").disabled
    at.button(key="experiments.run").click().run()
    assert not at.exception
    assert at.progress[0].value == 100

    metrics = _frame(at, "verdict")
    assert {"validation pass rate", "review issues per answer", "refusal rate", "mean iterations",
            "latency p50 (ms)", "latency p95 (ms)"} <= set(metrics["metric"])
    assert any(c.endswith("CI") for c in metrics.columns)
    counts = _frame(at, "refused")
    assert list(counts["answers"]) == [2, 2]
    assert list(counts["variant"]) == ["reflection off", "reflection on"]
    assert len(at.get("plotly_chart")) == 3
    subheaders = [h.value for h in at.subheader]
    assert "Against the gold answers" not in subheaders  # no gold answers: the charts are not filed under them
    assert subheaders.index("Why the arms differ, or do not") < subheaders.index("Charts")
    assert metrics["what it measures"].str.len().gt(0).all()
    why = " ".join(m.value for m in at.markdown)
    assert "0 by design" in why and "both arms ended the same way" in why and "Without gold answers" in why
    answers = _frame(at, "trace")
    assert len(answers) == 4 and answers["trace"].str.len().gt(0).all()
    saved = ExperimentStore(ui_data_dir).list()
    assert len(saved) == 1 and saved[0]["questions"] == 2

    at.run()  # a rerun shows the same result without running anything again
    assert len(ExperimentStore(ui_data_dir).list()) == 1 and _frame(at, "verdict").equals(metrics)


def test_bad_question_file_is_explained(app):
    at = _experiments(app)
    at.radio(key="experiments.source").set_value("upload").run()
    at.file_uploader(key="experiments.file").set_value(("q.jsonl", b'{"text": "no question field"}\n',
                                                        "application/json")).run()
    assert not at.exception
    assert any("question" in e.value for e in at.error)
    assert at.button(key="experiments.run").disabled


def test_strategy_variants_and_rollout_share(app, ui_data_dir):
    at = _experiments(app)
    at.radio(key="experiments.kind").set_value("strategy").run()
    assert at.selectbox(key="experiments.strategy_a").options[0].startswith("the active version")
    at.slider(key="experiments.rollout_share").set_value(30).run()
    at.button(key="experiments.rollout_save").click().run()
    assert not at.exception
    assert RolloutStore(ui_data_dir).get().share == 30
    assert any("30%" in s.value for s in at.success)


GOLD = (
    b'{"id": "torque", "question": "What is the current final torque for the A320 main landing gear wheel axle nut '
    b'according to the AMM?", "answers": ["325 N.m"], "answerable": true}\n'
    b'{"id": "paint", "question": "What colour is the hangar 7 door painted?", "answers": [], "answerable": false}\n'
)


def _upload_gold(at):
    at.radio(key="experiments.source").set_value("upload").run()
    at.file_uploader(key="experiments.file").set_value(("gold.jsonl", GOLD, "application/json")).run()
    assert not at.exception


def test_a_gold_file_is_recognised_and_few_questions_are_warned_of(app):
    at = _experiments(app)
    _upload_gold(at)
    captions = [c.value for c in at.caption]
    assert any("Gold answers for every question (1 answerable, 1 not)" in c for c in captions)
    assert any("fewer than 20" in c and "no confidence interval" in c for c in captions)
    questions = _frame(at, "gold answers")
    assert list(questions["answerable"]) == [True, False] and list(questions["gold answers"])[0] == "325 N.m"


@pytest.mark.slow
def test_ab_over_a_gold_file_scores_each_arm_and_withholds_intervals(app, ui_data_dir):
    at = _experiments(app)
    _upload_gold(at)
    at.number_input(key="experiments.limit").set_value(2).run()
    at.button(key="experiments.run").click().run()
    assert not at.exception

    metrics = _frame(at, "verdict")
    gold = metrics[metrics["metric"].str.endswith("(gold)")]
    assert list(gold["metric"]) == ["answered accuracy (gold)", "refusal recall (gold)", "coverage (gold)"]
    assert set(metrics["verdict"]) == {"too few questions to judge"}
    assert set(metrics[next(c for c in metrics.columns if c.endswith("CI"))]) == {"withheld"}
    assert any("2 paired questions, fewer than 20" in i.value for i in at.info)
    per_arm = _frame(at, "refusal recall")
    assert list(per_arm["arm"]) == ["A", "B"]
    assert per_arm["refusal recall"].between(0, 1).all() and per_arm["coverage"].between(0, 1).all()
    answers = _frame(at, "correct (gold)")
    assert list(answers["answerable (gold)"]).count(False) == 2
