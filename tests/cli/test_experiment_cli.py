"""``experiment`` and ``rollout`` commands in-process, on a fake pipeline."""

from __future__ import annotations


import pytest

from tests.helpers import run_json

from engine.cli import main
from engine.experiments import runner
from tests.experiments.fakes import FakePipeline, reflection_respond

pytestmark = pytest.mark.unit




@pytest.fixture()
def pipeline(monkeypatch) -> FakePipeline:
    fake = FakePipeline(reflection_respond)
    monkeypatch.setattr(runner, "build_pipeline", lambda settings: fake)
    return fake


@pytest.fixture()
def data_dir(tmp_path) -> str:
    return str(tmp_path / "data")


@pytest.fixture()
def questions(tmp_path) -> str:
    path = tmp_path / "qs.txt"
    path.write_text("# comment\nOne?\nTwo??\nThree\n", encoding="utf-8")
    return str(path)


def test_run_list_show_json(capsys, pipeline, data_dir, questions):
    code, out = run_json(capsys, "experiment", "run", "--questions", questions, "--variant", "reflection",
                         "--seed", "3", "--resamples", "200", "--provider", "offline", "--data-dir", data_dir)
    assert code == 0 and out["source"] == "file:qs.txt" and out["questions"] == ["One?", "Two??", "Three"]
    assert (out["variant_a"]["name"], out["variant_b"]["name"]) == ("reflection off", "reflection on")
    assert len(out["records"]) == 6 and all(r["trace_id"] for r in out["records"])
    assert {o.provider for _, o in pipeline.calls} == {"offline"}
    assert out["saved_to"].endswith(f"experiment {out['id']}")
    code, listed = run_json(capsys, "experiment", "list", "--data-dir", data_dir)
    assert [e["id"] for e in listed["experiments"]] == [out["id"]]
    code, shown = run_json(capsys, "experiment", "show", out["id"], "--data-dir", data_dir)
    assert shown["diffs"] == out["diffs"] and shown["seed"] == 3


def test_mode_and_limit(capsys, pipeline, data_dir, questions):
    code, out = run_json(capsys, "experiment", "run", "--questions", questions, "--variant", "mode", "--limit", "2",
                         "--resamples", "50", "--data-dir", data_dir)
    assert code == 0 and len(out["questions"]) == 2
    assert (out["variant_a"]["options"]["mode"], out["variant_b"]["options"]["mode"]) == ("single", "dual")


def test_strategy_versions_checked_first(capsys, pipeline, data_dir, questions):
    from engine.orchestration import StrategyStore
    from engine.orchestration.strategy import Strategy

    store = StrategyStore(data_dir)
    v1, v2 = store.save(Strategy(), note="a"), store.save(Strategy(), note="b")
    code, out = run_json(capsys, "experiment", "run", "--questions", questions, "--variant", "strategy",
                         "--a", v1, "--b", v2, "--resamples", "50", "--data-dir", data_dir)
    assert code == 0 and {o.strategy_version for _, o in pipeline.calls} == {v1, v2}
    pipeline.calls.clear()
    code, out = run_json(capsys, "experiment", "run", "--questions", questions, "--variant", "strategy",
                         "--a", v1, "--b", "20990101T000000000000Z", "--data-dir", data_dir)
    assert code == 1 and out["ok"] is False and "does not exist" in out["error"] and not pipeline.calls
    code, out = run_json(capsys, "experiment", "run", "--questions", questions, "--variant", "strategy",
                         "--data-dir", data_dir)
    assert code == 1 and "--a VERSION --b VERSION" in out["error"]


def test_text_output_and_progress(capsys, pipeline, data_dir, questions):
    assert main(["experiment", "run", "--questions", questions, "--variant", "reflection", "--resamples", "50",
                 "--data-dir", data_dir]) == 0
    captured = capsys.readouterr()
    assert "validation pass rate" in captured.out and "95% CI" in captured.out and "saved to" in captured.out
    assert "[6/6]" in captured.err
    assert main(["experiment", "list", "--data-dir", data_dir]) == 0
    assert "reflection off" in capsys.readouterr().out


def test_missing_questions_and_empty_list(capsys, pipeline, data_dir):
    code, out = run_json(capsys, "experiment", "run", "--questions", "nope.txt", "--variant", "reflection",
                         "--data-dir", data_dir)
    assert code == 1 and "'samples' or 'traces'" in out["error"]
    code, out = run_json(capsys, "experiment", "list", "--data-dir", data_dir)
    assert out == {"experiments": []}
    code, out = run_json(capsys, "experiment", "show", "20000101T000000Z-000000", "--data-dir", data_dir)
    assert code == 1 and "experiment list" in out["error"]


def test_rollout_get_set(capsys, data_dir):
    code, out = run_json(capsys, "rollout", "get", "--data-dir", data_dir)
    assert code == 0 and out["share"] == 100.0 and out["updated_at"] is None
    code, out = run_json(capsys, "rollout", "set", "25%", "--data-dir", data_dir)
    assert code == 0 and out["share"] == 25.0 and out["label"] == "25%"
    code, out = run_json(capsys, "rollout", "get", "--data-dir", data_dir)
    assert out["share"] == 25.0 and out["updated_at"]
    code, out = run_json(capsys, "rollout", "set", "140", "--data-dir", data_dir)
    assert code == 1 and "0 to 100" in out["error"]
    assert main(["rollout", "get", "--data-dir", data_dir]) == 0
    assert "25% of Ask traffic" in capsys.readouterr().out


def test_samples_and_traces_sources(capsys, pipeline, data_dir):
    code, out = run_json(capsys, "experiment", "run", "--questions", "samples", "--limit", "2", "--variant",
                         "reflection", "--resamples", "20", "--data-dir", data_dir)
    assert code == 0 and out["source"] == "samples" and len(out["questions"]) == 2
    from engine.tracing import TraceStore

    TraceStore(data_dir).save({"trace_id": "x1", "question": "From a trace?", "status": "success"})
    code, out = run_json(capsys, "experiment", "run", "--questions", "traces", "--variant", "mode",
                         "--resamples", "20", "--data-dir", data_dir)
    assert code == 0 and out["source"] == "traces" and out["questions"] == ["From a trace?"]
